"""Per-agent keyword statistics (row count, mean length, document frequencies), cached between writes, and the kept
FTS5 rankings of common-term matches (common_matches.py), dropped with them."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from memoryd.read.common_matches import CommonMatches
from memoryd.retrieval.hybrid import AgentCorpus
from memoryd.storage.fts import FtsIndex

#: Cached document frequencies are reused while the agent grew by less than this fraction (IDF barely moves).
GROWTH_TOLERANCE = 0.02
#: Corpus sizes are refreshed at most this often, and only after a write.
REFRESH_S = 2.0
#: Agents (and tables) with more rows than this refresh their corpus size (row count) in the background while the
#: previous figures keep serving (counting 100k rows took ~15 ms, paid by the first search after every write
#: otherwise); smaller ones refresh inline, which is cheap and exact right after their first rows arrive.
INLINE_REFRESH_ROWS = 5000
_MAX_TERMS = 200_000

_log = logging.getLogger("memoryd.keyword_stats")

#: Runs a refresh off the search's path (e.g. an executor's submit).
Background = Callable[[Callable[[], None]], Any]


class KeywordStats:
    """FTS5's bm25() takes IDF from the whole table (every agent); this supplies one agent's own statistics."""

    def __init__(
        self,
        fts: FtsIndex,
        generation: Callable[[], int] = lambda: 0,
        background: Background | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fts = fts
        self._generation = generation
        self._background = background
        self._clock = clock
        self._lock = threading.Lock()
        self._epoch = 0
        self._refreshing: set[tuple[str, str]] = set()
        self._corpus: dict[tuple[str, str], tuple[AgentCorpus, float, int]] = {}
        self._table: dict[str, tuple[int, float, int]] = {}
        self._df: dict[tuple[str, str, str], tuple[int, int]] = {}
        #: FTS5's rankings of matches of common terms only, dropped by invalidate() as the statistics are.
        self.common_matches = CommonMatches(fts)

    def _fresh(self, stamp: float, generation: int) -> bool:
        return generation == self._generation() or self._clock() - stamp < REFRESH_S

    def corpus(self, kind: str, agent_id: str) -> AgentCorpus:
        """Rows and mean characters of one agent's rows of one kind."""
        key = (kind, agent_id)
        with self._lock:
            cached = self._corpus.get(key)
        if cached is not None and self._fresh(cached[1], cached[2]):
            return cached[0]
        if cached is not None and cached[0].rows > INLINE_REFRESH_ROWS and self._background is not None:
            self._refresh_later(key)
            return cached[0]
        return self._refresh(key)

    def _refresh(self, key: tuple[str, str]) -> AgentCorpus:
        with self._lock:
            epoch = self._epoch
        generation = self._generation()
        rows, mean_chars = self._fts.agent_text_stats(*key)
        corpus = AgentCorpus(rows=rows, mean_chars=mean_chars)
        with self._lock:
            if epoch == self._epoch:  # an invalidate() meanwhile: these figures may predate it
                self._corpus[key] = (corpus, self._clock(), generation)
        return corpus

    def _refresh_later(self, key: tuple[str, str]) -> None:
        """One background refresh of an agent's corpus per key at a time."""
        self._later(key, lambda: self._refresh(key))

    def _later(self, key: tuple[str, str], refresh: Callable[[], object]) -> None:
        """Run `refresh` in the background unless one for `key` is already under way."""
        with self._lock:
            if key in self._refreshing:
                return
            self._refreshing.add(key)

        def run() -> None:
            try:
                refresh()
            except Exception as error:
                _log.warning("refreshing keyword statistics failed: %s", type(error).__name__)
            finally:
                with self._lock:
                    self._refreshing.discard(key)

        assert self._background is not None
        try:
            self._background(run)
        except RuntimeError:  # the executor is shutting down: the cached figures stay
            with self._lock:
                self._refreshing.discard(key)

    def table_rows(self, kind: str) -> int:
        """Rows of the whole table (all agents). A large table (the count took ~12 ms at 100k rows, paid by the
        first search after every write) is recounted in the background while the previous count keeps serving, as
        a large agent's corpus is: it only chooses how FTS5 restricts to the agent."""
        with self._lock:
            cached = self._table.get(kind)
        if cached is not None and self._fresh(cached[1], cached[2]):
            return cached[0]
        if cached is not None and cached[0] > INLINE_REFRESH_ROWS and self._background is not None:
            self._later(("", kind), lambda: self._refresh_table(kind))
            return cached[0]
        return self._refresh_table(kind)

    def _refresh_table(self, kind: str) -> int:
        with self._lock:
            epoch = self._epoch
        generation = self._generation()
        rows = self._fts.table_rows(kind)
        with self._lock:
            if epoch == self._epoch:  # an invalidate() meanwhile: this count may predate it
                self._table[kind] = (rows, self._clock(), generation)
        return rows

    def doc_frequency(self, kind: str, agent_id: str, term: str, rows_now: int) -> int:
        """Rows of the agent containing `term`; recomputed once the agent grew past the tolerance."""
        return self.doc_frequencies(kind, agent_id, [term], rows_now)[term]

    def doc_frequencies(
        self, kind: str, agent_id: str, terms: Sequence[str], rows_now: int
    ) -> dict[str, int]:
        """doc_frequency of each term; the ones not cached are counted in one statement."""
        found: dict[str, int] = {}
        with self._lock:
            for term in terms:
                cached = self._df.get((kind, agent_id, term))
                if cached is not None and cached[1] <= rows_now <= cached[1] * (1 + GROWTH_TOLERANCE) + 1:
                    found[term] = cached[0]
        missing = [term for term in dict.fromkeys(terms) if term not in found]
        if missing:
            counted = self._fts.doc_frequencies(kind, agent_id, missing)
            with self._lock:
                if len(self._df) > _MAX_TERMS:
                    self._df.clear()
                for term, df in counted.items():
                    self._df[(kind, agent_id, term)] = (df, rows_now)
            found.update(counted)
        return {term: found[term] for term in terms}

    def invalidate(self, agent_id: str | None = None) -> None:
        """Forget cached statistics and kept rankings (after deletes), for one agent or all."""
        self.common_matches.invalidate(agent_id)
        with self._lock:
            self._epoch += 1
            self._table.clear()
            if agent_id is None:
                self._corpus.clear()
                self._df.clear()
                return
            self._corpus = {k: v for k, v in self._corpus.items() if k[1] != agent_id}
            self._df = {k: v for k, v in self._df.items() if k[1] != agent_id}
