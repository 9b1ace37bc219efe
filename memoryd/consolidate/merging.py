"""Merge's database side: loading an agent's episode vectors, and folding duplicates into survivors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memoryd.consolidate.context import JobContext, marks
from memoryd.consolidate.similarity import VECTOR_WINDOW, MergePair
from memoryd.consolidate.text import merge_csv, merge_lines
from memoryd.domain import KIND_EPISODE
from memoryd.vectors.codec import normalise


def episode_vectors(ctx: JobContext, agent_id: str) -> dict[int, npt.NDArray[np.float32]]:
    """Unit vectors of the agent's most recent active episodes under the current embedding model."""
    model = ctx.settings.embedding_model
    if model is None:
        return {}
    rows = ctx.db.query(
        "SELECT e.row_id, e.vector, e.dimension FROM embeddings AS e JOIN episodes AS p ON p.id = e.row_id "
        "WHERE e.kind = ? AND e.agent_id = ? AND e.model = ? AND p.status = 'active' AND p.agent_id = ? "
        "ORDER BY p.conversation_at_ms DESC, p.id DESC LIMIT ?",
        (KIND_EPISODE, agent_id, model, agent_id, VECTOR_WINDOW),
    )
    by_dimension: dict[int, list[tuple[int, bytes]]] = {}
    for row_id, blob, dimension in rows:
        if len(blob) == 4 * int(dimension):
            by_dimension.setdefault(int(dimension), []).append((int(row_id), bytes(blob)))
    if not by_dimension:
        return {}
    # One dimension only (a model change leaves old vectors until they are re-embedded): take the commonest.
    dimension, items = max(by_dimension.items(), key=lambda kv: len(kv[1]))
    matrix = normalise(np.frombuffer(b"".join(blob for _, blob in items), dtype="<f4").reshape(-1, dimension))
    return {row_id: matrix[i] for i, (row_id, _) in enumerate(items)}


@dataclass(frozen=True)
class Applied:
    merged: int
    vectors: tuple[int, ...]  # duplicates whose vector was deleted


def apply_merges(ctx: JobContext, agent_id: str, pairs: Sequence[MergePair]) -> Applied:
    """Inside one transaction: fold each duplicate's decisions, action items, entities, salience and sources into
    its survivor, then delete the duplicates and their vectors. A pair whose rows changed meanwhile is skipped."""
    wanted = sorted({p.survivor_id for p in pairs} | {p.duplicate_id for p in pairs})
    rows = {
        int(r[0]): (str(r[1]), str(r[2]), str(r[3]), float(r[4]))
        for r in ctx.db.query(
            f"SELECT id, decisions, action_items, entities_csv, salience FROM episodes "
            f"WHERE agent_id = ? AND status = 'active' AND id IN ({marks(wanted)})",
            (agent_id, *wanted),
        )
    }
    valid = [p for p in pairs if p.survivor_id in rows and p.duplicate_id in rows]
    if not valid:
        return Applied(0, ())
    folded: dict[int, tuple[str, str, str, float]] = {}
    for pair in valid:  # a survivor may absorb several duplicates of this chunk, in time order
        keep = folded.get(pair.survivor_id, rows[pair.survivor_id])
        drop = rows[pair.duplicate_id]
        folded[pair.survivor_id] = (
            merge_lines(keep[0], drop[0]),
            merge_lines(keep[1], drop[1]),
            merge_csv(keep[2], drop[2]),
            max(keep[3], drop[3]),
        )
    for survivor, values in folded.items():
        if values != rows[survivor]:
            ctx.db.execute(
                "UPDATE episodes SET decisions = ?, action_items = ?, entities_csv = ?, salience = ? WHERE id = ?",
                (*values, survivor),
            )
    duplicates = [p.duplicate_id for p in valid]
    # One statement per table re-points every fact sourced from a duplicate (source_episode_id has no index:
    # agent_id narrows the scan to this agent's facts).
    cases = " ".join("WHEN ? THEN ?" for _ in valid)
    mapping = [value for p in valid for value in (p.duplicate_id, p.survivor_id)]
    for table in ("pinned_facts", "identity_facts"):
        ctx.db.execute(
            f"UPDATE {table} SET source_episode_id = CASE source_episode_id {cases} END "
            f"WHERE agent_id = ? AND source_episode_id IN ({marks(duplicates)})",
            (*mapping, agent_id, *duplicates),
        )
    with_vectors = tuple(
        int(r[0])
        for r in ctx.db.query(
            f"SELECT row_id FROM embeddings WHERE kind = ? AND row_id IN ({marks(duplicates)})",
            (KIND_EPISODE, *duplicates),
        )
    )
    ctx.db.execute(
        f"DELETE FROM embeddings WHERE kind = ? AND row_id IN ({marks(duplicates)})",
        (KIND_EPISODE, *duplicates),
    )
    ctx.db.execute(f"DELETE FROM episodes WHERE id IN ({marks(duplicates)})", duplicates)
    return Applied(len(valid), with_vectors)
