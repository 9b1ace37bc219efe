"""Consolidator test helpers: a manual clock, rows inserted with chosen timestamps, and a store dump to compare."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from memoryd.config import ConfigStore
from memoryd.consolidate import Consolidator, ConsolidatorOptions, learned
from memoryd.consolidate.jobs import NarrativeModel, VectorRemover
from memoryd.consolidate.pacing import Pacer
from memoryd.consolidate.state import StateStore
from memoryd.storage.store import Store
from memoryd.vectors.codec import normalise, to_blob

DAY_MS = 86_400_000
#: 2025-01-01T00:00:00Z: tests start their clock here so ages are easy to read.
T0_MS = 1_735_689_600_000
MODEL = "test-embed"


@dataclass
class ManualClock:
    """Injectable clock (epoch ms) that only moves when told to."""

    now_ms: int = T0_MS

    def __call__(self) -> int:
        return self.now_ms

    def advance_days(self, days: float) -> int:
        """Move forward; returns the new time."""
        self.now_ms += int(days * DAY_MS)
        return self.now_ms


def days_ago(clock: ManualClock, days: float) -> int:
    """A timestamp `days` before the clock's now."""
    return clock.now_ms - int(days * DAY_MS)


def insert_fact(
    store: Store,
    agent: str,
    content: str,
    *,
    salience: float = 0.5,
    created_ms: int = T0_MS,
    last_used_ms: int | None = None,
    last_decayed_ms: int | None = None,
    source_count: int = 1,
    source_episode_id: int | None = None,
    tags: str = "",
    status: str = "active",
) -> int:
    """One pinned fact with explicit times; returns its id."""
    with store.db.write():
        row_id = store.db.insert(
            "INSERT INTO pinned_facts (agent_id, content, salience, source_count, source_episode_id, use_count, "
            "last_used_at_ms, status, tags_csv, created_at_ms, updated_at_ms, last_decayed_at_ms) "
            "VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)",
            (
                agent,
                content,
                salience,
                source_count,
                source_episode_id,
                created_ms if last_used_ms is None else last_used_ms,
                status,
                tags,
                created_ms,
                created_ms,
                created_ms if last_decayed_ms is None else last_decayed_ms,
            ),
        )
    return row_id


def insert_episode(
    store: Store,
    agent: str,
    summary: str,
    *,
    topics: str = "",
    at_ms: int = T0_MS,
    salience: float = 0.5,
    decisions: str = "",
    action_items: str = "",
    entities: str = "",
    conversation: str | None = None,
    last_decayed_ms: int | None = None,
    created_ms: int | None = None,
    said: str | None = None,
) -> int:
    """One episode at conversation time `at_ms`, learned at `created_ms` (default: then too); returns its id.

    `said`: also store that user turn in the episode's conversation, so the summary is grounded in its session
    (merge only folds grounded episodes); "" stores the summary itself as the turn."""
    conversation = conversation or f"conv-{at_ms}-{summary[:8]}"
    if said is not None:
        insert_turn(store, agent, said or summary, created_ms=at_ms, conversation=conversation)
    with store.db.write():
        row_id = store.db.insert(
            "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, decisions, "
            "action_items, salience, conversation_at_ms, created_at_ms, last_decayed_at_ms) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                agent,
                conversation,
                summary,
                topics,
                entities,
                decisions,
                action_items,
                salience,
                at_ms,
                at_ms if created_ms is None else created_ms,
                at_ms if last_decayed_ms is None else last_decayed_ms,
            ),
        )
    return row_id


def insert_turn(store: Store, agent: str, content: str, *, created_ms: int, conversation: str = "c") -> int:
    """One transcript row; returns its id."""
    with store.db.write():
        index = store.db.scalar(
            "SELECT coalesce(max(chunk_index) + 1, 0) FROM transcript WHERE agent_id = ? AND conversation_id = ?",
            (agent, conversation),
        )
        row_id = store.db.insert(
            "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, "
            "created_at_ms) VALUES (?, ?, ?, 'user', ?, 1, ?)",
            (agent, conversation, index, content, created_ms),
        )
    return row_id


def mark_learned(store: Store, at_ms: int) -> None:
    """Record that every transcript row stored so far was learned by `at_ms` (as a pass at that time would:
    consolidate/learned.py), so retention can date rows inserted here with old conversation times."""
    state = StateStore(store.db)
    high_id = int(store.db.scalar("SELECT coalesce(max(id), 0) FROM transcript") or 0)
    marks = [m for m in learned.load(state) if m.at_ms < at_ms]
    learned.save(state, [*marks, learned.Mark(at_ms, high_id)], at_ms)


