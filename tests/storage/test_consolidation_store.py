"""memoryd.storage.consolidation on both backends: watermarks, the pass log, vector owners; WAL pragmas (SQLite)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import peewee
import pytest

from memoryd.domain import KIND_TRANSCRIPT, TurnInput
from memoryd.storage.consolidation import DEFAULT_AUTOCHECKPOINT_PAGES, PassLog, StateStore, WalControl
from memoryd.storage.faults import is_database_error
from memoryd.storage.store import Store, open_store


def test_state_store_keeps_values_across_instances(store: Store) -> None:
    StateStore(store.db).set("merge.episode_watermark", 42, now_ms=1)
    again = StateStore(store.db)
    assert again.get_int("merge.episode_watermark") == 42
    again.set("merge.episode_watermark", "not a number", now_ms=2)
    assert again.get_int("merge.episode_watermark", default=7) == 7
    assert again.get("absent", "fallback") == "fallback"


def test_pass_log_records_and_reads_back_only_its_task_type(store: Store) -> None:
    log = PassLog(store.db, "consolidate")
    assert log.latest() is None and log.last_finished_ms() is None
    log.record(model="m1", failed=False, details='{"steps": []}', duration_ms=5, finished_ms=1000)
    log.record(model="m2", failed=True, details='{"steps": [1]}', duration_ms=7, finished_ms=900)
    PassLog(store.db, "other").record(model="x", failed=False, details="{}", duration_ms=1, finished_ms=5000)

    latest = log.latest()
    assert latest is not None and (latest.details, latest.duration_ms, latest.model) == (
        '{"steps": [1]}',
        7,
        "m2",
    )
    assert log.last_finished_ms() == 1000
    statuses = store.db.query("SELECT status FROM processing_log WHERE task_type = 'consolidate' ORDER BY id")
    assert [s for (s,) in statuses] == ["success", "error"]


@pytest.mark.sqlite_only
def test_wal_control_pauses_and_restores_autocheckpoint(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    wal = WalControl(store.db)
    wal.pause_autocheckpoint()
    assert store.db.scalar("PRAGMA wal_autocheckpoint") == 0
    wal.checkpoint_passive()
    wal.restore_autocheckpoint()
    assert store.db.scalar("PRAGMA wal_autocheckpoint") == DEFAULT_AUTOCHECKPOINT_PAGES
    store.close()


def test_wal_control_is_a_no_op_on_postgres(store: Store) -> None:
    wal = WalControl(store.db)
    wal.pause_autocheckpoint()
    wal.checkpoint_passive()
    wal.restore_autocheckpoint()  # PostgreSQL checkpoints on its own; nothing to fail on either backend
    assert store.db.scalar("SELECT 1") == 1


def test_vector_owners_group_rows_by_agent(store: Store) -> None:
    rows = []
    for agent in ("a", "a", "b"):
        stored = store.turns.buffer(TurnInput(agent, "c", f"hi from {agent}", "", occurred_at_ms=1_000))
        rows.append((agent, stored.transcript_ids[0]))
    for agent, row_id in rows:
        store.embeddings.put(KIND_TRANSCRIPT, agent, "m", 2, [(row_id, b"\0" * 8)])
    ids = [row_id for _, row_id in rows]

    assert store.embeddings.owners(KIND_TRANSCRIPT, [*ids, 999]) == {"a": ids[:2], "b": ids[2:]}
    assert store.embeddings.owners(KIND_TRANSCRIPT, []) == {}


def test_is_database_error(store: Store) -> None:
    assert is_database_error(sqlite3.OperationalError("database is locked"))
    assert not is_database_error(ValueError("x"))
    with pytest.raises(peewee.DatabaseError) as raised:
        store.db.query("SELECT no_such_column FROM agents")
    assert is_database_error(raised.value)  # the backend's own error (sqlite3, psycopg, or peewee's wrapper)
