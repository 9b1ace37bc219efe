"""The evidence pass's reuse decides nothing differently: the full keyword side it keeps for each section (computed
while the query embedding is on its way) gives the same hits as the section search querying FTS5 itself; any write
ends the reuse; a prefetched pass is the pass asked for. Real SQLite store, real FTS5, real faiss registry; the
embeddings come from a fake inferd on a real port that answers after EMBED_DELAY_S (a slow peer, so the vectors are
still on their way during the keyword sides)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from inferd.client import InferenceClient
from memoryd.config import ConfigStore
from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.read.common_matches import CommonMatches
from memoryd.read.search import MemorySearch, SearchSettings
from memoryd.storage.store import Store, open_store
from memoryd.vectors.embedding import Embedder
from memoryd.vectors.registry import VectorRegistry
from osaurus.inference.v1 import inference_pb2 as ipb
from tests.fakes.fake_inferd import FakeInferdState, FakeInference
from tests.fakes.inference_server import serving_inference

EMBED_DELAY_S = 0.3

AGENT = "alex"
KINDS = [KIND_PINNED, KIND_EPISODE, KIND_TRANSCRIPT]
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


class SlowInference(FakeInference):
    """FakeInference whose Embed answers after EMBED_DELAY_S."""

    def Embed(self, request: ipb.EmbedRequest, context: grpc.ServicerContext) -> ipb.EmbedResponse:
        time.sleep(EMBED_DELAY_S)
        return super().Embed(request, context)


@dataclass
class Rig:
    store: Store
    embedder: Embedder
    vectors: VectorRegistry
    searches: list[MemorySearch]

    def search(self, **changes: bool | int | float) -> MemorySearch:
        """A MemorySearch over the rig (closed with it); `changes` to SearchSettings."""
        settings = SearchSettings(**changes)
        search = MemorySearch(self.store, self.embedder, self.vectors, settings)
        self.searches.append(search)
        return search


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    store = open_store(tmp_path / "memory.sqlite")
    _fill(store, random.Random(17))
    with serving_inference(SlowInference(FakeInferdState()), grace_s=0.1) as server:
        client = InferenceClient(server.target)
        embedder = Embedder(client, ConfigStore(tmp_path / "memory.json"), query_timeout_s=5.0)
        rig = Rig(store, embedder, VectorRegistry(tmp_path / "vectors", store.embeddings), [])
        try:
            yield rig
        finally:
            for search in rig.searches:
                search.close()
            client.close()


def _count_fts(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """(kind, whether on the calling thread) of every FTS5 candidate query from now on (the real query runs). Kept
    rankings of common-term matches (read/common_matches.py) are not used from then on: every candidate query the
    search makes reaches FTS5, so what is counted is the search's own reuse."""
    queried: list[tuple[str, bool]] = []
    search_fts = store.fts.search
    caller = threading.current_thread()

    def counted(kind: str, *args: Any, **kwargs: Any) -> list[tuple[int, float]]:
        queried.append((kind, threading.current_thread() is caller))
        return search_fts(kind, *args, **kwargs)

    def unkept(
        self: CommonMatches,
        kind: str,
        agent_id: str,
        terms: Sequence[str],
        limit: int,
        rows_now: int,
        *,
        agent_in_match: bool = True,
    ) -> list[tuple[int, float]]:
        return counted(kind, agent_id, terms, limit, agent_in_match=agent_in_match)

    monkeypatch.setattr(store.fts, "search", counted)
    monkeypatch.setattr(CommonMatches, "search", unkept)
    return queried


