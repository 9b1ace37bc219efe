"""What the row stores need of a database handle, whichever backend it is: storage/db.py's SQLite `Database` and
storage/pg_db.py's `PgDatabase` both provide it. Statements use `?` placeholders and the SQL both backends accept;
`dialect` renders the few fragments that differ (memoryd/storage/dialect.py)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from memoryd.storage.dialect import Dialect
from memoryd.storage.faults import StorageHealth


class Cursor(Protocol):
    """The DB-API cursor surface the stores use (sqlite3's, or the PostgreSQL handle's)."""

    @property
    def rowcount(self) -> int:
        """Rows the statement changed (-1 when unknown)."""
        ...

    @property
    def description(self) -> Any:
        """The result's columns (each indexable: [0] is the name)."""
        ...

    def fetchone(self) -> Any:
        """The next row, or None."""
        ...

    def fetchall(self) -> list[Any]:
        """Every remaining row."""
        ...

    def fetchmany(self, size: int = ...) -> list[Any]:
        """Up to `size` more rows."""
        ...


class Connection(Protocol):
    """This thread's connection, for the hot path's statements inside an open write (no wrapper per call)."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any:
        """Run one statement (`?` placeholders); its cursor."""
        ...

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> Any:
        """Run one statement once per parameter row."""
        ...


class Database(Protocol):
    """A memory database handle: transactions, statements, the commit counter, the current fault."""

    #: The peewee database the models bind to.
    pw: Any
    #: The current storage fault (disk full, read-only, unreachable server).
    health: StorageHealth

    @property
    def dialect(self) -> Dialect:
        """Which backend, and its spelling of the fragments that differ."""
        ...

    @property
    def generation(self) -> int:
        """Incremented by every committed write that can change what a search finds: read-side caches key on it.
        Bookkeeping writes (write_one/write with content=False: the pinned-usage bump) leave it alone."""
        ...

    @property
    def commits(self) -> int:
        """Incremented by every committed write, bookkeeping ones included (how busy the store is)."""
        ...

    def write(self, *, content: bool = True) -> AbstractContextManager[None]:
        """One write transaction (nested: a savepoint); content=False leaves `generation` alone."""
        ...

    def read(self) -> AbstractContextManager[None]:
        """One consistent read snapshot."""
        ...

    def write_one(self, sql: str, params: Sequence[Any] = (), *, content: bool = True) -> int:
        """One write statement committed on its own (inside an open write: part of it); rows changed.
        content=False: bookkeeping no search reads, `generation` stays (`commits` moves)."""
        ...

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement on this thread's connection."""
        ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters (inside the caller's write)."""
        ...

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of a SELECT."""
        ...

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """First column of the first row, or None."""
        ...

    def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one INSERT of one row into a table with an `id` key; the new row's id."""
        ...

    def connection(self) -> Connection:
        """This thread's connection (inside a write: the hot path's statements skip the handle's wrapper)."""
        ...

    def file_bytes(self) -> int:
        """Bytes the store takes on disk (SQLite: the file and its WAL; PostgreSQL: the schema's relations)."""
        ...

    def table_exists(self, name: str) -> bool:
        """Whether a table of that name exists."""
        ...

    def columns(self, table: str) -> list[str]:
        """Column names of a table."""
        ...

    def column_info(self, table: str) -> list[tuple[str, str, bool, Any, bool]]:
        """(name, SQLite type affinity name, NOT NULL, default, part of the primary key) of each stored column."""
        ...

    def last_id(self, table: str) -> int:
        """The highest id the table ever handed out (0 when none)."""
        ...

    def ids_given(self, table: str) -> None:
        """Rows were inserted with explicit ids: later generated ids continue above them."""
        ...

    def close(self) -> None:
        """Close this thread's connection."""
        ...


__all__ = ["Connection", "Cursor", "Database"]
