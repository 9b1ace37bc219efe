"""Export / Import on a real memoryd: Export → ClearAll → Import gives the same rows; re-embedding; bad files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memoryd.domain import KIND_PINNED
from osaurus.memory.v1 import memory_pb2 as mpb
from servicekit.errors import InvalidArgumentError
from tests.fakes.fake_inferd import FakeInferdState
from tests.support.console_rig import ConsoleRig, console_rig
from tests.support.memoryd_server import enable_recall, search

TABLES = {
    "agents": "agent_id",
    "identity": "id",
    "identity_facts": "id",
    "pinned_facts": "id",
    "episodes": "id",
    "transcript": "id",
    "pending_signals": "id",
    "embeddings": "kind, row_id",
}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[ConsoleRig]:
    with console_rig(tmp_path / "one") as r:
        yield r


def snapshot(rig: ConsoleRig) -> dict[str, list[tuple[Any, ...]]]:
    """Every exported table, row by row (generated columns included)."""
    return {table: rig.q(f"SELECT * FROM {table} ORDER BY {order}") for table, order in TABLES.items()}


def seed(rig: ConsoleRig) -> None:
    """A bit of everything: settings, identity, facts (one disabled), episodes, derived facts, turns, signals."""
    rig.client.upsert_agent("alpha", display_name="Alpha", search_memory_enabled=True)
    rig.client.upsert_agent("beta", memory_enabled=False)
    rig.client.add_override("Always answer in British English")
    db = rig.memoryd.app.store.db
    with db.write():
        db.execute(
            "UPDATE identity SET content = 'The user is a cellist.', version = 2, model = 'm' WHERE id = 1"
        )
    rig.turn("alpha", "I drove my car to the coast", "Sounds lovely")
    episode = rig.episode("alpha", "Trip to the coast by car", topics="travel,car", entities="Coast")
    fact = rig.pinned("alpha", "Alpha drives a 1998 Volvo", tags="car")
    with db.write():
        db.execute("UPDATE pinned_facts SET source_episode_id = ? WHERE id = ?", (episode, fact))
        db.execute(
            "INSERT INTO identity_facts (agent_id, content, source_episode_id, created_at_ms, updated_at_ms) "
            "VALUES ('alpha', 'The user plays the cello', ?, 1, 2)",
            (episode,),
        )
        db.execute("UPDATE pending_signals SET status = 'dead_letter', attempts = 3")
    rig.client.disable(KIND_PINNED, rig.pinned("alpha", "Alpha used to smoke"))
    rig.turn("gamma", "Remember the code word is pineapple")
    assert rig.index() >= 6


def test_export_clear_import_gives_the_same_rows(rig: ConsoleRig) -> None:
    seed(rig)
    before = snapshot(rig)
    lines = list(rig.client.export())
    records = [json.loads(line) for line in lines]
    assert records[0]["type"] == "header" and records[-1]["type"] == "end"
    assert {r["type"] for r in records} >= {
        "identity",
        "agent",
        "episode",
        "pinned_fact",
        "identity_fact",
        "transcript",
        "pending_signal",
        "embedding",
    }
    rig.client.clear_all(confirm=True)
    assert rig.q("SELECT count(*) FROM transcript") == [(0,)]
    embedded_before = rig.inferd.texts_embedded
    result = rig.client.import_lines(lines)
    assert snapshot(rig) == before
    assert result.reembedded == 0 and rig.inferd.texts_embedded == embedded_before  # vectors carried over
    assert result.imported["embedding"] == len(before["embeddings"])
    assert result.imported["transcript"] == len(before["transcript"])
    assert result.skipped == 3  # the three agents still existed (ClearAll keeps agent settings)
    report = rig.client.diagnose()
    assert report.is_healthy, report
    enable_recall(rig.memoryd.memory, "alpha")
    reply = search(
        rig.memoryd.memory, "alpha", "automobile", scope=mpb.SCOPE_TRANSCRIPT
    )  # a vector-only match
    assert reply.method == "hybrid" and reply.hits[0].text == "I drove my car to the coast"


def test_importing_twice_changes_nothing(rig: ConsoleRig) -> None:
    seed(rig)
    lines = list(rig.client.export())
    before = snapshot(rig)
    again = rig.client.import_lines(lines)
    assert snapshot(rig) == before
    assert again.imported.get("transcript", 0) == 0 and again.imported.get("pinned_fact", 0) == 0
    assert again.skipped > 0


def test_import_into_a_fresh_store_keeps_ids_and_references(rig: ConsoleRig, tmp_path: Path) -> None:
    seed(rig)
    before = snapshot(rig)
    lines = list(rig.client.export())
    with console_rig(tmp_path / "two") as other:
        other.client.import_lines(lines)
        after = snapshot(other)
    assert after == before


def test_ids_taken_by_other_rows_are_remapped_with_their_references(rig: ConsoleRig, tmp_path: Path) -> None:
    seed(rig)
    lines = list(rig.client.export())
    with console_rig(tmp_path / "two") as other:
        squatter_episode = other.episode("zeta", "an unrelated episode")
        other.pinned("zeta", "an unrelated fact")
        result = other.client.import_lines(lines)
        assert result.imported["episode"] == 1
        (moved,) = other.q("SELECT id FROM episodes WHERE summary = 'Trip to the coast by car'")
        assert moved[0] != squatter_episode
        assert other.q(
            "SELECT source_episode_id FROM pinned_facts WHERE content = 'Alpha drives a 1998 Volvo'"
        ) == [(moved[0],)]
        assert other.q("SELECT source_episode_id FROM identity_facts") == [(moved[0],)]
        other.index()  # the squatters' own rows
        assert other.client.diagnose().is_healthy


def test_import_reembeds_when_the_embedding_model_differs(rig: ConsoleRig) -> None:
    seed(rig)
    rows = rig.q("SELECT count(*) FROM pinned_facts")[0][0] + rig.q("SELECT count(*) FROM episodes")[0][0]
    rows += rig.q("SELECT count(*) FROM transcript")[0][0]
    lines = list(rig.client.export())
    rig.client.clear_all(confirm=True)
    rig.inferd.model = "other-embedder"
    rig.client.update_config({"embedding_model": "other-embedder"})
    result = rig.client.import_lines(lines)
    assert result.reembedded == rows
    assert rig.q("SELECT DISTINCT model FROM embeddings") == [("other-embedder",)]
    assert rig.q("SELECT count(*) FROM embeddings")[0][0] == rows
    assert not any(v.is_stale for v in rig.client.diagnose().vector_indexes)


def test_import_while_inferd_is_down_leaves_rows_to_the_indexer(tmp_path: Path) -> None:
    state = FakeInferdState()
    with console_rig(tmp_path / "one", state) as rig:
        seed(rig)
        lines = [line for line in rig.client.export() if '"type":"embedding"' not in line]
        lines = [line for line in lines if '"type":"end"' not in line]  # an edited file: no end record
        rig.client.clear_all(confirm=True)
        state.fail_embeds = True
        result = rig.client.import_lines(lines)
        assert result.reembedded == 0 and result.imported["transcript"] == 3
        assert any(v.is_stale for v in rig.client.diagnose().vector_indexes)
        state.fail_embeds = False
        rig.memoryd.app.embedder._retry_at = 0.0  # skip the back-off wait
        rig.index()
        assert not any(v.is_stale for v in rig.client.diagnose().vector_indexes)


def test_agent_export_holds_only_that_agent(rig: ConsoleRig) -> None:
    seed(rig)
    records = [json.loads(line) for line in rig.client.export("alpha")]
    assert records[0]["agent_id"] == "alpha"
    assert "identity" not in {r["type"] for r in records}
    assert {r.get("agent_id") for r in records[1:-1]} == {"alpha"}


def _bad(rig: ConsoleRig, lines: list[str]) -> InvalidArgumentError:
    with pytest.raises(InvalidArgumentError) as caught:
        rig.client.import_lines(lines)
    return caught.value


def test_bad_files_are_rejected_whole_without_content_in_errors(rig: ConsoleRig) -> None:
    seed(rig)
    lines = list(rig.client.export())
    rig.client.clear_all(confirm=True)
    before = snapshot(rig)
    assert _bad(rig, lines[1:]).reason == "IMPORT_MISSING_HEADER"
    assert _bad(rig, []).reason == "IMPORT_MISSING_HEADER"
    truncated = [line for line in lines if '"type":"transcript"' not in line]
    assert _bad(rig, truncated).reason == "IMPORT_TRUNCATED"
    broken = [line.replace('"chunk_index":0', '"chunk_index":"zero"') for line in lines]
    error = _bad(rig, broken)
    assert error.reason == "IMPORT_INVALID_FIELD"
    assert error.field_violations and error.field_violations[0].field.startswith("line[")
    assert "pineapple" not in error.message and "Volvo" not in error.message
    assert _bad(rig, [*lines[:2], '{"type":"mystery"}', *lines[2:]]).reason == "IMPORT_UNKNOWN_RECORD_TYPE"
    assert _bad(rig, [*lines[:2], "not json", *lines[2:]]).reason == "IMPORT_INVALID_JSON"
    newer = [lines[0].replace('"version":1', '"version":99'), *lines[1:]]
    assert _bad(rig, newer).reason == "IMPORT_UNSUPPORTED_VERSION"
    assert snapshot(rig) == before  # nothing was written by any bad file
