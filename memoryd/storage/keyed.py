"""SQLCipher-aware connections: raw-key opening, and a peewee database whose connections can all be swapped live.

Plaintext stores use the standard library's sqlite3; encrypted ones use sqlcipher3 with a raw 32-byte key
(`PRAGMA key = "x'…'"`, so no per-connection PBKDF2). `SwappableSqliteDatabase` remembers every connection it
opened on every thread, so a conversion or a recovery can close them all, point the database at another file or
key, and let each thread reconnect lazily on its next statement.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import peewee
from sqlcipher3 import dbapi2 as sqlcipher

#: How long a statement waits for a conversion or recovery to put the store back online.
OFFLINE_WAIT_S = 120.0
#: Errors a DB-API call can raise, from either driver.
DB_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, sqlcipher.Error)


class StoreOfflineError(peewee.OperationalError):
    """The store was offline (being converted or recovered) for longer than OFFLINE_WAIT_S."""


def key_pragma(key: bytes) -> str:
    """The raw-key PRAGMA: a hex blob literal, which SQLCipher uses as-is (raw bytes would go through PBKDF2)."""
    if len(key) != 32:
        raise ValueError("a store key is 32 bytes")
    return f"PRAGMA key = \"x'{key.hex()}'\""


def apply_key(conn: Any, key: bytes) -> None:
    """Key a fresh sqlcipher3 connection and prove the key by reading the schema (raises on a wrong key)."""
    conn.execute("PRAGMA cipher_log_level = NONE")  # SQLCipher would print 'hmac check failed' to stderr
    conn.execute(key_pragma(key))
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()


def connect_raw(path: Path, key: bytes | None, *, timeout_s: float = 15.0) -> Any:
    """A DB-API connection (autocommit) to `path`: sqlcipher3 with `key`, or sqlite3 without one."""
    if key is None:
        return sqlite3.connect(str(path), timeout=timeout_s, isolation_level=None)
    conn = sqlcipher.connect(str(path), timeout=timeout_s, isolation_level=None)
    try:
        apply_key(conn, key)
    except BaseException:
        conn.close()
        raise
    return conn


def connect_cipher(path: Path, key: bytes | None, *, timeout_s: float = 15.0) -> Any:
    """A sqlcipher3 connection even for a plaintext file (sqlcipher_export needs the SQLCipher build)."""
    conn = sqlcipher.connect(str(path), timeout=timeout_s, isolation_level=None)
    try:
        conn.execute("PRAGMA cipher_log_level = NONE")
        if key is not None:
            apply_key(conn, key)
        else:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


class SwappableSqliteDatabase(peewee.SqliteDatabase):
    """peewee SqliteDatabase that opens SQLCipher connections when keyed and can close every thread's connection.

    Every connection is registered (check_same_thread=False, so the swapping thread may close it). `go_offline`
    makes new connections wait and closes the registered ones; `go_online` points at a file and key and bumps the
    epoch, so a thread holding a stale handle drops it on its next statement (outside a transaction).
    """

    def __init__(self, database: str, *, key: bytes | None = None, **kwargs: Any) -> None:
        self._key = key
        self._epoch = 0
        self._online = threading.Event()
        self._online.set()
        self._open: dict[int, Any] = {}
        self._registry_lock = threading.Lock()
        super().__init__(database, check_same_thread=False, **kwargs)

    @property
    def is_keyed(self) -> bool:
        """Whether connections open with a SQLCipher key."""
        return self._key is not None

    def _connect(self) -> Any:
        if not self._online.is_set():
            raise StoreOfflineError("the memory store is offline")
        module: Any = sqlcipher if self._key is not None else sqlite3
        internals: Any = self  # peewee's private members are not in its type stubs
        conn = module.connect(
            self.database, timeout=internals._timeout, isolation_level=None, **self.connect_params
        )
        try:
            if self._key is not None:
                apply_key(conn, self._key)
            internals._add_conn_hooks(conn)
        except BaseException:
            conn.close()
            raise
        with self._registry_lock:
            self._open[id(conn)] = conn
        self._state.epoch = self._epoch  # type: ignore[attr-defined]
        return conn

    def _close(self, conn: Any) -> None:
        with self._registry_lock:
            self._open.pop(id(conn), None)
        conn.close()

    def connect(self, reuse_if_open: bool = False) -> bool:
        """Open this thread's connection, waiting while the store is offline."""
        deadline = time.monotonic() + OFFLINE_WAIT_S
        while True:
            if not self._online.wait(max(0.0, deadline - time.monotonic())):
                raise StoreOfflineError("the memory store stayed offline (conversion or recovery running)")
            try:
                return bool(super().connect(reuse_if_open))
            except StoreOfflineError:
                continue

    def is_closed(self) -> bool:
        """Closed, or holding a handle from before the last swap (which is then dropped, outside transactions)."""
        state = self._state  # type: ignore[attr-defined]
        if (
            not state.closed
            and getattr(state, "epoch", self._epoch) != self._epoch
            and not state.transactions
        ):
            stale = state.conn
            with self._registry_lock:
                self._open.pop(id(stale), None)
            with contextlib.suppress(*DB_ERRORS):
                stale.close()
            state.reset()
        return bool(state.closed)

    def go_offline(self) -> None:
        """New connections wait; every registered connection (every thread's) is closed now."""
        self._online.clear()
        with self._lock:  # type: ignore[attr-defined]  # peewee's connect lock: nobody is half-way through opening a connection
            self._epoch += 1
            with self._registry_lock:
                conns = list(self._open.values())
                self._open.clear()
        for conn in conns:
            with contextlib.suppress(*DB_ERRORS):
                conn.close()

    def go_online(self, database: str, key: bytes | None) -> None:
        """Point at `database` with `key` (None: plaintext) and let connections open again."""
        with self._lock:  # type: ignore[attr-defined]
            self.database = database
            self._key = key
            self._epoch += 1
        self._online.set()


__all__ = [
    "DB_ERRORS",
    "OFFLINE_WAIT_S",
    "StoreOfflineError",
    "SwappableSqliteDatabase",
    "apply_key",
    "connect_cipher",
    "connect_raw",
    "key_pragma",
]
