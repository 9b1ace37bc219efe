"""VectorRegistry (faiss files) and PgVectorRegistry (pgvector partitions) keep one contract, tested on both, over a
real embeddings table: nearest rows, replacement, removal by kind, agents kept apart, refills from the table on a
model change, agent deletion; then what only PostgreSQL has (one partition per agent in the plan, HNSW on a large
partition, a second replica sees the vectors at once)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage.embeddings import EmbeddingStore
from memoryd.storage.pg_sql import PgSql
from memoryd.storage.pg_vectors import PgVectorStore
from memoryd.storage.store import Store, open_store
from memoryd.vectors.codec import to_blob
from memoryd.vectors.pg_registry import PgVectorRegistry
from memoryd.vectors.registry import VectorRegistry
from tests.support.pg_search import new_search_schema, pg, postgres  # noqa: F401  (fixtures)
from tests.support.postgres import PostgresInstance

DIM = 8


def _units(seed: int, n: int, dim: int = DIM) -> npt.NDArray[np.float32]:
    vectors = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@dataclass
class Setup:
    registry: VectorRegistry | PgVectorRegistry
    store: Store

    def add(self, agent: str, kind: str, model: str, vectors: npt.NDArray[np.float32]) -> list[int]:
        """Rows of `kind` for `agent` with these vectors, stored in the embeddings table and added to the registry."""
        ids = [self._row(agent, kind) for _ in range(len(vectors))]
        blobs = [(i, to_blob(v)) for i, v in zip(ids, vectors, strict=True)]
        self.store.embeddings.put(kind, agent, model, int(vectors.shape[1]), blobs)
        self.registry.add(agent, kind, model, ids, vectors)
        return ids

    def _row(self, agent: str, kind: str) -> int:
        db = self.store.db
        with db.write():
            if kind == KIND_TRANSCRIPT:
                sql = (
                    "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
                    "VALUES (?, 'c', 0, 'user', 'x', 1)"
                )
            elif kind == KIND_EPISODE:
                sql = (
                    "INSERT INTO episodes (agent_id, conversation_id, summary, conversation_at_ms, created_at_ms) "
                    "VALUES (?, 'c', 'x', 1, 1)"
                )
            else:
                sql = "INSERT INTO pinned_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES (?, 'x', 1, 1)"
            return int(db.execute(sql, (agent,)).lastrowid or 0)


@pytest.fixture(params=["faiss", "pgvector"])
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Setup]:
    store = open_store(tmp_path / "memory.sqlite")
    if request.param == "faiss":
        registry: VectorRegistry | PgVectorRegistry = VectorRegistry(tmp_path / "vectors", store.embeddings)
    else:
        db: PgSql = request.getfixturevalue("pg")
        registry = PgVectorRegistry(PgVectorStore(db, new_search_schema(db)), store.embeddings)
    yield Setup(registry, store)
    registry.close()
    store.close()


def test_the_nearest_rows_come_back_nearest_first_and_a_row_added_again_is_replaced(setup: Setup) -> None:
    vectors = _units(1, 40)
    ids = setup.add("a", KIND_TRANSCRIPT, "m", vectors)
    hits = setup.registry.search("a", KIND_TRANSCRIPT, "m", vectors[5], 5)
    exact = np.argsort(-(vectors @ vectors[5]))[:5]
    assert [row for row, _ in hits] == [ids[i] for i in exact]
    assert hits[0][1] == pytest.approx(1.0, abs=2e-3)
    setup.registry.add("a", KIND_TRANSCRIPT, "m", [ids[0]], vectors[5:6])
    assert {row for row, _ in setup.registry.search("a", KIND_TRANSCRIPT, "m", vectors[5], 2)} == {
        ids[0],
        ids[5],
    }


def test_remove_counts_only_vectors_that_were_present_and_keeps_kinds_apart(setup: Setup) -> None:
    [row] = setup.add("a", KIND_TRANSCRIPT, "m", _units(2, 1))
    [fact] = setup.add("a", KIND_PINNED, "m", _units(3, 1))
    assert setup.registry.remove("a", KIND_TRANSCRIPT, [row, row + 100]) == 1
    assert setup.registry.remove("a", KIND_TRANSCRIPT, [row]) == 0
    assert setup.registry.search("a", KIND_TRANSCRIPT, "m", _units(2, 1)[0], 5) == []
    assert [r for r, _ in setup.registry.search("a", KIND_PINNED, "m", _units(2, 1)[0], 5)] == [fact]


def test_another_agents_rows_never_come_back_even_with_identical_vectors(setup: Setup) -> None:
    vectors = _units(4, 30)
    mine = setup.add("a", KIND_TRANSCRIPT, "m", vectors)
    theirs = setup.add("b", KIND_TRANSCRIPT, "m", vectors)
    for query in vectors[:5]:
        assert {row for row, _ in setup.registry.search("a", KIND_TRANSCRIPT, "m", query, 100)} == set(mine)
        assert {row for row, _ in setup.registry.search("b", KIND_TRANSCRIPT, "m", query, 100)} == set(theirs)
    assert setup.registry.search("c", KIND_TRANSCRIPT, "m", vectors[0], 10) == []


def test_a_new_model_is_served_from_its_stored_vectors_and_reported(setup: Setup) -> None:
    setup.add("a", KIND_TRANSCRIPT, "small", _units(5, 10))
    # Another model, twice the dimension, already in the embeddings table (the indexer stores before it adds).
    wide = _units(6, 10, 2 * DIM)
    ids = [setup._row("a", KIND_TRANSCRIPT) for _ in range(10)]
    setup.store.embeddings.put(
        KIND_TRANSCRIPT, "a", "wide", 2 * DIM, [(i, to_blob(v)) for i, v in zip(ids, wide, strict=True)]
    )
    assert setup.registry.state("a", "wide").stale
    hits = setup.registry.search("a", KIND_TRANSCRIPT, "wide", wide[3], 3)
    assert hits[0][0] == ids[3]
    state = setup.registry.state("a", "wide")
    assert (state.model, state.dimension, state.vectors, state.rows, state.stale) == (
        "wide",
        2 * DIM,
        10,
        10,
        False,
    )


def test_deleting_an_agent_drops_its_vectors_only(setup: Setup) -> None:
    vectors = _units(7, 12)
    setup.add("a", KIND_TRANSCRIPT, "m", vectors)
    theirs = setup.add("b", KIND_TRANSCRIPT, "m", vectors)
    assert setup.registry.delete_agent("a") == 12
    setup.store.embeddings.delete_rows(KIND_TRANSCRIPT, list(range(1, 13)))
    assert setup.registry.search("a", KIND_TRANSCRIPT, "m", vectors[0], 5) == []
    assert setup.registry.search("b", KIND_TRANSCRIPT, "m", vectors[0], 1)[0][0] == theirs[0]


def test_the_plan_reads_only_the_agents_partition_and_uses_hnsw_when_large(pg: PgSql, tmp_path: Path) -> None:  # noqa: F811
    store = open_store(tmp_path / "memory.sqlite")
    schema = new_search_schema(pg)
    vectors = PgVectorStore(pg, schema)
    registry = PgVectorRegistry(vectors, store.embeddings)
    big = _units(8, 3000)
    registry.add("a", KIND_TRANSCRIPT, "m", list(range(1, 3001)), big)
    registry.add("b", KIND_TRANSCRIPT, "m", list(range(1, 3001)), big)
    a, b = vectors.agent("a"), vectors.agent("b")
    assert a is not None and b is not None and a.partition != b.partition
    pg.execute("ANALYZE")
    plan = "\n".join(
        str(row[0])
        for row in pg.query(
            "EXPLAIN (COSTS OFF) " + vectors.nearest_sql(a, KIND_TRANSCRIPT),
            {"v": str(big[0].tolist()), "agent": "a", "k": 10},
        )
    )
    assert a.partition in plan and b.partition not in plan
    assert f"{a.partition}_{KIND_TRANSCRIPT}" in plan  # the kind's HNSW index
    hits = registry.search("a", KIND_TRANSCRIPT, "m", big[42], 10)
    assert hits[0][0] == 43
    store.close()


def test_a_second_replica_sees_the_vectors_at_once(postgres: PostgresInstance, tmp_path: Path) -> None:  # noqa: F811
    store = open_store(tmp_path / "memory.sqlite")
    first, second = PgSql(postgres.dsn), PgSql(postgres.dsn)
    schema = new_search_schema(first)
    one = PgVectorRegistry(PgVectorStore(first, schema), store.embeddings)
    two = PgVectorRegistry(PgVectorStore(second, schema), EmbeddingStore(store.db))
    vectors = _units(9, 5)
    one.add("a", KIND_TRANSCRIPT, "m", [1, 2, 3, 4, 5], vectors)
    assert two.search("a", KIND_TRANSCRIPT, "m", vectors[2], 1)[0][0] == 3
    assert one.delete_agent("a") == 5
    assert two.search("a", KIND_TRANSCRIPT, "m", vectors[2], 1) == []  # its cached entry is found out of date
    assert PgVectorStore(first, schema).agent("a") is None  # and the search left no empty partition behind
    first.close()
    second.close()
    store.close()


def test_a_small_kind_is_scanned_exactly_even_for_a_deep_k(pg: PgSql, tmp_path: Path) -> None:  # noqa: F811
    store = open_store(tmp_path / "memory.sqlite")
    registry = PgVectorRegistry(PgVectorStore(pg, new_search_schema(pg)), store.embeddings)
    vectors = _units(10, 300)
    registry.add("a", KIND_PINNED, "m", list(range(1, 301)), vectors)
    query = _units(11, 1)[0]
    hits = registry.search("a", KIND_PINNED, "m", query, 100)
    exact = np.argsort(-(vectors @ query))[:100] + 1
    assert len(hits) == 100
    # halfvec rounding may swap near-ties at the edge of the 100
    assert {row for row, _ in hits[:90]} <= set(exact.tolist())
    assert [row for row, _ in hits[:10]] == exact[:10].tolist()
    store.close()


def test_a_refilled_partition_is_walked_from_the_first_search(pg: PgSql, tmp_path: Path) -> None:  # noqa: F811
    """A partition filled in bulk from the embeddings table gets planner statistics at once: without them every plan,
    generic or custom, scanned the kind exactly through the primary key and a Sort until autovacuum analyzed it."""
    store = open_store(tmp_path / "memory.sqlite")
    vectors = PgVectorStore(pg, new_search_schema(pg))
    registry = PgVectorRegistry(vectors, store.embeddings)
    big = _units(10, 3000)
    with store.db.write():
        for i in range(len(big)):
            store.db.execute(
                "INSERT INTO transcript (id, agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
                "VALUES (?, 'a', 'c', ?, 'user', 'x', 1)",
                (i + 1, i),
            )
    store.embeddings.put(KIND_TRANSCRIPT, "a", "m", DIM, [(i + 1, to_blob(v)) for i, v in enumerate(big)])
    assert registry.search("a", KIND_TRANSCRIPT, "m", big[7], 10)[0][0] == 8  # refilled by this search
    a = vectors.agent("a")
    assert a is not None
    sql = vectors.nearest_sql(a, KIND_TRANSCRIPT, k=100).replace("%(agent)s", "$1").replace("%(v)b", "$2")
    plan = "\n".join(str(row[0]) for row in pg.query("EXPLAIN (GENERIC_PLAN, COSTS OFF) " + sql))
    assert (
        f"{a.partition}_{KIND_TRANSCRIPT}" in plan and "Sort" not in plan
    )  # the kind's HNSW index, no exact scan
    store.close()


def test_a_partition_filled_by_adds_is_walked_from_the_first_search(pg: PgSql, tmp_path: Path) -> None:  # noqa: F811
    """Vectors added in bulk after the partition was made (the indexer's batches): the first search of a kind to
    be walked finds no statistics and gathers them, so it walks the graph instead of scanning the kind exactly."""
    store = open_store(tmp_path / "memory.sqlite")
    vectors = PgVectorStore(pg, new_search_schema(pg))
    registry = PgVectorRegistry(vectors, store.embeddings)
    big = _units(11, 3000)
    registry.add("a", KIND_TRANSCRIPT, "m", list(range(1, 3001)), big)
    a = vectors.agent("a")
    assert a is not None
    sql = vectors.nearest_sql(a, KIND_TRANSCRIPT, k=100).replace("%(agent)s", "$1").replace("%(v)b", "$2")
    plan = "\n".join(str(row[0]) for row in pg.query("EXPLAIN (GENERIC_PLAN, COSTS OFF) " + sql))
    assert "Sort" in plan  # no statistics yet: the kind scanned exactly
    assert registry.search("a", KIND_TRANSCRIPT, "m", big[7], 10)[0][0] == 8
    plan = "\n".join(str(row[0]) for row in pg.query("EXPLAIN (GENERIC_PLAN, COSTS OFF) " + sql))
    assert f"{a.partition}_{KIND_TRANSCRIPT}" in plan and "Sort" not in plan
    store.close()
