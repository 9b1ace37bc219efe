"""Ordered schema migrations, one transaction each, recorded in schema_version (sqlite-utils style).

Each migration's SQL is frozen (schema_history.py and the statements below): together they lead any earlier store
to the current schema, which memoryd/storage/tables.py defines.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from memoryd.storage import schema_history as schema
from memoryd.storage import v1_import
from memoryd.storage.db import Database
from memoryd.storage.handle import Database as AnyDatabase
from memoryd.storage.pg_db import PgDatabase
from memoryd.storage.pg_schema import migrate_postgres
from memoryd.storage.tables import create_table_sql, define_tables

_log = logging.getLogger("memoryd.storage.migrations")


class NewerSchemaError(RuntimeError):
    """The database was written by a newer memoryd; refusing to touch it."""


@dataclass(frozen=True)
class Migration:
    """One schema step: its version number, a name, and the function that applies it (inside a transaction)."""

    version: int
    name: str
    apply: Callable[[Database], None]


def _core_tables(db: Database) -> None:
    for statement in schema.CORE_TABLES:
        db.execute(statement)


def _fts_mirrors(db: Database) -> None:
    for fts, source, columns in schema.FTS_MIRRORS:
        for statement in schema.fts_statements(fts, source, columns, schema.FTS_TOKENIZER_V2):
            db.execute(statement)


def _fts_porter(db: Database) -> None:
    """Rebuild every mirror with the Porter tokenizer (stems), re-indexing all rows in one pass per table."""
    for fts, source, columns in schema.FTS_MIRRORS:
        for statement in [
            *schema.fts_drop_statements(fts, source),
            *schema.fts_statements(fts, source, columns),
        ]:
            db.execute(statement)


def _provenance(db: Database) -> None:
    for statement in schema.PROVENANCE_COLUMNS:
        db.execute(statement)


#: consolidation_state keys the narrative step kept while it wrote ONE narrative into identity.content (before
#: migration 7). That table belongs to memoryd.consolidate.state; only migration 7 reads these two keys.
_OLD_NARRATIVE_STAMP = "identity.narrative_stamp"
_OLD_NARRATIVE_DIGEST = "identity.facts_digest"
#: identity.model of a 1.x profile carried forward by the v1 import (kept: it is the user's imported profile).
_V1_IMPORT_AUTHOR = "v1-import"


def _agent_narratives(db: Database) -> None:
    """Create agent_narratives, and empty identity.content if the old step wrote it from EVERY agent's facts: that
    narrative mixed agents (a home assistant's nickname in a work assistant), so it is not kept nor injected. A
    narrative the step did not write (a 1.x profile, an imported one) stays; per-agent ones come with the next pass.
    """
    for statement in schema.AGENT_NARRATIVES:
        db.execute(statement)
    if not db.table_exists("consolidation_state"):
        return
    state = dict(
        db.query(
            "SELECT key, value FROM consolidation_state WHERE key IN (?, ?)",
            (_OLD_NARRATIVE_STAMP, _OLD_NARRATIVE_DIGEST),
        )
    )
    rows = db.query("SELECT content, model, version, generated_at_ms FROM identity WHERE id = 1")
    if rows and str(rows[0][0]).strip():
        author, version, generated = str(rows[0][1]), int(rows[0][2]), int(rows[0][3])
        stamp = str(state.get(_OLD_NARRATIVE_STAMP, ""))
        # The same test the old step used to tell its own narrative (memoryd/consolidate/jobs.py before 7).
        own = (
            stamp == f"{version}:{generated}"
            if stamp
            else bool(state.get(_OLD_NARRATIVE_DIGEST)) and (author != _V1_IMPORT_AUTHOR)
        )
        if own:
            db.execute(
                "UPDATE identity SET content = '', token_count = 0, version = version + 1, model = '', "
                "generated_at_ms = 0 WHERE id = 1"
            )
    db.execute(
        "DELETE FROM consolidation_state WHERE key IN (?, ?)", (_OLD_NARRATIVE_STAMP, _OLD_NARRATIVE_DIGEST)
    )


def _superseded_by_table(db: Database) -> None:
    for statement in schema.SUPERSEDED_BY_TABLE:
        db.execute(statement)


def _import_v1(db: Database) -> None:
    if v1_import.is_v1_layout(db) or any(db.table_exists(f"v1_{n}") for n in v1_import.V1_CLASHING):
        counts = v1_import.import_v1(db)
        _log.info("imported a 1.x memory store: %s", ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))


def _turn_requests(db: Database) -> None:
    """BufferTurn's idempotency keys: (agent, request id) → the first call's ids, for a retry window."""
    db.execute(
        """
        CREATE TABLE IF NOT EXISTS turn_requests (
            agent_id TEXT NOT NULL,
            request_id TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            signal_id INTEGER NOT NULL,
            transcript_ids TEXT NOT NULL,
            created_at_ms INTEGER NOT NULL,
            PRIMARY KEY (agent_id, request_id)
        ) WITHOUT ROWID
        """
    )
    db.execute("CREATE INDEX IF NOT EXISTS turn_requests_created ON turn_requests (created_at_ms)")


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "core tables", _core_tables),
    Migration(2, "fts5 mirrors with triggers, backfilled", _fts_mirrors),
    Migration(3, "import an Osaurus 1.x store", _import_v1),
    Migration(4, "fts5 mirrors with the porter tokenizer (stemmed terms), re-indexed", _fts_porter),
    Migration(5, "provenance, slots and supersession on derived rows", _provenance),
    Migration(6, "buffer_turn idempotency keys (turn_requests)", _turn_requests),
    Migration(7, "identity narratives per agent", _agent_narratives),
    Migration(8, "supersession across pinned and identity facts", _superseded_by_table),
)
LATEST_VERSION = MIGRATIONS[-1].version


def current_version(db: AnyDatabase) -> int:
    """Highest applied migration, 0 for a new database."""
    if not db.table_exists("schema_version") or "applied_at_ms" not in db.columns("schema_version"):
        return 0
    return int(db.scalar("SELECT coalesce(max(version), 0) FROM schema_version") or 0)


def migrate(db: Database | PgDatabase) -> list[int]:
    """Apply every pending migration in order; returns the versions applied. A PostgreSQL store is created at the
    current version (memoryd/storage/pg_schema.py)."""
    if isinstance(db, PgDatabase):
        return migrate_postgres(db, LATEST_VERSION, NewerSchemaError)
    with db.write():
        # A 1.x store has its own schema_version/embeddings/...; set them aside before v2 creates its tables.
        if v1_import.is_v1_layout(db):
            renamed = v1_import.set_aside_clashing_tables(db)
            if renamed:
                _log.info("1.x store found; set aside %s for import", ", ".join(renamed))
        db.execute(create_table_sql(define_tables(db.pw).SchemaVersion, safe=True))
    version = current_version(db)
    if version > LATEST_VERSION:
        raise NewerSchemaError(f"database schema {version} is newer than this memoryd ({LATEST_VERSION})")
    applied: list[int] = []
    for migration in MIGRATIONS:
        if migration.version <= version:
            continue
        started = time.perf_counter()
        with db.write():
            migration.apply(db)
            db.execute(
                "INSERT INTO schema_version (version, name, applied_at_ms) VALUES (?, ?, ?)",
                (migration.version, migration.name, int(time.time() * 1000)),
            )
        applied.append(migration.version)
        _log.info(
            "schema migration %d (%s) applied in %.0f ms",
            migration.version,
            migration.name,
            (time.perf_counter() - started) * 1000,
        )
    return applied
