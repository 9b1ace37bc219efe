"""memoryctl ingest input: JSON Lines sessions, a JSON array, LoCoMo samples, bad files; the progress bar."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from memoryd.ctl.ingest import ProgressBar, read_sessions
from memoryd.ctl.render import parse_ref, ref, table

LOCOMO = [
    {
        "sample_id": "s1",
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ana", "text": "one"},
                {"speaker": "Ben", "text": "two"},
                {"speaker": "Ana", "text": "three"},
                {"speaker": "Ana", "text": "four"},
                {"speaker": "Ben", "text": "five", "blip_caption": "a cat"},
            ],
            "session_2": [{"speaker": "Ben", "text": "six"}],
        },
    }
]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_sessions(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "s.jsonl",
        json.dumps(
            {
                "agent_id": "a",
                "conversation_id": "c1",
                "turns": [{"user": "u", "assistant": "v"}],
                "session_date": "2024-03-15",
            }
        )
        + "\n\n"
        + json.dumps({"conversation_id": "c2", "turns": [{"user": "x"}], "skip_extraction": True})
        + "\n",
    )
    first, second = read_sessions(path, default_agent="fallback")
    assert (first.agent_id, first.conversation_id, first.turns) == ("a", "c1", (("u", "v"),))
    assert first.session_time_ms == 1710460800000
    assert (second.agent_id, second.turns, second.skip_extraction) == ("fallback", (("x", ""),), True)


def test_json_array_of_sessions(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "s.json", json.dumps([{"agent_id": "a", "conversation_id": "c", "turns": [{"user": "u"}]}])
    )
    assert [s.conversation_id for s in read_sessions(path)] == ["c"]


def test_locomo_pairs_speakers_and_keeps_sessions_apart(tmp_path: Path) -> None:
    path = _write(tmp_path, "locomo.json", json.dumps(LOCOMO))
    one, two = read_sessions(path)
    assert one.agent_id == "locomo-s1" and one.conversation_id == "s1-session-1"
    assert one.turns == (
        ("Ana: one", "Ben: two"),
        ("Ana: three", ""),
        ("Ana: four", "Ben: five [shares a cat]"),
    )
    assert one.session_time_ms == 1683554160000
    assert two.turns == (("Ben: six", ""),) and two.session_time_ms == 0
    assert read_sessions(path, "locomo", "bench")[0].agent_id == "bench"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"conversation_id": "c", "turns": [{"user": "u"}]}\n', "agent_id is missing"),
        ('{"agent_id": "a", "turns": [{"user": "u"}]}\n', "conversation_id is missing"),
        ('{"agent_id": "a", "conversation_id": "c", "turns": []}\n', "turns must be a non-empty list"),
        (
            '{"agent_id": "a", "conversation_id": "c", "turns": [{"assistant": "v"}]}\n',
            "needs a string 'user'",
        ),
        (
            '{"agent_id": "a", "conversation_id": "c", "turns": [{"user": "u"}], "session_date": "soon"}\n',
            "ISO 8601",
        ),
        ("{not json\n", "line 1: not valid JSON"),
        ("\n\n", "no sessions"),
    ],
)
def test_bad_files_say_where(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_sessions(_write(tmp_path, "bad.jsonl", text))


def test_progress_bar_off_a_terminal_prints_every_tenth() -> None:
    out = io.StringIO()
    bar = ProgressBar(out, 20, "sessions")
    for done in range(21):
        bar.update(done)
    bar.finish()
    lines = out.getvalue().splitlines()
    assert len(lines) == 11 and lines[-1].startswith("[" + "#" * 30 + "] 20/20 sessions")
    silent = io.StringIO()
    ProgressBar(silent, 5, "x", is_enabled=False).update(3)
    assert silent.getvalue() == ""


def test_progress_bar_on_a_terminal_redraws_in_place() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    bar = ProgressBar(out, 4, "sessions", width=4)
    bar.update(2, "10 turns")
    bar.finish()
    assert out.getvalue() == "\r[##--] 2/4 sessions  50%  10 turns\n"


def test_refs_and_tables() -> None:
    assert parse_ref("pinned:12") == ("pinned_fact", 12)
    assert parse_ref("episode:3") == ("episode", 3) and parse_ref("turn:5") == ("transcript", 5)
    assert ref("identity_fact", 7) == "identity_fact:7"
    for bad in ("pinned", "pinned:x", "nope:1", "episode:0"):
        with pytest.raises(ValueError, match="bad item reference"):
            parse_ref(bad)
    out = io.StringIO()
    table(out, ["A", "LONG"], [["x" * 100, "multi\nline"]])
    body = out.getvalue().splitlines()
    assert len(body) == 2 and body[1].endswith("multi line") and "…" in body[1]
