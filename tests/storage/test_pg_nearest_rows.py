"""PostgreSQL's vector search returns the nearest rows from its own statement (issue #21, pgread3): the ranking is
the one of the plain search (same ids, same order, exact scan and HNSW), the rows are those RowStore.fetch reads
(active rows of the agent only), and MemorySearch's evidence and section results are identical to the two-statement
path's while it loads fewer rows by id."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT, KINDS, MemoryRow
from memoryd.read.search import EvidencedOutcome, MemorySearch, RowVectorSearcher
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.storage.pg_vectors import EXACT_ROWS, pg_vector_store
from memoryd.storage.rows import RowStore
from memoryd.storage.store import Store
from memoryd.vectors.codec import to_blob
from memoryd.vectors.pg_registry import PgVectorRegistry
from tests.support.pg_stores import pg_store

DIM = 8
MODEL = "m"
TOPICS = ("garden", "piano", "sailing", "python", "bread", "chess", "hiking", "violin")
#: Rows per kind for agent "a": the transcript is above EXACT_ROWS, so its searches walk the HNSW graph.
SIZES = {KIND_TRANSCRIPT: EXACT_ROWS + 300, KIND_PINNED: 300, KIND_EPISODE: 200}


def _units(seed: int, n: int) -> npt.NDArray[np.float32]:
    vectors = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    units: npt.NDArray[np.float32] = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return units


def _text(i: int) -> str:
    return f"note {i} about {TOPICS[i % len(TOPICS)]} and {TOPICS[(i * 3) % len(TOPICS)]}"


def _insert(store: Store, kind: str, agent: str, n: int) -> list[int]:
    """n rows of `kind` for `agent` (every fifth fact or episode superseded); their ids in order."""
    db = store.db
    with db.write():
        if kind == KIND_TRANSCRIPT:
            db.executemany(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
                "VALUES (?, ?, ?, 'user', ?, ?)",
                [(agent, f"c{i // 20}", i % 20, _text(i), 1_000 + i) for i in range(n)],
            )
        elif kind == KIND_EPISODE:
            db.executemany(
                "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, "
                "conversation_at_ms, created_at_ms, status) VALUES (?, ?, ?, ?, 'Ana', ?, 1, ?)",
                [
                    (
                        agent,
                        f"c{i}",
                        _text(i),
                        TOPICS[i % 8],
                        1_000 + i,
                        "superseded" if i % 5 == 4 else "active",
                    )
                    for i in range(n)
                ],
            )
        else:
            db.executemany(
                "INSERT INTO pinned_facts (agent_id, content, tags_csv, created_at_ms, updated_at_ms, status) "
                "VALUES (?, ?, ?, ?, 1, ?)",
                [
                    (agent, _text(i), TOPICS[i % 8], 1_000 + i, "superseded" if i % 5 == 4 else "active")
                    for i in range(n)
                ],
            )
    table = {KIND_TRANSCRIPT: "transcript", KIND_EPISODE: "episodes", KIND_PINNED: "pinned_facts"}[kind]
    return [int(r[0]) for r in db.query(f"SELECT id FROM {table} WHERE agent_id = ? ORDER BY id", (agent,))]


def _seed(store: Store) -> tuple[PgVectorRegistry, dict[str, npt.NDArray[np.float32]]]:
    """Agents "a" and "b" with the same vectors for every kind (b's rows must never come back for a)."""
    vectors = pg_vector_store(store)
    assert vectors is not None
    registry = PgVectorRegistry(vectors, store.embeddings)
    seeded: dict[str, npt.NDArray[np.float32]] = {}
    for seed, kind in enumerate(KINDS):
        units = _units(seed, SIZES[kind])
        seeded[kind] = units
        for agent in ("a", "b"):
            ids = _insert(store, kind, agent, SIZES[kind])
            store.embeddings.put(
                kind, agent, MODEL, DIM, [(i, to_blob(v)) for i, v in zip(ids, units, strict=True)]
            )
            registry.add(agent, kind, MODEL, ids, units)
    return registry, seeded


def test_the_rows_come_with_the_same_ranking_and_are_the_rows_fetch_reads() -> None:
    store = pg_store()
    try:
        registry, seeded = _seed(store)
        rows = RowStore(store.db)
        queries = _units(99, 12)
        for kind in KINDS:
            for query in (*queries, *seeded[kind][:4]):
                for k, joined in ((13, 13), (100, 13), (100, 100), (20, 0)):
                    ranking = registry.search("a", kind, MODEL, query, k)
                    with_rows, read = registry.search_with_rows("a", kind, MODEL, query, k, joined)
                    assert with_rows == ranking and len(ranking) == k
                    assert read == rows.fetch(kind, "a", [i for i, _ in ranking[:joined]])
                    assert all(row.agent_id == "a" for row in read.values())
            if kind != KIND_TRANSCRIPT:  # superseded rows are ranked but never returned as rows
                ranking, read = registry.search_with_rows("a", kind, MODEL, queries[0], 100, 100)
                assert len(read) < len(ranking)
        assert registry.search_with_rows("nobody", KIND_PINNED, MODEL, queries[0], 10, 10) == ([], {})
    finally:
        store.close()


class _StoredQueries:
    """Query text → a stored unit vector (the embedder stands in for inferd: no model is under test here)."""

    def __init__(self, vectors: dict[str, npt.NDArray[np.float32]]) -> None:
        self._vectors = vectors

    def embed_query(
        self, text: str, timeout_s: float | None = None
    ) -> tuple[npt.NDArray[np.float32], str] | None:
        del timeout_s
        return self._vectors[text], MODEL


class _RankingOnly:
    """The registry seen through VectorSearcher's search alone: the path before pgread3 (rows read separately)."""

    def __init__(self, registry: PgVectorRegistry) -> None:
        self._registry = registry

    def search(
        self, agent_id: str, kind: str, model: str, vector: npt.NDArray[np.float32], k: int
    ) -> list[tuple[int, float]]:
        return self._registry.search(agent_id, kind, model, vector, k)


class _CountingRows(RowStore):
    """RowStore counting the ids it is asked to read."""

    def __init__(self, store: Store) -> None:
        super().__init__(store.db)
        self.ids = 0

    def fetch(self, kind: str, agent_id: str, ids: Sequence[int]) -> dict[int, MemoryRow]:
        self.ids += len(ids)
        return super().fetch(kind, agent_id, ids)


def _run(
    store: Store, embedder: _StoredQueries, vectors: PgVectorRegistry | _RankingOnly, text: str
) -> tuple[dict[str, SectionEvidence], tuple[EvidencedOutcome, ...]]:
    """A fresh MemorySearch's evidence pass for the three kinds, then each kind's section search (no reuse across
    runs: each arm starts cold)."""
    search = MemorySearch(store, embedder, vectors)
    try:
        evidence = search.evidence_many("a", list(KINDS), text)
        results = tuple(search.search_with_evidence("a", kind, text, 10) for kind in KINDS)
        return evidence, results
    finally:
        search.close()


def test_memory_search_gives_the_same_evidence_and_results_and_reads_fewer_rows_by_id() -> None:
    store = pg_store()
    try:
        registry, _ = _seed(store)
        ranking_only = _RankingOnly(registry)
        assert isinstance(registry, RowVectorSearcher) and not isinstance(ranking_only, RowVectorSearcher)
        texts = [f"{TOPICS[i % 8]} {TOPICS[(i + 3) % 8]} plans" for i in range(8)]
        embedder = _StoredQueries(dict(zip(texts, _units(7, len(texts)), strict=True)))
        counting = _CountingRows(store)
        store.rows = counting
        read = {"rows": 0, "ranking": 0}
        for text in texts:
            counting.ids = 0
            with_rows = _run(store, embedder, registry, text)
            read["rows"] += counting.ids
            counting.ids = 0
            before = _run(store, embedder, ranking_only, text)
            read["ranking"] += counting.ids
            assert with_rows == before
            assert all(result.outcome.method == "hybrid" and result.outcome.hits for result in with_rows[1])
        assert read["rows"] < read["ranking"]
    finally:
        store.close()
