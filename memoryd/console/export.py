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
from memoryd.storage.export_rows import EMBEDDING_COLUMNS, IDENTITY_COLUMNS, ROW_TABLES
from memoryd.storage.transfer import TransferStore

FORMAT_NAME = "osaurus-memory-export"
FORMAT_VERSION = 1


def encode(record: dict[str, Any]) -> str:
    """One JSON Lines record (compact, UTF-8 kept, no trailing newline)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")


def export_lines(
    store: TransferStore, agent_id: str | None, *, schema_version: int, embedding_model: str | None
) -> Iterator[str]:
    """Header, identity (full export only), rows by type, embeddings, then an end record with per-type counts."""
    counts: Counter[str] = Counter()
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
    for record_type, values in store.records(agent_id):
        record: dict[str, Any] = {"type": record_type, **values}
        if record_type == "identity":
            try:
                record["overrides"] = json.loads(record["overrides"] or "[]")
            except ValueError:
                record["overrides"] = []
        elif record_type == "embedding":
            record["vector"] = base64.b64encode(bytes(record["vector"])).decode("ascii")
        counts[record_type] += 1
        yield encode(record)
    yield encode({"type": "end", "counts": dict(sorted(counts.items()))})


__all__ = [
    "EMBEDDING_COLUMNS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "IDENTITY_COLUMNS",
    "ROW_TABLES",
    "encode",
    "export_lines",
]
