"""The schema on PostgreSQL: derived from the same peewee models as SQLite's (memoryd/storage/tables.py), created
in the store's PostgreSQL schema, and recorded in schema_version like SQLite's migrations.

A fresh PostgreSQL store starts at the current version (SQLite's migrations 1-8 are how older *files* reached it;
nothing older exists on PostgreSQL): one transaction, under an advisory lock so replicas starting together create
it once, creates the tables and indexes, the triggers that delete a row's stored vector with the row, and full
text's columns and indexes when memoryd/storage/pg_search_schema.py is present. A later migration adds its step for
both backends; full text's own additions (PostgreSQL only, e.g. the term statistics) are applied to an existing store
by pg_search_schema.upgrade, in the same locked transaction.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable

from psycopg import sql as pgsql

from memoryd.storage.pg_db import PercentQueries, PgDatabase
from memoryd.storage.tables import VECTOR_KINDS, create_table_sql, define_tables, index_sql

_log = logging.getLogger("memoryd.storage.pg_schema")

#: The name recorded for a store created at the current version.
BASELINE_NAME = "postgresql schema created from the models"
#: Where full text's DDL comes from on PostgreSQL (pgsearch); absent → tables without full text.
SEARCH_SCHEMA_MODULE = "memoryd.storage.pg_search_schema"


def _ident(name: str) -> str:
    return pgsql.Identifier(name).as_string(None)


def vector_trigger_statements(schema: str) -> list[str]:
    """Deleting rows deletes their stored vectors (tables.VECTOR_KINDS): one statement-level trigger per table,
    reading the deleted rows from its transition table (one DELETE per statement, however many rows)."""
    qualified = _ident(schema)
    statements = [
        f"CREATE OR REPLACE FUNCTION {qualified}.memoryd_delete_vectors() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN DELETE FROM {qualified}.embeddings e USING gone g "
        f"WHERE e.kind = TG_ARGV[0] AND e.row_id = g.id; RETURN NULL; END $fn$"
    ]
    for source, kind in VECTOR_KINDS.items():
        statements.append(
            f"CREATE TRIGGER {source}_emb_ad AFTER DELETE ON {qualified}.{source} REFERENCING OLD TABLE AS gone "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {qualified}.memoryd_delete_vectors('{kind}')"
        )
    return statements


def search_statements(schema: str) -> list[str]:
    """Full text's DDL from pgsearch's module, or none while it does not exist."""
    try:
        module = importlib.import_module(SEARCH_SCHEMA_MODULE)
    except ModuleNotFoundError:
        return []
    search_ddl: Callable[[str], list[str]] = module.search_ddl
    return list(search_ddl(schema))


def _upgrade_search(db: PgDatabase) -> None:
    """Full text's additions since the store was created (pg_search_schema.upgrade), in the caller's transaction."""
    try:
        module = importlib.import_module(SEARCH_SCHEMA_MODULE)
    except ModuleNotFoundError:
        return
    upgrade: Callable[[PercentQueries, str], list[str]] = module.upgrade
    for step in upgrade(db.percent_queries(), db.schema):
        _log.info("postgresql schema %s: added %s", db.schema, step)


def schema_statements(db: PgDatabase) -> list[str]:
    """The DDL of the current schema on PostgreSQL: tables, indexes, vector triggers, full text."""
    statements: list[str] = []
    for model in define_tables(db.pw).models():
        statements.append(create_table_sql(model))
        statements.extend(index_sql(model))
    statements.extend(vector_trigger_statements(db.schema))
    statements.extend(search_statements(db.schema))
    return statements


def migrate_postgres(db: PgDatabase, latest: int, newer_error: type[Exception]) -> list[int]:
    """Create the store's schema at version `latest` if it has none; refuse a newer one. The versions applied."""
    started = time.perf_counter()
    with db.write():
        # One creator at a time (replicas starting together); released at commit.
        db.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (f"memoryd.schema.{db.schema}",)).fetchall()
        db.execute_ddl(f"CREATE SCHEMA IF NOT EXISTS {_ident(db.schema)}")
        tables = define_tables(db.pw)
        db.execute_ddl(create_table_sql(tables.SchemaVersion, safe=True))
        version = int(db.scalar("SELECT coalesce(max(version), 0) FROM schema_version") or 0)
        if version > latest:
            raise newer_error(f"database schema {version} is newer than this memoryd ({latest})")
        if version == latest:
            _upgrade_search(db)
            return []
        if version != 0:
            raise newer_error(
                f"database schema {version} predates PostgreSQL support ({latest}); not migrated"
            )
        for statement in schema_statements(db):
            if statement.startswith(create_table_sql(tables.SchemaVersion)):
                continue
            db.execute_ddl(statement)
        db.execute("INSERT INTO identity (id) VALUES (1)")
        db.execute(
            "INSERT INTO schema_version (version, name, applied_at_ms) VALUES (?, ?, ?)",
            (latest, BASELINE_NAME, int(time.time() * 1000)),
        )
    _log.info(
        "postgresql schema %s created at version %d in %.0f ms",
        db.schema,
        latest,
        (time.perf_counter() - started) * 1000,
    )
    return [latest]


__all__ = [
    "BASELINE_NAME",
    "migrate_postgres",
    "schema_statements",
    "search_statements",
    "vector_trigger_statements",
]
