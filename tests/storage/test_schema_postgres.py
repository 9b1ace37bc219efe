"""The schema on PostgreSQL is the one the peewee models declare (memoryd/storage/tables.py): every table, column
(type, NOT NULL, default), primary key, CHECK and index, as PostgreSQL's catalogs report them for a store
open_store created; a fresh store starts at the current version; a PostgreSQL schema name isolates a whole store.
(The FTS5 mirrors and their generated agent_key columns are SQLite's: full text on PostgreSQL is pgsearch's.)"""

from __future__ import annotations

import threading
from typing import Any

import peewee
import pytest

from memoryd.domain import TurnInput
from memoryd.storage import migrations
from memoryd.storage.pg_db import InvalidSchemaNameError, PgDatabase
from memoryd.storage.pg_schema import BASELINE_NAME
from memoryd.storage.store import Store, open_store
from memoryd.storage.tables import define_tables
from tests.support.pg_stores import fresh_schema, pg_store, pg_url

#: peewee field → the PostgreSQL type its column must have.
_TYPES = {
    "TextField": "text",
    "BigIntegerField": "bigint",
    "IntegerField": "integer",
    "FloatField": "double precision",
    "FlagField": "integer",
    "BlobField": "bytea",
    "BigAutoField": "bigint",
}


def _catalog(store: Store) -> dict[str, Any]:
    db = store.db
    assert isinstance(db, PgDatabase)
    schema = db.schema
    columns: dict[str, dict[str, tuple[Any, ...]]] = {}
    for table, column, kind, nullable, default in db.query(
        "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns "
        "WHERE table_schema = ? ORDER BY table_name, ordinal_position",
        (schema,),
    ):
        columns.setdefault(table, {})[column] = (kind, nullable == "NO", default)
    indexes = dict(
        db.query(
            "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ? AND indexname NOT LIKE '%_pkey'",
            (schema,),
        )
    )
    keys = dict(
        db.query(
            "SELECT c.relname, pg_get_constraintdef(k.oid) FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND k.contype = 'p'",
            (schema,),
        )
    )
    checks = [
        (str(table), str(definition))
        for table, definition in db.query(
            "SELECT c.relname, pg_get_constraintdef(k.oid) FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND k.contype = 'c'",
            (schema,),
        )
    ]
    triggers = sorted(
        str(r[0])
        for r in db.query(
            "SELECT t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND NOT t.tgisinternal",
            (schema,),
        )
    )
    return {"columns": columns, "indexes": indexes, "keys": keys, "checks": checks, "triggers": triggers}


def _declared_default(field: Any) -> str | None:
    for constraint in field.constraints or ():
        text = str(getattr(constraint, "sql", ""))
        if text.startswith("DEFAULT "):
            return text.removeprefix("DEFAULT ")
    return None


@pytest.fixture
def store() -> Store:
    return pg_store()


def test_a_fresh_postgres_store_has_every_declared_table_column_key_and_index(store: Store) -> None:
    catalog = _catalog(store)
    tables = define_tables(store.db.pw)
    models = tables.models()
    assert not tables.mirrors()  # no FTS5 on PostgreSQL
    for model in models:
        name = model._meta.table_name
        stored = catalog["columns"][name]
        declared = list(model._meta.sorted_fields)
        assert [f.column_name for f in declared] == [c for c in stored if c != "search_vector"], name
        for field in declared:
            kind, not_null, default = stored[field.column_name]
            assert kind == _TYPES[type(field).__name__], (name, field.name)
            assert not_null == (not field.null), (name, field.name)
            expected = _declared_default(field)
            if expected is not None:
                assert default is not None and str(default).split("::")[0] == expected, (
                    name,
                    field.name,
                    default,
                )
            elif isinstance(field, peewee.BigAutoField):
                assert str(default).startswith("nextval("), (name, default)  # BIGSERIAL, as AUTOINCREMENT
            else:
                assert default is None, (name, field.name, default)
        key = model._meta.primary_key
        if isinstance(key, peewee.CompositeKey):
            key_columns = [getattr(model, n).column_name for n in key.field_names]
        else:
            key_columns = [key.column_name]
        assert catalog["keys"][name] == f"PRIMARY KEY ({', '.join(key_columns)})", name
        for index in model._meta.indexes:
            definition = catalog["indexes"][index._name]
            assert f"ON {store.db.schema}.{name} USING btree" in definition  # type: ignore[attr-defined]
            for expression in index._expressions:
                column = getattr(expression, "column_name", None) or expression.node.column_name
                assert column in definition, (index._name, definition)
            if index._where is not None:
                assert "WHERE (slot <> ''::text)" in definition, definition
    declared_indexes = {i._name for m in models for i in m._meta.indexes}
    assert declared_indexes <= set(catalog["indexes"])
    assert set(catalog["columns"]) >= {m._meta.table_name for m in models}
    assert ("identity", "CHECK ((id = 1))") in catalog["checks"]
    # Deleting a row deletes its stored vector (and, with pgsearch's DDL, its pgvector row: *_vectors_ad).
    assert {"episodes_emb_ad", "pinned_facts_emb_ad", "transcript_emb_ad"} <= set(catalog["triggers"])
    # Descending key columns are kept.
    assert "salience DESC" in catalog["indexes"]["idx_pinned_agent_status"]
    assert "WHERE (slot <> ''::text)" in catalog["indexes"]["idx_pinned_slot"]


def test_a_fresh_postgres_store_starts_at_the_current_version(store: Store) -> None:
    assert store.schema_version == migrations.LATEST_VERSION
    assert store.db.query("SELECT version, name FROM schema_version") == [
        (migrations.LATEST_VERSION, BASELINE_NAME)
    ]
    assert migrations.migrate(store.db) == []  # type: ignore[arg-type]  # reopening applies nothing
    assert store.db.query("SELECT id, content, overrides FROM identity") == [(1, "", "[]")]


def test_a_newer_postgres_schema_is_refused() -> None:
    schema = fresh_schema()
    first = pg_store(schema)
    with first.db.write():
        first.db.execute("INSERT INTO schema_version VALUES (999, 'from the future', 0)")
    with pytest.raises(migrations.NewerSchemaError):
        open_store(pg_url(), schema=schema)


def test_schemas_isolate_stores_and_replicas_create_one_schema_once() -> None:
    schema = fresh_schema()
    opened: list[Store] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            opened.append(pg_store(schema))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors and len(opened) == 3
    assert opened[0].db.scalar("SELECT count(*) FROM schema_version") == 1
    other = pg_store()
    opened[0].turns.buffer(TurnInput("a", "c", "only in the first schema", "", 1))
    assert opened[1].db.scalar("SELECT count(*) FROM transcript") == 1  # same schema, same store
    assert other.db.scalar("SELECT count(*) FROM transcript") == 0


def test_a_schema_name_must_be_a_plain_identifier() -> None:
    for bad in ("Tenant", "a b", "x;drop", "", "1abc", "a" * 64):
        with pytest.raises(InvalidSchemaNameError):
            PgDatabase(pg_url(), schema=bad)


def test_a_libpq_connection_string_opens_postgres_too() -> None:
    from memoryd.storage.store import is_database_url
    from tests.support.pg_stores import session_postgres

    conninfo = session_postgres().dsn_for("osaurus_test")  # "host=… dbname=… user=…", not a URL
    assert is_database_url(conninfo) and not is_database_url("memory.sqlite")
    store = open_store(conninfo, schema=fresh_schema())
    try:
        assert store.dialect == "postgres" and store.schema_version == migrations.LATEST_VERSION
    finally:
        store.db.close_all()  # type: ignore[attr-defined]
