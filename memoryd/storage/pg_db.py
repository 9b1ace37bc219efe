"""The memory database on PostgreSQL: the same surface as storage/db.py's SQLite `Database`, over peewee's
PostgresqlDatabase and psycopg 3, one connection per thread, every table in one PostgreSQL schema.

Statements arrive in the stores' portable SQL with `?` placeholders (memoryd/storage/pg_placeholders.py numbers them) and run
on psycopg's RawCursor (server-side `$n` binding, prepared after a few uses). Each connection's search_path is the
store's schema, then `public` (where the extensions' types live), so one database holds many isolated stores.
Writes take a process-wide lock, as on SQLite, so one memoryd never races itself; several replicas on one database
coordinate in the database (claims, advisory locks). Reads run in REPEATABLE READ: one snapshot per read() block.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import peewee
import psycopg
from psycopg import sql as pgsql
from psycopg.adapt import Loader
from psycopg.conninfo import conninfo_to_dict

from memoryd.storage.dialect import POSTGRES_DIALECT, Dialect
from memoryd.storage.faults import StorageHealth
from memoryd.storage.pg_halfvec import register as register_halfvec
from memoryd.storage.pg_placeholders import pg_params, to_postgres
from memoryd.storage.pg_session import SessionSettings

#: Schema names memoryd accepts: plain lower-case identifiers (no quoting surprises in search_path or DDL).
SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
DEFAULT_SCHEMA = "public"
#: PostgreSQL types → the SQLite affinity names the export/import code knows.
_AFFINITY = {
    "bigint": "INTEGER",
    "integer": "INTEGER",
    "smallint": "INTEGER",
    "text": "TEXT",
    "double precision": "REAL",
    "real": "REAL",
    "bytea": "BLOB",
}


class InvalidSchemaNameError(ValueError):
    """A PostgreSQL schema name memoryd does not accept."""


def check_schema(schema: str) -> str:
    """`schema` when it is a plain identifier (lower-case letters, digits, underscore; at most 63 characters)."""
    if not SCHEMA_NAME.match(schema):
        raise InvalidSchemaNameError(
            "a PostgreSQL schema name must be lower-case letters, digits and underscores (at most 63), "
            "starting with a letter or underscore"
        )
    return schema


class _NumericLoader(Loader):
    """numeric (sum() and avg() of integers) as int when whole, else float: what SQLite returns."""

    def load(self, data: Any) -> int | float:
        text = bytes(data).decode("ascii")
        if text.lstrip("-").isdigit():
            return int(text)
        return float(text)


#: Settings every connection starts with, sent in its startup packet (no round trip). JIT compiles a statement whose
#: estimated cost passes jit_above_cost (100,000), which can add tens of ms to a statement that runs in a few: none of
#: the read path's statements reached that cost at 100k rows per agent (docs/postgres_search.md), but estimates
#: grow with the tables, and memoryd's statements are all short.
STARTUP_SETTINGS: tuple[tuple[str, str], ...] = (("jit", "off"),)


def startup_options(conninfo: str) -> str:
    """The connection's `options`: the DSN's own, then STARTUP_SETTINGS (a setting the DSN names is left to it)."""
    given = str(conninfo_to_dict(conninfo).get("options") or "")
    extra = [f"-c {name}={value}" for name, value in STARTUP_SETTINGS if f"{name}=" not in given]
    return " ".join([given, *extra]).strip()


def _prepare(connection: psycopg.Connection[Any], schema: str) -> None:
    connection.adapters.register_loader("numeric", _NumericLoader)
    register_halfvec(connection.adapters)
    connection.execute(pgsql.SQL("SET search_path TO {}, public").format(pgsql.Identifier(schema)))


def raw_connection(conninfo: str, schema: str) -> psycopg.Connection[Any]:
    """A new autocommit connection on the store's schema (for LISTEN, advisory locks, DDL outside peewee)."""
    connection = psycopg.connect(conninfo, autocommit=True, options=startup_options(conninfo))
    try:
        _prepare(connection, schema)
    except BaseException:
        connection.close()
        raise
    return connection


