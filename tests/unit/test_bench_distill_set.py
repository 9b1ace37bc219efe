"""bench_distill's `--set`: another frozen set of the distill_set schema is read by name or path, never edited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import bench_distill as bd


def _session(session_id: str, split: str) -> dict[str, object]:
    return {
        "id": session_id,
        "split": split,
        "agent_id": "zoe.home",
        "lang": "en",
        "date": "2026-05-04",
        "turns": [{"user": "Hi, I'm Zoe and I live in Bath.", "assistant": "Hi Zoe!"}],
        "facts": [{"id": f"{session_id}-name", "about": "identity", "match": [["zoe"]]}],
        "allowed": [],
        "supersedes": [],
        "must_not": [{"why": "small_talk", "match": [["weather"]]}],
    }


def test_a_named_set_lives_in_its_own_folder() -> None:
    assert bd.set_path("test", "v3") == bd.REPO / "bench" / "distill_set_v3" / "sessions.jsonl"
    assert bd.set_label("v3") == "v3"


def test_the_main_set_keeps_its_files() -> None:
    assert bd.set_path("test") == bd.set_path("dev") == bd.REPO / "bench" / "distill_set" / "sessions.jsonl"
    assert bd.set_path("dev2") == bd.DEV2_PATH and bd.set_path("dev3") == bd.DEV3_PATH


def test_a_set_given_by_path_is_read_with_its_split(tmp_path: Path) -> None:
    path = tmp_path / "held_out.jsonl"
    rows = [_session("zoe-1", "test"), _session("zoe-2", "test"), _session("zoe-3", "dev")]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    sessions = bd.load_split("test", str(path))
    assert [s.id for s in sessions] == ["zoe-1", "zoe-2"]
    assert bd.set_label(str(path)) == "held_out"
    assert bd.shown_path(path) == str(path)


def test_a_missing_set_is_said_plainly(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no labelled set"):
        bd.load_split("test", str(tmp_path / "absent.jsonl"))


def test_a_run_on_another_set_is_tagged_and_dumped_apart(tmp_path: Path) -> None:
    run = bd.ModelRun("fake", "fake-llm", "test", [], [], [], None, "", labelled_set="v3")
    assert run.tag == "v3/test"
    assert bd.ModelRun("fake", "fake-llm", "test", [], [], [], None, "").tag == "test"