def put_vectors(
    store: Store, kind: str, agent: str, rows: Sequence[tuple[int, Any]], model: str = MODEL
) -> None:
    """Store unit vectors for rows (as the indexer would)."""
    items = [(row_id, to_blob(normalise(vector)[0])) for row_id, vector in rows]
    dimension = int(np.asarray(rows[0][1]).shape[-1])
    store.embeddings.put(kind, agent, model, dimension, items)


def config_store(home: Path, **changes: Any) -> ConfigStore:
    """memory.json under `home` with the given attribute changes (embeddings on, model MODEL by default)."""
    config = ConfigStore(home / "config" / "memory.json")
    config.update({"embedding_model": MODEL, **changes})
    return config


def fixed_pacer(rows: int = 1000) -> Pacer:
    """Batches of exactly `rows`, no rests: deterministic batch boundaries for tests."""
    return Pacer(
        busy_target_ms=1e12, busy_rest_ratio=0.0, min_rows=rows, max_rows=rows, rows=rows, slice_ms=1e12
    )


@dataclass
class Hooks:
    """Per-batch hook list a test can extend."""

    calls: list[str] = field(default_factory=list)

    def __call__(self, step: str) -> None:
        self.calls.append(step)


def consolidator(
    store: Store,
    config: ConfigStore,
    clock: ManualClock,
    *,
    vectors: VectorRemover | None = None,
    inference: NarrativeModel | None = None,
    batch_rows: int = 1000,
    on_batch: Any = None,
) -> Consolidator:
    """A Consolidator over the test store with deterministic batches."""
    return Consolidator(
        store.consolidation,
        config,
        vectors=vectors,
        inference=inference,
        clock=clock,
        options=ConsolidatorOptions(pacer_factory=lambda: fixed_pacer(batch_rows), on_batch=on_batch),
    )


def dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row that consolidation may change, for comparing two stores (processing_log excluded)."""
    queries = {
        "pinned_facts": "SELECT id, agent_id, content, round(salience, 9), source_count, source_episode_id, status, "
        "last_decayed_at_ms FROM pinned_facts ORDER BY id",
        "episodes": "SELECT id, agent_id, summary, topics_csv, entities_csv, decisions, action_items, "
        "round(salience, 9), last_decayed_at_ms FROM episodes ORDER BY id",
        "transcript": "SELECT id, agent_id, content FROM transcript ORDER BY id",
        "identity_facts": "SELECT agent_id, content, source_count FROM identity_facts ORDER BY id",
        "embeddings": "SELECT kind, row_id, agent_id FROM embeddings ORDER BY kind, row_id",
        "pending_signals": "SELECT id, status FROM pending_signals ORDER BY id",
        "identity": "SELECT content, overrides, version FROM identity",
        "agent_narratives": "SELECT agent_id, content, model, facts_digest FROM agent_narratives ORDER BY agent_id",
    }
    return {name: store.db.query(sql) for name, sql in queries.items()}


def consistency_problems(store: Store) -> list[str]:
    """What is inconsistent: FTS mirrors out of step with their tables, vectors without rows, dangling sources."""
    problems: list[str] = []
    for fts in ("fts_pinned", "fts_episodes", "fts_transcript"):
        try:
            store.db.execute(f"INSERT INTO {fts}({fts}, rank) VALUES ('integrity-check', 1)")
        except Exception as error:
            problems.append(f"{fts}: {error}")
    orphans = store.db.scalar(
        "SELECT count(*) FROM embeddings AS e WHERE NOT EXISTS (SELECT 1 FROM pinned_facts p WHERE e.kind = "
        "'pinned_fact' AND p.id = e.row_id) AND NOT EXISTS (SELECT 1 FROM episodes p WHERE e.kind = 'episode' "
        "AND p.id = e.row_id) AND NOT EXISTS (SELECT 1 FROM transcript p WHERE e.kind = 'transcript' AND "
        "p.id = e.row_id)"
    )
    if orphans:
        problems.append(f"{orphans} vectors without a row")
    if store.db.scalar("PRAGMA integrity_check") != "ok":
        problems.append("sqlite integrity_check failed")
    return problems
