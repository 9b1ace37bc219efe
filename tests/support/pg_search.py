"""A test PostgreSQL for the search and vector stores: one server per test session, a fresh store schema per test
(created by open_store, so the tables, the full-text columns and the vector tables are the real ones)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from memoryd.storage.pg_sql import PgSql
from memoryd.storage.store import open_store
from tests.support.postgres import PostgresInstance, postgres_or_skip

_schemas = itertools.count(1)


def new_search_schema(db: PgSql) -> str:
    """A fresh PostgreSQL schema holding a whole memory store (open_store: tables, search_ddl's columns, indexes and
    vector partitions' parent); returns its name."""
    schema = f"search_{next(_schemas)}"
    store = open_store(db.dsn, schema=schema)
    store.db.close_all()
    return schema


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresInstance]:
    """One PostgreSQL for the whole session (skipped where the wheel cannot run)."""
    with postgres_or_skip() as instance:
        yield instance


@pytest.fixture
def pg(postgres: PostgresInstance) -> Iterator[PgSql]:
    """A runner on the session's database; its connections are closed after the test."""
    db = PgSql(postgres.dsn)
    yield db
    db.close()
