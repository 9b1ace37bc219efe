"""memoryd storage on real SQLite files: migrations, FTS5 mirrors and backfill, the 1.x import (SQLite-only: the
migrations lead older SQLite files to the current schema; a PostgreSQL store starts at it, tests/storage/
test_schema_postgres.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memoryd.domain import KIND_EPISODE, KIND_TRANSCRIPT, TurnInput
from memoryd.retrieval.terms import query_terms
from memoryd.storage import migrations
from memoryd.storage.db import Database
from memoryd.storage.fts import match_expression
from memoryd.storage.store import open_store

# The Osaurus 1.x layout (schema v3 of MemoryDatabase.swift), written out for the fixture.
V1_DDL = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT (datetime('now')),
    description TEXT);
CREATE TABLE config (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE user_profile (id INTEGER PRIMARY KEY CHECK (id = 1), content TEXT NOT NULL, token_count INTEGER NOT NULL,
    version INTEGER NOT NULL DEFAULT 1, model TEXT NOT NULL, generated_at TEXT NOT NULL);
CREATE TABLE profile_events (id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL, conversation_id TEXT,
    event_type TEXT NOT NULL, content TEXT NOT NULL, model TEXT, status TEXT NOT NULL DEFAULT 'active',
    incorporated_in INTEGER, created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE user_edits (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (datetime('now')), deleted_at TEXT);
CREATE TABLE memory_entries (id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, type TEXT NOT NULL, content TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 0.8, model TEXT NOT NULL, source_conversation_id TEXT, tags TEXT,
    status TEXT NOT NULL DEFAULT 'active', superseded_by TEXT REFERENCES memory_entries(id),
    created_at TEXT NOT NULL DEFAULT (datetime('now')), last_accessed TEXT NOT NULL DEFAULT (datetime('now')),
    access_count INTEGER NOT NULL DEFAULT 0, valid_from TEXT NOT NULL DEFAULT (datetime('now')), valid_until TEXT);
CREATE TABLE memory_events (id INTEGER PRIMARY KEY AUTOINCREMENT, entry_id TEXT NOT NULL REFERENCES memory_entries(id),
    event_type TEXT NOT NULL, agent_id TEXT, model TEXT, reason TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE conversation_summaries (id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL, summary TEXT NOT NULL, token_count INTEGER NOT NULL, model TEXT NOT NULL,
    conversation_at TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'active',
    created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE conversations (id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, title TEXT, started_at TEXT NOT NULL,
    last_message_at TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'active');
CREATE TABLE conversation_chunks (id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL REFERENCES conversations(id), chunk_index INTEGER NOT NULL, role TEXT NOT NULL,
    content TEXT NOT NULL, token_count INTEGER NOT NULL, created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE embeddings (id INTEGER PRIMARY KEY AUTOINCREMENT, source_type TEXT NOT NULL, source_id TEXT NOT NULL,
    embedding BLOB NOT NULL, model TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE agent_activity (agent_id TEXT PRIMARY KEY, last_activity_at TEXT NOT NULL,
    pending_signals INTEGER NOT NULL DEFAULT 0, processing_status TEXT NOT NULL DEFAULT 'idle',
    last_processed_at TEXT);
CREATE TABLE pending_signals (id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL,
    conversation_id TEXT NOT NULL, signal_type TEXT NOT NULL, user_message TEXT NOT NULL, assistant_message TEXT,
    status TEXT NOT NULL DEFAULT 'pending', created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE processing_log (id INTEGER PRIMARY KEY AUTOINCREMENT, agent_id TEXT NOT NULL, task_type TEXT NOT NULL,
    model TEXT, status TEXT NOT NULL, details TEXT, input_tokens INTEGER, output_tokens INTEGER, duration_ms INTEGER,
    created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE entities (id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, metadata TEXT,
    model TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT (datetime('now')),
    updated_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE relationships (id TEXT PRIMARY KEY, source_id TEXT NOT NULL REFERENCES entities(id),
    target_id TEXT NOT NULL REFERENCES entities(id), relation TEXT NOT NULL, confidence REAL NOT NULL DEFAULT 0.8,
    model TEXT NOT NULL, valid_from TEXT NOT NULL DEFAULT (datetime('now')), valid_until TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')));
PRAGMA user_version = 3;
"""

pytestmark = pytest.mark.sqlite_only

AGENT_UUID = "9b2f6a3e-1c4d-4e5f-8a7b-0c1d2e3f4a5b"


