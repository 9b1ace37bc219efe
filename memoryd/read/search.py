"""Hybrid memory search inside one agent: per-agent BM25 over FTS5, faiss cosine, RRF fusion, priors, MMR rerank."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memoryd.domain import KIND_TRANSCRIPT, MemoryRow, ScoredRow, SearchOutcome
from memoryd.read.keyword_stats import KeywordStats
from memoryd.retrieval import hybrid
from memoryd.retrieval.context_prior import Position, conversation_prior, smooth_neighbours
from memoryd.retrieval.dates import Window, date_windows
from memoryd.retrieval.evidence import (
    COSINE_BACKGROUND,
    COSINE_TOP,
    TOP_ROWS,
    SectionEvidence,
    keyword_evidence,
    top_rows,
    vector_evidence,
)
from memoryd.retrieval.length_prior import informative_prior
from memoryd.retrieval.mmr import DEFAULT_LAMBDA, Candidate, mmr
from memoryd.retrieval.terms import query_terms
from memoryd.retrieval.turn_neighbours import with_context
from memoryd.retrieval.when import asks_when, has_time_reference
from memoryd.storage.dated import DATED_KINDS
from memoryd.storage.store import Store
from memoryd.vectors.threads import use_one_thread

_log = logging.getLogger("memoryd.search")


class QueryEmbedder(Protocol):
    """Turns a query into (unit vector, model), or None when embeddings are unavailable right now."""

    def embed_query(
        self, text: str, timeout_s: float | None = None
    ) -> tuple[npt.NDArray[np.float32], str] | None: ...


class VectorSearcher(Protocol):
    """Nearest rows of one agent and kind by cosine similarity, in the vector space of `model`."""

    def search(
        self, agent_id: str, kind: str, model: str, vector: npt.NDArray[np.float32], k: int
    ) -> list[tuple[int, float]]: ...


@runtime_checkable
class RowVectorSearcher(VectorSearcher, Protocol):
    """A VectorSearcher that can also return the active rows among the first `rows` nearest, read by the same
    statement (PostgreSQL's registry: one round trip less per kind than searching, then loading the rows)."""

    def search_with_rows(
        self, agent_id: str, kind: str, model: str, vector: npt.NDArray[np.float32], k: int, rows: int
    ) -> tuple[list[tuple[int, float]], dict[int, MemoryRow]]: ...


#: The nearest rows a RowVectorSearcher returns with its ranking: those the evidence reads (_evidence).
VECTOR_ROWS = COSINE_BACKGROUND + COSINE_TOP


#: One kind's vector side: its nearest (id, cosine), None when vectors are off, and the rows read with them.
_Nearest = tuple[list[tuple[int, float]] | None, dict[int, MemoryRow]]
#: What the evidence pass measured of one kind: the nearest vectors it used and the evidence.
_Measured = tuple[list[tuple[int, float]] | None, SectionEvidence]


def _merge(rows: dict[int, MemoryRow], more: dict[int, MemoryRow]) -> None:
    """Add the rows of `more` not in `rows` yet (a row loaded first stays)."""
    for row_id, row in more.items():
        rows.setdefault(row_id, row)


@dataclass(frozen=True)
class SearchSettings:
    """Fixed retrieval settings (chosen on the LoCoMo dev split, never on the reported conversations)."""

    fts_candidates: int = 100
    vector_candidates: int = 100
    #: Re-score FTS candidates with the agent's own IDF (True) or keep FTS5's table-wide bm25() (False).
    per_agent_stats: bool = True
    use_vectors: bool = True
    mmr_lambda: float = DEFAULT_LAMBDA
    #: How many fused results MMR chooses from, as a multiple of the limit.
    mmr_pool_factor: int = 3
    bm25_weight: float = 1.0
    vector_weight: float = 1.0
    #: Terms in more than max(fraction x rows, floor) of the agent's rows are left out of the FTS5 query (they still
    #: count when candidates are re-scored).
    common_term_fraction: float = 0.02
    common_term_floor: int = 50
    #: Transcript only (retrieval/context_prior.py): RRF weight of the conversation order (0 = off), how many of a
    #: conversation's best rows make its strength, the pool it is computed over, and the neighbour bonus.
    conversation_weight: float = 1.0
    conversation_top: int = 1
    conversation_pool: int = 200
    neighbour_weight: float = 0.1
    #: Transcript and episodes: RRF weight of the date prior (0 = off) when the query names a calendar date
    #: (retrieval/dates.py), and how many rows of each date window it considers.
    date_weight: float = 1.0
    date_rows: int = 200
    #: Transcript only: RRF weight of the time-reference prior for "when" questions (retrieval/when.py; 0 = off).
    time_reference_weight: float = 0.25
    #: Transcript only: fused score × characters^exponent, informative turns over chatter
    #: (retrieval/length_prior.py; 0 = off).
    length_exponent: float = 0.08
    #: Transcript only (retrieval/turn_neighbours.py): the turns within `context_radius` places of the best
    #: `context_hits` hits follow the first `context_after` hits (0 hits = off). Only a limit above
    #: `context_after` shows them.
    context_hits: int = 1
    context_radius: int = 2
    context_after: int = 10
    #: How long the relevance gate's evidence pass (evidence_many()) keeps each section's keyword candidates and
    #: nearest vectors for the section search that follows in the same request (which then queries neither FTS5
    #: nor faiss again). Any write to the store ends the reuse at once.
    reuse_s: float = 5.0
    #: The evidence pass (evidence_many) once probed sections above a size with their rarest terms and let the
    #: section search run the full keyword side afterwards, optionally on threads of their own or speculatively
    #: (`evidence_probe_rows`, `parallel_evidence`, `speculate_full_keywords`). Removed in issue 17's latency work:
    #: at 100k transcript rows the probe cost 3.3 ms p50 against 4.1 ms for the full pass, and the full pass is kept
    #: for the chosen section's search, which then skips FTS5 (search 5.4 → 4.0 ms p50, 12.4 → 6.4 ms p95); the
    #: extra threads slowed the query embedding on the 2-core machine. Every section now gets one full pass.
    #: A kind with at least this many rows has its evidence-pass keyword side on a helper thread, beside the other
    #: kinds' (0 = all on the evidence thread, one after the other). Only the largest kinds qualify: their time is
    #: mostly FTS5 ranking thousands of matches inside SQLite, which releases the GIL, so it overlaps the smaller
    #: kinds' Python re-scoring instead of following it; below the threshold a side takes ~1 ms and a thread hop
    #: would not pay. Same evidence either way (issue 17, second pass: bench_assemble's store, in-process, the two
    #: ways alternated query by query in one process, four runs of 150-250 calls each at load 13-18: p50 −5, −19, −24
    #: and −20%, p95 −18, +6, +14 and −11%; the last run 65.7 → 52.8 ms p50, 220.5 → 195.9 ms p95).
    keyword_thread_rows: int = 20_000
    #: A prefetched evidence pass (prefetch_evidence) starts its keyword sides only once the vector side's thread is
    #: about to send the query embedding's request, or after this many seconds (0 = at once). Started together, the
    #: keyword sides' Python could hold the GIL while the request waited to leave (the `send` stage of
    #: bench/probe_fastctx8_stages: 0.5 ms p50, 6.2 ms p95 at load 6), and inferd's forward started that much later;
    #: the keyword sides end ~2-3 ms before the embedding at p50, so starting them after the send costs nothing
    #: there. Same evidence either way (fastctx10). PostgreSQL: 0 (default_settings).
    keywords_after_send_s: float = 0.005


#: On PostgreSQL every kind's evidence-pass keyword side goes to a helper thread (keyword_thread_rows 1): each side's
#: statements are a server process's work on their own pooled connection, so the kinds overlap on the cores.
POSTGRES_KEYWORD_THREAD_ROWS = 1


def default_settings(store: Store) -> SearchSettings:
    """The service's settings for `store`'s backend (only where and when the kinds' keyword sides run differs).

    On PostgreSQL the keyword sides start at once (keywords_after_send_s 0): their statements run in server
    processes and end after the query embedding (fastctx8), so holding them back would lengthen the call; the wait
    was measured on SQLite only (fastctx10)."""
    if store.db.dialect.is_postgres:
        return SearchSettings(keyword_thread_rows=POSTGRES_KEYWORD_THREAD_ROWS, keywords_after_send_s=0.0)
    return SearchSettings()


@dataclass(frozen=True)
class EvidencedOutcome:
    """A search's ranked rows plus the calibrated evidence the relevance gate reads (retrieval/evidence.py)."""

    outcome: SearchOutcome
    evidence: SectionEvidence


@dataclass
class _KeywordSide:
    """What the keyword side of one search learnt: its ranking and the evidence numbers."""

    ranking: list[int]
    rows: int = 0
    dfs: dict[str, int] | None = None
    bm25_top: float = 0.0
    bm25_norm: float = 0.0
    coverage_top: float = 0.0
    matched_top: float = 0.0
    candidates: int = 0


class MemorySearch:
    """Search one agent's memory; never returns another agent's row and never fails because vectors are down."""

    def __init__(
        self,
        store: Store,
        embedder: QueryEmbedder | None = None,
        vectors: VectorSearcher | None = None,
        settings: SearchSettings | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._vectors = vectors
        self.settings = settings or default_settings(store)
        # The vector side (embed the query, then faiss) runs beside the keyword side, not after it.
        self._pool = ThreadPoolExecutor(
            max_workers=4, thread_name_prefix="memoryd-search", initializer=use_one_thread
        )
        # prefetch_evidence's passes: they wait on the pools above, which never wait on this one.
        self._evidence_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="memoryd-evidence")
        # Only nearest-vector scans run here (never a task that waits on another), so it cannot deadlock.
        # Large kinds' keyword sides during the evidence pass (keyword_thread_rows); a task here never waits on
        # another task of this pool.
        self._keyword_pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memoryd-keywords")
        self._scan_pool = ThreadPoolExecutor(
            max_workers=3, thread_name_prefix="memoryd-scan", initializer=use_one_thread
        )
        # Large agents' keyword statistics are refreshed in the background on a thread of their own: after a write
        # up to one refresh per kind and table is queued, and on the request pools they could hold every worker
        # while a request's vector side waits (issue #21, pgread4).
        self._stats_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memoryd-stats")
        self.keyword_stats = KeywordStats(
            store.fts, lambda: store.reads.generation, background=self._stats_pool.submit
        )
        # The evidence pass's work, reused by the section search of the same request instead of querying FTS5 and
        # scanning faiss twice: (agent, kind, model@generation, query) → (monotonic time, nearest (id, cosine)),
        # and (agent, kind, generation, query) → (time, keyword side, the rows it loaded, and once the pass measured
        # the kind: (the nearest vectors it used, its evidence); the rows then include the nearest ones it read).
        self._recent_vectors: OrderedDict[
            tuple[str, str, str, str], tuple[float, list[tuple[int, float]], dict[int, MemoryRow]]
        ] = OrderedDict()
        self._recent_keywords: OrderedDict[
            tuple[str, str, str, str], tuple[float, _KeywordSide, dict[int, MemoryRow], _Measured | None]
        ] = OrderedDict()
        self._prefetched: OrderedDict[
            tuple[str, tuple[str, ...], str], Future[dict[str, SectionEvidence]]
        ] = OrderedDict()
        self._recent_lock = threading.Lock()
        # forget_recent calls: for every agent (None) and per agent.
        self._invalidations = 0
        self._agent_invalidations: dict[str, int] = {}

    def close(self) -> None:
        """Stop the helper threads (the evidence passes first: they wait on the others)."""
        self._evidence_pool.shutdown(wait=True, cancel_futures=True)
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._scan_pool.shutdown(wait=True, cancel_futures=True)
        self._keyword_pool.shutdown(wait=True, cancel_futures=True)
        self._stats_pool.shutdown(wait=True, cancel_futures=True)

    def forget_recent(self, agent_id: str | None = None) -> None:
        """Drop the kept evidence-pass work of one agent (None: every agent's). Keys hold this process's write
        generation, which another replica's write does not move: replication calls this for every change it hears
        of, so a row forgotten through another replica is not served from here for up to reuse_s."""
        with self._recent_lock:
            # Work started before this call and kept after it carries the old stamp: never reused.
            if agent_id is None:
                self._invalidations += 1
            else:
                self._agent_invalidations[agent_id] = self._agent_invalidations.get(agent_id, 0) + 1
            for vector_key in [k for k in self._recent_vectors if agent_id is None or k[0] == agent_id]:
                del self._recent_vectors[vector_key]
            for keyword_key in [k for k in self._recent_keywords if agent_id is None or k[0] == agent_id]:
                del self._recent_keywords[keyword_key]

    def search(
        self, agent_id: str, kind: str, query: str, limit: int, *, vector_timeout_s: float | None = None
    ) -> SearchOutcome:
        """Best `limit` rows of `kind` for `query`, best first; the query vector may take vector_timeout_s at most."""
        return self.search_with_evidence(
            agent_id, kind, query, limit, vector_timeout_s=vector_timeout_s
        ).outcome

    def prefetch_evidence(
        self, agent_id: str, kinds: Sequence[str], query: str, *, vector_timeout_s: float | None = None
    ) -> None:
        """Start evidence_many's work now, on a helper thread: the evidence_many call with the same agent, kinds
        and query that follows (the read path's, once it has read the agent's identity and entities) waits for it
        instead of starting it then. Unclaimed results are dropped after a while (64 kept)."""
        key = (agent_id, tuple(kinds), query)
        # The query embedding is sent from here, before the evidence thread even starts: it is the longest part; the
        # keyword sides wait for the request to be on its way (keywords_after_send_s).
        sending = threading.Event() if self.settings.keywords_after_send_s > 0 else None
        vector_side = self._start_vector_side(agent_id, kinds, query, vector_timeout_s, sending=sending)
        future = self._evidence_pool.submit(
            self._measure_evidence,
            agent_id,
            kinds,
            query,
            vector_timeout_s=vector_timeout_s,
            vector_side=vector_side,
            sending=sending,
        )
        with self._recent_lock:
            self._prefetched[key] = future
            self._prefetched.move_to_end(key)
            while len(self._prefetched) > 64:
                self._prefetched.popitem(last=False)

    def evidence_many(
        self, agent_id: str, kinds: Sequence[str], query: str, *, vector_timeout_s: float | None = None
    ) -> dict[str, SectionEvidence]:
        """The relevance gate's evidence for each kind: per-agent BM25 of the keyword candidates and the nearest
        vectors, without fusion, priors or MMR (the result of prefetch_evidence when one was started for it)."""
        with self._recent_lock:
            prefetched = self._prefetched.pop((agent_id, tuple(kinds), query), None)
        if prefetched is not None:
            return prefetched.result()
        return self._measure_evidence(agent_id, kinds, query, vector_timeout_s=vector_timeout_s)

    def _start_vector_side(
        self,
        agent_id: str,
        kinds: Sequence[str],
        query: str,
        vector_timeout_s: float | None,
        *,
        sending: threading.Event | None = None,
    ) -> Future[dict[str, _Nearest]]:
        """The query embedding and every kind's nearest vectors, started on a helper thread (None per kind when
        vectors are off). `sending` is set when that thread is about to embed the query (at once without vectors)."""
        if not self.settings.use_vectors or self._embedder is None or self._vectors is None:
            if sending is not None:
                sending.set()
            off: Future[dict[str, _Nearest]] = Future()
            off.set_result({kind: (None, {}) for kind in kinds})
            return off
        return self._pool.submit(self._vector_rankings, agent_id, kinds, query, vector_timeout_s, sending)

    def _measure_evidence(
        self,
        agent_id: str,
        kinds: Sequence[str],
        query: str,
        *,
        vector_timeout_s: float | None = None,
        vector_side: Future[dict[str, _Nearest]] | None = None,
        sending: threading.Event | None = None,
    ) -> dict[str, SectionEvidence]:
        """evidence_many's work. The query is embedded once and every kind's nearest vectors are searched on helper
        threads (vector_side: already started by prefetch_evidence); meanwhile each kind's full keyword side runs
        here, one after the other, and is kept (reuse_s) for the section search that follows, which then queries
        neither FTS5 nor faiss again. With `sending` (a prefetched pass), the keyword sides start once it is set (the
        query embedding's request about to leave) or after keywords_after_send_s."""
        if sending is not None:
            sending.wait(self.settings.keywords_after_send_s)
        terms = query_terms(query)
        generation = self._reuse_stamp(agent_id)
        if vector_side is None:
            vector_side = self._start_vector_side(agent_id, kinds, query, vector_timeout_s)
        rows: dict[str, dict[int, MemoryRow]] = {kind: {} for kind in kinds}
        # The large kinds' sides start first, on helper threads (keyword_thread_rows); each side fills only its own
        # kind's rows.
        threaded = {
            kind: self._keyword_pool.submit(self._evidence_side, agent_id, kind, query, terms, rows[kind])
            for kind in self._threaded_kinds(agent_id, kinds, terms)
        }
        sides = {
            kind: self._evidence_side(agent_id, kind, query, terms, rows[kind])
            for kind in kinds
            if kind not in threaded
        }
        sides.update((kind, future.result()) for kind, future in threaded.items())
        nearest = vector_side.result()
        vectors = {kind: scored for kind, (scored, _) in nearest.items()}
        for kind, (_, read) in nearest.items():  # the rows the vector statements returned need no second read
            _merge(rows[kind], read)
        # Each kind's evidence loads its nearest rows (one statement); with threaded kinds those loads overlap too.
        loaded = {
            kind: self._keyword_pool.submit(
                self._evidence, agent_id, kind, terms, sides[kind], vectors.get(kind), rows[kind]
            )
            for kind in threaded
        }
        out: dict[str, SectionEvidence] = {}
        for kind in kinds:
            scored = vectors.get(kind)
            evidence = (
                loaded[kind].result()
                if kind in loaded
                else self._evidence(agent_id, kind, terms, sides[kind], scored, rows[kind])
            )
            self._remember_evidence((agent_id, kind, generation, query), rows[kind], scored, evidence)
            out[kind] = evidence if scored is not None else replace(evidence, note="fts_only")
        return out

    def _threaded_kinds(self, agent_id: str, kinds: Sequence[str], terms: Sequence[str]) -> list[str]:
        """The kinds whose evidence-pass keyword side runs on a helper thread: those with at least
        keyword_thread_rows rows (by the cached corpus size), never every kind (one runs on the calling thread)."""
        threshold = self.settings.keyword_thread_rows
        if threshold <= 0 or not terms or len(kinds) < 2:
            return []
        large = [kind for kind in kinds if self.keyword_stats.corpus(kind, agent_id).rows >= threshold]
        return large if len(large) < len(kinds) else large[1:]

    def _evidence_side(
        self, agent_id: str, kind: str, query: str, terms: Sequence[str], rows: dict[int, MemoryRow]
    ) -> _KeywordSide:
        """One kind's full keyword side for the evidence pass, kept for the section search that may follow."""
        if not terms:
            return _KeywordSide([], rows=self.keyword_stats.corpus(kind, agent_id).rows)
        generation = self._reuse_stamp(agent_id)
        side = self._keyword_side(agent_id, kind, terms, rows)
        self._remember_keywords((agent_id, kind, generation, query), side, rows)
        return side

    def _evidence(
        self,
        agent_id: str,
        kind: str,
        terms: Sequence[str],
        side: _KeywordSide,
        vector_scored: Sequence[tuple[int, float]] | None,
        rows: dict[int, MemoryRow],
    ) -> SectionEvidence:
        # Vectors of rows no longer active (superseded, disabled, deleted) may linger in faiss: they never count.
        nearest = list(vector_scored or [])[:VECTOR_ROWS]
        self._load(kind, agent_id, [row_id for row_id, _ in nearest], rows)
        cosine_top, cosine_mean3, cosine_gap = vector_evidence([(i, c) for i, c in nearest if i in rows])
        near = [i for i, _ in nearest if i in rows][:TOP_ROWS]
        texts = {i: rows[i].indexed_text for i in (*side.ranking[:TOP_ROWS], *near) if i in rows}
        top_terms, top_kinds = top_rows(terms, side.ranking, near, texts)
        return SectionEvidence(
            rows=side.rows,
            terms=tuple(terms),
            term_df=dict(side.dfs or {}),
            bm25_top=side.bm25_top,
            bm25_norm=side.bm25_norm,
            coverage_top=side.coverage_top,
            matched_top=side.matched_top,
            cosine_top=cosine_top,
            cosine_mean3=cosine_mean3,
            cosine_gap=cosine_gap,
            candidates=side.candidates,
            top_terms=top_terms,
            top_kinds=top_kinds,
        )

    def search_with_evidence(
        self, agent_id: str, kind: str, query: str, limit: int, *, vector_timeout_s: float | None = None
    ) -> EvidencedOutcome:
        """As search(), plus the section's evidence for the gate, taken from the same keyword and vector passes."""
        s = self.settings
        terms = query_terms(query)
        rankings: list[list[int]] = []
        weights: list[float] = []
        method = "fts"
        # Rows loaded so far in this search: each row is read from SQLite once, whichever step needs it first.
        rows: dict[int, MemoryRow] = {}
        side = _KeywordSide([])
        measured: _Measured | None = None
        reused = (
            self._recent_keywords_for((agent_id, kind, self._reuse_stamp(agent_id), query)) if terms else None
        )
        if reused is not None:
            # The evidence pass of this request ran both sides: its nearest rows are reused too (the query vector is
            # in the embedder's cache), so they are read here rather than through a thread hand-off.
            side, loaded, measured = reused
            rows.update(loaded)
            use_one_thread()  # should a write have ended the vectors' reuse, faiss scans here as on the pools
            vector_scored, vector_rows = self._nearest(agent_id, kind, query, vector_timeout_s)
        else:
            vector_side = self._pool.submit(self._nearest, agent_id, kind, query, vector_timeout_s)
            if terms:
                side = self._keyword_side(agent_id, kind, terms, rows)
            vector_scored, vector_rows = vector_side.result()
        _merge(rows, vector_rows)
        if side.ranking:
            rankings.append(side.ranking)
            weights.append(s.bm25_weight)
        if vector_scored is not None:
            method = "hybrid"
            if vector_scored:
                rankings.append([row_id for row_id, _ in vector_scored])
                weights.append(s.vector_weight)
        if not terms and not rankings:
            like = self._store.fts.like(kind, agent_id, query, max(limit, s.fts_candidates))
            rankings.append([row_id for row_id, _ in like])
            weights.append(1.0)
            method = "like"
        fused = hybrid.rrf(rankings, weights=weights)
        if kind == KIND_TRANSCRIPT and fused and s.time_reference_weight > 0 and asks_when(query):
            fused = self._with_time_reference_prior(agent_id, kind, fused, limit, rows)
        windows = date_windows(query) if s.date_weight > 0 and kind in DATED_KINDS else []
        if windows:
            fused = self._with_date_prior(agent_id, kind, terms, windows, fused, rows)
        if kind == KIND_TRANSCRIPT and fused:
            fused = self._with_transcript_priors(agent_id, kind, fused, limit, rows)
        pool_ids = hybrid.ranked(fused)[: max(limit * s.mmr_pool_factor, limit)]
        self._load(kind, agent_id, pool_ids, rows)
        pool = [Candidate(i, fused[i], rows[i].text) for i in pool_ids if i in rows]
        chosen = (
            mmr(pool, limit, s.mmr_lambda) if s.mmr_lambda < 1.0 else [(c.id, c.score) for c in pool[:limit]]
        )
        hits = tuple(ScoredRow(rows[i], score) for i, score in chosen)
        if kind == KIND_TRANSCRIPT:
            hits = self._with_context_window(agent_id, kind, hits, limit, rows)
        if measured is not None and measured[0] == vector_scored:
            evidence = measured[1]  # what the evidence pass measured from the same sides (issue 17, item 4)
        else:
            evidence = self._evidence(agent_id, kind, terms, side, vector_scored, rows)
        return EvidencedOutcome(SearchOutcome(hits=hits, method=method), evidence)

    def _load(self, kind: str, agent_id: str, ids: Sequence[int], rows: dict[int, MemoryRow]) -> None:
        """Add the rows of `ids` not loaded yet to `rows` (ids of deleted rows stay absent)."""
        missing = [i for i in ids if i not in rows]
        if missing:
            rows.update(self._store.rows.fetch(kind, agent_id, missing))

    def _with_date_prior(
        self,
        agent_id: str,
        kind: str,
        terms: Sequence[str],
        windows: Sequence[Window],
        fused: dict[int, float],
        rows: dict[int, MemoryRow],
    ) -> dict[int, float]:
        """RRF of the fused order with the rows of the query's date windows (by fused score, then per-agent BM25).

        The dated rows need not be candidates yet: "what did Maria plan on 7 July, 2023?" is answered by a turn of
        that day that may share no word with the question.
        """
        s = self.settings
        dated: list[int] = []
        for window in windows:
            dated += self._store.reads.rows_in_window(
                kind, agent_id, window.start_ms, window.end_ms, s.date_rows
            )
        dated = list(dict.fromkeys(dated))
        if not dated:
            return fused
        self._load(kind, agent_id, dated, rows)
        keyword: dict[int, float] = {}
        if terms:
            stats = self.keyword_stats
            corpus = stats.corpus(kind, agent_id)
            docs = {i: rows[i].indexed_text for i in dated if i in rows}
            keyword = hybrid.bm25_scores(
                terms, docs, corpus, lambda term: stats.doc_frequency(kind, agent_id, term, corpus.rows)
            )
        by_date = sorted(
            (i for i in dated if i in rows), key=lambda i: (-fused.get(i, 0.0), -keyword.get(i, 0.0))
        )
        return hybrid.rrf([hybrid.ranked(fused), by_date], weights=[1.0, s.date_weight])

    def _transcript_pool(
        self, agent_id: str, kind: str, fused: dict[int, float], limit: int, rows: dict[int, MemoryRow]
    ) -> list[int]:
        """The best `conversation_pool` fused rows (at least the MMR pool), loaded; deleted rows left out."""
        s = self.settings
        pool_ids = hybrid.ranked(fused)[: max(s.conversation_pool, limit * s.mmr_pool_factor)]
        self._load(kind, agent_id, pool_ids, rows)
        return [i for i in pool_ids if i in rows]

    def _with_time_reference_prior(
        self, agent_id: str, kind: str, fused: dict[int, float], limit: int, rows: dict[int, MemoryRow]
    ) -> dict[int, float]:
        """For a "when" question: RRF of the fused order with its rows that mention a time (retrieval/when.py)."""
        pool = self._transcript_pool(agent_id, kind, fused, limit, rows)
        dated = [i for i in pool if has_time_reference(rows[i].text)]
        if not dated:
            return fused
        return hybrid.rrf([hybrid.ranked(fused), dated], weights=[1.0, self.settings.time_reference_weight])

    def _with_transcript_priors(
        self, agent_id: str, kind: str, fused: dict[int, float], limit: int, rows: dict[int, MemoryRow]
    ) -> dict[int, float]:
        """Transcript only, over the best `conversation_pool` rows: neighbour smoothing, the conversation prior,
        then the informative-row prior."""
        s = self.settings
        if s.conversation_weight <= 0 and s.neighbour_weight <= 0 and s.length_exponent == 0:
            return fused
        pool = self._transcript_pool(agent_id, kind, fused, limit, rows)
        where = {i: Position(rows[i].conversation_id, rows[i].chunk_index) for i in pool}
        smoothed = smooth_neighbours({i: fused[i] for i in where}, where, s.neighbour_weight)
        prior = conversation_prior(smoothed, where, s.conversation_weight, s.conversation_top)
        return informative_prior(prior, {i: len(rows[i].text) for i in where}, s.length_exponent)

    def _with_context_window(
        self,
        agent_id: str,
        kind: str,
        hits: tuple[ScoredRow, ...],
        limit: int,
        rows: dict[int, MemoryRow],
    ) -> tuple[ScoredRow, ...]:
        """The turns around the best `context_hits` hits, moved in after the first `context_after` hits
        (retrieval/turn_neighbours.py)."""
        s = self.settings
        if (
            s.context_hits <= 0
            or s.context_radius <= 0
            or limit <= s.context_after
            or len(hits) < s.context_after
        ):
            return hits
        around: list[int] = []
        for hit in hits[: s.context_hits]:
            around += self._store.rows.neighbours(
                agent_id, hit.row.conversation_id, hit.row.chunk_index, s.context_radius
            )
        self._load(kind, agent_id, around, rows)
        return with_context(hits, (rows[i] for i in around if i in rows), s.context_after, limit)

    def _keyword_side(
        self,
        agent_id: str,
        kind: str,
        terms: Sequence[str],
        rows: dict[int, MemoryRow],
    ) -> _KeywordSide:
        """Per-agent BM25 ranking of the FTS5 candidates, with the evidence numbers taken on the way."""
        stats = self.keyword_stats
        corpus = stats.corpus(kind, agent_id)
        if corpus.rows == 0:
            return _KeywordSide([])
        dfs = stats.doc_frequencies(kind, agent_id, terms, corpus.rows)
        side = _KeywordSide([], rows=corpus.rows, dfs=dfs)
        match_terms = hybrid.candidate_terms(
            terms, dfs, corpus.rows, self.settings.common_term_fraction, self.settings.common_term_floor
        )
        if not match_terms:
            return side
        # Restrict inside FTS5 when the agent is a small part of the table; else filter in the join.
        agent_in_match = corpus.rows * 2 < stats.table_rows(kind)
        common = hybrid.common_limit(
            corpus.rows, self.settings.common_term_fraction, self.settings.common_term_floor
        )
        if all(dfs[term] > common for term in match_terms):
            # Every term common: the same ranking, kept between requests (read/common_matches.py).
            candidates = stats.common_matches.search(
                kind,
                agent_id,
                match_terms,
                self.settings.fts_candidates,
                corpus.rows,
                agent_in_match=agent_in_match,
            )
        else:
            candidates = self._store.fts.search(
                kind, agent_id, match_terms, self.settings.fts_candidates, agent_in_match=agent_in_match
            )
        side.candidates = len(candidates)
        if not candidates:
            return side
        self._load(kind, agent_id, [row_id for row_id, _ in candidates], rows)
        docs = {row_id: rows[row_id].indexed_text for row_id, _ in candidates if row_id in rows}
        scores = hybrid.bm25_scores(terms, docs, corpus, lambda term: dfs[term])
        side.bm25_top, side.bm25_norm, side.coverage_top, side.matched_top = keyword_evidence(
            terms, dfs, corpus.rows, scores, docs
        )
        if not self.settings.per_agent_stats:
            side.ranking = [row_id for row_id, _ in candidates]
        else:
            side.ranking = hybrid.ranked(scores)
        return side

    def _nearest(self, agent_id: str, kind: str, query: str, timeout_s: float | None = None) -> _Nearest:
        """_vector_ranking, with the rows the vector search returned with it (none from faiss)."""
        read: dict[int, MemoryRow] = {}
        return self._vector_ranking(agent_id, kind, query, timeout_s, rows_out=read), read

    def _vector_ranking(
        self,
        agent_id: str,
        kind: str,
        query: str,
        timeout_s: float | None = None,
        *,
        rows_out: dict[int, MemoryRow] | None = None,
    ) -> list[tuple[int, float]] | None:
        """(row id, cosine) nearest first, or None when vectors are off or unavailable (search then uses FTS alone).
        A RowVectorSearcher's rows among them are added to `rows_out`."""
        if not self.settings.use_vectors or self._embedder is None or self._vectors is None:
            return None
        try:
            embedded = self._embedder.embed_query(query, timeout_s)
            if embedded is None:
                return None
            vector, model = embedded
            # Any write (new rows, new vectors, deletes) changes the generation and so misses the reuse.
            key = (agent_id, kind, f"{model}@{self._reuse_stamp(agent_id)}", query)
            recent = self._recent(key)
            if recent is not None:
                if rows_out is not None:
                    rows_out.update(recent[1])
                return recent[0]
            k = self.settings.vector_candidates
            read: dict[int, MemoryRow] = {}
            if isinstance(self._vectors, RowVectorSearcher):
                hits, read = self._vectors.search_with_rows(agent_id, kind, model, vector, k, VECTOR_ROWS)
            else:
                hits = self._vectors.search(agent_id, kind, model, vector, k)
            self._remember(key, list(hits), read)
            if rows_out is not None:
                rows_out.update(read)
        except Exception as error:
            _log.warning("vector search failed (%s); using full-text search only", type(error).__name__)
            return None
        return list(hits)

    def _vector_rankings(
        self,
        agent_id: str,
        kinds: Sequence[str],
        query: str,
        timeout_s: float | None = None,
        sending: threading.Event | None = None,
    ) -> dict[str, _Nearest]:
        """_nearest for several kinds with one query embedding; a kind maps to (None, {}) without vectors.
        `sending` is set right before the query is embedded."""
        off: dict[str, _Nearest] = {kind: (None, {}) for kind in kinds}
        if sending is not None:
            sending.set()
        if not self.settings.use_vectors or self._embedder is None or self._vectors is None:
            return off
        try:
            embedded = self._embedder.embed_query(query, timeout_s)
        except Exception as error:
            _log.warning("query embedding failed (%s); using full-text search only", type(error).__name__)
            embedded = None
        if embedded is None:
            return off
        # Embedded above: each search below reads the Embedder's cache. Each kind has its own faiss index
        # (vectors/agent_index.py) and faiss releases the GIL, so the kinds are scanned side by side: the last one
        # on this thread, which would otherwise only wait.
        futures = {
            kind: self._scan_pool.submit(self._nearest, agent_id, kind, query, timeout_s)
            for kind in kinds[:-1]
        }
        here = {kind: self._nearest(agent_id, kind, query, timeout_s) for kind in kinds[-1:]}
        found = {kind: future.result() for kind, future in futures.items()}
        return {kind: found[kind] if kind in found else here[kind] for kind in kinds}

    def _reuse_stamp(self, agent_id: str) -> str:
        """What an agent's kept work must have been computed under to be reused: this process's write generation
        (local writes) and the count of forget_recent calls for every agent and for this one (other replicas'
        writes)."""
        with self._recent_lock:
            heard = f"{self._invalidations}.{self._agent_invalidations.get(agent_id, 0)}"
        return f"{self._store.reads.generation}.{heard}"

    def _recent(
        self, key: tuple[str, str, str, str]
    ) -> tuple[list[tuple[int, float]], dict[int, MemoryRow]] | None:
        with self._recent_lock:
            held = self._recent_vectors.get(key)
            if held is None or time.monotonic() - held[0] > self.settings.reuse_s:
                return None
            return held[1], held[2]

    def _recent_keywords_for(
        self, key: tuple[str, str, str, str]
    ) -> tuple[_KeywordSide, dict[int, MemoryRow], _Measured | None] | None:
        with self._recent_lock:
            held = self._recent_keywords.get(key)
            if held is None or time.monotonic() - held[0] > self.settings.reuse_s:
                return None
            return held[1], held[2], held[3]

    def _remember_keywords(
        self, key: tuple[str, str, str, str], side: _KeywordSide, rows: dict[int, MemoryRow]
    ) -> None:
        with self._recent_lock:
            self._recent_keywords[key] = (time.monotonic(), side, dict(rows), None)
            self._recent_keywords.move_to_end(key)
            while len(self._recent_keywords) > 64:
                self._recent_keywords.popitem(last=False)

    def _remember_evidence(
        self,
        key: tuple[str, str, str, str],
        rows: dict[int, MemoryRow],
        vector_scored: list[tuple[int, float]] | None,
        evidence: SectionEvidence,
    ) -> None:
        """Add the evidence pass's measurement of a kind to its kept keyword side: the section search that follows
        reuses the evidence (when its nearest vectors are the same) and the nearest rows it read, instead of reading
        them again (3-4 ms of a placed section on bench_assemble's store, issue 17 item 4)."""
        with self._recent_lock:
            held = self._recent_keywords.get(key)
            if held is not None:
                self._recent_keywords[key] = (held[0], held[1], dict(rows), (vector_scored, evidence))

    def _remember(
        self, key: tuple[str, str, str, str], hits: list[tuple[int, float]], rows: dict[int, MemoryRow]
    ) -> None:
        with self._recent_lock:
            self._recent_vectors[key] = (time.monotonic(), hits, rows)
            self._recent_vectors.move_to_end(key)
            while len(self._recent_vectors) > 256:
                self._recent_vectors.popitem(last=False)
