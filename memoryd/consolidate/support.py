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

from memoryd.consolidate.text import STOPWORDS, ascii_words, fold, stem, words

SUPPORT_CONTAINMENT = 0.6
#: A one-word fact would be "supported" by any episode that mentions the word: it needs two words at least.
MIN_FACT_WORDS = 2
#: Cells (fact words × episodes) materialised at once: bounds one block's memory to a few MB.
_BLOCK_CELLS = 4_000_000
_BREAK = "\x01"
_BREAK_ID = -2
_FILLER_ID = -1
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
        joined = fold(f" {_BREAK} ".join(texts))
        if joined.count(_BREAK) != len(texts) - 1:  # a text holds the break byte itself (never in practice)
            return self._pairs_one_by_one(texts)
        tokens = ascii_words(joined, keep=_BREAK.encode()) if joined.isascii() else _TOKENS.findall(joined)
        ids = np.fromiter(map(self.__getitem__, tokens), dtype=np.int64, count=len(tokens))
        return self._unique(np.cumsum(ids == _BREAK_ID), ids)

    def _pairs_one_by_one(self, texts: Sequence[str]) -> tuple[IntArray, IntArray]:
        docs: list[int] = []
        ids: list[int] = []
        for index, text in enumerate(texts):
            for token in words(text.replace(_BREAK, " ")):
                docs.append(index)
                ids.append(self[token])
        return self._unique(np.asarray(docs, dtype=np.int64), np.asarray(ids, dtype=np.int64))

    def _unique(self, docs: IntArray, ids: IntArray) -> tuple[IntArray, IntArray]:
        keep = ids >= 0
        width = max(1, self.size)
        keys = np.unique(docs[keep] * width + ids[keep])
        return keys // width, keys % width


class EpisodeSupport:
    """One agent's recent episodes, indexed once; counts the support of any number of facts, in chunks."""

    def __init__(
        self,
        episode_texts: Sequence[str],
        vocabulary: WordIds | None = None,
        *,
        containment: float = SUPPORT_CONTAINMENT,
    ) -> None:
        self._vocab = vocabulary if vocabulary is not None else WordIds()
        self._containment = containment
        self._episodes = len(episode_texts)
        docs, words_ = self._vocab.pairs(episode_texts) if episode_texts else (np.zeros(0, np.int64),) * 2
        self._columns = np.unique(words_)
        self._present = np.zeros((len(self._columns), self._episodes), dtype=np.uint8)  # word × episode
        self._present[np.searchsorted(self._columns, words_), docs] = 1

    def counts(self, fact_texts: Sequence[str], breathe: Callable[[], None] | None = None) -> IntArray:
        """Supporting-episode count per fact."""
        counts = np.zeros(len(fact_texts), dtype=np.int64)
        columns = self._columns
        if not fact_texts or not len(columns):
            return counts
        fact_docs, fact_words = self._vocab.pairs(fact_texts)
        sizes = np.bincount(fact_docs, minlength=len(fact_texts))
        needed = np.where(sizes >= MIN_FACT_WORDS, np.ceil(self._containment * sizes - 1e-9), np.inf)
        slots = np.minimum(np.searchsorted(columns, fact_words), len(columns) - 1)
        known = columns[slots] == fact_words  # fact words no episode has can never be hits
        # A fact with fewer known words than it needs cannot be supported by any episode: drop its words early.
        known &= (np.bincount(fact_docs[known], minlength=len(fact_texts)) >= needed)[fact_docs]
        docs, slots = fact_docs[known], slots[known]
        # Counts fit a byte unless a fact has 256+ distinct words.
        cell = np.uint8 if not len(sizes) or int(sizes.max()) < 256 else np.int32
        present = self._present if cell is np.uint8 else self._present.astype(cell)
        step = max(1, _BLOCK_CELLS // self._episodes)
        start = 0
        while start < len(docs):
            end = min(len(docs), start + step)
            if end < len(docs) and docs[end] == docs[end - 1]:  # never split one fact's words across blocks
                cut = int(np.searchsorted(docs, docs[end - 1], side="left"))
                end = cut if cut > start else int(np.searchsorted(docs, docs[end - 1], side="right"))
            block_docs = docs[start:end]
            heads = np.flatnonzero(np.r_[True, block_docs[1:] != block_docs[:-1]])
            hits = np.add.reduceat(present[slots[start:end]], heads, axis=0, dtype=cell)  # fact × episode
            owners = block_docs[heads]
            counts[owners] = (hits >= needed[owners][:, np.newaxis]).sum(axis=1)
            start = end
            if breathe is not None:
                breathe()
        return counts


def support_counts(
    fact_texts: Sequence[str],
    episode_texts: Sequence[str],
    *,
    containment: float = SUPPORT_CONTAINMENT,
    vocabulary: WordIds | None = None,
    breathe: Callable[[], None] | None = None,
) -> IntArray:
    """Supporting-episode count per fact (one-shot form of EpisodeSupport)."""
    return EpisodeSupport(episode_texts, vocabulary, containment=containment).counts(fact_texts, breathe)


__all__ = ["MIN_FACT_WORDS", "SUPPORT_CONTAINMENT", "EpisodeSupport", "WordIds", "support_counts"]
