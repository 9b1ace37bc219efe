"""Opening memory.sqlite: pragmas, one connection per thread, serialised write transactions."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memoryd.storage.dialect import SQLITE_DIALECT, Dialect
from memoryd.storage.faults import StorageHealth
from memoryd.storage.keyed import StoreSwappedError, SwappableSqliteDatabase
from memoryd.storage.private import private_file, private_folder, tighten_store

#: PRAGMAs applied to every connection. WAL lets readers run while one writer commits.
PRAGMAS: dict[str, Any] = {
    "journal_mode": "wal",
    "synchronous": "normal",
    "foreign_keys": 1,
    "busy_timeout": 15000,
    "temp_store": "memory",
    # Per connection, and there is one per thread (~30 under load: gRPC, search, writer, indexer): 4 MB each bounds
    # the caches at ~120 MB instead of ~600 MB. While turns arrive every commit empties the other connections'
    # caches anyway; in a reads-only soak 4 MB served as many calls as 20 MB (bench_soak, issue 11).
    "cache_size": -4000,
}

#: How often query/scalar re-run a statement whose rows a live store swap took away (outside transactions).
SWAP_RETRIES = 2


class Database:
    """The memory database. peewee keeps one connection per thread (the gRPC pool is threads).

    Writes take a process-wide lock and BEGIN IMMEDIATE, so two writers never race for the SQLite write lock and
    no reader ever sees "database is locked"; WAL readers never block.
    """

    def __init__(self, path: Path | str, *, key: bytes | None = None) -> None:
        self.path = Path(path) if str(path) != ":memory:" else Path(":memory:")
        if str(self.path) != ":memory:":
            # 0600 before SQLite first opens it: SQLite creates the file 0644 and gives -wal/-shm the file's mode.
            private_folder(self.path.parent)
            if not self.path.exists():
                private_file(self.path)
            tighten_store(self.path)
        # key: SQLCipher raw key (None = plaintext). Swappable so memoryd.security can convert the store live.
        self.pw = SwappableSqliteDatabase(
            str(self.path),
            key=key,
            pragmas=PRAGMAS,
            timeout=15,
            lock_type="IMMEDIATE",
            thread_safe=True,
            autoconnect=True,
        )
        self._write_lock = threading.RLock()
        self._generation = 0
        self._commits = 0
        #: The current storage fault (disk full, read-only): set by a failed write, cleared by a committed one.
        self.health = StorageHealth()

    @property
    def dialect(self) -> Dialect:
        """SQLite."""
        return SQLITE_DIALECT

    @property
    def generation(self) -> int:
        """Incremented by every committed write that can change what a search finds (all but write_one's with
        content=False); caches of derived statistics compare against it."""
        return self._generation

    @property
    def commits(self) -> int:
        """Incremented by every committed write, bookkeeping ones included (activity, for the consolidation pacer)."""
        return self._commits

    @contextmanager
    def write(self, *, content: bool = True) -> Iterator[None]:
        """One write transaction (nested calls become savepoints); a full or read-only store is noted in health.
        content=False: the block only changes bookkeeping no search reads (usage counts), so `generation` stays."""
        try:
            with self._write_lock, self.pw.atomic():
                yield
                self._commits += 1
                if content:
                    self._generation += 1
        except Exception as error:
            self.health.observe(error, "write")
            raise
        if not self.pw.in_transaction():  # the outermost block committed
            self.health.clear()

    def write_one(self, sql: str, params: Sequence[Any] = (), *, content: bool = True) -> int:
        """One write statement in a write transaction of its own (SQLite takes the file's write lock for it);
        content=False as for write()."""
        with self.write(content=content):
            return int(self.execute(sql, params).rowcount)

    @contextmanager
    def read(self) -> Iterator[None]:
        """A consistent read snapshot (a deferred transaction) on this thread's connection."""
        if self.pw.in_transaction():
            yield
            return
        with self.pw.atomic("DEFERRED"):
            yield

    @property
    def is_encrypted(self) -> bool:
        """Whether the open file is SQLCipher-encrypted."""
        return self.pw.is_keyed

    @contextmanager
    def writes_held(self) -> Iterator[None]:
        """Hold the write lock without a transaction (a conversion copies the file while nobody writes)."""
        with self._write_lock:
            yield

    def swap(self, path: Path, key: bytes | None) -> None:
        """Point every thread at `path` with `key` (call between pw.go_offline() and here, writes held)."""
        self.path = path
        self._generation += 1
        self._commits += 1
        self.pw.go_online(str(path), key)

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        """Run one statement on this thread's connection."""
        cursor: sqlite3.Cursor = self.pw.execute_sql(sql, tuple(params))
        return cursor

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters (inside the caller's write)."""
        self.connection().executemany(sql, rows)

    def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one INSERT of one row; the new row's id."""
        return int(self.execute(sql, params).lastrowid or 0)

    def connection(self) -> sqlite3.Connection:
        """This thread's DB-API connection (sqlite3, or sqlcipher3's for an encrypted store)."""
        connection: sqlite3.Connection = self.pw.connection()  # type: ignore[no-untyped-call]
        return connection

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run a SELECT and fetch every row (outside a transaction, again on the new store if swapped meanwhile)."""
        for attempt in range(SWAP_RETRIES + 1):
            try:
                return list(self.execute(sql, params).fetchall())
            except StoreSwappedError:
                if attempt == SWAP_RETRIES or self.pw.in_transaction():
                    raise
        raise AssertionError("unreachable")

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """First column of the first row, or None (retried like query)."""
        for attempt in range(SWAP_RETRIES + 1):
            try:
                row = self.execute(sql, params).fetchone()
                return None if row is None else row[0]
            except StoreSwappedError:
                if attempt == SWAP_RETRIES or self.pw.in_transaction():
                    raise
        raise AssertionError("unreachable")

    def file_bytes(self) -> int:
        """Size of the database file plus its WAL and shared-memory files."""
        total = 0
        for suffix in ("", "-wal", "-shm"):
            candidate = Path(f"{self.path}{suffix}")
            if candidate.exists():
                total += candidate.stat().st_size
        return total

    def table_exists(self, name: str) -> bool:
        """Whether a table (or virtual table) of that name exists."""
        return bool(self.scalar("SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?", (name,)))

    def columns(self, table: str) -> list[str]:
        """Column names of a table."""
        return [row[1] for row in self.query(f'PRAGMA table_info("{table}")')]

    def column_info(self, table: str) -> list[tuple[str, str, bool, Any, bool]]:
        """(name, declared type, NOT NULL, default, in the primary key) of each stored column (generated excluded)."""
        return [
            (str(name), str(decl).upper(), bool(notnull), default, bool(pk))
            for _cid, name, decl, notnull, default, pk in self.query(f'PRAGMA table_info("{table}")')
        ]

    def last_id(self, table: str) -> int:
        """The highest id the table ever handed out (AUTOINCREMENT's sequence; max(id) before the first insert)."""
        seq = self.scalar("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
        if seq is not None:
            return int(seq)
        return int(self.scalar(f"SELECT coalesce(max(id), 0) FROM {table}") or 0)

    def ids_given(self, table: str) -> None:
        """Nothing to do: AUTOINCREMENT continues above explicitly given ids by itself."""
        del table

    def close(self) -> None:
        """Close this thread's connection (other threads' connections close when they exit)."""
        if not self.pw.is_closed():
            self.pw.close()
