"""Merge's steps that need the store: an agent's episode vectors, the grounding checks against the source turns,
and folding duplicates into survivors with the union of their provenance (the SQL is storage.episode_merge's)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memoryd.consolidate import mergeable
from memoryd.consolidate.context import JobContext
from memoryd.consolidate.similarity import VECTOR_WINDOW, MergePair
from memoryd.consolidate.text import merge_csv, merge_lines
from memoryd.storage.episode_merge import MergeFields
from memoryd.vectors.codec import normalise


def episode_vectors(ctx: JobContext, agent_id: str) -> dict[int, npt.NDArray[np.float32]]:
    """Unit vectors of the agent's most recent active episodes under the current embedding model."""
    model = ctx.settings.embedding_model
    if model is None:
        return {}
    by_dimension: dict[int, list[tuple[int, bytes]]] = {}
    for row_id, blob, dimension in ctx.merges.episode_vectors(agent_id, model, VECTOR_WINDOW):
        if len(blob) == 4 * dimension:
            by_dimension.setdefault(dimension, []).append((row_id, blob))
    if not by_dimension:
        return {}
    # One dimension only (a model change leaves old vectors until they are re-embedded): take the commonest.
    dimension, items = max(by_dimension.items(), key=lambda kv: len(kv[1]))
    matrix = normalise(np.frombuffer(b"".join(blob for _, blob in items), dtype="<f4").reshape(-1, dimension))
    return {row_id: matrix[i] for i, (row_id, _) in enumerate(items)}


#: Most turns read to judge whether one episode's summary is grounded (a very long session is judged on these).
_MAX_SOURCE_TURNS = 2000
_TRANSCRIPT_ID = re.compile(r"^(?:t|transcript)?[:#-]?(\d+)$", re.IGNORECASE)
_SIGNAL_ID = re.compile(r"^(?:s|signal)[:#-]?(\d+)$", re.IGNORECASE)


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
    parts = ctx.merges.transcript_contents(agent_id, transcript)
    for user, assistant in ctx.merges.signal_messages(agent_id, signals):
        parts += [user, assistant]
    if parts:
        return "\n".join(parts)
    parts = ctx.merges.session_transcript(agent_id, conversation_id, _MAX_SOURCE_TURNS)
    for user, assistant in ctx.merges.session_signals(agent_id, conversation_id, _MAX_SOURCE_TURNS):
        parts += [user, assistant]
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
    rows = ctx.merges.episodes_to_screen(agent_id, wanted)
    grounded: dict[int, bool] = {}

    def is_grounded(row_id: int) -> bool:
        if row_id not in grounded:
            row = rows[row_id]
            text = source_text(ctx, agent_id, row.conversation_id, row.source_turn_ids)
            grounded[row_id] = mergeable.grounded_share(row.summary, text) >= mergeable.GROUNDED_SHARE
        return grounded[row_id]

    kept: list[MergePair] = []
    refused: dict[str, int] = {}
    for pair in pairs:
        if pair.survivor_id not in rows or pair.duplicate_id not in rows:
            continue
        if mergeable.adds_something(rows[pair.survivor_id].words_text, rows[pair.duplicate_id].words_text):
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
    with_turns = ctx.merges.has_source_turns()
    rows = ctx.merges.episodes_to_merge(agent_id, wanted, with_turns)
    valid = [p for p in pairs if p.survivor_id in rows and p.duplicate_id in rows]
    if not valid:
        return Applied(0, ())
    folded: dict[int, MergeFields] = {}
    for pair in valid:  # a survivor may absorb several duplicates of this chunk, in time order
        keep = folded.get(pair.survivor_id, rows[pair.survivor_id])
        drop = rows[pair.duplicate_id]
        folded[pair.survivor_id] = MergeFields(
            merge_lines(keep.decisions, drop.decisions),
            merge_lines(keep.action_items, drop.action_items),
            merge_csv(keep.entities_csv, drop.entities_csv),
            merge_csv(keep.topics_csv, drop.topics_csv),
            merge_ids(keep.source_turn_ids, drop.source_turn_ids),
            max(keep.salience, drop.salience),
        )
    for survivor, fields in folded.items():
        if fields != rows[survivor]:
            ctx.merges.update_survivor(survivor, fields, with_turns)
    ctx.merges.repoint_facts(agent_id, [(p.duplicate_id, p.survivor_id) for p in valid])
    return Applied(len(valid), ctx.merges.delete_episodes([p.duplicate_id for p in valid]))
