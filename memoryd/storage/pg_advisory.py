"""A session-level PostgreSQL advisory lock on a dedicated connection: one consolidation pass at a time across
replicas. The lock lives as long as the connection, so a replica killed mid-pass releases it when PostgreSQL
notices the connection closed (at once for a dead process; TCP keepalives bound it for a dead host).
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import psycopg

from memoryd.storage.pg_coordination import Connect


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for a lock name (advisory locks are keyed by bigint)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


class PgAdvisoryLock:
    """try_acquire()/release() a named session advisory lock; not re-entrant across threads of one replica (the
    caller serialises, as Consolidator does)."""

    def __init__(self, connect: Connect, name: str) -> None:
        self._connect = connect
        self._key = lock_key(name)
        self._mu = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        self._held = False

    @property
    def is_held(self) -> bool:
        """Whether this replica holds the lock now."""
        return self._held

    def try_acquire(self) -> bool:
        """Take the lock unless another session holds it; never waits."""
        with self._mu:
            if self._held:
                return True
            if self._conn is None or self._conn.closed:
                self._conn = self._connect()
                self._conn.autocommit = True
            try:
                row = self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self._key,)).fetchone()
            except psycopg.Error:
                self._conn.close()
                self._conn = None
                raise
            self._held = bool(row and row[0])
            return self._held

    def release(self) -> None:
        """Give the lock back (closing the connection when the unlock cannot be sent releases it too)."""
        with self._mu:
            if not self._held or self._conn is None:
                self._held = False
                return
            self._held = False
            try:
                self._conn.execute("SELECT pg_advisory_unlock(%s)", (self._key,))
            except psycopg.Error:
                self._conn.close()
                self._conn = None

    def close(self) -> None:
        """Release and close the connection."""
        self.release()
        with self._mu:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


__all__ = ["PgAdvisoryLock", "lock_key"]
