"""Maximal marginal relevance on cheap content overlap: Jaccard over 4-character shingles of the folded text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from memoryd.retrieval.terms import tokens

#: Relevance weight; the reference app's value. 1.0 would be plain relevance order.
DEFAULT_LAMBDA = 0.85
SHINGLE_CHARS = 4


@lru_cache(maxsize=65_536)
def shingles(text: str, size: int = SHINGLE_CHARS) -> frozenset[str]:
    """4-character shingles of each word (words shorter than that are kept whole)."""
    found: set[str] = set()
    for word in tokens(text):
        if len(word) <= size:
            found.add(word)
        else:
            found.update(word[i : i + size] for i in range(len(word) - size + 1))
    return frozenset(found)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b|, 0 for two empty sets."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True)
class Candidate:
    """An item to rerank: id, relevance score and text."""

    id: int
    score: float
    text: str


def mmr(candidates: Sequence[Candidate], top_k: int, lam: float = DEFAULT_LAMBDA) -> list[tuple[int, float]]:
    """Greedy MMR: pick max of λ·relevance − (1−λ)·max similarity to picked; returns (id, relevance) in order.

    Relevance is min-max normalised first (all equal → 1.0); ties go to the earlier candidate.
    """
    if not candidates or top_k <= 0:
        return []
    low = min(c.score for c in candidates)
    high = max(c.score for c in candidates)
    span = high - low
    relevance = [1.0 if span <= 0 else (c.score - low) / span for c in candidates]
    sets = [shingles(c.text) for c in candidates]
    remaining = list(range(len(candidates)))
    # Highest similarity of each candidate to anything picked so far, updated with each new pick only.
    max_similarity = [0.0] * len(candidates)
    picked: list[int] = []
    while remaining and len(picked) < top_k:
        best = max(remaining, key=lambda i: (lam * relevance[i] - (1 - lam) * max_similarity[i], -i))
        picked.append(best)
        remaining.remove(best)
        for index in remaining:
            similarity = jaccard(sets[index], sets[best])
            if similarity > max_similarity[index]:
                max_similarity[index] = similarity
    return [(candidates[i].id, candidates[i].score) for i in picked]