def _build_v1_store(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA foreign_keys = ON")
        db.executescript(V1_DDL)
        db.execute("INSERT INTO schema_version (version, description) VALUES (3, 'v3')")
        db.execute(
            "INSERT INTO user_profile VALUES (1, 'User builds Swift apps and lives in Lisbon.', 12, 4, '', "
            "'2026-01-02T03:04:05Z')"
        )
        db.executemany(
            "INSERT INTO user_edits (content, created_at, deleted_at) VALUES (?, ?, ?)",
            [
                ("My name is Terence", "2026-01-01 10:00:00", None),
                ("Removed fact", "2026-01-01 11:00:00", "2026-01-02 00:00:00"),
                ("Always reply in English", "2026-01-03 09:00:00", None),
            ],
        )
        db.execute(
            "INSERT INTO memory_entries (id, agent_id, type, content, model) VALUES ('e1', ?, 'fact', 'x', 'm')",
            (AGENT_UUID,),
        )
        db.execute("INSERT INTO memory_events (entry_id, event_type) VALUES ('e1', 'created')")
        db.execute("INSERT INTO entities (id, name, type, model) VALUES ('n1', 'Lisbon', 'place', 'm')")
        db.execute("INSERT INTO entities (id, name, type, model) VALUES ('n2', 'Swift', 'tool', 'm')")
        db.execute(
            "INSERT INTO relationships (id, source_id, target_id, relation, model) VALUES ('r1','n1','n2','x','m')"
        )
        db.execute(
            "INSERT INTO conversation_summaries (agent_id, conversation_id, summary, token_count, model, "
            "conversation_at) VALUES (?, 'conv-1', 'Planned the Lisbon café trip itinerary.', 9, 'm', '2026-01-05')",
            (AGENT_UUID,),
        )
        db.execute(
            "INSERT INTO conversations VALUES ('conv-1', ?, 'Trip planning', '2026-01-05', '2026-01-05', 2, 'active')",
            (AGENT_UUID,),
        )
        db.executemany(
            "INSERT INTO conversation_chunks (conversation_id, chunk_index, role, content, token_count, created_at) "
            "VALUES ('conv-1', ?, ?, ?, 5, '2026-01-05 12:00:00')",
            [
                (0, "user", "Find me a cafe near the river in Lisbon"),
                (1, "assistant", "Try the one by Cais do Sodré."),
            ],
        )
        db.executemany(
            "INSERT INTO pending_signals (agent_id, conversation_id, signal_type, user_message, assistant_message, "
            "status) VALUES (?, 'conv-2', 'turn', ?, NULL, ?)",
            [(AGENT_UUID, "still pending", "pending"), (AGENT_UUID, "already done", "processed")],
        )
        db.execute(
            "INSERT INTO embeddings (source_type, source_id, embedding, model) VALUES ('x', '1', x'00', 'm')"
        )
        db.execute(
            "INSERT INTO processing_log (agent_id, task_type, status) VALUES ('a', 'extract', 'success')"
        )
        db.execute("INSERT INTO agent_activity (agent_id, last_activity_at) VALUES ('a', '2026-01-01')")
        db.execute("INSERT INTO config (key, value) VALUES ('k', 'v')")


def test_new_database_gets_every_migration_once(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    store = open_store(path)
    assert store.schema_version == migrations.LATEST_VERSION
    assert migrations.migrate(store.db) == []  # idempotent
    mode = store.db.scalar("PRAGMA journal_mode")
    assert mode == "wal"
    assert store.db.scalar("PRAGMA foreign_keys") == 1
    tokenizer_sql = store.db.scalar("SELECT sql FROM sqlite_master WHERE name = 'fts_transcript'")
    assert "unicode61 remove_diacritics 2" in tokenizer_sql and "content='transcript'" in tokenizer_sql
    rows = store.db.query("SELECT version, name FROM schema_version ORDER BY version")
    assert [r[0] for r in rows] == [m.version for m in migrations.MIGRATIONS]
    store.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    open_store(path).close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO schema_version VALUES (999, 'from the future', 0)")
    with pytest.raises(migrations.NewerSchemaError):
        open_store(path)


def test_failed_migration_rolls_back_its_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = Database(tmp_path / "memory.sqlite")

    def broken(database: Database) -> None:
        database.execute("CREATE TABLE half_done (x)")
        raise RuntimeError("boom")

    monkeypatch.setattr(
        migrations, "MIGRATIONS", (*migrations.MIGRATIONS[:1], migrations.Migration(2, "broken", broken))
    )
    with pytest.raises(RuntimeError):
        migrations.migrate(db)
    assert migrations.current_version(db) == 1
    assert not db.table_exists("half_done")


def test_fts_mirror_backfills_existing_rows_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "memory.sqlite"
    db = Database(path)
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:1])
    migrations.migrate(db)  # tables only, no mirrors yet
    db.execute(
        "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
        "VALUES ('a', 'c', 0, 'user', 'Crème brûlée at the Café Noël', 1)"
    )
    db.execute(
        "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, conversation_at_ms, created_at_ms) "
        "VALUES ('a', 'c', 'Dessert planning', 'brulee, pastry', 1, 1)"
    )
    db.close()
    monkeypatch.undo()
    store = open_store(path)
    assert store.fts.search(KIND_TRANSCRIPT, "a", query_terms("creme brulee noel"), 10)
    assert store.fts.search(KIND_EPISODE, "a", ["pastry"], 10)  # topics are indexed too
    assert all(healthy for *_rest, healthy in store.fts.health())
    store.close()


