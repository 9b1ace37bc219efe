"""Merge's database side: an agent's episode vectors, the checks that need the store (grounding in the source
turns), and folding duplicates into survivors with the union of their provenance."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memoryd.consolidate import mergeable
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


#: Column a later migration adds to episodes, pinned_facts and identity_facts: the comma-separated transcript
#: (or signal) ids an item came from. Merge unions it when the table has it.
SOURCE_TURNS_COLUMN = "source_turn_ids"
#: Most turns read to judge whether one episode's summary is grounded (a very long session is judged on these).
_MAX_SOURCE_TURNS = 2000
_TRANSCRIPT_ID = re.compile(r"^(?:t|transcript)?[:#-]?(\d+)$", re.IGNORECASE)
_SIGNAL_ID = re.compile(r"^(?:s|signal)[:#-]?(\d+)$", re.IGNORECASE)


def has_column(ctx: JobContext, table: str, column: str) -> bool:
    """Whether `table` has `column` (PRAGMA table_info: cheap, and right across migrations)."""
    return any(str(r[1]) == column for r in ctx.db.query(f"PRAGMA table_info({table})"))


def merge_ids(first: str, second: str) -> str:
    """Comma-separated id lists joined, duplicates dropped, order kept."""
    seen: dict[str, None] = {}
    for item in (*first.split(","), *second.split(",")):
        if item.strip():
            seen.setdefault(item.strip(), None)
    return ",".join(seen)


def _source_ids(csv: str) -> tuple[list[int], list[int]]:
    """(transcript ids, signal ids) named by a source_turn_ids value ("12,13", "t:12,s:40")."""
    transcript: list[int] = []
    signals: list[int] = []
    for item in csv.split(","):
        token = item.strip()
        if (found := _SIGNAL_ID.match(token)) is not None:
            signals.append(int(found.group(1)))
        elif (found := _TRANSCRIPT_ID.match(token)) is not None:
            transcript.append(int(found.group(1)))
    return transcript[:_MAX_SOURCE_TURNS], signals[:_MAX_SOURCE_TURNS]


def source_text(ctx: JobContext, agent_id: str, conversation_id: str, source_turn_ids: str = "") -> str:
    """The turns an episode was distilled from: its source_turn_ids when it has them, else its session's
    transcript and buffered signals. Empty when none are left: such an episode cannot be checked."""
    transcript, signals = _source_ids(source_turn_ids)
    parts: list[str] = []
    if transcript:
        parts += [
            str(r[0])
            for r in ctx.db.query(
                f"SELECT content FROM transcript WHERE agent_id = ? AND id IN ({marks(transcript)})",
                (agent_id, *transcript),
            )
        ]
    if signals:
        for user, assistant in ctx.db.query(
            f"SELECT user_message, assistant_message FROM pending_signals WHERE agent_id = ? "
            f"AND id IN ({marks(signals)})",
            (agent_id, *signals),
        ):
            parts += [str(user), str(assistant)]
    if parts:
        return "\n".join(parts)
    parts = [
        str(r[0])
        for r in ctx.db.query(
            "SELECT content FROM transcript WHERE agent_id = ? AND conversation_id = ? ORDER BY chunk_index LIMIT ?",
            (agent_id, conversation_id, _MAX_SOURCE_TURNS),
        )
    ]
    for user, assistant in ctx.db.query(
        "SELECT user_message, assistant_message FROM pending_signals WHERE agent_id = ? AND conversation_id = ? "
        "ORDER BY id LIMIT ?",
        (agent_id, conversation_id, _MAX_SOURCE_TURNS),
    ):
        parts += [str(user), str(assistant)]
    return "\n".join(parts)


@dataclass(frozen=True)
class Screened:
    """The pairs that may merge, and how many were refused and why."""

    pairs: tuple[MergePair, ...]
    refused: dict[str, int]


def screen_pairs(ctx: JobContext, agent_id: str, pairs: Sequence[MergePair]) -> Screened:
    """Keep the pairs whose newer episode adds no name, number or correction, and whose two summaries are both
    grounded in their own turns; count the others by reason ("adds_information", "ungrounded")."""
    if not pairs:
        return Screened((), {})
    wanted = sorted({p.survivor_id for p in pairs} | {p.duplicate_id for p in pairs})
    extra = f", {SOURCE_TURNS_COLUMN}" if has_column(ctx, "episodes", SOURCE_TURNS_COLUMN) else ", ''"
    rows = {
        int(r[0]): (str(r[1]), f"{r[1]} {r[2]} {r[3]}", str(r[4]), str(r[5] or ""))
        for r in ctx.db.query(
            f"SELECT id, summary, topics_csv, entities_csv, conversation_id{extra} FROM episodes "
            f"WHERE agent_id = ? AND id IN ({marks(wanted)})",
            (agent_id, *wanted),
        )
    }
    grounded: dict[int, bool] = {}

    def is_grounded(row_id: int) -> bool:
        if row_id not in grounded:
            summary, _, conversation, turn_ids = rows[row_id]
            text = source_text(ctx, agent_id, conversation, turn_ids)
            grounded[row_id] = mergeable.grounded_share(summary, text) >= mergeable.GROUNDED_SHARE
        return grounded[row_id]

    kept: list[MergePair] = []
    refused: dict[str, int] = {}
    for pair in pairs:
        if pair.survivor_id not in rows or pair.duplicate_id not in rows:
            continue
        if mergeable.adds_something(rows[pair.survivor_id][1], rows[pair.duplicate_id][1]):
            refused["adds_information"] = refused.get("adds_information", 0) + 1
        elif not (is_grounded(pair.survivor_id) and is_grounded(pair.duplicate_id)):
            refused["ungrounded"] = refused.get("ungrounded", 0) + 1
        else:
            kept.append(pair)
    return Screened(tuple(kept), refused)


@dataclass(frozen=True)
class Applied:
    merged: int
    vectors: tuple[int, ...]  # duplicates whose vector was deleted


def apply_merges(ctx: JobContext, agent_id: str, pairs: Sequence[MergePair]) -> Applied:
    """Inside one transaction: fold each duplicate's decisions, action items, entities, topics, source turns
    (source_turn_ids, when the table has it), salience and sources into its survivor, then delete the duplicates
    and their vectors. A pair whose rows changed meanwhile is skipped."""
    wanted = sorted({p.survivor_id for p in pairs} | {p.duplicate_id for p in pairs})
    with_turns = has_column(ctx, "episodes", SOURCE_TURNS_COLUMN)
    turns_column = f"coalesce({SOURCE_TURNS_COLUMN}, '')" if with_turns else "''"
    rows = {
        int(r[0]): (str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), float(r[6]))
        for r in ctx.db.query(
            f"SELECT id, decisions, action_items, entities_csv, topics_csv, {turns_column}, salience FROM episodes "
            f"WHERE agent_id = ? AND status = 'active' AND id IN ({marks(wanted)})",
            (agent_id, *wanted),
        )
    }
    valid = [p for p in pairs if p.survivor_id in rows and p.duplicate_id in rows]
    if not valid:
        return Applied(0, ())
    folded: dict[int, tuple[str, str, str, str, str, float]] = {}
    for pair in valid:  # a survivor may absorb several duplicates of this chunk, in time order
        keep = folded.get(pair.survivor_id, rows[pair.survivor_id])
        drop = rows[pair.duplicate_id]
        folded[pair.survivor_id] = (
            merge_lines(keep[0], drop[0]),
            merge_lines(keep[1], drop[1]),
            merge_csv(keep[2], drop[2]),
            merge_csv(keep[3], drop[3]),
            merge_ids(keep[4], drop[4]),
            max(keep[5], drop[5]),
        )
    turns_set = f", {SOURCE_TURNS_COLUMN} = ?" if with_turns else ""
    for survivor, values in folded.items():
        if values != rows[survivor]:
            decisions, actions, entities, topics, turn_ids, salience = values
            ctx.db.execute(
                f"UPDATE episodes SET decisions = ?, action_items = ?, entities_csv = ?, topics_csv = ?, "
                f"salience = ?{turns_set} WHERE id = ?",
                (
                    decisions,
                    actions,
                    entities,
                    topics,
                    salience,
                    *([turn_ids] if with_turns else []),
                    survivor,
                ),
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
