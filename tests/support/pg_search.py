"""A test PostgreSQL for the search and vector stores: one server per test session, a fresh schema per test.

Until the storage layer creates the PostgreSQL schema itself (open_store on a postgresql:// URL), the three source
tables get the columns full-text search reads, created here; search_ddl adds its columns and indexes on top.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from memoryd.storage.pg_search_schema import search_ddl
from memoryd.storage.pg_sql import PgSql
from tests.support.postgres import PostgresInstance, postgres_or_skip

SOURCE_TABLES = (
    "CREATE TABLE {s}.pinned_facts (id bigserial PRIMARY KEY, agent_id text NOT NULL, content text NOT NULL, "
    "status text NOT NULL DEFAULT 'active', created_at_ms bigint NOT NULL DEFAULT 0, updated_at_ms bigint NOT NULL "
    "DEFAULT 0)",
    "CREATE TABLE {s}.episodes (id bigserial PRIMARY KEY, agent_id text NOT NULL, conversation_id text NOT NULL "
    "DEFAULT '', summary text NOT NULL, topics_csv text NOT NULL DEFAULT '', entities_csv text NOT NULL DEFAULT '', "
    "status text NOT NULL DEFAULT 'active', conversation_at_ms bigint NOT NULL DEFAULT 0, created_at_ms bigint NOT "
    "NULL DEFAULT 0)",
    "CREATE TABLE {s}.transcript (id bigserial PRIMARY KEY, agent_id text NOT NULL, conversation_id text NOT NULL "
    "DEFAULT '', chunk_index integer NOT NULL DEFAULT 0, role text NOT NULL DEFAULT 'user', content text NOT NULL, "
    "created_at_ms bigint NOT NULL DEFAULT 0)",
    "CREATE INDEX ON {s}.pinned_facts (agent_id)",
    "CREATE INDEX ON {s}.episodes (agent_id)",
    "CREATE INDEX ON {s}.transcript (agent_id, created_at_ms)",
)
_schemas = itertools.count(1)


def new_search_schema(db: PgSql, *, tables: bool = True) -> str:
    """A fresh schema with the source tables (unless `tables` is False) and everything search_ddl creates."""
    schema = f"search_{next(_schemas)}"
    db.execute(f'CREATE SCHEMA "{schema}"')
    if tables:
        for statement in SOURCE_TABLES:
            db.execute(statement.format(s=f'"{schema}"'))
        for statement in search_ddl(schema):
            db.execute(statement)
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
