"""Folds the lexeme-count deltas into search_terms in the background (memoryd/storage/pg_term_stats.py), one
replica at a time.

Every `interval_s` the fold takes, in its own transaction, a transaction-level advisory lock without waiting
(another replica folding: this one skips the round) and moves one bounded batch of committed deltas
(pg_term_stats.fold_sql); while batches come back full it folds the next at once, so a bulk load's deltas are gone
within seconds of its commit and no fold transaction grows with the load. A replica killed mid-fold loses nothing:
its transaction rolls back, the deltas stay, and the next fold (here or elsewhere) takes them.
"""

from __future__ import annotations

import logging
from typing import Any

import psycopg

from memoryd.replication.worker import Worker
from memoryd.storage import pg_term_stats
from memoryd.storage.pg_advisory import lock_key
from memoryd.storage.pg_coordination import Connect

_log = logging.getLogger("memoryd.replication.term_fold")

#: The advisory lock's name (per schema: each store folds its own deltas).
TERM_FOLD = "memoryd.term_fold"
#: Full batches folded back to back in one round at most (then the next round, after interval_s).
MAX_BATCHES = 200


class TermFolder:
    """fold_once() on demand; start() folds every interval_s on a daemon thread until close()."""

    def __init__(
        self, connect: Connect, schema: str, *, interval_s: float = 2.0, batch: int = pg_term_stats.FOLD_BATCH
    ) -> None:
        self._connect = connect
        self._key = lock_key(f"{TERM_FOLD}:{schema}")
        self._sql = pg_term_stats.fold_sql(schema, batch)
        self._batch = batch
        self._interval_s = interval_s
        self._conn: psycopg.Connection[Any] | None = None
        self._worker = Worker("memoryd-term-fold", self._run)
        #: Deltas this folder moved so far.
        self.folded = 0

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = self._connect()
            self._conn.autocommit = True
        return self._conn

    def fold_once(self) -> int | None:
        """One round: the deltas moved, or None when another replica holds the fold lock."""
        conn = self._connection()
        moved = 0
        for _ in range(MAX_BATCHES):
            with conn.transaction():
                row = conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (self._key,)).fetchone()
                if not (row and row[0]):
                    return None if moved == 0 else moved
                done = conn.execute(self._sql).fetchone()
            step = int(done[0]) if done else 0
            moved += step
            self.folded += step
            if step < self._batch:
                break
        return moved

    def start(self) -> None:
        """Fold every interval_s on a background thread."""
        self._worker.start()

    def close(self) -> None:
        """Stop folding and close the connection (a fold in progress finishes its batch first)."""
        self._worker.close()
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _run(self) -> None:
        while not self._worker.stop.wait(self._interval_s):
            try:
                self.fold_once()
            except psycopg.Error as error:
                _log.warning("folding the lexeme counts failed: %s", type(error).__name__)
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None


__all__ = ["MAX_BATCHES", "TERM_FOLD", "TermFolder"]
