"""Maximal marginal relevance on cheap content overlap: Jaccard over 4-character shingles of the folded text.

The greedy loop is vectorised: the pool's shingles become one boolean membership matrix, so each pick costs one
column gather instead of a Python set intersection per remaining candidate. Picks are identical to the plain loop
(same float operations, ties to the earlier candidate).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

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


#: Texts whose shingle keys are kept (least recently used beyond this are dropped).
KEY_CACHE_TEXTS = 8_192


class _KeyCache:
    """The shingle keys of recently reranked texts, least recently used dropped beyond `maxsize` (thread-safe).

    An explicit cache rather than functools.lru_cache so that a pool's texts can be looked up together and its
    misses shingled in one numpy pass (pool_shingle_keys)."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._held: OrderedDict[str, npt.NDArray[np.int64]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> npt.NDArray[np.int64] | None:
        with self._lock:
            keys = self._held.get(text)
            if keys is not None:
                self._held.move_to_end(text)
            return keys

    def put(self, text: str, keys: npt.NDArray[np.int64]) -> None:
        with self._lock:
            self._held[text] = keys
            self._held.move_to_end(text)
            while len(self._held) > self.maxsize:
                self._held.popitem(last=False)

    def __len__(self) -> int:
        return len(self._held)

    def clear(self) -> None:
        with self._lock:
            self._held.clear()


#: The read path's shingle keys (shingle_keys, pool_shingle_keys).
KEY_CACHE = _KeyCache(KEY_CACHE_TEXTS)


def shingle_keys(text: str) -> npt.NDArray[np.int64]:
    """The text's shingles as sorted 64-bit keys (shingle_key of each), cached (KEY_CACHE; treat as read-only).

    ASCII text (the common case) is shingled in numpy: every 4-byte window of its words, joined by spaces, that holds
    no space, packed as shingle_key packs it, plus the shorter words whole: 64 against 122 us per transcript turn
    (best of 15 passes over 300 turns of bench_assemble's store, one process), and it runs for most of an MMR pool's
    texts on every search (issue 17, item 4). A pool's texts go through pool_shingle_keys (one pass for all)."""
    return pool_shingle_keys([text])[0]


def pool_shingle_keys(texts: Sequence[str]) -> list[npt.NDArray[np.int64]]:
    """shingle_keys of each text: the cached ones from KEY_CACHE, the others computed together (their ASCII texts
    in one numpy pass: one text's words joined by spaces, the texts joined by a space, so no 4-byte window without a
    space crosses from one text to the next) and kept. The same keys as one text at a time (tests): an MMR pool of
    ~70 uncached transcript turns took ~2.5 ms one by one, most of it numpy's per-call overhead (fastctx10)."""
    out: list[npt.NDArray[np.int64] | None] = [KEY_CACHE.get(text) for text in texts]
    ascii_at: list[int] = []
    ascii_words: list[list[str]] = []
    for i, text in enumerate(texts):
        if out[i] is not None:
            continue
        words = tokens(text)
        if " ".join(words).isascii():
            ascii_at.append(i)
            ascii_words.append(words)
        else:
            keys = np.array(
                sorted({shingle_key(s) for s in word_shingles(words, SHINGLE_CHARS)}), dtype=np.int64
            )
            out[i] = keys
            KEY_CACHE.put(text, keys)
    if ascii_at:
        for i, found in zip(ascii_at, _ascii_keys(ascii_words), strict=True):
            out[i] = found
            KEY_CACHE.put(texts[i], found)
    return [held if held is not None else np.zeros(0, dtype=np.int64) for held in out]


#: Bits of a packed ASCII key (shingle_key: up to 4 bytes and the length << 32); the owner's index sits above them.
_KEY_BITS = 40
_KEY_MASK = (1 << _KEY_BITS) - 1


def _ascii_keys(texts_words: Sequence[Sequence[str]]) -> list[npt.NDArray[np.int64]]:
    """Sorted distinct shingle keys of several ASCII texts (each given as its tokens), in one numpy pass: every
    4-byte window without a space, and every word shorter than that whole, packed as shingle_key packs them, with the
    index of the text it came from above the key's bits."""
    joined = [" ".join(words) for words in texts_words]
    lengths = np.array([len(j) + 1 for j in joined], dtype=np.int64)
    starts = np.zeros(len(joined), dtype=np.int64)
    np.cumsum(lengths[:-1], out=starts[1:])
    # Padded with spaces: a window or a word near the end reads spaces, which it never keeps.
    buffer = " ".join(joined) + " " * SHINGLE_CHARS
    b = np.frombuffer(buffer.encode("ascii"), dtype=np.uint8).astype(np.int64)
    n = len(b) - SHINGLE_CHARS
    windows = [b[i : n + i] for i in range(SHINGLE_CHARS)]
    is_space = [window == _SPACE for window in windows]
    packed = windows[0]
    for window in windows[1:]:
        packed = packed << 8 | window
    # Windows: no space among their 4 bytes.
    spaced = is_space[0].copy()
    for space in is_space[1:]:
        spaced |= space
    inside = ~spaced
    at = np.flatnonzero(inside)
    grams = packed[at] | (SHINGLE_CHARS << 32)
    # Words of 1-3 bytes: a byte that starts a word (after a space or at 0) followed by a space within 3 bytes.
    starts_word = ~is_space[0]
    starts_word[1:] &= is_space[0][:-1]
    short_parts = []
    owners = [at]
    for size in range(1, SHINGLE_CHARS):
        ends_here = starts_word & is_space[size]
        for inner in range(1, size):
            ends_here &= ~is_space[inner]
        where = np.flatnonzero(ends_here)
        short_parts.append((packed[where] >> (8 * (SHINGLE_CHARS - size))) | (size << 32))
        owners.append(where)
    keys = np.concatenate([grams, *short_parts])
    owner = np.searchsorted(starts, np.concatenate(owners), side="right") - 1
    merged = np.sort(owner << _KEY_BITS | keys)
    if len(merged):
        merged = merged[np.concatenate(([True], merged[1:] != merged[:-1]))]
    # Sorted by text, then key: each text's keys are one run, sorted and distinct, as np.unique gives them.
    bounds = np.searchsorted(merged >> _KEY_BITS, np.arange(len(joined) + 1), side="left")
    return [merged[bounds[i] : bounds[i + 1]] & _KEY_MASK for i in range(len(joined))]


@dataclass(frozen=True)
class Candidate:
    """An item to rerank: id, relevance score and text."""

    id: int
    score: float
    text: str


class _Overlap:
    """Shingle membership of a pool: |a ∩ b| of one picked candidate against all of them in one gather."""

    def __init__(self, texts: Sequence[str]) -> None:
        keys = pool_shingle_keys(texts)
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
