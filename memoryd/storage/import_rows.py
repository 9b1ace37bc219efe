"""Import's SQL: merge the identity, create agents, and insert rows keeping their ids and skipping identical rows.

A row keeps its exported id when that id is free; otherwise it gets a new one. A row identical to one already
stored (same agent and content key, SAME_ROW_KEYS) is not inserted and maps onto the stored row, so importing the
same file twice changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memoryd.storage.export_rows import ROW_TABLES
from memoryd.storage.handle import Database
from memoryd.storage.transcript import insert_imported_row

#: Columns that make two rows "the same row" for each record type.
SAME_ROW_KEYS: dict[str, tuple[str, ...]] = {
    "episode": ("agent_id", "conversation_id", "summary", "conversation_at_ms"),
    "pinned_fact": ("agent_id", "content"),
    "identity_fact": ("agent_id", "content"),
    "transcript": ("agent_id", "conversation_id", "chunk_index", "role", "content"),
    "pending_signal": ("agent_id", "conversation_id", "user_message", "assistant_message", "occurred_at_ms"),
}


@dataclass(frozen=True)
class ImportedRow:
    """What became of one imported row: its file id, the stored row it is now, and whether it was inserted."""

    file_id: int | None
    stored_id: int
    is_new: bool
    agent_id: str


def _merge_overrides(current_raw: str, incoming: Sequence[dict[str, Any]]) -> tuple[str, int]:
    """The stored overrides JSON with the incoming ones not already there (same id or text) appended; how many."""
    try:
        current = json.loads(current_raw or "[]")
    except ValueError:
        current = []
    current = current if isinstance(current, list) else []
    ids = {str(o.get("id")) for o in current if isinstance(o, dict)}
    texts = {o.get("text") if isinstance(o, dict) else o for o in current}
    added = 0
    for override in incoming:
        if str(override.get("id", "")) in ids or override["text"] in texts:
            continue
        current.append(
            {
                "id": str(override.get("id", "")),
                "text": override["text"],
                "created_at_ms": int(override.get("created_at_ms", 0) or 0),
            }
        )
        texts.add(override["text"])
        added += 1
    return json.dumps(current, ensure_ascii=False), added


def import_identity(db: Database, record: Mapping[str, Any]) -> bool:
    """Add the record's new overrides; take its content only when none is stored. Whether anything changed."""
    with db.write():
        db.execute("INSERT INTO identity (id) VALUES (1) ON CONFLICT DO NOTHING")
        content, overrides = db.query("SELECT content, overrides FROM identity WHERE id = 1")[0]
        merged, added = _merge_overrides(str(overrides), record.get("overrides", []))
        changed = added > 0
        if added:
            db.execute("UPDATE identity SET overrides = ? WHERE id = 1", (merged,))
        if not content and record.get("content"):
            db.execute(
                "UPDATE identity SET content = ?, token_count = ?, version = ?, model = ?, generated_at_ms = ? "
                "WHERE id = 1",
                (
                    record["content"],
                    int(record.get("token_count", 0)),
                    int(record.get("version", 0)),
                    str(record.get("model", "")),
                    int(record.get("generated_at_ms", 0)),
                ),
            )
            changed = True
    return changed


def import_agents(
    db: Database,
    records: Iterable[Mapping[str, Any]],
    columns: Collection[str],
    owners: Iterable[str],
    stamp_ms: int,
) -> tuple[int, int]:
    """Create agents missing from the store (existing agents keep their settings), then every owner not yet there.

    Only the record fields in `columns` are written. Returns (agent records created, agent records skipped).
    """
    created = skipped = 0
    with db.write():
        for record in records:
            cols = [c for c in record if c in columns]
            cursor = db.execute(
                f"INSERT INTO agents ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) ON CONFLICT DO NOTHING",
                tuple(record[c] for c in cols),
            )
            if cursor.rowcount:
                created += 1
            else:
                skipped += 1
        for agent in owners:
            db.execute(
                "INSERT INTO agents (agent_id, created_at_ms, updated_at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (agent, stamp_ms, stamp_ms),
            )
    return created, skipped


def _insert(db: Database, table: str, values: Mapping[str, Any]) -> int:
    """Insert one row; transcript rows go through their one writer (memoryd.storage.transcript)."""
    if table == "transcript":
        return insert_imported_row(db, values)
    names = list(values)
    return db.insert(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        tuple(values.values()),
    )


def import_row_batch(
    db: Database,
    record_type: str,
    records: Iterable[Mapping[str, Any]],
    columns: Collection[str],
    episode_ids: Mapping[int, int],
) -> list[ImportedRow]:
    """Insert one batch of rows of `record_type` in one transaction, in order.

    A source_episode_id follows `episode_ids` (file id → stored id); only the fields in `columns` are written.
    """
    table = ROW_TABLES[record_type]
    keys = SAME_ROW_KEYS[record_type]
    where = " AND ".join(f"{k} IS ?" for k in keys)
    outcomes: list[ImportedRow] = []
    explicit_ids = False
    with db.write():
        for original in records:
            record = dict(original)
            if record.get("source_episode_id") is not None:
                record["source_episode_id"] = episode_ids.get(
                    record["source_episode_id"], record["source_episode_id"]
                )
            file_id = record.get("id")
            file_key = int(file_id) if file_id is not None else None
            agent = str(record["agent_id"])
            same = db.scalar(
                f"SELECT id FROM {table} WHERE {where} LIMIT 1", tuple(record.get(k) for k in keys)
            )
            if same is not None:
                outcomes.append(ImportedRow(file_key, int(same), False, agent))
                continue
            if file_id is not None and db.scalar(f"SELECT 1 FROM {table} WHERE id = ?", (file_id,)):
                record.pop("id")
            values = {c: record[c] for c in record if c in columns}
            explicit_ids = explicit_ids or "id" in values
            stored_id = _insert(db, table, values)
            outcomes.append(ImportedRow(file_key, stored_id, True, agent))
        if explicit_ids:
            db.ids_given(table)
    return outcomes


__all__ = ["SAME_ROW_KEYS", "ImportedRow", "import_agents", "import_identity", "import_row_batch"]
