"""One fold round of PostgreSQL's lexeme-count deltas (pg_term_stats.py), on its own autocommit connection.

Each batch is its own transaction: a transaction-level advisory lock taken without waiting (another replica folding
→ this round is skipped), then pg_term_stats.fold_sql, which moves up to `batch` committed deltas into search_terms
in one statement (a batch counts delta rows, one per writing statement and agent). While batches come back full the next follows at once (at most MAX_BATCHES a round), so a bulk
load's deltas are gone soon after its commit and no fold transaction grows with the load. A fold interrupted by a
crash rolls back: its deltas stay for the next one.
"""

from __future__ import annotations

from typing import Any

import psycopg

from memoryd.storage import pg_term_stats
from memoryd.storage.pg_advisory import lock_key
from memoryd.storage.pg_coordination import Connect

#: The advisory lock's name (per schema: each store folds its own deltas).
TERM_FOLD = "memoryd.term_fold"
#: Full batches folded back to back in one round at most.
MAX_BATCHES = 200


class PgTermFold:
    """fold_once() moves committed deltas into the folded counts; close() closes its connection."""

    def __init__(self, connect: Connect, schema: str, *, batch: int = pg_term_stats.FOLD_BATCH) -> None:
        self._connect = connect
        self._key = lock_key(f"{TERM_FOLD}:{schema}")
        self._sql = pg_term_stats.fold_sql(schema, batch)
        self._batch = batch
        self._conn: psycopg.Connection[Any] | None = None
        #: (agent, source, lexeme) changes this fold moved so far.
        self.folded = 0

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed or self._conn.broken:
            self._conn = self._connect()
            self._conn.autocommit = True
        return self._conn

    def fold_once(self) -> int | None:
        """One round: the (agent, source, lexeme) changes moved, or None when another session held the fold lock from the start. A
        failure closes the connection (the next round opens another) and is raised."""
        conn = self._connection()
        moved = 0
        try:
            for _ in range(MAX_BATCHES):
                with conn.transaction():
                    row = conn.execute("SELECT pg_try_advisory_xact_lock(%s)", (self._key,)).fetchone()
                    if not (row and row[0]):
                        return None if moved == 0 else moved
                    done = conn.execute(self._sql).fetchone()
                rows, changes = (int(done[0]), int(done[1])) if done else (0, 0)
                moved += changes
                self.folded += changes
                if rows < self._batch:
                    break
        except psycopg.Error:
            self.close()
            raise
        return moved

    def close(self) -> None:
        """Close the connection."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


__all__ = ["MAX_BATCHES", "TERM_FOLD", "PgTermFold"]
