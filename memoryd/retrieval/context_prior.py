"""Conversation-aware re-ranking of transcript hits: neighbour smoothing and a conversation (session) prior.

Why: evidence in a chat is local. A turn right next to a strong match is more likely relevant than an isolated
weak match elsewhere, and a session that holds the single best match is the likeliest place for the rest of the
answer. Settings were fixed on the LoCoMo dev split (bench/bench_search.py); both are rank-based, like RRF.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from memoryd.retrieval.hybrid import ranked, rrf


@dataclass(frozen=True)
class Position:
    """Where a transcript row sits: its conversation and its index inside it."""

    conversation_id: str
    chunk_index: int


def smooth_neighbours(
    scores: Mapping[int, float], where: Mapping[int, Position], weight: float
) -> dict[int, float]:
    """score + weight × (best score of the row just before or after it in the same conversation)."""
    if weight <= 0:
        return dict(scores)
    at = {(p.conversation_id, p.chunk_index): row_id for row_id, p in where.items()}
    result = dict(scores)
    for row_id, p in where.items():
        near = (at.get((p.conversation_id, p.chunk_index + step)) for step in (-1, 1))
        best = max((scores[n] for n in near if n is not None and n in scores), default=0.0)
        result[row_id] = scores[row_id] + weight * best
    return result


def conversation_prior(
    scores: Mapping[int, float], where: Mapping[int, Position], weight: float, top: int = 1
) -> dict[int, float]:
    """RRF of the score order with a conversation order (conversations by the sum of their `top` best scores)."""
    if weight <= 0 or not where:
        return dict(scores)
    members: dict[str, list[float]] = {}
    for row_id, p in where.items():
        members.setdefault(p.conversation_id, []).append(scores[row_id])
    strength = {conv: sum(sorted(values, reverse=True)[:top]) for conv, values in members.items()}
    by_conversation = sorted(where, key=lambda i: (-strength[where[i].conversation_id], -scores[i]))
    in_pool = [i for i in ranked(scores) if i in where]
    return rrf([in_pool, by_conversation], weights=[1.0, weight])