def test_the_kept_keyword_side_gives_the_searchs_own_hits(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = rig.search()
    plain = rig.search()
    queried = _count_fts(rig.store, monkeypatch)
    evidence = fast.evidence_many(AGENT, KINDS, QUERIES[0])
    # The sections really were searched: the evidence is not empty, and the vector side ran (slowly).
    assert all(evidence[kind].candidates > 0 and evidence[kind].bm25_top > 0 for kind in KINDS)
    assert evidence[KIND_TRANSCRIPT].note == ""
    for query in QUERIES[:-1]:  # the last one matches nothing
        fast.evidence_many(AGENT, KINDS, query)
        for kind in KINDS:
            # The search after the pass reuses what it kept and queries FTS5 no more; the plain one, with no pass
            # before it, queries FTS5 itself.
            before = len(queried)
            reused = fast.search_with_evidence(AGENT, kind, query, 8)
            assert len(queried) == before, (query, kind)
            fresh = plain.search_with_evidence(AGENT, kind, query, 8)
            assert (kind, True) in queried[before:]
            assert [(h.row.id, h.score) for h in reused.outcome.hits] == [
                (h.row.id, h.score) for h in fresh.outcome.hits
            ], (query, kind)
            assert reused.outcome.hits and reused.evidence == fresh.evidence


def test_one_keyword_query_per_section_without_vectors(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    search = rig.search(use_vectors=False)
    query = QUERIES[0]
    queried = _count_fts(rig.store, monkeypatch)
    search.evidence_many(AGENT, KINDS, query)
    search.search(AGENT, KIND_TRANSCRIPT, query, 8)
    # One full pass per section on this thread; the transcript search reuses its pass.
    assert sorted(queried) == sorted([(kind, True) for kind in KINDS])


def test_a_write_after_the_evidence_pass_ends_the_reuse(rig: Rig) -> None:
    search = rig.search()
    newest = "Tomato garden recipe: the tomato garden recipe, tomato garden"
    query = "tomato garden recipe"
    search.evidence_many(AGENT, KINDS, query)  # keeps the transcript's full keyword side
    with rig.store.db.write():
        rig.store.db.execute(
            "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count,"
            " created_at_ms) VALUES (?, 'new', 0, 'user', ?, 10, 1000)",
            (AGENT, newest),
        )
    # Searched again (no row has a vector here: only a fresh keyword side can bring the new row in).
    hits = search.search(AGENT, KIND_TRANSCRIPT, query, 10).hits
    assert newest in {h.row.text for h in hits}


def test_a_prefetched_pass_is_the_evidence_asked_for(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = rig.search()
    plain = rig.search()
    queried = _count_fts(rig.store, monkeypatch)
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
    start = len(queried)
    plain.evidence_many(AGENT, KINDS, query)
    one_pass = len(queried) - start
    plain.prefetch_evidence(AGENT, KINDS, query)
    assert plain.evidence_many(AGENT, KINDS, query)[KIND_PINNED].candidates > 0
    assert len(queried) - start == 2 * one_pass > 0


@pytest.mark.parametrize("kind", KINDS)
def test_document_frequencies_in_one_statement_are_the_per_term_counts(rig: Rig, kind: str) -> None:
    fts = rig.store.fts
    terms = ["tomato", "garden", "quokka", "wednesday", "recipe", "tomatoes", "kangaroo"]
    alone = fts.doc_frequencies(kind, AGENT, terms)  # the agent owns every row: counted without its filter
    assert alone == {term: fts.doc_frequency(kind, AGENT, term) for term in terms}
    assert alone["tomato"] > 0 and alone["quokka"] == 0
    # Another agent's rows (one holding a word this agent never wrote): the agent's own counts still.
    with rig.store.db.write():
        rig.store.agents.ensure("sam")
        for text in ("Tomato garden with a kangaroo", "Kangaroo recipe"):
            rig.store.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count,"
                " created_at_ms) VALUES ('sam', 's', 0, 'user', ?, 5, 1)",
                (text,),
            )
            rig.store.db.execute(
                "INSERT INTO pinned_facts (agent_id, content, salience, tags_csv, created_at_ms, updated_at_ms)"
                " VALUES ('sam', ?, 0.5, '', 1, 1)",
                (text,),
            )
            rig.store.db.execute(
                "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, decisions,"
                " salience, conversation_at_ms, created_at_ms) VALUES ('sam', 's', ?, '', '', '', 0.5, 1, 1)",
                (text,),
            )
    shared = fts.doc_frequencies(kind, AGENT, terms)
    assert shared == alone == {term: fts.doc_frequency(kind, AGENT, term) for term in terms}
    assert shared["kangaroo"] == 0 and fts.doc_frequencies(kind, "sam", ["kangaroo"]) == {"kangaroo": 2}


def test_a_large_kinds_keyword_side_on_a_helper_thread_gives_the_same_evidence(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 200 transcript rows, 120 pinned facts, 60 episodes: only the transcript reaches 150 rows.
    threaded = rig.search(keyword_thread_rows=150)
    serial = rig.search(keyword_thread_rows=0)
    queried = _count_fts(rig.store, monkeypatch)
    for query in QUERIES:
        start = len(queried)
        assert threaded.evidence_many(AGENT, KINDS, query) == serial.evidence_many(AGENT, KINDS, query), query
        if query != QUERIES[-1]:  # the last one matches nothing, so no FTS5 query runs
            mine = queried[start : start + len(KINDS)]
            assert sorted(mine) == sorted(
                [(KIND_TRANSCRIPT, False), (KIND_PINNED, True), (KIND_EPISODE, True)]
            ), query
    # The side computed on the helper thread is kept for the section search like the others.
    query = QUERIES[1]
    threaded.evidence_many(AGENT, KINDS, query)
    before = len(queried)
    reused = threaded.search_with_evidence(AGENT, KIND_TRANSCRIPT, query, 8)
    assert len(queried) == before
    fresh = serial.search_with_evidence(AGENT, KIND_TRANSCRIPT, query, 8)
    assert [(h.row.id, h.score) for h in reused.outcome.hits] == [
        (h.row.id, h.score) for h in fresh.outcome.hits
    ]


def test_when_every_kind_is_large_one_side_still_runs_on_the_calling_thread(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    search = rig.search(keyword_thread_rows=1)
    queried = _count_fts(rig.store, monkeypatch)
    evidence = search.evidence_many(AGENT, KINDS, QUERIES[0])
    assert all(evidence[kind].candidates > 0 for kind in KINDS)
    assert sorted(on_caller for _, on_caller in queried) == [False, False, True]


def test_the_placed_sections_search_reuses_the_passs_evidence_and_nearest_rows(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With vectors: the section search after the pass measures no evidence again (no second read of the nearest
    rows, issue 17 item 4) and answers exactly what a search without the pass answers."""
    from memoryd.vectors.indexer import Indexer

    indexer = Indexer(rig.store, rig.embedder, rig.vectors)
    try:
        assert indexer.run_once() > 0
    finally:
        indexer.close()
    fast = rig.search()
    plain = rig.search()
    measured: list[str] = []
    measure = fast._evidence

    def counted(agent_id: str, kind: str, *args: Any) -> Any:
        measured.append(kind)
        return measure(agent_id, kind, *args)

    monkeypatch.setattr(fast, "_evidence", counted)
    for query in QUERIES[:-1]:
        passed = fast.evidence_many(AGENT, KINDS, query)
        assert passed[KIND_TRANSCRIPT].cosine_top is not None  # the vector side ran
        for kind in KINDS:
            before = len(measured)
            reused = fast.search_with_evidence(AGENT, kind, query, 8)
            assert len(measured) == before, (query, kind)  # the pass's measurement, not a second one
            fresh = plain.search_with_evidence(AGENT, kind, query, 8)
            assert [(h.row.id, h.score) for h in reused.outcome.hits] == [
                (h.row.id, h.score) for h in fresh.outcome.hits
            ], (query, kind)
            assert reused.outcome.method == fresh.outcome.method == "hybrid"
            assert reused.evidence == fresh.evidence


def test_forget_recent_ends_the_reuse_for_that_agent_only(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    """What replication calls when another replica changed an agent's rows (this process's generation did not
    move): the next search of that agent queries FTS5 again; another agent's kept work stays."""
    search = rig.search()
    query = QUERIES[0]
    search.evidence_many(AGENT, KINDS, query)
    search.evidence_many("someone-else", KINDS, query)
    queried = _count_fts(rig.store, monkeypatch)
    search.forget_recent("someone-else")
    search.search(AGENT, KIND_TRANSCRIPT, query, 8)
    assert queried == []  # still reused
    search.forget_recent(AGENT)
    search.search(AGENT, KIND_TRANSCRIPT, query, 8)
    assert (KIND_TRANSCRIPT, True) in queried


def _order_of_starts(
    search: MemorySearch, monkeypatch: pytest.MonkeyPatch, vector_delay_s: float
) -> list[str]:
    """What a prefetched pass starts first: 'vector' (the vector side about to embed the query, after
    vector_delay_s) or 'keywords' (the first keyword side), in order; the pass's evidence is awaited."""
    started: list[str] = []
    lock = threading.Lock()
    rankings = search._vector_rankings
    side = search._evidence_side

    def late_vectors(*args: Any) -> Any:
        time.sleep(vector_delay_s)
        with lock:
            started.append("vector")
        return rankings(*args)

    def keywords(*args: Any) -> Any:
        with lock:
            started.append("keywords")
        return side(*args)

    monkeypatch.setattr(search, "_vector_rankings", late_vectors)
    monkeypatch.setattr(search, "_evidence_side", keywords)
    search.prefetch_evidence(AGENT, KINDS, QUERIES[0])
    search.evidence_many(AGENT, KINDS, QUERIES[0])
    return list(dict.fromkeys(started))


def test_a_prefetched_pass_starts_its_keyword_sides_once_the_query_is_being_embedded(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keyword sides' Python no longer holds the GIL while the embedding's request waits to leave: they start
    after the vector side's thread has begun embedding (here it starts 50 ms late, within a 0.5 s setting), and
    measure the same evidence."""
    assert SearchSettings().keywords_after_send_s > 0
    waiting = rig.search(keywords_after_send_s=0.5)
    assert _order_of_starts(waiting, monkeypatch, 0.05) == ["vector", "keywords"]
    at_once = rig.search(keywords_after_send_s=0)  # as before fastctx10: the keyword sides start beside it
    monkeypatch.undo()
    assert _order_of_starts(at_once, monkeypatch, 0.05) == ["keywords", "vector"]
    monkeypatch.undo()
    assert waiting.evidence_many(AGENT, KINDS, QUERIES[1]) == at_once.evidence_many(AGENT, KINDS, QUERIES[1])


def test_a_late_vector_side_never_holds_the_keyword_sides_back_longer_than_the_setting(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vector side whose thread is busy (here it starts 0.2 s late) delays the keyword sides by
    keywords_after_send_s at most: they run first, and the pass still answers."""
    search = rig.search(keywords_after_send_s=0.005)
    assert _order_of_starts(search, monkeypatch, 0.2) == ["keywords", "vector"]
