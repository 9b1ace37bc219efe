"""Per-agent keyword statistics: cached between writes, large agents refreshed in the background."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from memoryd.domain import KIND_TRANSCRIPT, TurnInput
from memoryd.read.keyword_stats import INLINE_REFRESH_ROWS, REFRESH_S, KeywordStats
from memoryd.read.search import MemorySearch
from memoryd.storage.fts import FtsIndex
from memoryd.storage.store import Store, open_store


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Deferred:
    """Collects background refreshes so the test decides when they run."""

    def __init__(self) -> None:
        self.jobs: list[Callable[[], None]] = []

    def __call__(self, job: Callable[[], None]) -> None:
        self.jobs.append(job)

    def run_all(self) -> None:
        jobs, self.jobs = self.jobs, []
        for job in jobs:
            job()


def _add_rows(store: Store, agent: str, count: int) -> None:
    with store.db.write():
        store.db.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2) "
            "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
            "SELECT ?1, 'c', i, 'user', 'row text', 1 FROM n",
            (agent, count),
        )


def _stats(store: Store, clock: Clock, deferred: Deferred) -> KeywordStats:
    return KeywordStats(store.fts, lambda: store.db.generation, background=deferred, clock=clock)


def test_a_small_agent_is_recounted_inline_after_a_write(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    clock, deferred = Clock(), Deferred()
    stats = _stats(store, clock, deferred)
    assert stats.corpus(KIND_TRANSCRIPT, "a").rows == 0
    store.turns.buffer(TurnInput("a", "c", "first words", "", 1))
    assert stats.corpus(KIND_TRANSCRIPT, "a").rows == 0  # within REFRESH_S of the last count: cached
    clock.now += REFRESH_S
    assert stats.corpus(KIND_TRANSCRIPT, "a").rows == 1
    assert deferred.jobs == []
    store.close()


def test_a_large_agent_keeps_serving_its_figures_while_one_background_recount_runs(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    _add_rows(store, "big", INLINE_REFRESH_ROWS + 10)
    clock, deferred = Clock(), Deferred()
    stats = _stats(store, clock, deferred)
    assert stats.corpus(KIND_TRANSCRIPT, "big").rows == INLINE_REFRESH_ROWS + 10
    _add_rows(store, "big", 5)
    clock.now += REFRESH_S
    assert stats.corpus(KIND_TRANSCRIPT, "big").rows == INLINE_REFRESH_ROWS + 10  # stale figures, no wait
    assert stats.corpus(KIND_TRANSCRIPT, "big").rows == INLINE_REFRESH_ROWS + 10
    assert len(deferred.jobs) == 1  # one recount in flight, not one per search
    deferred.run_all()
    assert stats.corpus(KIND_TRANSCRIPT, "big").rows == INLINE_REFRESH_ROWS + 15
    store.close()


class InvalidatedMidCount(FtsIndex):
    """Runs `during` between counting and returning, like a delete + invalidate racing a recount."""

    def __init__(self, store: Store) -> None:
        super().__init__(store.db)
        self.during: Callable[[], None] = lambda: None
        self.counts = 0

    def agent_text_stats(self, kind: str, agent_id: str, sample: int = 2000) -> tuple[int, float]:
        self.counts += 1
        result = super().agent_text_stats(kind, agent_id, sample)
        self.during()
        return result


def test_a_count_that_raced_an_invalidation_is_not_cached(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    store.turns.buffer(TurnInput("a", "c", "first words", "", 1))
    fts = InvalidatedMidCount(store)
    stats = KeywordStats(fts, lambda: store.db.generation, clock=Clock())
    fts.during = lambda: stats.invalidate("a")
    assert stats.corpus(KIND_TRANSCRIPT, "a").rows == 1
    fts.during = lambda: None
    stats.corpus(KIND_TRANSCRIPT, "a")
    assert fts.counts == 2  # the raced figures were not kept
    stats.corpus(KIND_TRANSCRIPT, "a")
    assert fts.counts == 2  # these were
    store.close()


def test_a_large_table_keeps_its_count_while_one_background_recount_runs(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    _add_rows(store, "big", INLINE_REFRESH_ROWS + 10)
    clock, deferred = Clock(), Deferred()
    stats = _stats(store, clock, deferred)
    assert stats.table_rows(KIND_TRANSCRIPT) == INLINE_REFRESH_ROWS + 10
    _add_rows(store, "other", 5)
    assert stats.table_rows(KIND_TRANSCRIPT) == INLINE_REFRESH_ROWS + 10  # within REFRESH_S: cached
    clock.now += REFRESH_S
    assert stats.table_rows(KIND_TRANSCRIPT) == INLINE_REFRESH_ROWS + 10  # stale count, no wait
    assert stats.table_rows(KIND_TRANSCRIPT) == INLINE_REFRESH_ROWS + 10
    assert len(deferred.jobs) == 1  # one recount in flight, not one per search
    deferred.run_all()
    assert stats.table_rows(KIND_TRANSCRIPT) == INLINE_REFRESH_ROWS + 15
    with store.db.write():
        store.db.execute("DELETE FROM transcript WHERE agent_id = 'other'")
    stats.invalidate("other")  # after a delete: counted again at once, inline
    assert stats.table_rows(KIND_TRANSCRIPT) == INLINE_REFRESH_ROWS + 10
    store.close()


def test_a_small_table_is_recounted_inline_after_a_write(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    clock, deferred = Clock(), Deferred()
    stats = _stats(store, clock, deferred)
    _add_rows(store, "a", 3)
    assert stats.table_rows(KIND_TRANSCRIPT) == 3
    _add_rows(store, "b", 2)
    clock.now += REFRESH_S
    assert stats.table_rows(KIND_TRANSCRIPT) == 5
    assert deferred.jobs == []
    store.close()


def test_a_pinned_usage_bump_does_not_trigger_a_recount(tmp_path: Path) -> None:
    """The read path bumps the usage of the pinned facts it placed: bookkeeping no statistic reads, so the next
    search keeps the cached figures (it used to queue a background recount after every such assembly)."""
    store = open_store(tmp_path / "memory.sqlite")
    clock, deferred = Clock(), Deferred()
    stats = _stats(store, clock, deferred)
    _add_rows(store, "a", INLINE_REFRESH_ROWS + 10)
    with store.db.write():
        fact = store.db.insert(
            "INSERT INTO pinned_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES ('a', 'x', 1, 1)"
        )
    assert stats.corpus(KIND_TRANSCRIPT, "a").rows == INLINE_REFRESH_ROWS + 10
    store.reads.bump_pinned_usage("a", [fact], 5)
    clock.now += REFRESH_S
    assert stats.corpus(KIND_TRANSCRIPT, "a").rows == INLINE_REFRESH_ROWS + 10
    assert deferred.jobs == []  # nothing queued
    _add_rows(store, "a", 1)  # a real write: the next search queues the recount
    stats.corpus(KIND_TRANSCRIPT, "a")
    assert len(deferred.jobs) == 1
    deferred.run_all()
    assert stats.corpus(KIND_TRANSCRIPT, "a").rows == INLINE_REFRESH_ROWS + 11


def test_memory_search_refreshes_large_agents_on_a_thread_of_its_own(tmp_path: Path) -> None:
    """The background recount after a write runs on the statistics thread, never on the pools a request's vector
    and keyword sides wait for (after a write one refresh per kind and table is queued at once)."""
    store = open_store(tmp_path / "memory.sqlite")
    _add_rows(store, "a", INLINE_REFRESH_ROWS + 10)
    search = MemorySearch(store)
    counted_on: list[str] = []
    fts = search.keyword_stats._fts
    count = fts.agent_text_stats

    def recording(kind: str, agent_id: str, sample: int = 2000) -> tuple[int, float]:
        counted_on.append(threading.current_thread().name)
        return count(kind, agent_id, sample)

    fts.agent_text_stats = recording  # type: ignore[method-assign]
    try:
        assert search.keyword_stats.corpus(KIND_TRANSCRIPT, "a").rows == INLINE_REFRESH_ROWS + 10
        _add_rows(store, "a", 1)
        time.sleep(REFRESH_S + 0.1)
        search.keyword_stats.corpus(KIND_TRANSCRIPT, "a")  # stale: served, and recounted in the background
        deadline = time.monotonic() + 10
        while len(counted_on) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert counted_on[0] == threading.current_thread().name
        assert counted_on[1].startswith("memoryd-stats")
        while search.keyword_stats.corpus(KIND_TRANSCRIPT, "a").rows != INLINE_REFRESH_ROWS + 11:
            assert time.monotonic() < deadline  # the refreshed figure is stored once the count returns
            time.sleep(0.01)
    finally:
        search.close()
