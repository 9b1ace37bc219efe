"""Adapts memoryd's store and hybrid search to the read path's MemoryReader protocol."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from memoryd.domain import EXTRACTIVE_NARRATIVE, KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.read.identity_similarity import IdentityVectors, TextEmbedder
from memoryd.read.pinned_usage import PinnedUsageFlusher
from memoryd.read.search import MemorySearch
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.items import IdentityFact, IdentitySnapshot, ItemKind, ItemRef, MemoryHit, Section
from memoryd.retrieval.planner import NotedHits
from memoryd.storage.store import Store

_KIND = {Section.PINNED: KIND_PINNED, Section.EPISODES: KIND_EPISODE, Section.TRANSCRIPT: KIND_TRANSCRIPT}
_ITEM_KIND = {
    KIND_PINNED: ItemKind.PINNED_FACT,
    KIND_EPISODE: ItemKind.EPISODE,
    KIND_TRANSCRIPT: ItemKind.TRANSCRIPT_TURN,
}


class QueryIssues(Protocol):
    """The part of memoryd.vectors.embedding.Embedder that says whether vectors are on and why a query got none."""

    @property
    def model(self) -> str | None: ...

    def query_issue(self, text: str) -> str | None: ...


@runtime_checkable
class _CanEmbed(TextEmbedder, QueryIssues, Protocol):
    """An embedder that also embeds texts and queries (memoryd.vectors.embedding.Embedder)."""


class StoreMemoryReader:
    """MemoryReader over the SQLite store: agent toggles, identity, known entities, hybrid search, usage bumps.

    Searches come back as NotedHits carrying the section's retrieval evidence (the gate's features). With
    `embedder`, a search that ran on full text alone although vectors are configured has a note saying why
    ("fts_only:embedding_timeout"), so the read path's decision can show it.
    """

    def __init__(
        self,
        store: Store,
        search: MemorySearch,
        now_ms: Callable[[], int],
        embedder: QueryIssues | None = None,
        *,
        deferred_usage: bool | None = None,
    ) -> None:
        """deferred_usage: pinned-usage bumps counted here and written by a background flusher (pinned_usage.py)
        instead of a write transaction on the request path; None = on SQLite (PostgreSQL's bump is one autocommitted
        UPDATE on the request path, taking no store-wide lock)."""
        self._store = store
        self._search = search
        self._now_ms = now_ms
        self._embedder = embedder
        # The real Embedder can also embed the identity facts (the gate's identity cosine).
        self._identity_vectors = IdentityVectors(embedder) if isinstance(embedder, _CanEmbed) else None
        if deferred_usage is None:
            deferred_usage = not store.db.dialect.is_postgres
        self._usage = PinnedUsageFlusher(store.reads.add_pinned_usage) if deferred_usage else None

    def is_memory_enabled(self, agent_id: str) -> bool:
        return bool(self._store.agents.is_memory_enabled(agent_id))

    def identity(self, agent_id: str) -> IdentitySnapshot:
        """The global overrides, this agent's narrative and facts, and the global narrative only as imported (a
        1.x profile or an Import; consolidation writes per-agent narratives only, so no agent's facts leak). An
        extractive narrative is left out: it is the agent's facts, which the section lists (with their refs)."""
        # On SQLite one statement instead of IdentityStore.get's transaction of three (issue 17 item 4, fastctx6).
        is_postgres = self._store.db.dialect.is_postgres
        record = (
            self._store.identity.get(agent_id) if is_postgres else self._store.reads.agent_identity(agent_id)
        )
        own = "" if record.model == EXTRACTIVE_NARRATIVE else record.content
        narrative = " ".join(part.strip() for part in (own, record.shared_content) if part.strip())
        return IdentitySnapshot(
            overrides=tuple(o.text for o in record.overrides),
            narrative=narrative,
            facts=tuple(IdentityFact(f.id, f.text, f.source_count) for f in record.facts),
        )

    def sections_evidence(
        self, agent_id: str, scopes: Sequence[Section], query: str, *, vector_timeout_s: float | None = None
    ) -> dict[Section, SectionEvidence]:
        """The relevance gate's evidence for the sections (MemorySearch.evidence_many: cheaper than searches)."""
        measured = self._search.evidence_many(
            agent_id, [_KIND[scope] for scope in scopes], query, vector_timeout_s=vector_timeout_s
        )
        out: dict[Section, SectionEvidence] = {}
        for scope in scopes:
            evidence = measured[_KIND[scope]]
            out[scope] = replace(evidence, note=self._note("fts" if evidence.note else "hybrid", query))
        return out

    def prefetch_evidence(
        self, agent_id: str, scopes: Sequence[Section], query: str, *, vector_timeout_s: float | None = None
    ) -> None:
        """Start measuring sections_evidence(agent_id, scopes, query) now (MemorySearch.prefetch_evidence)."""
        self._search.prefetch_evidence(
            agent_id, [_KIND[scope] for scope in scopes], query, vector_timeout_s=vector_timeout_s
        )

    def identity_similarity(
        self, agent_id: str, query: str, texts: Sequence[str], *, timeout_s: float | None = None
    ) -> float | None:
        """Highest cosine of the query to the identity texts; None while their vectors are being made."""
        if self._identity_vectors is None:
            return None
        return self._identity_vectors.similarity(agent_id, query, texts, timeout_s)

    def warm_identity(self, agent_id: str, texts: Sequence[str]) -> bool:
        """Embed the identity texts now (benchmarks); True when ready."""
        return self._identity_vectors is not None and self._identity_vectors.warm(agent_id, texts)

    def close(self) -> None:
        """Write the pending pinned-usage bumps, stop the flusher and the identity-vector thread."""
        if self._usage is not None:
            self._usage.close()
        if self._identity_vectors is not None:
            self._identity_vectors.close()

    def flush_usage(self) -> None:
        """Write the pending pinned-usage bumps now (tests, and before reading use counts that must be current)."""
        if self._usage is not None:
            self._usage.flush()

    def known_entities(self, agent_id: str) -> Sequence[str]:
        return self._store.reads.known_entities(agent_id, self._now_ms())

    def corrections(self, agent_id: str) -> Sequence[tuple[str, str]]:
        """(superseded text, replacing text) of this agent's corrected facts."""
        return self._store.reads.corrections(agent_id)

    def stale_turns(self, agent_id: str) -> Sequence[str]:
        """Transcript rows only this agent's superseded facts came from (retrieval/stale.py)."""
        return self._store.reads.stale_turns(agent_id)

    def search(
        self, agent_id: str, scope: Section, query: str, limit: int, *, vector_timeout_s: float | None = None
    ) -> Sequence[MemoryHit]:
        evidenced = self._search.search_with_evidence(
            agent_id, _KIND[scope], query, limit, vector_timeout_s=vector_timeout_s
        )
        outcome = evidenced.outcome
        decisions: dict[int, tuple[str, ...]] = {}
        if scope is Section.EPISODES and outcome.hits:
            decisions = self._store.reads.episode_decisions(agent_id, [h.row.id for h in outcome.hits])
        hits = [
            MemoryHit(
                ref=ItemRef(_ITEM_KIND[h.row.kind], str(h.row.id)),
                text=h.row.text,
                score=h.score,
                salience=h.row.salience,
                occurred_at_ms=h.row.occurred_at_ms,
                role=h.row.role,
                decisions=decisions.get(h.row.id, ()),
                conversation_id=h.row.conversation_id,
            )
            for h in outcome.hits
        ]
        return NotedHits(hits, self._note(outcome.method, query), evidenced.evidence)

    def _note(self, method: str, query: str) -> str:
        """Empty for a hybrid search or when vectors are off by configuration; else fts_only:<why>."""
        if method == "hybrid" or self._embedder is None or self._embedder.model is None:
            return ""
        return f"fts_only:{self._embedder.query_issue(query) or 'vectors_unavailable'}"

    def bump_pinned_usage(self, agent_id: str, fact_ids: Sequence[str], used_at_ms: int) -> None:
        """Deferred (SQLite): counted now, written within FLUSH_INTERVAL_S; otherwise written before returning."""
        ids = [int(i) for i in fact_ids]
        if self._usage is not None:
            self._usage.bump(agent_id, ids, used_at_ms)
        else:
            self._store.reads.bump_pinned_usage(agent_id, ids, used_at_ms)
