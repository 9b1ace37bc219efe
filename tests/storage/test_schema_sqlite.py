"""The schema is defined once (memoryd/storage/tables.py): a store the migrations built, fresh or upgraded from an
earlier version, has exactly the tables, columns, defaults, keys, indexes, triggers and FTS5 mirrors the models
declare. Compared through SQLite's own description of two real files: one migrated, one built from the DDL the
models derive (memoryd.storage.tables.schema_statements)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import peewee
import pytest

from memoryd.storage import migrations
from memoryd.storage.db import Database
from memoryd.storage.fts import MIRRORS
from memoryd.storage.store import open_store
from memoryd.storage.tables import define_tables, schema_statements

pytestmark = pytest.mark.sqlite_only


def _flat(sql: str) -> str:
    """SQL without quotes, whitespace and case: how two renderings of one statement compare (peewee quotes
    identifiers and FTS5 options with double quotes, the frozen migrations with none or single ones)."""
    return re.sub(r"[\s\"']+", "", sql).lower()


def _table(conn: sqlite3.Connection, name: str, sql: str) -> dict[str, Any]:
    flat = _flat(sql)
    info = conn.execute(f'PRAGMA table_xinfo("{name}")').fetchall()
    keys = [row for row in info if row[5]]
    columns: dict[str, tuple[Any, ...]] = {}
    for _cid, column, decl, notnull, default, pk, hidden in info:
        # An INTEGER PRIMARY KEY is the rowid: never NULL whether or not NOT NULL is spelled out.
        is_rowid = pk and len(keys) == 1 and str(decl).upper() == "INTEGER"
        generated = ""
        if hidden:
            found = re.search(rf"{column}[a-z]*generatedalwaysas(.*?)(virtual|stored)", flat)
            generated = found.group(0) if found else "?"
        columns[column] = (str(decl).upper(), bool(notnull) or bool(is_rowid), default, pk, hidden, generated)
    indexes: dict[str, tuple[Any, ...]] = {}
    for _seq, index, unique, origin, partial in conn.execute(f'PRAGMA index_list("{name}")').fetchall():
        keyed = [(r[2], r[3]) for r in conn.execute(f'PRAGMA index_xinfo("{index}")').fetchall() if r[5]]
        where = ""
        if partial:
            index_sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (index,)).fetchone()[0]
            where = _flat(index_sql).partition("where")[2]
        indexes[index] = (unique, origin, partial, keyed, where)
    return {
        "columns": columns,
        "indexes": indexes,
        "virtual": flat if flat.startswith("createvirtualtable") else "",
        "autoincrement": "autoincrement" in flat,
        "without_rowid": flat.endswith("withoutrowid"),
        "checks": sorted(re.findall(r"check\((.*?)\)[,)]", flat)),
    }


def describe(path: Path) -> dict[str, Any]:
    """Every table (columns, keys, indexes, flags) and trigger of the store at `path`, as SQLite reports them."""
    conn = sqlite3.connect(str(path))
    try:
        objects = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
        tables = {name: _table(conn, name, sql or "") for kind, name, sql in objects if kind == "table"}
        triggers = {name: _flat(sql) for kind, name, sql in objects if kind == "trigger"}
        views = [name for kind, name, _sql in objects if kind == "view"]
    finally:
        conn.close()
    return {"tables": tables, "triggers": triggers, "views": views}


@pytest.fixture
def declared(tmp_path: Path) -> dict[str, Any]:
    """The schema the models declare, built from their DDL into a real file."""
    path = tmp_path / "declared.sqlite"
    database = peewee.SqliteDatabase(str(path))
    with database.atomic():
        for statement in schema_statements(database):
            database.execute_sql(statement)
    database.close()
    return describe(path)


def _migrated(path: Path) -> dict[str, Any]:
    store = open_store(path)
    try:
        store.consolidation.state()  # consolidation_state is created on the consolidator's first use
    finally:
        store.close()
    return describe(path)


def test_a_fresh_store_has_exactly_the_declared_schema(tmp_path: Path, declared: dict[str, Any]) -> None:
    migrated = _migrated(tmp_path / "memory.sqlite")
    assert sorted(migrated["tables"]) == sorted(declared["tables"])
    for name, table in declared["tables"].items():
        assert migrated["tables"][name] == table, name
    assert migrated["triggers"] == declared["triggers"]
    assert migrated["views"] == declared["views"] == []
    # The description is not empty: it sees what the models declare.
    pinned = declared["tables"]["pinned_facts"]
    assert pinned["autoincrement"] and "idx_pinned_slot" in pinned["indexes"]
    assert pinned["columns"]["salience"][:3] == ("REAL", True, "0.5")
    assert pinned["columns"]["agent_key"][4] == 2  # a VIRTUAL generated column
    assert declared["tables"]["identity"]["checks"] == ["id=1"]
    assert declared["tables"]["turn_requests"]["without_rowid"]
    assert "tokenize=porterunicode61remove_diacritics2" in declared["tables"]["fts_episodes"]["virtual"]
    assert len(declared["triggers"]) == 12


@pytest.mark.parametrize("reached", [1, 2, 4, 5, 6])
def test_a_store_upgraded_from_an_earlier_version_has_the_declared_schema(
    tmp_path: Path, declared: dict[str, Any], reached: int
) -> None:
    path = tmp_path / "memory.sqlite"
    db = Database(path)
    try:
        with db.write():
            db.execute(
                "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                "applied_at_ms INTEGER NOT NULL)"
            )
        for migration in migrations.MIGRATIONS:
            if migration.version <= reached:
                with db.write():
                    migration.apply(db)
                    db.execute(
                        "INSERT INTO schema_version (version, name, applied_at_ms) VALUES (?, ?, 0)",
                        (migration.version, migration.name),
                    )
        assert migrations.migrate(db) == [m.version for m in migrations.MIGRATIONS if m.version > reached]
    finally:
        db.close()
    assert _migrated(path) == declared


def test_a_schema_change_the_migrations_lack_is_caught(tmp_path: Path, declared: dict[str, Any]) -> None:
    path = tmp_path / "memory.sqlite"
    _migrated(path)
    conn = sqlite3.connect(str(path))
    conn.execute("CREATE INDEX idx_extra ON episodes (salience)")
    conn.execute("ALTER TABLE agents ADD COLUMN colour TEXT")
    conn.commit()
    conn.close()
    drifted = describe(path)["tables"]
    assert drifted["episodes"]["indexes"] != declared["tables"]["episodes"]["indexes"]
    assert drifted["agents"]["columns"] != declared["tables"]["agents"]["columns"]


def test_the_search_mirrors_are_the_declared_ones() -> None:
    # memoryd.storage.fts queries the mirrors with positional bm25 weights: its columns must be the models'.
    declared = {
        m._meta.table_name: (m._meta.options["content"], [f.name for f in m._meta.sorted_fields][1:])
        for m in define_tables(peewee.SqliteDatabase(None)).mirrors()
    }
    used = {m.fts: (m.source, [*m.columns, "agent_key"]) for m in MIRRORS.values()}
    assert used == declared
    assert all(len(m.weights) == len(m.columns) for m in MIRRORS.values())
