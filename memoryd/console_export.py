"""Export: all memory, or one agent's, as JSON Lines records (docs/export-format.md), from one read snapshot.

Records mirror the tables column for column (columns read from the schema, so a new column is exported without a
code change). Vectors travel with their model so an import into the same embedding space never re-embeds.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from memoryd.domain import now_ms
from memoryd.storage.db import Database

FORMAT_NAME = "osaurus-memory-export"
FORMAT_VERSION = 1

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
    for _cid, name, decl, notnull, default, pk in db.query(f'PRAGMA table_info("{table}")'):
        required = bool(notnull) and default is None and not pk
        result.append((str(name), str(decl).upper(), required, not notnull))
    return result


def encode(record: dict[str, Any]) -> str:
    """One JSON Lines record (compact, UTF-8 kept, no trailing newline)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")


def _rows(db: Database, sql: str, params: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    cursor = db.execute(sql, params)
    while True:
        batch = cursor.fetchmany(_BATCH)
        if not batch:
            return
        yield from batch


def export_lines(
    db: Database, agent_id: str | None, *, schema_version: int, embedding_model: str | None
) -> Iterator[str]:
    """Header, identity (full export only), rows by type, embeddings, then an end record with per-type counts."""
    counts: Counter[str] = Counter()
    with db.read():
        yield encode(
            {
                "type": "header",
                "format": FORMAT_NAME,
                "version": FORMAT_VERSION,
                "exported_at": _iso(now_ms()),
                "schema_version": schema_version,
                "agent_id": agent_id,
                "embedding_model": embedding_model,
            }
        )
        if agent_id is None:
            row = db.query(f"SELECT {', '.join(IDENTITY_COLUMNS)} FROM identity WHERE id = 1")
            if row:
                record: dict[str, Any] = {
                    "type": "identity",
                    **dict(zip(IDENTITY_COLUMNS, row[0], strict=True)),
                }
                try:
                    record["overrides"] = json.loads(record["overrides"] or "[]")
                except ValueError:
                    record["overrides"] = []
                counts["identity"] += 1
                yield encode(record)
        where, params = ("WHERE agent_id = ?", (agent_id,)) if agent_id is not None else ("", ())
        for record_type, table in ROW_TABLES.items():
            names = [c[0] for c in table_columns(db, table)]
            order = "agent_id" if table == "agents" else "id"
            for values in _rows(
                db, f"SELECT {', '.join(names)} FROM {table} {where} ORDER BY {order}", params
            ):
                counts[record_type] += 1
                yield encode({"type": record_type, **dict(zip(names, values, strict=True))})
        sql = f"SELECT {', '.join(EMBEDDING_COLUMNS)} FROM embeddings {where} ORDER BY kind, row_id"
        for values in _rows(db, sql, params):
            item = dict(zip(EMBEDDING_COLUMNS, values, strict=True))
            item["vector"] = base64.b64encode(bytes(item["vector"])).decode("ascii")
            counts["embedding"] += 1
            yield encode({"type": "embedding", **item})
    yield encode({"type": "end", "counts": dict(sorted(counts.items()))})


__all__ = [
    "EMBEDDING_COLUMNS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "IDENTITY_COLUMNS",
    "ROW_TABLES",
    "encode",
    "export_lines",
    "table_columns",
]
