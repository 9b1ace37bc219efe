"""A small psycopg runner for the PostgreSQL search and vector stores: one autocommit connection per thread.

Statements use psycopg's `%s` placeholders. `PgQueries` is what PgFtsIndex and PgVectorStore need from it, so the
PostgreSQL `Database` of the storage layer can stand in for it once it offers the same four methods.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

import psycopg

from memoryd.storage.pg_halfvec import register as register_halfvec
from memoryd.storage.pg_session import SessionSettings

#: Positional (%s) or named (%(name)s) parameters.
Params = Sequence[Any] | Mapping[str, Any]


class PgQueries(Protocol):
    """Run statements with `%s` placeholders; each call outside transaction() commits on its own."""

    def query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]: ...

    def scalar(self, sql: str, params: Params = ()) -> Any: ...

    def execute(self, sql: str, params: Params = ()) -> int: ...

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def transaction(self) -> Any: ...

    def setting(self, name: str, value: str) -> None:
        """Make a session setting of this thread's connection `value` (no round trip when it already is)."""
        ...


class PgSql:
    """Thread-local autocommit psycopg connections to one database, with session settings applied on connect."""

    def __init__(self, dsn: str, settings: Mapping[str, str] | None = None) -> None:
        self.dsn = dsn
        self._settings = dict(settings or {})
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[psycopg.Connection[Any]] = []
        self._session = SessionSettings()

    def _conn(self) -> psycopg.Connection[Any]:
        conn: psycopg.Connection[Any] | None = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            conn = psycopg.connect(self.dsn, autocommit=True)
            register_halfvec(conn.adapters)
            for name, value in self._settings.items():
                conn.execute("SELECT set_config(%s, %s, false)", (name, value))
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def query(self, sql: str, params: Params = ()) -> list[tuple[Any, ...]]:
        """All rows of a statement."""
        return list(self._conn().execute(sql, params).fetchall())

    def scalar(self, sql: str, params: Params = ()) -> Any:
        """The first column of the first row, or None."""
        row = self._conn().execute(sql, params).fetchone()
        return None if row is None else row[0]

    def execute(self, sql: str, params: Params = ()) -> int:
        """Run a statement; returns its row count."""
        return int(self._conn().execute(sql, params).rowcount)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run a statement once per row of parameters (pipelined by psycopg)."""
        with self._conn().cursor() as cursor:
            cursor.executemany(sql, rows)

    def setting(self, name: str, value: str) -> None:
        """Make a session setting of this thread's connection `value` (no round trip when it already is)."""
        self._session.apply(self._conn(), name, value)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Statements on this thread inside the block commit together (or not at all)."""
        with self._conn().transaction():
            yield

    def close(self) -> None:
        """Close every connection opened so far."""
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            conn.close()
