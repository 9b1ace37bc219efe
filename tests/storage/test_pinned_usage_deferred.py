"""Pinned-usage bumps off the request path on SQLite (issue 17 item 4, fastctx4): the reader counts them and a flusher
writes them. N placements → use_count + N exactly (concurrent planners included), the flusher writes within its
interval without being asked (what a crash can lose), a fact forgotten between a bump and its flush is simply gone,
a failed flush keeps its counts, and the store's generation stays. A real SQLite store and its FTS search."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from memoryd.domain import KIND_PINNED
from memoryd.read.memory_reader import StoreMemoryReader
from memoryd.read.pinned_usage import FLUSH_INTERVAL_S, PinnedUsageFlusher
from memoryd.read.search import MemorySearch
from memoryd.retrieval.items import ItemKind, Section
from memoryd.retrieval.planner import Planner
from memoryd.retrieval.tokens import EstimatingCounter
from memoryd.storage.store import Store, open_store

AGENT = "agent-deferred"
NOW_MS = 1_700_000_000_000


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


def _fact(store: Store, text: str, agent: str = AGENT) -> int:
    with store.db.write():
        return store.db.insert(
            "INSERT INTO pinned_facts (agent_id, content, salience, created_at_ms, updated_at_ms) "
            "VALUES (?, ?, 0.8, 1, 1)",
            (agent, text),
        )


def _usage(store: Store, fact_id: int) -> tuple[int, int] | None:
    rows = store.db.query("SELECT use_count, last_used_at_ms FROM pinned_facts WHERE id = ?", (fact_id,))
    return (int(rows[0][0]), int(rows[0][1])) if rows else None


def _reader(store: Store) -> tuple[StoreMemoryReader, MemorySearch]:
    search = MemorySearch(store)
    return StoreMemoryReader(store, search, lambda: NOW_MS), search


def _frame(body: str) -> str:
    return body


def test_n_placements_add_exactly_n_and_nothing_is_written_on_the_request_path(store: Store) -> None:
    facts = [_fact(store, f"the user's sailing boat is called Petrel number {i}") for i in range(3)]
    other = _fact(store, "an unrelated note about tax returns")
    reader, search = _reader(store)
    planner = Planner(reader, EstimatingCounter(), lambda: NOW_MS + 5)
    generation, commits = store.db.generation, store.db.commits
    errors: list[BaseException] = []
    placed_per_thread: list[int] = []

    def plan(n: int) -> None:
        try:
            placed = 0
            for _ in range(n):
                result = planner.plan(AGENT, Section.PINNED, "what is my sailing boat called", 800, _frame)
                placed += len([r for r in result.placed if r.kind is ItemKind.PINNED_FACT])
            placed_per_thread.append(placed)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    try:
        threads = [threading.Thread(target=plan, args=(10,)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        assert sum(placed_per_thread) == 4 * 10 * 3  # every assembly placed the three boat facts
        # Nothing was written while the planners ran (unless the flusher's interval passed meanwhile).
        written = sum((_usage(store, f) or (0, 0))[0] for f in facts)
        assert written == 0 or store.db.commits > commits
    finally:
        reader.close()  # writes what is pending
        search.close()
    assert [_usage(store, f) for f in facts] == [(40, NOW_MS + 5)] * 3
    assert _usage(store, other) == (0, 0)
    assert store.db.generation == generation  # bookkeeping: read-side caches keep


def test_the_flusher_writes_within_its_interval_unasked(store: Store) -> None:
    fact_id = _fact(store, "the user is allergic to peanuts")
    reader, search = _reader(store)
    try:
        reader.bump_pinned_usage(AGENT, [str(fact_id)], NOW_MS)
        reader.bump_pinned_usage(AGENT, [str(fact_id)], NOW_MS - 10)  # an older stamp never moves it back
        deadline = time.monotonic() + FLUSH_INTERVAL_S * 5
        while _usage(store, fact_id) != (2, NOW_MS) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _usage(store, fact_id) == (2, NOW_MS)
    finally:
        reader.close()
        search.close()


def test_a_fact_forgotten_between_bump_and_flush_is_not_brought_back(store: Store) -> None:
    kept, forgotten = _fact(store, "kept fact"), _fact(store, "forgotten fact")
    reader, search = _reader(store)
    try:
        reader.bump_pinned_usage(AGENT, [str(kept), str(forgotten)], NOW_MS)
        assert store.console_rows.delete(KIND_PINNED, forgotten) is not None
        newer = _fact(store, "a fact written after the forget")  # AUTOINCREMENT: never the forgotten id
        reader.flush_usage()
    finally:
        reader.close()
        search.close()
    assert _usage(store, kept) == (1, NOW_MS)
    assert _usage(store, forgotten) is None
    assert newer != forgotten and _usage(store, newer) == (0, 0)


def test_a_failed_flush_keeps_its_counts_for_the_next() -> None:
    written: list[tuple[str, dict[int, tuple[int, int]]]] = []
    failing = [True]

    def write(agent_id: str, uses: Mapping[int, tuple[int, int]]) -> None:
        if failing[0]:
            raise OSError("disk full")
        written.append((agent_id, dict(uses)))

    flusher = PinnedUsageFlusher(write, interval_s=3600)
    try:
        flusher.bump("a", [1, 2], 10)
        flusher.flush()  # fails: kept
        assert flusher.pending() == 2 and written == []
        flusher.bump("a", [1], 20)
        failing[0] = False
        flusher.flush()
        assert written == [("a", {1: (2, 20), 2: (1, 10)})]
        assert flusher.pending() == 0
    finally:
        flusher.close()


def test_postgres_style_reader_writes_on_the_request_path(store: Store) -> None:
    fact_id = _fact(store, "written at once")
    search = MemorySearch(store)
    reader = StoreMemoryReader(store, search, lambda: NOW_MS, deferred_usage=False)
    try:
        reader.bump_pinned_usage(AGENT, [str(fact_id)], NOW_MS)
        assert _usage(store, fact_id) == (1, NOW_MS)
    finally:
        reader.close()
        search.close()
