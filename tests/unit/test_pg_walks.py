"""How storage/pg_vectors.py runs an HNSW walk. Without pgvector's iterative scan, walking again with `strict_order`
only when a walk returns fewer than k rows: the rows are those of a `strict_order` walk, whether or not the first
walk fell short (dead tuples of deleted vectors among its candidates). And with k in the statement's text, so the
prepared statement keeps one generic plan instead of planning every run."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from memoryd.domain import KIND_TRANSCRIPT
from memoryd.storage.pg_sql import PgSql
from memoryd.storage.pg_vectors import EXACT_ROWS, AgentVectors, PgVectorStore, vector_text
from tests.support.pg_search import new_search_schema, pg, postgres  # noqa: F401  (fixtures)

DIM = 8
K = 100


def _units(seed: int, n: int) -> npt.NDArray[np.float32]:
    vectors = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    out: npt.NDArray[np.float32] = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return out


def _walk(
    db: PgSql, store: PgVectorStore, agent: AgentVectors, query: npt.NDArray[np.float32], scan: str
) -> list[int]:
    """The HNSW walk's row ids with hnsw.iterative_scan = `scan`, run directly."""
    db.setting("hnsw.iterative_scan", scan)
    db.setting("hnsw.ef_search", str(K))
    sql = store.nearest_sql(agent, KIND_TRANSCRIPT)
    return [int(r[0]) for r in db.query(sql, {"v": vector_text(query), "agent": agent.agent_id, "k": K})]


def _store(db: PgSql) -> tuple[PgVectorStore, AgentVectors]:
    schema = new_search_schema(db)
    store = PgVectorStore(db, schema)
    agent = store.switch_model("a", "m", DIM)
    vectors = _units(1, EXACT_ROWS + 500)  # above EXACT_ROWS: walked through the HNSW index
    store.put(agent, KIND_TRANSCRIPT, list(range(1, len(vectors) + 1)), vectors)
    # Dead tuples stay in the index until a vacuum: keep autovacuum from removing them under the test.
    db.execute(f"ALTER TABLE {schema}.{agent.partition} SET (autovacuum_enabled = false)")
    db.execute(f"ANALYZE {schema}.{agent.partition}")
    return store, agent


def test_a_walk_returns_the_rows_of_a_strict_order_walk(pg: PgSql) -> None:  # noqa: F811
    store, agent = _store(pg)
    for query in _units(2, 20):
        found = store.nearest(agent, KIND_TRANSCRIPT, query, K)
        assert found is not None and len(found) == K
        assert [row for row, _ in found] == _walk(pg, store, agent, query, "strict_order")


def test_a_walk_short_of_k_rows_is_resumed(pg: PgSql) -> None:  # noqa: F811
    store, agent = _store(pg)
    query = _units(3, 1)[0]
    nearest = _walk(pg, store, agent, query, "strict_order")
    store.delete(agent, KIND_TRANSCRIPT, nearest[:60])  # dead tuples among the walk's candidates
    short = _walk(pg, store, agent, query, "off")
    assert len(short) < K  # without resuming, the walk falls short
    pg.setting("hnsw.iterative_scan", "off")
    found = store.nearest(agent, KIND_TRANSCRIPT, query, K)
    assert found is not None and len(found) == K
    assert [row for row, _ in found] == _walk(pg, store, agent, query, "strict_order")
    assert not set(nearest[:60]) & {row for row, _ in found}
    # the kind fell short: its next walks resume from the start, without a first walk that falls short again
    pg.setting("hnsw.iterative_scan", "off")
    again = store.nearest(agent, KIND_TRANSCRIPT, _units(4, 1)[0], K)
    assert again is not None and len(again) == K
    assert pg.scalar("SELECT current_setting('hnsw.iterative_scan')") == "strict_order"


def test_a_kind_whose_walks_are_full_walks_without_iterative_scans(pg: PgSql) -> None:  # noqa: F811
    store, agent = _store(pg)
    pg.setting("hnsw.iterative_scan", "strict_order")
    found = store.nearest(agent, KIND_TRANSCRIPT, _units(5, 1)[0], K)
    assert found is not None and len(found) == K
    assert pg.scalar("SELECT current_setting('hnsw.iterative_scan')") == "off"


def test_a_prepared_walk_is_planned_once(pg: PgSql) -> None:  # noqa: F811
    store, agent = _store(pg)
    for query in _units(4, 12):  # psycopg prepares after 5 runs; PostgreSQL tries 5 custom plans first
        found = store.nearest(agent, KIND_TRANSCRIPT, query, K)
        assert found is not None and len(found) == K
    plans = pg.query(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
        (f"%{agent.partition}%LIMIT {K}%",),
    )
    assert len(plans) == 1
    generic, custom = plans[0]
    assert custom <= 5 and generic >= 2
