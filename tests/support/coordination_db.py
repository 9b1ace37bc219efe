"""A real PostgreSQL for the replication tests: autocommit connections and a fresh schema holding pending_signals.

The replication primitives and the claim loop's wake-ups are tested against the same minimal schema (the table the
due queue reads, plus PgCoordination's own tables when asked); each test gets its own schema so tests never share
claims or deadlines.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import psycopg

from memoryd.storage.pg_coordination import PgCoordination
from tests.support.postgres import PostgresInstance

Connect = Callable[[], "psycopg.Connection[Any]"]
_schemas = itertools.count()


def autocommit_connect(pg: PostgresInstance) -> Connect:
    """A factory of autocommit connections to `pg` (what PgCoordination and the listeners take)."""

    def open_connection() -> psycopg.Connection[Any]:
        return psycopg.connect(pg.dsn, autocommit=True)

    return open_connection


def pending_signals_schema(connect: Connect, prefix: str, *, coordination: bool = False) -> str:
    """A new schema named `<prefix>_<n>_<ms>` with a pending_signals table (and PgCoordination's tables if asked)."""
    name = f"{prefix}_{next(_schemas)}_{int(time.time() * 1000) % 100000}"
    with connect() as conn:
        conn.execute(f"CREATE SCHEMA {name}".encode())
        conn.execute(
            f"CREATE TABLE {name}.pending_signals (id bigserial PRIMARY KEY, agent_id text, conversation_id text,"
            " status text, created_at_ms bigint)".encode()
        )
    if coordination:
        board = PgCoordination(connect, name)
        board.ensure_schema()
        board.close()
    return name