def _close_connections(opened: list[tuple[threading.Thread, psycopg.Connection[Any]]]) -> None:
    for _thread, connection in opened:
        connection.close()


class _PgPeewee(peewee.PostgresqlDatabase):
    """peewee over psycopg 3: every connection on the store's schema; floats are double precision as in SQLite."""

    field_types = {**peewee.PostgresqlDatabase.field_types, "FLOAT": "DOUBLE PRECISION"}  # noqa: RUF012

    def __init__(self, conninfo: str, schema: str) -> None:
        super().__init__("memoryd", prefer_psycopg3=True, autoconnect=True, thread_safe=True)
        self.conninfo = conninfo
        self.schema = schema
        # Every open connection with the thread it belongs to: a thread that ended leaves its connection behind
        # (peewee keeps them thread-local), so the next connect closes those, and close_every_connection all.
        self._opened: list[tuple[threading.Thread, psycopg.Connection[Any]]] = []
        self._opened_guard = threading.Lock()
        # Connections still open when the handle is dropped are closed then (never left to the driver's __del__).
        weakref.finalize(self, _close_connections, self._opened)

    def _connect(self) -> psycopg.Connection[Any]:
        connection = raw_connection(self.conninfo, self.schema)
        with self._opened_guard:
            orphans = [c for t, c in self._opened if not t.is_alive() or c.closed]
            self._opened[:] = [(t, c) for t, c in self._opened if t.is_alive() and not c.closed]
            self._opened.append((threading.current_thread(), connection))
        for orphan in orphans:
            orphan.close()
        return connection

    def close_every_connection(self) -> None:
        """Close the connections of every thread (the store is being shut down)."""
        with self._opened_guard:
            opened = list(self._opened)
            self._opened.clear()
        _close_connections(opened)


class _PgConnection:
    """This thread's psycopg connection, taking the stores' `?` statements (the hot path's Connection)."""

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self._connection = connection

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> psycopg.RawCursor[Any]:
        cursor = psycopg.RawCursor(self._connection)
        cursor.execute(to_postgres(sql), pg_params(parameters))
        return cursor

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> psycopg.RawCursor[Any]:
        cursor = psycopg.RawCursor(self._connection)
        cursor.executemany(to_postgres(sql), [pg_params(row) for row in seq_of_parameters])
        return cursor


