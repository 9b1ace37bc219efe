"""Diagnose's PostgreSQL checks: what SQLite's FTS5 mirrors and faiss files are there, from the catalog.

Full text (pg_search_schema.py): each source table must have its stored generated `search_vector tsvector` column
and a GIN index on it that PostgreSQL can use (pg_index.indisvalid and indisready: a CREATE INDEX CONCURRENTLY that
failed leaves an invalid one that no query uses). Every row has a tsvector (the generated column is never NULL);
one reported as FtsHealth per source table, named `<table>.search_vector`.

Vectors (pg_vectors.py): an agent's partition must have one partial HNSW index per kind (`<partition>_<kind>`,
access method hnsw), valid and ready. What is wrong is returned per agent for the vector report, which already
compares the partition's vectors with the rows that should have one.
"""

from __future__ import annotations

from memoryd.domain import KINDS, FtsHealth
from memoryd.storage.handle import Database
from memoryd.storage.pg_search_schema import SEARCH_COLUMNS

#: The generated column and the GIN index pg_search_schema.py creates on each source table.
SEARCH_COLUMN = "search_vector"

_COLUMN_SQL = (
    "SELECT format_type(a.atttypid, a.atttypmod), a.attgenerated FROM pg_attribute a "
    "JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = ? AND c.relname = ? AND a.attname = ? AND NOT a.attisdropped"
)
_INDEX_SQL = (
    "SELECT i.relname, am.amname, x.indisvalid, x.indisready FROM pg_index x "
    "JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid "
    "JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_am am ON am.oid = i.relam "
    "WHERE n.nspname = ? AND t.relname = ?"
)


def _index_problem(found: tuple[object, ...] | None, name: str, method: str) -> str:
    """What is wrong with one index ("" when it is there, of `method`, valid and ready)."""
    if found is None:
        return f"no {method} index {name}"
    if found[1] != method:
        return f"index {name} is {found[1]}, not {method}"
    if not found[2] or not found[3]:
        return f"{method} index {name} is invalid (rebuild it: REINDEX INDEX {name})"
    return ""


def _indexes(db: Database, schema: str, table: str) -> dict[str, tuple[object, ...]]:
    return {str(row[0]): row for row in db.query(_INDEX_SQL, (schema, table))}


def pg_fts_health(db: Database, schema: str) -> list[FtsHealth]:
    """Per source table: the tsvector column, its GIN index, and rows vs rows with a tsvector."""
    report: list[FtsHealth] = []
    for table in SEARCH_COLUMNS:
        name = f"{table}.{SEARCH_COLUMN}"
        with db.read():
            if not db.table_exists(table):
                report.append(FtsHealth(name, table, 0, 0, False, "source table missing"))
                continue
            rows = int(db.scalar(f"SELECT count(*) FROM {table}") or 0)
            column = db.query(_COLUMN_SQL, (schema, table, SEARCH_COLUMN))
            if not column or column[0][0] != "tsvector":
                report.append(FtsHealth(name, table, rows, 0, False, f"no tsvector column {SEARCH_COLUMN}"))
                continue
            indexed = int(db.scalar(f"SELECT count({SEARCH_COLUMN}) FROM {table}") or 0)
            gin = f"{table}_search_gin"
            problem = _index_problem(_indexes(db, schema, table).get(gin), gin, "gin")
        if not problem and column[0][1] != "s":
            problem = f"{SEARCH_COLUMN} is not a stored generated column"
        if not problem and indexed != rows:
            problem = f"{indexed} rows with a tsvector for {rows} rows"
        report.append(FtsHealth(name, table, rows, indexed, not problem, problem))
    return report


def pg_vector_index_problems(db: Database, schema: str) -> dict[str, str]:
    """Per agent with a vectors partition: what is wrong with its HNSW indexes (agents without a problem left out)."""
    problems: dict[str, str] = {}
    with db.read():
        if not db.table_exists("vector_agents"):
            return problems
        partitions = db.query("SELECT agent_id, partition FROM vector_agents ORDER BY agent_id")
        for agent_id, partition in partitions:
            found = _indexes(db, schema, str(partition))
            wrong = [
                _index_problem(found.get(f"{partition}_{kind}"), f"{partition}_{kind}", "hnsw")
                for kind in KINDS
            ]
            if not db.table_exists(str(partition)):
                wrong = [f"partition {partition} missing"]
            if any(wrong):
                problems[str(agent_id)] = "; ".join(w for w in wrong if w)
    return problems


__all__ = ["SEARCH_COLUMN", "pg_fts_health", "pg_vector_index_problems"]
