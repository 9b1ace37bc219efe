"""Counts, for each pinned fact of one agent, the recent episodes that support it (vectorised word containment).

An episode supports a fact when it contains at least SUPPORT_CONTAINMENT of the fact's distinct content words
(stemmed, case- and accent-folded, filler dropped) anywhere in its summary, topics, entities, decisions or action
items. Containment, unlike the reference app's Jaccard against the whole episode, does not punish a short fact
for a long episode. Tokenising is one C-level pass over all texts joined; counting is numpy over word ids.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from memoryd.consolidate.text import STOPWORDS, fold, stem

SUPPORT_CONTAINMENT = 0.6
#: A one-word fact would be "supported" by any episode that mentions the word: it needs two words at least.
MIN_FACT_WORDS = 2
#: Cells (fact words × episodes) materialised at once: bounds one block's memory to a few MB.
_BLOCK_CELLS = 4_000_000
_BREAK = "\x01"
_BREAK_ID = -2
_FILLER_ID = -1
_ASCII_TABLE = str.maketrans(
    {chr(c): " " for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")} | {_BREAK: f" {_BREAK} "}
)
_TOKENS = re.compile(rf"\w+|{_BREAK}")

IntArray = npt.NDArray[np.int64]


class WordIds(dict[str, int]):
    """Token → id of its stem (filler → -1, document break → -2); grows as new words appear."""

    def __init__(self) -> None:
        super().__init__({_BREAK: _BREAK_ID})
        self._stems: dict[str, int] = {}

    def __missing__(self, token: str) -> int:
        value = _FILLER_ID if token in STOPWORDS else self._stems.setdefault(stem(token), len(self._stems))
        self[token] = value
        return value

    @property
    def size(self) -> int:
        """Distinct stems seen so far (ids are below this)."""
        return len(self._stems)

    def pairs(self, texts: Sequence[str]) -> tuple[IntArray, IntArray]:
        """Unique (document index, word id) pairs of `texts`, sorted by document then word."""
        joined = fold(_BREAK.join(texts))
        tokens = joined.translate(_ASCII_TABLE).split() if joined.isascii() else _TOKENS.findall(joined)
        ids = np.fromiter(map(self.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        docs = np.cumsum(ids == _BREAK_ID)
        keep = ids >= 0
        width = max(1, self.size)
        keys = np.unique(docs[keep] * width + ids[keep])
        return keys // width, keys % width


def support_counts(
    fact_texts: Sequence[str],
    episode_texts: Sequence[str],
    *,
    containment: float = SUPPORT_CONTAINMENT,
    vocabulary: WordIds | None = None,
    breathe: Callable[[], None] | None = None,
) -> IntArray:
    """Supporting-episode count per fact."""
    counts = np.zeros(len(fact_texts), dtype=np.int64)
    if not fact_texts or not episode_texts:
        return counts
    vocab = vocabulary if vocabulary is not None else WordIds()
    episode_docs, episode_words = vocab.pairs(episode_texts)
    fact_docs, fact_words = vocab.pairs(fact_texts)
    columns = np.unique(episode_words)
    if not len(columns):
        return counts
    present = np.zeros((len(columns), len(episode_texts)), dtype=np.int16)  # word × episode
    present[np.searchsorted(columns, episode_words), episode_docs] = 1
    sizes = np.bincount(fact_docs, minlength=len(fact_texts))
    needed = np.where(sizes >= MIN_FACT_WORDS, np.ceil(containment * sizes - 1e-9), np.inf)
    slots = np.minimum(np.searchsorted(columns, fact_words), len(columns) - 1)
    known = columns[slots] == fact_words  # fact words no episode has can never be hits
    docs, slots = fact_docs[known], slots[known]
    if breathe is not None:
        breathe()
    step = max(1, _BLOCK_CELLS // len(episode_texts))
    start = 0
    while start < len(docs):
        end = min(len(docs), start + step)
        if end < len(docs) and docs[end] == docs[end - 1]:  # never split one fact's words across blocks
            cut = int(np.searchsorted(docs, docs[end - 1], side="left"))
            end = cut if cut > start else int(np.searchsorted(docs, docs[end - 1], side="right"))
        block_docs = docs[start:end]
        heads = np.flatnonzero(np.r_[True, block_docs[1:] != block_docs[:-1]])
        hits = np.add.reduceat(present[slots[start:end]], heads, axis=0)  # fact × episode
        owners = block_docs[heads]
        counts[owners] = (hits >= needed[owners][:, np.newaxis]).sum(axis=1)
        start = end
        if breathe is not None:
            breathe()
    return counts


__all__ = ["MIN_FACT_WORDS", "SUPPORT_CONTAINMENT", "WordIds", "support_counts"]
