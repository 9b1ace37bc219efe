"""Maximal marginal relevance on cheap content overlap: Jaccard over 4-character shingles of the folded text.

The greedy loop is vectorised: the pool's shingles become one boolean membership matrix, so each pick costs one
column gather instead of a Python set intersection per remaining candidate. Picks are identical to the plain loop
(same float operations, ties to the earlier candidate).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from memoryd.retrieval.terms import tokens
from memoryd.text import SHINGLE_CHARS as SHINGLE_CHARS
from memoryd.text import jaccard as jaccard
from memoryd.text import shingles as word_shingles

#: Relevance weight; the reference app's value. 1.0 would be plain relevance order.
DEFAULT_LAMBDA = 0.85


def shingles(text: str, size: int = SHINGLE_CHARS) -> frozenset[str]:
    """4-character shingles of each word (words shorter than that are kept whole).

    Not cached: the read path only reaches it through shingle_keys, whose cache holds the same texts in an eighth to
    a tenth of the memory (8 bytes per shingle against a str plus a set slot); a second cache of the sets only hit
    after the keys had been evicted, and could hold ~100 MB (8,192 texts of ~12 KB each) (bench_soak, issue 11).
    """
    return word_shingles(tokens(text), size)


#: Keys of shingles with a non-ASCII character: their string hash, moved above every packed ASCII key (< 2**35).
_HASHED = 1 << 62
_HASH_BITS = _HASHED - 1
_SPACE = ord(" ")


def shingle_key(shingle: str) -> int:
    """One shingle (at most SHINGLE_CHARS characters) as a 64-bit key: an ASCII shingle's bytes and length packed,
    exactly (distinct shingles, distinct keys); any other its string hash in a range of its own (collisions among a
    pool's few thousand such shingles are ~1e-11 likely, and would only nudge one similarity)."""
    if shingle.isascii():
        return int.from_bytes(shingle.encode("ascii"), "big") | (len(shingle) << 32)
    return (hash(shingle) & _HASH_BITS) | _HASHED


@lru_cache(maxsize=8_192)
def shingle_keys(text: str) -> npt.NDArray[np.int64]:
    """The text's shingles as sorted 64-bit keys (shingle_key of each).

    ASCII text (the common case) is shingled in numpy: every 4-byte window of its words, joined by spaces, that holds
    no space, packed as shingle_key packs it, plus the shorter words whole: 64 against 122 us per transcript turn
    (best of 15 passes over 300 turns of bench_assemble's store, one process), and it runs for most of an MMR pool's
    texts on every search (the cache holds 8,192 of them; issue 17, item 4)."""
    words = tokens(text)
    joined = " ".join(words)
    if not joined.isascii():
        return np.array(sorted({shingle_key(s) for s in word_shingles(words, SHINGLE_CHARS)}), dtype=np.int64)
    short = [shingle_key(word) for word in words if len(word) < SHINGLE_CHARS]
    grams = np.zeros(0, dtype=np.int64)
    if len(joined) >= SHINGLE_CHARS:
        b = np.frombuffer(joined.encode("ascii"), dtype=np.uint8).astype(np.int64)
        windows = [b[i : len(b) - SHINGLE_CHARS + 1 + i] for i in range(SHINGLE_CHARS)]
        inside = windows[0] != _SPACE
        packed = windows[0]
        for window in windows[1:]:
            inside &= window != _SPACE
            packed = packed << 8 | window
        grams = packed[inside] | (SHINGLE_CHARS << 32)
    return np.unique(np.concatenate([grams, np.array(short, dtype=np.int64)]))


@dataclass(frozen=True)
class Candidate:
    """An item to rerank: id, relevance score and text."""

    id: int
    score: float
    text: str


class _Overlap:
    """Shingle membership of a pool: |a ∩ b| of one picked candidate against all of them in one gather."""

    def __init__(self, texts: Sequence[str]) -> None:
        keys = [shingle_keys(text) for text in texts]
        self.sizes = np.array([len(k) for k in keys], dtype=np.int64)
        flat = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
        owner = np.repeat(np.arange(len(keys)), self.sizes)
        vocabulary, columns = np.unique(flat, return_inverse=True)
        self.member = np.zeros((len(keys), len(vocabulary)), dtype=np.bool_)
        self.member[owner, columns] = True
        ends = np.cumsum(self.sizes)
        self._columns = [columns[end - size : end] for size, end in zip(self.sizes, ends, strict=True)]

    def jaccard_to(self, picked: int) -> npt.NDArray[np.float64]:
        """Jaccard of every candidate with candidate `picked`; 0 where both sets are empty."""
        inter = self.member[:, self._columns[picked]].sum(axis=1)
        union = self.sizes + self.sizes[picked] - inter
        similarity: npt.NDArray[np.float64] = np.divide(
            inter, union, out=np.zeros(len(union), dtype=np.float64), where=union > 0
        )
        return similarity


def mmr(candidates: Sequence[Candidate], top_k: int, lam: float = DEFAULT_LAMBDA) -> list[tuple[int, float]]:
    """Greedy MMR: pick max of λ·relevance − (1−λ)·max similarity to picked; returns (id, relevance) in order.

    Relevance is min-max normalised first (all equal → 1.0); ties go to the earlier candidate.
    """
    if not candidates or top_k <= 0:
        return []
    scores = [c.score for c in candidates]
    low, high = min(scores), max(scores)
    span = high - low
    relevance = np.array([1.0 if span <= 0 else (score - low) / span for score in scores], dtype=np.float64)
    overlap = _Overlap([c.text for c in candidates])
    # Highest similarity of each candidate to anything picked so far, updated with each new pick only.
    max_similarity = np.zeros(len(candidates), dtype=np.float64)
    is_open = np.ones(len(candidates), dtype=np.bool_)
    picked: list[int] = []
    while len(picked) < min(top_k, len(candidates)):
        value = lam * relevance - (1 - lam) * max_similarity
        # np.argmax returns the first of equal values: ties go to the earlier candidate.
        best = int(np.argmax(np.where(is_open, value, -np.inf)))
        picked.append(best)
        is_open[best] = False
        np.maximum(max_similarity, overlap.jaccard_to(best), out=max_similarity)
    return [(candidates[i].id, candidates[i].score) for i in picked]