class PercentQueries:
    """The handle's connections for SQL written with psycopg's own `%s` placeholders (pgsearch's full text and
    vector stores): each statement joins the calling thread's open transaction, or commits on its own."""

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    def _cursor(self) -> psycopg.Cursor[Any]:
        return self._db._usable().cursor()

    def query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """Every row."""
        cursor = self._cursor()
        cursor.execute(sql, params)
        return list(cursor.fetchall())

    def scalar(self, sql: str, params: Any = ()) -> Any:
        """First column of the first row, or None."""
        cursor = self._cursor()
        cursor.execute(sql, params)
        row = cursor.fetchone()
        return None if row is None else row[0]

    def execute(self, sql: str, params: Any = ()) -> int:
        """Rows changed."""
        cursor = self._cursor()
        cursor.execute(sql, params)
        return int(cursor.rowcount)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """One statement per row."""
        self._cursor().executemany(sql, rows)

    def setting(self, name: str, value: str) -> None:
        """Make a session setting of this thread's connection `value` (no round trip when it already is)."""
        self._db.session.apply(self._db._usable(), name, value)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction of the store (under its write lock)."""
        with self._db.write():
            yield


class PgDatabase:
    """A memory store in one PostgreSQL schema (peewee keeps one connection per thread)."""

    def __init__(self, conninfo: str, *, schema: str = DEFAULT_SCHEMA) -> None:
        self.conninfo = conninfo
        self.schema = check_schema(schema)
        self.pw = _PgPeewee(conninfo, self.schema)
        self._write_lock = threading.RLock()
        #: Session settings already made on each connection (pg_session.py).
        self.session = SessionSettings()
        self._generation = 0
        self._commits = 0
        #: The current storage fault (disk full, read-only, unreachable): set by a failed write, cleared by a commit.
        self.health = StorageHealth()

    @property
    def dialect(self) -> Dialect:
        """PostgreSQL."""
        return POSTGRES_DIALECT

    @property
    def generation(self) -> int:
        """Incremented by every committed write in this process that can change what a search finds (all but
        write_one's with content=False)."""
        return self._generation

    @property
    def commits(self) -> int:
        """Incremented by every committed write in this process, bookkeeping ones included."""
        return self._commits

    @property
    def is_encrypted(self) -> bool:
        """Never SQLCipher: encryption at rest is the database server's (disk or tablespace encryption)."""
        return False

    @contextmanager
    def write(self, *, content: bool = True) -> Iterator[None]:
        """One write transaction (nested calls become savepoints); a fault is noted in health. content=False: the
        block only changes bookkeeping no search reads (usage counts), so `generation` stays."""
        try:
            with self._write_lock:
                self._usable()
                with self.pw.atomic():
                    yield
                    self._commits += 1
                    if content:
                        self._generation += 1
        except Exception as error:
            self.health.observe(error, "write")
            raise
        if not self.pw.in_transaction():
            self.health.clear()

    def write_one(self, sql: str, params: Sequence[Any] = (), *, content: bool = True) -> int:
        """One write statement committed on its own: the connection's autocommit, no BEGIN / COMMIT round trips
        and not the store's write lock (the server's row locks order it against other writers; an UPDATE's
        `n = n + 1` re-reads a row another transaction changed, so no increment is lost). Inside an open write it
        is part of that transaction. A fault is noted in health as write()'s are. content=False: a bookkeeping
        statement no search reads (usage counts): `commits` moves, `generation` does not."""
        outer = self.pw.in_transaction()
        try:
            changed = int(self.execute(sql, params).rowcount)
        except Exception as error:
            self.health.observe(error, "write")
            raise
        if not outer:
            self._commits += 1
            if content:
                self._generation += 1
            self.health.clear()
        return changed

    @contextmanager
    def read(self) -> Iterator[None]:
        """A consistent snapshot (REPEATABLE READ) for the block, on this thread's connection."""
        if self.pw.in_transaction():
            yield
            return
        self._usable()
        with self.pw.atomic(isolation_level="REPEATABLE READ"):
            yield

    def _usable(self) -> psycopg.Connection[Any]:
        """This thread's connection, reopened first when the server dropped it (never inside a transaction)."""
        connection: psycopg.Connection[Any] = self.pw.connection()  # type: ignore[no-untyped-call]
        if (connection.closed or connection.broken) and not self.pw.in_transaction():
            self.pw.close()
            connection = self.pw.connection()  # type: ignore[no-untyped-call]
        return connection

    def connection(self) -> _PgConnection:
        """This thread's connection taking `?` statements (the hot path's, inside a write)."""
        return _PgConnection(self._usable())

    def execute(self, sql: str, params: Sequence[Any] = ()) -> psycopg.RawCursor[Any]:
        """Run one statement on this thread's connection."""
        cursor = psycopg.RawCursor(self._usable())
        with peewee.__exception_wrapper__:  # type: ignore[attr-defined]
            cursor.execute(to_postgres(sql), pg_params(params))
        return cursor

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement once per row of parameters (inside the caller's write)."""
        cursor = psycopg.RawCursor(self._usable())
        with peewee.__exception_wrapper__:  # type: ignore[attr-defined]
            cursor.executemany(to_postgres(sql), [pg_params(row) for row in rows])

    def execute_ddl(self, statement: str) -> None:
        """Run one statement as written (no placeholder translation: DDL with dollar-quoted bodies)."""
        with peewee.__exception_wrapper__:  # type: ignore[attr-defined]
            self._usable().execute(statement.encode())

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run a SELECT and fetch every row."""
        return list(self.execute(sql, params).fetchall())

    def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """First column of the first row, or None."""
        row = self.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one INSERT of one row; the new row's id."""
        row = self.execute(f"{sql} RETURNING id", params).fetchone()
        return int(row[0]) if row is not None else 0

    def file_bytes(self) -> int:
        """Bytes of the schema's tables with their indexes and TOAST (what the store takes in the database)."""
        return int(
            self.scalar(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('r', 'm', 'p')",
                (self.schema,),
            )
            or 0
        )

    def table_exists(self, name: str) -> bool:
        """Whether a table of that name exists in the store's schema."""
        return bool(
            self.scalar(
                "SELECT count(*) FROM pg_tables WHERE schemaname = ? AND tablename = ?", (self.schema, name)
            )
        )

    def columns(self, table: str) -> list[str]:
        """Column names of a table, in order."""
        return [row[0] for row in self.column_info(table)]

    def column_info(self, table: str) -> list[tuple[str, str, bool, Any, bool]]:
        """(name, SQLite affinity, NOT NULL, default, in the primary key) of each stored column."""
        rows = self.query(
            "SELECT c.column_name, c.data_type, c.is_nullable = 'NO', c.column_default, "
            "EXISTS (SELECT 1 FROM information_schema.table_constraints t "
            "JOIN information_schema.key_column_usage k ON k.constraint_name = t.constraint_name "
            "AND k.table_schema = t.table_schema AND k.table_name = t.table_name "
            "WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = c.table_schema "
            "AND t.table_name = c.table_name AND k.column_name = c.column_name) "
            "FROM information_schema.columns c WHERE c.table_schema = ? AND c.table_name = ? "
            "AND c.is_generated = 'NEVER' ORDER BY c.ordinal_position",
            (self.schema, table),
        )
        return [
            (str(name), _AFFINITY.get(str(kind), str(kind).upper()), bool(notnull), default, bool(pk))
            for name, kind, notnull, default, pk in rows
        ]

    def _sequence(self, table: str) -> str:
        return f"{self.schema}.{table}"

    def last_id(self, table: str) -> int:
        """The highest id the table's sequence handed out, or its highest id (0 when none)."""
        return int(
            self.scalar(
                f"SELECT greatest(coalesce(pg_sequence_last_value(pg_get_serial_sequence(?, 'id')::regclass), 0), "
                f"(SELECT coalesce(max(id), 0) FROM {table}))",
                (self._sequence(table),),
            )
            or 0
        )

    def ids_given(self, table: str) -> None:
        """Move the table's id sequence above ids inserted explicitly (an import keeps its rows' ids)."""
        self.execute(
            f"SELECT setval(pg_get_serial_sequence(?, 'id'), greatest(1, "
            f"coalesce(pg_sequence_last_value(pg_get_serial_sequence(?, 'id')::regclass), 0), "
            f"(SELECT coalesce(max(id), 0) FROM {table})))",
            (self._sequence(table), self._sequence(table)),
        ).fetchall()

    def percent_queries(self) -> PercentQueries:
        """This handle for statements written with `%s` placeholders (pgsearch's stores)."""
        return PercentQueries(self)

    def connect_raw(self) -> psycopg.Connection[Any]:
        """A new autocommit psycopg connection on this store's schema, for LISTEN/NOTIFY and advisory locks.
        The caller owns (and closes) it."""
        return raw_connection(self.conninfo, self.schema)

    def close(self) -> None:
        """Close this thread's connection."""
        if not self.pw.is_closed():
            self.pw.close()

    def close_all(self) -> None:
        """Close every thread's connection (shutdown; the store must not be used afterwards)."""
        self.close()
        self.pw.close_every_connection()


__all__ = [
    "DEFAULT_SCHEMA",
    "InvalidSchemaNameError",
    "PercentQueries",
    "PgDatabase",
    "check_schema",
    "raw_connection",
]
