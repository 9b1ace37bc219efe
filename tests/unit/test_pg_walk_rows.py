"""storage/pg_vectors.py's WALK_ROWS: a capped kind's HNSW walk returns at most its cap, whatever k is asked for,
with the cap's nearest rows first as the full walk has them; a kind scanned exactly, or not named, is not capped."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from memoryd.domain import KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage.pg_sql import PgSql
from memoryd.storage.pg_vectors import EXACT_ROWS, PgVectorStore
from memoryd.storage.store import open_store
from memoryd.vectors.pg_registry import PgVectorRegistry
from tests.support.pg_search import new_search_schema, pg, postgres  # noqa: F401  (fixtures)

DIM = 8


def _units(seed: int, n: int) -> npt.NDArray[np.float32]:
    vectors = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    out: npt.NDArray[np.float32] = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return out


def test_a_capped_walk_returns_the_cap_and_an_exact_scan_returns_k(pg: PgSql, tmp_path: Path) -> None:  # noqa: F811
    store = open_store(tmp_path / "memory.sqlite")
    schema = new_search_schema(pg)
    caps = {KIND_TRANSCRIPT: 40, KIND_PINNED: 40}
    capped = PgVectorRegistry(PgVectorStore(pg, schema, walk_rows=caps), store.embeddings)
    full = PgVectorRegistry(PgVectorStore(pg, schema, walk_rows={}), store.embeddings)
    large, small = _units(1, EXACT_ROWS + 500), _units(2, 300)
    capped.add("a", KIND_TRANSCRIPT, "m", list(range(1, len(large) + 1)), large)
    capped.add("a", KIND_PINNED, "m", list(range(1, len(small) + 1)), small)
    pg.execute("ANALYZE")
    for query in _units(3, 5):
        walked = capped.search("a", KIND_TRANSCRIPT, "m", query, 100)
        uncapped = full.search("a", KIND_TRANSCRIPT, "m", query, 100)
        assert len(walked) == 40 and len(uncapped) == 100
        assert [row for row, _ in walked[:10]] == [row for row, _ in uncapped[:10]]
        # the pinned kind is under EXACT_ROWS: scanned exactly, so its cap does not apply
        assert len(capped.search("a", KIND_PINNED, "m", query, 100)) == 100
        assert len(capped.search("a", KIND_TRANSCRIPT, "m", query, 20)) == 20  # a k under the cap is kept
    store.close()
