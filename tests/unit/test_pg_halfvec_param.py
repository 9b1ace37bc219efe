"""The query vector bound in halfvec's binary form (storage/pg_halfvec.py): the server holds the same half-precision
values the text form gave it, so the walks and exact scans return the same rows and distances; a vector halfvec
cannot hold still goes as text and is refused by the server as before."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg
import pytest

from memoryd.domain import KIND_EPISODE, KIND_TRANSCRIPT
from memoryd.storage.pg_halfvec import HalfvecParam, halfvec_param
from memoryd.storage.pg_sql import PgSql
from memoryd.storage.pg_vectors import EXACT_ROWS, PgVectorStore, query_param, vector_text
from tests.support.pg_search import new_search_schema, pg, postgres  # noqa: F401  (fixtures)

DIM = 384


def _units(seed: int, n: int, dim: int = DIM) -> npt.NDArray[np.float32]:
    vectors = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    out: npt.NDArray[np.float32] = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return out


def _awkward(seed: int) -> list[npt.NDArray[np.float32]]:
    """Vectors whose components sit where rounding is delicate: tiny (half's subnormals), negative zeros, values
    near halfway between two halves, large ones."""
    rng = np.random.default_rng(seed)
    tiny = (rng.standard_normal(DIM) * 1e-5).astype(np.float32)
    zeros = np.where(rng.random(DIM) < 0.5, np.float32(-0.0), np.float32(1e-7)).astype(np.float32)
    halves = rng.integers(1, 2000, DIM).astype(np.float32) / np.float32(4096) + np.float32(1 / 8192)
    large = (rng.standard_normal(DIM) * 3000).astype(np.float32)
    return [tiny, zeros, halves, large]


def test_the_server_holds_the_same_halfvec_from_the_binary_form_as_from_the_text(pg: PgSql) -> None:  # noqa: F811
    for vector in [*_units(1, 200), *_awkward(2)]:
        param = halfvec_param(vector)
        text_bytes, binary_bytes = pg.query(
            "SELECT halfvec_send(%(t)s::halfvec(384)), halfvec_send(%(b)b::halfvec(384))",
            {"t": vector_text(vector), "b": param},
        )[0]
        assert bytes(text_bytes) == bytes(binary_bytes) == param.data


def test_searches_return_the_same_rows_and_distances_with_either_form(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    binary, text = PgVectorStore(pg, schema), PgVectorStore(pg, schema, binary_query=False)
    agent = binary.switch_model("a", "m", DIM)
    transcript = _units(3, EXACT_ROWS + 300)  # walked through HNSW
    episodes = _units(4, 300)  # scanned exactly
    binary.put(agent, KIND_TRANSCRIPT, list(range(1, len(transcript) + 1)), transcript)
    binary.put(agent, KIND_EPISODE, list(range(1, len(episodes) + 1)), episodes)
    binary.analyze("a")
    for query in [*_units(5, 12), transcript[7] + np.float32(1e-4)]:
        for kind in (KIND_TRANSCRIPT, KIND_EPISODE):
            assert binary.nearest(agent, kind, query, 50) == text.nearest(agent, kind, query, 50)


def test_the_search_binds_the_binary_form() -> None:
    vector = _units(6, 1)[0]
    param = query_param(vector)
    assert isinstance(param, HalfvecParam)
    assert len(param.data) == 4 + 2 * DIM
    assert query_param(vector, binary=False) == vector_text(vector)


def test_a_vector_halfvec_cannot_hold_goes_as_text_and_is_refused_as_before(pg: PgSql) -> None:  # noqa: F811
    overflow = _units(7, 1)[0] * np.float32(1e6)  # above half's largest finite value
    with_nan = _units(8, 1)[0]
    with_nan[3] = np.nan
    for vector in (overflow, with_nan):
        assert isinstance(query_param(vector), str)
    schema = new_search_schema(pg)
    store = PgVectorStore(pg, schema)
    agent = store.switch_model("a", "m", DIM)
    store.put(agent, KIND_EPISODE, [1, 2], _units(9, 2))
    assert store.nearest(agent, KIND_EPISODE, with_nan, 2) is None
    assert store.nearest(agent, KIND_EPISODE, _units(10, 1)[0], 2) is not None


def test_stored_vectors_are_the_same_from_either_form(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    binary, text = PgVectorStore(pg, schema), PgVectorStore(pg, schema, binary_query=False)
    vectors = np.vstack([_units(11, 50), *_awkward(12)])
    ids = list(range(1, len(vectors) + 1))
    one, other = binary.switch_model("a", "m", DIM), binary.switch_model("b", "m", DIM)
    binary.put(one, KIND_EPISODE, ids, vectors)
    text.put(other, KIND_EPISODE, ids, vectors)
    stored = {
        agent: [
            bytes(r[0])
            for r in pg.query(
                f"SELECT halfvec_send(embedding) FROM {schema}.vectors WHERE agent_id = %s ORDER BY row_id",
                (agent,),
            )
        ]
        for agent in ("a", "b")
    }
    assert len(stored["a"]) == len(vectors)
    assert stored["a"] == stored["b"]
    assert stored["a"][0] == halfvec_param(vectors[0]).data


def test_a_batch_with_a_vector_halfvec_cannot_hold_is_refused_as_before(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    store = PgVectorStore(pg, schema)
    agent = store.switch_model("a", "m", DIM)
    vectors = _units(13, 3)
    vectors[1, 5] = np.nan
    with pytest.raises(psycopg.errors.DataException):
        store.put(agent, KIND_EPISODE, [1, 2, 3], vectors)
    assert store.count("a") == 0


def test_any_connection_opened_after_the_import_binds_the_binary_form(postgres: Any) -> None:  # noqa: F811
    vector = _units(14, 1)[0]
    with psycopg.connect(postgres.dsn, autocommit=True) as conn:  # opened outside memoryd's storage layer
        row = conn.execute("SELECT halfvec_send(%b::halfvec(384))", (halfvec_param(vector),)).fetchone()
    assert row is not None and bytes(row[0]) == halfvec_param(vector).data
