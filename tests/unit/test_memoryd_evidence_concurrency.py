"""The evidence pass's fast paths decide nothing differently: each section's keyword side on its own thread gives the
same evidence as one after the other, and the full keyword side kept for a large section's search gives the same
hits as that search querying FTS5 itself; any write ends the reuse. Real SQLite store, real FTS5."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.read.search import MemorySearch, SearchSettings
from memoryd.storage.store import Store, open_store

AGENT = "alex"
KINDS = [KIND_PINNED, KIND_EPISODE, KIND_TRANSCRIPT]
#: Sections above this many rows are "large" (probed); the store below has 60-200 rows per section.
PROBE_ROWS = 50
WORDS = (  # noqa: SIM905 - a word list reads better as text
    "garden tomato recipe budget flight lisbon harbour dinner pottery marathon invoice contract cat doctor"
    " vegetarian peanut beta release report wednesday sister guitar lesson apartment lease salary hiking"
).split()
QUERIES = [
    "what did I say about the tomato garden?",
    "when is the beta release report due, wednesday?",
    "remind me of my peanut allergy and vegetarian dinner",
    "the lisbon flight budget",
    "my exact words about the guitar lesson",
    "zzz unknownword",
]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def _fill(store: Store, rng: random.Random) -> None:
    with store.db.write():
        store.agents.ensure(AGENT)
        for i in range(200):
            store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count,"
                " created_at_ms) VALUES (?, ?, ?, ?, ?, 10, ?)",
                (AGENT, f"c{i // 10}", i % 10, "user" if i % 2 == 0 else "assistant", _sentence(rng, 9), i),
            )
        for i in range(120):
            store.db.execute(
                "INSERT INTO pinned_facts (agent_id, content, salience, tags_csv, created_at_ms, updated_at_ms)"
                " VALUES (?, ?, ?, '', ?, ?)",
                (AGENT, _sentence(rng, 6), rng.random(), i, i),
            )
        for i in range(60):
            store.db.execute(
                "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, decisions,"
                " salience, conversation_at_ms, created_at_ms) VALUES (?, ?, ?, ?, '', '', 0.5, ?, ?)",
                (AGENT, f"e{i}", _sentence(rng, 14), rng.choice(WORDS), i, i),
            )


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = open_store(tmp_path / "memory.sqlite")
    _fill(store, random.Random(17))
    return store


def _search(store: Store, **changes: bool) -> MemorySearch:
    return MemorySearch(store, settings=SearchSettings(evidence_probe_rows=PROBE_ROWS, **changes))


def test_concurrent_keyword_sides_give_the_sequential_evidence(store: Store) -> None:
    parallel = _search(store)
    sequential = _search(store, parallel_evidence=False, speculate_full_keywords=False)
    try:
        for query in QUERIES:
            assert parallel.evidence_many(AGENT, KINDS, query) == sequential.evidence_many(
                AGENT, KINDS, query
            )
        # The sections really were probed and searched: some evidence is not empty.
        evidence = parallel.evidence_many(AGENT, KINDS, QUERIES[0])
        assert all(evidence[kind].candidates > 0 and evidence[kind].bm25_top > 0 for kind in KINDS)
        assert evidence[KIND_TRANSCRIPT].rows == 200 > PROBE_ROWS
    finally:
        parallel.close()
        sequential.close()


@pytest.mark.parametrize("kind", KINDS)
def test_the_kept_full_keyword_side_gives_the_searchs_own_hits(store: Store, kind: str) -> None:
    fast = _search(store)
    plain = _search(store, parallel_evidence=False, speculate_full_keywords=False)
    try:
        for query in QUERIES:
            fast.evidence_many(AGENT, KINDS, query)
            # The fast search reuses what the evidence pass kept; the plain one (no pass before it) queries FTS5.
            reused = fast.search_with_evidence(AGENT, kind, query, 8)
            fresh = plain.search_with_evidence(AGENT, kind, query, 8)
            assert [(h.row.id, h.score) for h in reused.outcome.hits] == [
                (h.row.id, h.score) for h in fresh.outcome.hits
            ], query
            assert reused.evidence == fresh.evidence
    finally:
        fast.close()
        plain.close()


def test_a_write_after_the_evidence_pass_ends_the_reuse(store: Store) -> None:
    search = _search(store)
    newest = "Tomato garden recipe: the tomato garden recipe, tomato garden"
    try:
        query = "tomato garden recipe"
        search.evidence_many(AGENT, KINDS, query)  # keeps the transcript's full keyword side
        with store.db.write():
            store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count,"
                " created_at_ms) VALUES (?, 'new', 0, 'user', ?, 10, 1000)",
                (AGENT, newest),
            )
        # Searched again (no vectors here: only a fresh keyword side can bring the new row in).
        hits = search.search(AGENT, KIND_TRANSCRIPT, query, 10).hits
        assert newest in {h.row.text for h in hits}
    finally:
        search.close()


def test_a_prefetched_pass_is_the_evidence_asked_for(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _search(store)
    plain = _search(store, parallel_evidence=False, speculate_full_keywords=False)
    fts_queries: list[str] = []
    search_fts = store.fts.search

    def counted(kind: str, *args: Any, **kwargs: Any) -> list[tuple[int, float]]:
        fts_queries.append(kind)
        return search_fts(kind, *args, **kwargs)

    monkeypatch.setattr(store.fts, "search", counted)
    try:
        for query in QUERIES:
            fast.prefetch_evidence(AGENT, KINDS, query)
            assert fast.evidence_many(AGENT, KINDS, query) == plain.evidence_many(AGENT, KINDS, query)
        # A pass started for one query is never taken for another.
        fast.prefetch_evidence(AGENT, KINDS, "tomato garden")
        assert fast.evidence_many(AGENT, KINDS, "guitar lesson") == plain.evidence_many(
            AGENT, KINDS, "guitar lesson"
        )
        # The call that follows a prefetch only waits for it: the FTS5 queries of one pass, not of two.
        query = "lisbon harbour dinner"
        start = len(fts_queries)
        fast.evidence_many(AGENT, KINDS, query)
        one_pass = len(fts_queries) - start
        fast.prefetch_evidence(AGENT, KINDS, query)
        assert fast.evidence_many(AGENT, KINDS, query)[KIND_PINNED].candidates > 0
        assert len(fts_queries) - start == 2 * one_pass > 0
    finally:
        fast.close()
        plain.close()
