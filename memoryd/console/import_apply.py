"""Import, step 2: write a validated plan in short batched transactions, keeping ids and skipping identical rows.

A row keeps its exported id when that id is free; otherwise it gets a new one and every reference to it (facts'
source_episode_id, vectors' row_id) follows. A row identical to one already stored (same agent and content key)
is skipped and mapped onto the stored row, so importing the same file twice changes nothing. The SQL is
memoryd.storage.import_rows'; here are the batching, the id bookkeeping and which vectors to keep or re-embed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memoryd.console.import_parse import ImportPlan, VectorRecord
from memoryd.domain import KIND_EPISODE, KIND_IDENTITY_FACT, KIND_PINNED, KIND_TRANSCRIPT, now_ms
from memoryd.storage.export_rows import ROW_TABLES
from memoryd.storage.import_rows import SAME_ROW_KEYS
from memoryd.storage.transfer import TransferStore

_BATCH = 500
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


class ImportApplier:
    """Writes one plan; `current_model` is the embedding model in force (None: embeddings off)."""

    def __init__(self, store: TransferStore, current_model: str | None) -> None:
        self._store = store
        self._model = current_model
        self._columns = {t: {c[0] for c in store.columns(t)} for t in ROW_TABLES}

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
        if self._store.import_identity(record):
            done.imported["identity"] += 1
        else:
            done.skipped += 1

    def _agents(self, plan: ImportPlan, done: Applied) -> None:
        """Agent records create missing agents (existing agents keep their settings); row owners are ensured."""
        owners = {str(r["agent_id"]) for t, rows in plan.rows.items() if t != "agent" for r in rows}
        owners.update(v.agent_id for v in plan.vectors)
        created, skipped = self._store.import_agents(
            plan.rows["agent"], self._columns["agent"], sorted(owners), now_ms()
        )
        if created:  # no "agent" entry in the counts when none was created, as for every other type
            done.imported["agent"] += created
        done.skipped += skipped

    def _rows(self, record_type: str, records: list[dict[str, Any]], done: Applied) -> None:
        id_map = done.id_maps.setdefault(record_type, {})
        episodes = done.id_maps.get("episode", {})
        kind = KIND_OF_TYPE.get(record_type)
        for start in range(0, len(records), _BATCH):
            batch = records[start : start + _BATCH]
            for row in self._store.import_rows(record_type, batch, self._columns[record_type], episodes):
                if row.file_id is not None:
                    id_map[row.file_id] = row.stored_id
                if not row.is_new:
                    done.skipped += 1
                    continue
                done.imported[record_type] += 1
                if kind in _VECTOR_KINDS:
                    done.new_rows.setdefault((row.agent_id, kind), []).append(row.stored_id)

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
