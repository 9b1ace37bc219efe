"""Export's SQL: every stored row of all memory or one agent, table by table, from one read snapshot.

Columns are read from the schema (generated columns excluded), so a new column is exported without a code change.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from memoryd.storage.handle import Database

#: Row record types → their tables, in export (and import) order: episodes before the facts that cite them.
ROW_TABLES: dict[str, str] = {
    "agent": "agents",
    "episode": "episodes",
    "pinned_fact": "pinned_facts",
    "identity_fact": "identity_facts",
    "transcript": "transcript",
    "pending_signal": "pending_signals",
}
IDENTITY_COLUMNS = ("content", "overrides", "token_count", "version", "model", "generated_at_ms")
EMBEDDING_COLUMNS = ("kind", "row_id", "agent_id", "model", "dimension", "vector", "created_at_ms")
_BATCH = 500


def table_columns(db: Database, table: str) -> list[tuple[str, str, bool, bool]]:
    """(name, declared type, is_required, is_nullable) of a table's stored columns (generated columns excluded)."""
    result = []
    for name, decl, notnull, default, pk in db.column_info(table):
        required = bool(notnull) and default is None and not pk
        result.append((str(name), str(decl).upper(), required, not notnull))
    return result


def _rows(db: Database, sql: str, params: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    cursor = db.execute(sql, params)
    while True:
        batch = cursor.fetchmany(_BATCH)
        if not batch:
            return
        yield from batch


def exported_records(db: Database, agent_id: str | None) -> Iterator[tuple[str, dict[str, Any]]]:
    """(record type, column values) in one read snapshot: the identity row (agent_id None only; "identity"), the
    rows of each ROW_TABLES type in order, then the stored vectors ("embedding"; the vector as raw bytes)."""
    with db.read():
        if agent_id is None:
            row = db.query(f"SELECT {', '.join(IDENTITY_COLUMNS)} FROM identity WHERE id = 1")
            if row:
                yield "identity", dict(zip(IDENTITY_COLUMNS, row[0], strict=True))
        where, params = ("WHERE agent_id = ?", (agent_id,)) if agent_id is not None else ("", ())
        for record_type, table in ROW_TABLES.items():
            names = [c[0] for c in table_columns(db, table)]
            order = "agent_id" if table == "agents" else "id"
            for values in _rows(
                db, f"SELECT {', '.join(names)} FROM {table} {where} ORDER BY {order}", params
            ):
                yield record_type, dict(zip(names, values, strict=True))
        sql = f"SELECT {', '.join(EMBEDDING_COLUMNS)} FROM embeddings {where} ORDER BY kind, row_id"
        for values in _rows(db, sql, params):
            yield "embedding", dict(zip(EMBEDDING_COLUMNS, values, strict=True))


__all__ = ["EMBEDDING_COLUMNS", "IDENTITY_COLUMNS", "ROW_TABLES", "exported_records", "table_columns"]
