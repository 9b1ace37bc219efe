"""Import, step 2: write a validated plan in short batched transactions, keeping ids and skipping identical rows.

A row keeps its exported id when that id is free; otherwise it gets a new one and every reference to it (facts'
source_episode_id, vectors' row_id) follows. A row identical to one already stored (same agent and content key)
is skipped and mapped onto the stored row, so importing the same file twice changes nothing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memoryd.console_export import ROW_TABLES, table_columns
from memoryd.console_import_parse import ImportPlan, VectorRecord
from memoryd.domain import KIND_EPISODE, KIND_IDENTITY_FACT, KIND_PINNED, KIND_TRANSCRIPT, now_ms
from memoryd.storage.db import Database

_BATCH = 500
#: Columns that make two rows "the same row" for each record type.
SAME_ROW_KEYS: dict[str, tuple[str, ...]] = {
    "episode": ("agent_id", "conversation_id", "summary", "conversation_at_ms"),
    "pinned_fact": ("agent_id", "content"),
    "identity_fact": ("agent_id", "content"),
    "transcript": ("agent_id", "conversation_id", "chunk_index", "role", "content"),
    "pending_signal": ("agent_id", "conversation_id", "user_message", "assistant_message", "occurred_at_ms"),
}
#: Record type → row kind (vectors and console refs use kinds).
KIND_OF_TYPE = {
    "episode": KIND_EPISODE,
    "pinned_fact": KIND_PINNED,
    "identity_fact": KIND_IDENTITY_FACT,
    "transcript": KIND_TRANSCRIPT,
}
TYPE_OF_KIND = {kind: record_type for record_type, kind in KIND_OF_TYPE.items()}
_VECTOR_KINDS = (KIND_PINNED, KIND_EPISODE, KIND_TRANSCRIPT)


@dataclass
class Applied:
    """What the writes did: counts, id mapping (file id → stored id), new rows per (agent, kind), vectors to keep."""

    imported: Counter[str] = field(default_factory=Counter)
    skipped: int = 0
    id_maps: dict[str, dict[int, int]] = field(default_factory=dict)
    new_rows: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    #: Vectors in the current embedding model, with stored row ids.
    vectors: list[VectorRecord] = field(default_factory=list)
    #: New rows whose file vector was of another model (or absent): (agent, kind) → stored ids.
    to_embed: dict[tuple[str, str], list[int]] = field(default_factory=dict)


def _merge_overrides(current_raw: str, incoming: Sequence[dict[str, Any]]) -> tuple[str, int]:
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


class ImportApplier:
    """Writes one plan; `current_model` is the embedding model in force (None: embeddings off)."""

    def __init__(self, db: Database, current_model: str | None) -> None:
        self._db = db
        self._model = current_model
        self._columns = {t: {c[0] for c in table_columns(db, table)} for t, table in ROW_TABLES.items()}

    def apply(self, plan: ImportPlan) -> Applied:
        """Identity, agents, rows by type (episodes first), then the vector bookkeeping."""
        done = Applied()
        if plan.identity is not None:
            self._identity(plan.identity, done)
        self._agents(plan, done)
        for record_type in ROW_TABLES:
            if record_type != "agent":
                self._rows(record_type, plan.rows[record_type], done)
        self._vectors(plan.vectors, done)
        return done

    def _identity(self, record: dict[str, Any], done: Applied) -> None:
        with self._db.write():
            self._db.execute("INSERT OR IGNORE INTO identity (id) VALUES (1)")
            content, overrides = self._db.query("SELECT content, overrides FROM identity WHERE id = 1")[0]
            merged, added = _merge_overrides(str(overrides), record.get("overrides", []))
            changed = added > 0
            if added:
                self._db.execute("UPDATE identity SET overrides = ? WHERE id = 1", (merged,))
            if not content and record.get("content"):
                self._db.execute(
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
        if changed:
            done.imported["identity"] += 1
        else:
            done.skipped += 1

    def _agents(self, plan: ImportPlan, done: Applied) -> None:
        """Agent records create missing agents (existing agents keep their settings); row owners are ensured."""
        owners = {str(r["agent_id"]) for t, rows in plan.rows.items() if t != "agent" for r in rows}
        owners.update(v.agent_id for v in plan.vectors)
        stamp = now_ms()
        with self._db.write():
            for record in plan.rows["agent"]:
                cols = [c for c in record if c in self._columns["agent"]]
                cursor = self._db.execute(
                    f"INSERT OR IGNORE INTO agents ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                    tuple(record[c] for c in cols),
                )
                if cursor.rowcount:
                    done.imported["agent"] += 1
                else:
                    done.skipped += 1
            for agent in sorted(owners):
                self._db.execute(
                    "INSERT OR IGNORE INTO agents (agent_id, created_at_ms, updated_at_ms) VALUES (?, ?, ?)",
                    (agent, stamp, stamp),
                )

    def _rows(self, record_type: str, records: list[dict[str, Any]], done: Applied) -> None:
        table = ROW_TABLES[record_type]
        keys = SAME_ROW_KEYS[record_type]
        id_map = done.id_maps.setdefault(record_type, {})
        episodes = done.id_maps.get("episode", {})
        kind = KIND_OF_TYPE.get(record_type)
        for start in range(0, len(records), _BATCH):
            with self._db.write():
                for original in records[start : start + _BATCH]:
                    record = dict(original)
                    if record.get("source_episode_id") is not None:
                        record["source_episode_id"] = episodes.get(
                            record["source_episode_id"], record["source_episode_id"]
                        )
                    file_id = record.get("id")
                    where = " AND ".join(f"{k} IS ?" for k in keys)
                    same = self._db.scalar(
                        f"SELECT id FROM {table} WHERE {where} LIMIT 1", tuple(record.get(k) for k in keys)
                    )
                    if same is not None:
                        done.skipped += 1
                        if file_id is not None:
                            id_map[int(file_id)] = int(same)
                        continue
                    if file_id is not None and self._db.scalar(
                        f"SELECT 1 FROM {table} WHERE id = ?", (file_id,)
                    ):
                        record.pop("id")
                    cols = [c for c in record if c in self._columns[record_type]]
                    cursor = self._db.execute(
                        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                        tuple(record[c] for c in cols),
                    )
                    stored = int(cursor.lastrowid or 0)
                    if file_id is not None:
                        id_map[int(file_id)] = stored
                    done.imported[record_type] += 1
                    if kind in _VECTOR_KINDS:
                        done.new_rows.setdefault((str(record["agent_id"]), kind), []).append(stored)

    def _vectors(self, vectors: list[VectorRecord], done: Applied) -> None:
        covered: set[tuple[str, int]] = set()
        for vector in vectors:
            stored = done.id_maps.get(TYPE_OF_KIND[vector.kind], {}).get(vector.row_id)
            if stored is None or self._model is None or vector.model != self._model:
                continue
            done.vectors.append(
                VectorRecord(
                    vector.kind,
                    stored,
                    vector.agent_id,
                    vector.model,
                    vector.dimension,
                    vector.blob,
                    vector.created_at_ms,
                )
            )
            covered.add((vector.kind, stored))
        if self._model is None:
            return
        for (agent, kind), ids in done.new_rows.items():
            missing = [i for i in ids if (kind, i) not in covered]
            if missing:
                done.to_embed[(agent, kind)] = missing


__all__ = ["SAME_ROW_KEYS", "Applied", "ImportApplier"]
