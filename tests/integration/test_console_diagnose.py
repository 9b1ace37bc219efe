"""Diagnose on a real memoryd: counts, a deliberately broken FTS mirror, a stale vector index, storage errors."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from memoryd.console.records import Diagnosis
from memoryd.vectors.agent_index import INDEX_FILE
from tests.support.console_rig import ConsoleRig, console_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[ConsoleRig]:
    with console_rig(tmp_path) as r:
        yield r


def _seed(rig: ConsoleRig) -> None:
    rig.pinned("alpha", "Alpha likes jazz records")
    disabled = rig.pinned("alpha", "Alpha once liked techno")
    rig.episode("alpha", "Talked about a jazz concert", topics="music")
    rig.turn("alpha", "I bought a Coltrane record", "Great choice")
    rig.turn("beta", "My cat is called Miso")
    rig.client.disable("pinned_fact", disabled)
    assert rig.index() == 6


def _fts(report: Diagnosis, table: str) -> tuple[int, int, bool]:
    (entry,) = [f for f in report.fts if f.fts_table == table]
    return entry.source_rows, entry.fts_rows, entry.is_healthy


def _counts(report: Diagnosis) -> dict[tuple[str, str], int]:
    return {(c.table, c.agent_id): c.rows for c in report.table_counts}


def test_healthy_store_reports_counts_fts_and_vectors(rig: ConsoleRig) -> None:
    _seed(rig)
    report = rig.client.diagnose()
    assert report.is_healthy and report.store_state == "healthy" and not report.is_encrypted
    assert report.schema_version == rig.memoryd.app.store.schema_version
    counts = _counts(report)
    assert counts[("pinned_facts", "")] == 2 and counts[("pinned_facts.disabled", "")] == 1
    assert counts[("pinned_facts", "alpha")] == 2 and counts[("pinned_facts.disabled", "alpha")] == 1
    assert counts[("transcript", "alpha")] == 2 and counts[("transcript", "beta")] == 1
    assert counts[("embeddings", "")] == 6
    assert report.pending_signals == 2 and report.dead_letter_signals == 0
    assert _fts(report, "fts_transcript") == (3, 3, True)
    states = {v.agent_id: v for v in report.vector_indexes}
    assert (states["alpha"].vectors, states["alpha"].rows, states["alpha"].is_stale) == (5, 5, False)
    assert states["alpha"].model == rig.inferd.model and states["alpha"].dimension == rig.inferd.dimension
    assert report.database_bytes > 0


def test_mirror_missing_rows_is_reported_and_reindex_repairs_it(rig: ConsoleRig) -> None:
    _seed(rig)
    db = rig.memoryd.app.store.db
    with db.write():  # drop one row from the index behind the triggers' back
        row = db.query("SELECT id, content, agent_key FROM transcript ORDER BY id LIMIT 1")[0]
        db.execute(
            "INSERT INTO fts_transcript (fts_transcript, rowid, content, agent_key) VALUES ('delete', ?, ?, ?)",
            row,
        )
    report = rig.client.diagnose()
    assert _fts(report, "fts_transcript") == (3, 2, False)
    assert not report.is_healthy
    assert rig.client.reindex().is_fts_rebuilt
    assert _fts(rig.client.diagnose(), "fts_transcript") == (3, 3, True)


def test_mirror_out_of_step_with_equal_counts_fails_the_integrity_check(rig: ConsoleRig) -> None:
    _seed(rig)
    db = rig.memoryd.app.store.db
    with db.write():  # change source text without re-indexing it
        db.execute("DROP TRIGGER pinned_facts_au")
        db.execute("UPDATE pinned_facts SET content = 'something else entirely' WHERE id = 1")
    source, indexed, healthy = _fts(rig.client.diagnose(), "fts_pinned")
    assert source == indexed == 2 and not healthy


def test_stale_vector_index_is_noticed_and_reindex_rebuilds_it(rig: ConsoleRig) -> None:
    _seed(rig)
    app = rig.memoryd.app
    app.vectors.flush()
    (app.vectors.directory("alpha") / INDEX_FILE).unlink()
    with app.vectors._lock:  # as after a restart: nothing loaded
        app.vectors._indexes.clear()
    states = {v.agent_id: v for v in rig.client.diagnose().vector_indexes}
    assert states["alpha"].is_stale and not states["beta"].is_stale
    rebuilt = {v.agent_id: v for v in rig.client.reindex("alpha").vector_indexes}
    assert set(rebuilt) == {"alpha"} and not rebuilt["alpha"].is_stale and rebuilt["alpha"].vectors == 5
    assert rig.inferd.texts_embedded == 6  # rebuilt from stored vectors, nothing re-embedded
    assert rig.client.diagnose().is_healthy


def test_model_change_and_unindexed_rows_make_the_index_stale(rig: ConsoleRig) -> None:
    _seed(rig)
    rig.turn("beta", "A new turn not embedded yet")
    assert {v.agent_id for v in rig.client.diagnose().vector_indexes if v.is_stale} == {"beta"}
    rig.index()
    rig.client.update_config({"embedding_model": "another-model"})
    assert all(v.is_stale for v in rig.client.diagnose().vector_indexes)
    rig.client.update_config({"embedding_backend": "none"})
    assert not any(v.is_stale for v in rig.client.diagnose().vector_indexes)  # vectors unused: nothing stale


def test_recent_storage_errors_are_reported_without_content(rig: ConsoleRig) -> None:
    db = rig.memoryd.app.store.db
    with db.write():
        db.execute("DROP TABLE pending_signals")
    with pytest.raises(grpc.RpcError) as caught:
        rig.turn("alpha", "my email is alice@example.com")
    assert caught.value.code() == grpc.StatusCode.INTERNAL
    logging.getLogger("memoryd.storage.test").warning("disk full while writing for bob@example.com")
    report = rig.client.diagnose()  # still answers on the damaged store
    errors = {e.operation: e for e in report.recent_errors}
    assert "bob@example.com" not in errors["memoryd.storage.test"].message
    assert "[redacted email]" in errors["memoryd.storage.test"].message
    assert "BufferTurn" in errors["servicekit.errors"].message
    assert "pending_signals" in errors["diagnose.stats"].message  # the broken part is named
    assert all("alice" not in e.message for e in report.recent_errors)
    stamps = [e.occurred_at_ms for e in report.recent_errors]
    assert stamps == sorted(stamps, reverse=True)


def test_healthy_mirrors_stay_healthy_under_write_load(rig: ConsoleRig) -> None:
    """The integrity-check is a write; run inside a read snapshot it met "database is locked" at once while turns
    were being written (11 of 60 checks)."""
    _seed(rig)
    stop = threading.Event()
    written = [0]

    def write_turns() -> None:
        db = rig.memoryd.app.store.db
        while not stop.is_set():
            rig.pinned("agent-load", f"fact number {written[0]} about the allotment")
            # A second writer on its own connection, as another process would be.
            with db.write():
                db.execute("UPDATE pinned_facts SET salience = salience WHERE agent_id = 'agent-load'")
            written[0] += 1

    writer = threading.Thread(target=write_turns, daemon=True)
    writer.start()
    try:
        reports = [rig.client.diagnose() for _ in range(30)]
    finally:
        stop.set()
        writer.join(10)
    assert written[0] > 0
    unhealthy = [f.fts_table for r in reports for f in r.fts if not f.is_healthy]
    assert unhealthy == []