def test_fts_triggers_follow_inserts_updates_and_deletes(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    stored = store.turns.buffer(TurnInput("a", "c", "The heron stood in the pond", "", 1))
    row_id = stored.transcript_ids[0]
    assert [hit[0] for hit in store.fts.search(KIND_TRANSCRIPT, "a", ["heron"], 10)] == [row_id]
    with store.db.write():
        store.db.execute(
            "UPDATE transcript SET content = 'The egret stood in the pond' WHERE id = ?", (row_id,)
        )
    assert not store.fts.search(KIND_TRANSCRIPT, "a", ["heron"], 10)
    assert store.fts.search(KIND_TRANSCRIPT, "a", ["egret"], 10)
    with store.db.write():
        store.db.execute("DELETE FROM transcript WHERE id = ?", (row_id,))
    assert not store.fts.search(KIND_TRANSCRIPT, "a", ["egret"], 10)
    assert all(healthy for *_rest, healthy in store.fts.health())
    store.close()


def test_match_expression_quotes_every_term_and_scopes_the_agent() -> None:
    expression = match_expression("ab", query_terms('NEAR(xx yy) OR "zz" content:ww*'), ["content"])
    assert expression.startswith('agent_key : "a6162" AND content : (')
    assert '"near"' in expression and '"ww"' in expression and '"zz"' in expression
    assert "*" not in expression and ":w" not in expression


def test_v1_store_is_imported_as_pure_sql(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    _build_v1_store(path)
    store = open_store(path)
    identity = store.identity.get()
    assert identity.content == "User builds Swift apps and lives in Lisbon."
    assert identity.model == "v1-import" and identity.version == 4
    assert identity.generated_at_ms == 1767323045000
    assert [o.text for o in identity.overrides] == ["My name is Terence", "Always reply in English"]
    agent = AGENT_UUID.upper()  # UUIDs canonicalised to the recall key
    episodes = store.db.query("SELECT agent_id, conversation_id, summary, salience, status FROM episodes")
    assert episodes == [(agent, "conv-1", "Planned the Lisbon café trip itinerary.", 0.5, "active")]
    transcript = store.db.query(
        "SELECT agent_id, chunk_index, role, title FROM transcript ORDER BY chunk_index"
    )
    assert transcript == [(agent, 0, "user", "Trip planning"), (agent, 1, "assistant", "Trip planning")]
    signals = store.db.query("SELECT agent_id, user_message, status FROM pending_signals")
    assert signals == [(agent, "still pending", "pending")]
    assert store.agents.get(agent) is not None
    assert store.db.scalar("SELECT count(*) FROM pinned_facts") == 0  # starts empty, as the spec says
    assert store.db.scalar("SELECT count(*) FROM embeddings") == 0  # vectors rebuilt lazily
    tables = {r[0] for r in store.db.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for dropped in (
        "user_profile",
        "user_edits",
        "memory_entries",
        "memory_events",
        "profile_events",
        "entities",
        "relationships",
        "conversation_summaries",
        "conversation_chunks",
        "conversations",
        "agent_activity",
        "config",
        "v1_embeddings",
        "v1_schema_version",
        "v1_pending_signals",
    ):
        assert dropped not in tables
    assert store.schema_version == migrations.LATEST_VERSION
    # The imported rows are in the FTS mirrors (accents folded).
    assert store.fts.search(KIND_TRANSCRIPT, agent, ["cafe", "lisbon"], 10)
    assert store.fts.search(KIND_EPISODE, agent, ["cafe"], 10)
    store.close()
    assert open_store(path).schema_version == migrations.LATEST_VERSION  # reopening is a no-op
