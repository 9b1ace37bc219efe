"""Near-duplicate detection for pinned and identity facts: normalised-token Jaccard plus embedding cosine."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memoryd.text import FACT_FILLER_WORDS as STOPWORDS
from memoryd.text import fold, jaccard
from memoryd.write.parse import Candidate
from memoryd.write.store_protocol import ExistingFact, FactBump, NewFact

_log = logging.getLogger("memoryd.writer.dedup")

#: Jaccard of content-word sets at or above this is a duplicate. Filler words (below) are ignored, so "The user
#: prefers dark mode." equals "user prefers dark-mode"; one content word swapped in a short fact stays distinct.
JACCARD_DUPLICATE = 0.8
#: Cosine of L2-normalised embeddings at or above this is a duplicate (paraphrases, word order).
COSINE_DUPLICATE = 0.92
#: A duplicate raises the existing fact's salience to max(old, new) plus this, capped at 1.
SALIENCE_BUMP = 0.05

_WORD = re.compile(r"\w+")
#: Embeds texts into L2-normalised rows, or returns None when no embedding model is available.
Embedder = Callable[[Sequence[str]], "npt.NDArray[np.float32] | None"]


def normalize_tokens(text: str) -> frozenset[str]:
    """Case-, accent- and punctuation-insensitive set of content words (filler dropped unless nothing else is left)."""
    bare = fold(text, casefold=True)
    words = frozenset(_WORD.findall(bare))
    return (words - STOPWORDS) or words


@dataclass(frozen=True)
class _Item:
    tokens: frozenset[str]
    vector: npt.NDArray[np.float32] | None


def _similar(a: _Item, b: _Item, jaccard_min: float, cosine_min: float) -> float:
    """A similarity score >= 1 when duplicate-by-tokens, in [cosine_min, 1) by vectors, else 0."""
    score = jaccard(a.tokens, b.tokens)
    if score >= jaccard_min:
        return 1.0 + score
    if a.vector is not None and b.vector is not None:
        cosine = float(np.dot(a.vector, b.vector))
        if cosine >= cosine_min:
            return cosine
    return 0.0


def _best(item: _Item, pool: Sequence[_Item], jaccard_min: float, cosine_min: float) -> int | None:
    best, best_score = None, 0.0
    for index, other in enumerate(pool):
        score = _similar(item, other, jaccard_min, cosine_min)
        if score > best_score:
            best, best_score = index, score
    return best


def _embed_all(texts: Sequence[str], embed: Embedder | None) -> list[npt.NDArray[np.float32] | None]:
    if embed is None or not texts:
        return [None] * len(texts)
    try:
        vectors = embed(texts)
    except Exception as error:
        _log.warning("embedding for dedup failed (%s); using token overlap only", type(error).__name__)
        return [None] * len(texts)
    if vectors is None or len(vectors) != len(texts):
        return [None] * len(texts)
    return list(vectors)


def bumped_salience(existing: float, candidate: float) -> float:
    """Salience of an existing fact that a new session supported again."""
    return min(1.0, max(existing, candidate) + SALIENCE_BUMP)


@dataclass(frozen=True)
class FactPlan:
    """What to write for a reply's candidates: new rows, bumps of existing rows, and in-reply merges."""

    inserts: tuple[NewFact, ...]
    bumps: tuple[FactBump, ...]
    merged_in_reply: int
    insert_vectors: tuple[npt.NDArray[np.float32] | None, ...] = ()


def plan_facts(
    candidates: Sequence[Candidate],
    existing: Sequence[ExistingFact],
    embed: Embedder | None = None,
    *,
    jaccard_min: float = JACCARD_DUPLICATE,
    cosine_min: float = COSINE_DUPLICATE,
) -> FactPlan:
    """Dedup candidates against existing facts AND each other; one embed call covers both sides."""
    vectors = _embed_all([c.content for c in candidates] + [e.content for e in existing], embed)
    old = [_Item(normalize_tokens(e.content), vectors[len(candidates) + i]) for i, e in enumerate(existing)]
    kept: list[tuple[_Item, Candidate]] = []
    bumps: dict[str, float] = {}
    merged = 0
    for index, candidate in enumerate(candidates):
        item = _Item(normalize_tokens(candidate.content), vectors[index])
        match = _best(item, old, jaccard_min, cosine_min)
        if match is not None:
            fact = existing[match]
            bumps[fact.id] = max(bumps.get(fact.id, 0.0), bumped_salience(fact.salience, candidate.salience))
            continue
        twin = _best(item, [k[0] for k in kept], jaccard_min, cosine_min)
        if twin is not None:
            first = kept[twin][1]
            tags = tuple(dict.fromkeys((*first.tags, *candidate.tags)))
            kept[twin] = (
                kept[twin][0],
                Candidate(first.content, max(first.salience, candidate.salience), tags),
            )
            merged += 1
            continue
        kept.append((item, candidate))
    return FactPlan(
        inserts=tuple(NewFact(c.content, c.salience, c.tags) for _, c in kept),
        bumps=tuple(FactBump(fact_id, salience) for fact_id, salience in bumps.items()),
        merged_in_reply=merged,
        insert_vectors=tuple(i.vector for i, _ in kept),
    )


@dataclass(frozen=True)
class IdentityPlan:
    """New identity facts to insert and ids of existing ones the session supported again."""

    inserts: tuple[str, ...]
    bump_ids: tuple[str, ...]


def plan_identity(
    facts: Sequence[str], existing: Sequence[ExistingFact], *, jaccard_min: float = JACCARD_DUPLICATE
) -> IdentityPlan:
    """Dedup identity facts by normalised tokens against the agent's existing identity facts and each other."""
    old = [_Item(normalize_tokens(e.content), None) for e in existing]
    kept: list[_Item] = []
    inserts: list[str] = []
    bumps: list[str] = []
    for fact in facts:
        item = _Item(normalize_tokens(fact), None)
        if not item.tokens:
            continue
        match = _best(item, old, jaccard_min, 2.0)
        if match is not None:
            if existing[match].id not in bumps:
                bumps.append(existing[match].id)
            continue
        if _best(item, kept, jaccard_min, 2.0) is None:
            kept.append(item)
            inserts.append(fact)
    return IdentityPlan(tuple(inserts), tuple(bumps))


__all__ = [
    "COSINE_DUPLICATE",
    "JACCARD_DUPLICATE",
    "SALIENCE_BUMP",
    "STOPWORDS",
    "Embedder",
    "FactPlan",
    "IdentityPlan",
    "bumped_salience",
    "jaccard",
    "normalize_tokens",
    "plan_facts",
    "plan_identity",
]
