"""SQLCipher-aware connections: raw-key opening, and a peewee database whose connections can all be swapped live.

Plaintext stores use the standard library's sqlite3; encrypted ones use sqlcipher3 with a raw 32-byte key
(`PRAGMA key = "x'…'"`, so no per-connection PBKDF2). `SwappableSqliteDatabase` remembers every connection it
opened on every thread, so a conversion or a recovery can close them all, point the database at another file or
key, and let each thread reconnect lazily on its next statement.
"""

from __future__ import annotations

import contextlib
import gc
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import peewee
from sqlcipher3 import dbapi2 as sqlcipher

from memoryd.storage.guarded import StoreOfflineError, StoreSwappedError, guarded_connection_class
from memoryd.storage.sqlfuncs import add_math_functions, lacks_math

#: How long a statement waits for a conversion or recovery to put the store back online.
OFFLINE_WAIT_S = 120.0
#: How long a swap lets open read transactions finish before closing their connections anyway.
TXN_WAIT_S = 5.0
#: Errors a DB-API call can raise, from either driver.
DB_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error, sqlcipher.Error)


def _wait_idle(conns: list[Any], deadline: float) -> None:
    """Wait until every connection is idle (no transaction, no pending rows) or the deadline passes."""
    collect_at = time.monotonic() + 0.1
    while True:
        busy = [conn for conn in conns if not conn.is_idle()]
        if not busy or time.monotonic() >= deadline:
            return
        if collect_at and time.monotonic() >= collect_at:
            gc.collect()  # an abandoned, half-read cursor in a reference cycle stays pending until collected
            collect_at = 0.0
            continue
        time.sleep(0.002)


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
        # id(conn) -> (conn, the thread it belongs to). sqlite3 connections take no weak references, so the
        # connections of threads that have ended (one per distillation, timers, …) are closed by _prune_dead().
        self._open: dict[int, tuple[Any, threading.Thread]] = {}
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
            self.database,
            timeout=internals._timeout,
            isolation_level=None,
            factory=guarded_connection_class(module),  # go_offline may close it from another thread
            **self.connect_params,
        )
        try:
            if self._key is not None:
                apply_key(conn, self._key)
            if lacks_math(module):  # SQLCipher's build: decay's exp() and friends in Python
                add_math_functions(conn)
            internals._add_conn_hooks(conn)
        except BaseException:
            conn.close()
            raise
        with self._registry_lock:
            dead = self._prune_dead()
            self._open[id(conn)] = (conn, threading.current_thread())
        for stale in dead:
            with contextlib.suppress(*DB_ERRORS):
                stale.close()
        self._state.epoch = self._epoch  # type: ignore[attr-defined]
        return conn

    def _prune_dead(self) -> list[Any]:
        """Unregister the connections of threads that have ended; the caller closes them (lock held)."""
        dead = [key for key, (_, thread) in self._open.items() if not thread.is_alive()]
        return [self._open.pop(key)[0] for key in dead]

    def _close(self, conn: Any) -> None:
        # Whoever takes a connection out of the registry closes it, exactly once: two threads closing one
        # sqlite3/sqlcipher connection at the same time corrupt the heap (go_offline vs. its owner).
        with self._registry_lock:
            owned = self._open.pop(id(conn), None) is not None
        if owned:
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
        """Closed, or holding a handle from before the last swap: dropped outside transactions once idle (no rows
        pending) or closed by the swap. Inside a transaction it stays, so the transaction fails cleanly
        (StoreSwappedError) instead of running its next statements on another connection."""
        state = self._state  # type: ignore[attr-defined]
        if not state.closed and getattr(state, "epoch", self._epoch) != self._epoch:
            stale = state.conn
            if not state.transactions and (stale.swapped or stale.is_idle()):
                with self._registry_lock:
                    owned = self._open.pop(id(stale), None) is not None
                if owned:  # else go_offline took it and closes it
                    with contextlib.suppress(*DB_ERRORS):
                        stale.close_for_swap()
                state.reset()
        return bool(state.closed)

    def execute_sql(self, sql: str, params: Any = None) -> Any:
        """Run one statement; one refused by a swap before it ran (StoreSwappedError) runs again on the new store."""
        while True:
            try:
                return super().execute_sql(sql, params)  # type: ignore[no-untyped-call]
            except StoreSwappedError:
                if self.in_transaction() or not self._drop_swapped():
                    raise  # a transaction's earlier statements are gone with the old connection

    def _drop_swapped(self) -> bool:
        """Forget this thread's retired or swapped connection (go_offline closes it); the next call reconnects.
        False when there was none to drop."""
        state = self._state  # type: ignore[attr-defined]
        if state.closed or not (state.conn.retired or state.conn.swapped):
            return False
        with self._registry_lock:
            owned = self._open.pop(id(state.conn), None) is not None
        if owned:
            with contextlib.suppress(*DB_ERRORS):
                state.conn.close_for_swap()
        state.reset()
        return True

    # Transactions hold their connection's _txn lock from BEGIN to COMMIT/ROLLBACK, so a swap lets open read
    # transactions finish instead of closing their connection under them (writes are already held).
    def begin(self, *args: Any, **kwargs: Any) -> None:
        """BEGIN, first taking this connection's transaction lock (a swap in progress holds it)."""
        while True:
            conn: Any = self.connection()  # type: ignore[no-untyped-call]
            guard = conn._txn
            guard.acquire()
            if conn.swapped:  # closed by a swap while we waited
                guard.release()
                if not self._drop_swapped():
                    raise StoreSwappedError()
                continue
            self._state.txn_guard = guard  # type: ignore[attr-defined]
            try:
                super().begin(*args, **kwargs)
                return
            except StoreSwappedError:  # retired before BEGIN ran: start over on the new store
                self._release_txn()
                if not self._drop_swapped():
                    raise
            except BaseException:
                self._release_txn()
                raise

    def commit(self) -> None:
        """COMMIT and release the transaction lock (StoreSwappedError if a swap closed the connection)."""
        try:
            state = self._state  # type: ignore[attr-defined]
            if not state.closed and state.conn.swapped:
                raise StoreSwappedError()
            super().commit()
        finally:
            self._release_txn()

    def rollback(self) -> None:
        """ROLLBACK and release the transaction lock (a connection closed by a swap has nothing to roll back)."""
        try:
            state = self._state  # type: ignore[attr-defined]
            if state.closed or not state.conn.swapped:
                super().rollback()
        finally:
            self._release_txn()

    def _release_txn(self) -> None:
        guard = getattr(self._state, "txn_guard", None)  # type: ignore[attr-defined]
        if guard is not None:
            self._state.txn_guard = None  # type: ignore[attr-defined]
            guard.release()

    def go_offline(self, txn_wait_s: float = TXN_WAIT_S) -> None:
        """Close every thread's connection, letting the work under way finish first (bounded by txn_wait_s).

        New connections wait for go_online. Every open connection is retired at once (an idle one refuses new
        work, which then waits for the new store), open transactions and cursors with rows still to deliver get
        up to txn_wait_s, then each connection is closed with its cursors; whatever was still using one gets
        StoreSwappedError (retryable), never a crash or a closed-database error.
        """
        self._online.clear()
        with self._lock:  # type: ignore[attr-defined]  # peewee's connect lock: nobody is half-way through opening a connection
            self._epoch += 1
            with self._registry_lock:
                conns = [conn for conn, _ in self._open.values()]
                self._open.clear()
        for conn in conns:
            conn.retire()
        deadline = time.monotonic() + txn_wait_s
        held = [c for c in conns if c._txn.acquire(timeout=max(0.0, deadline - time.monotonic()))]
        try:
            _wait_idle(conns, deadline)
            for conn in conns:
                with contextlib.suppress(*DB_ERRORS):
                    conn.close_for_swap()
        finally:
            for conn in held:
                conn._txn.release()

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
    "StoreSwappedError",
    "SwappableSqliteDatabase",
    "apply_key",
    "connect_cipher",
    "connect_raw",
    "key_pragma",
]
