"""Consolidation's storage: ConsolidationStore (everything a pass reads and writes), and its bookkeeping on
memory.sqlite: the side table of watermarks, the pass log, WAL checkpoints.

The steps' own statements are memoryd.storage.maintenance (decay, promote, evict, prune, purge),
memoryd.storage.episode_merge (merge) and memoryd.storage.narratives (the identity step).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from memoryd.storage.episode_merge import EpisodeMergeStore
from memoryd.storage.handle import Database
from memoryd.storage.maintenance import MaintenanceStore
from memoryd.storage.narratives import NarrativeStore
from memoryd.storage.tables import create_table_sql, define_tables

#: SQLite's default autocheckpoint threshold, restored when a pass ends.
DEFAULT_AUTOCHECKPOINT_PAGES = 1000


class StateStore:
    """Small key/value store (consolidation_state); set() joins the caller's transaction when there is one.

    Its table (memoryd.storage.tables.ConsolidationState) is created here on first use (CREATE IF NOT EXISTS), as it
    always was, rather than by a migration; per-row decay state uses the schema's own last_decayed_at_ms columns.
    """

    def __init__(self, db: Database) -> None:
        self._db = db
        with db.write():
            db.execute(create_table_sql(define_tables(db.pw).ConsolidationState, safe=True))

    def get(self, key: str, default: str = "") -> str:
        """The stored value, or `default`."""
        value = self._db.scalar("SELECT value FROM consolidation_state WHERE key = ?", (key,))
        return default if value is None else str(value)

    def get_int(self, key: str, default: int = 0) -> int:
        """The stored value as an int, or `default` when absent or malformed."""
        try:
            return int(self.get(key, str(default)))
        except ValueError:
            return default

    def set(self, key: str, value: str | int, now_ms: int) -> None:
        """Insert or replace one value."""
        with self._db.write():
            self._db.execute(
                "INSERT INTO consolidation_state (key, value, updated_at_ms) VALUES (?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms",
                (key, str(value), now_ms),
            )


@dataclass(frozen=True)
class LoggedPass:
    """A pass as processing_log keeps it: its report as JSON (counts and reasons, no content), duration, model."""

    details: str
    duration_ms: int
    model: str


class PassLog:
    """Consolidation passes in processing_log, one row per pass under one task_type."""

    def __init__(self, db: Database, task_type: str) -> None:
        self._db = db
        self._task_type = task_type

    def record(self, *, model: str, failed: bool, details: str, duration_ms: int, finished_ms: int) -> None:
        """Append one pass (status "error" when a step failed)."""
        with self._db.write():
            self._db.execute(
                "INSERT INTO processing_log (agent_id, task_type, model, status, details, duration_ms, "
                "created_at_ms) VALUES ('', ?, ?, ?, ?, ?, ?)",
                (self._task_type, model, "error" if failed else "success", details, duration_ms, finished_ms),
            )

    def last_finished_ms(self) -> int | None:
        """When the most recent pass finished (epoch ms), or None before the first."""
        value = self._db.scalar(
            "SELECT max(created_at_ms) FROM processing_log WHERE task_type = ?", (self._task_type,)
        )
        return None if value is None else int(value)

    def latest(self) -> LoggedPass | None:
        """The most recent pass, or None before the first."""
        rows = self._db.query(
            "SELECT details, duration_ms, model FROM processing_log WHERE task_type = ? ORDER BY id DESC LIMIT 1",
            (self._task_type,),
        )
        return LoggedPass(str(rows[0][0]), int(rows[0][1]), str(rows[0][2])) if rows else None


class WalControl:
    """The WAL pragmas a pass runs on its own connection (the policy of when is memoryd.consolidate.wal's)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def pause_autocheckpoint(self) -> None:
        """Stop this connection's commits from checkpointing (inside memoryd's write lock)."""
        if not self._db.dialect.is_postgres:  # PostgreSQL checkpoints on its own schedule
            self._db.execute("PRAGMA wal_autocheckpoint=0")

    def checkpoint_passive(self) -> None:
        """One PASSIVE checkpoint: copies what it can, never waits for readers or writers."""
        if not self._db.dialect.is_postgres:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    def restore_autocheckpoint(self) -> None:
        """SQLite's default autocheckpoint threshold again."""
        if not self._db.dialect.is_postgres:
            self._db.execute(f"PRAGMA wal_autocheckpoint={DEFAULT_AUTOCHECKPOINT_PAGES}")


class ConsolidationStore:
    """What memoryd.consolidate works with: the steps' statements, its watermarks and pass log, the WAL pragmas,
    one write transaction per batch and the commit counter (its pacer tells busy from quiet by it)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._state: StateStore | None = None
        #: Decay, promote, evict, prune and purge's statements.
        self.maintenance = MaintenanceStore(db)
        #: Merge's statements.
        self.merges = EpisodeMergeStore(db)
        #: The identity step's statements.
        self.narratives = NarrativeStore(db)
        #: The pass's WAL checkpoints.
        self.wal = WalControl(db)

    def state(self) -> StateStore:
        """The watermark table (created on first use, as it always was: see StateStore)."""
        if self._state is None:
            self._state = StateStore(self._db)
        return self._state

    def pass_log(self, task_type: str) -> PassLog:
        """Passes of `task_type` in processing_log."""
        return PassLog(self._db, task_type)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One write transaction (under memoryd's write lock)."""
        with self._db.write():
            yield

    @property
    def commits(self) -> int:
        """Commits by anyone in this process so far (bookkeeping ones, such as the read path's usage bumps,
        included: they are activity the pass should make room for)."""
        return self._db.commits


__all__ = [
    "DEFAULT_AUTOCHECKPOINT_PAGES",
    "ConsolidationStore",
    "LoggedPass",
    "PassLog",
    "StateStore",
    "WalControl",
]
