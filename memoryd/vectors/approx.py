"""The approximate nearest-vector index of one large kind of one agent: IVF over the same fp16 codes.

Why: the exhaustive fp16 scan of 100k transcript vectors took 4.0 / 8.8-11.2 ms p50 / p95 on the shared 2-core
machine, on the read path's critical path right after the query embedding. An inverted file visits `nprobe` of its
lists (a few percent of the vectors) instead. Its codes are fp16 like the exact index's (`by_residual` off: each
vector is stored as itself, not as its offset from a centroid), so the cosines it returns are the exact index's
cosines of the rows it visits; only rows in lists it does not visit can be missed. Recall against the exhaustive scan
on real all-MiniLM-L6-v2 vectors is in docs/benchmarks.md (bench/bench_approx_recall.py).

It never replaces the exact index (vectors/agent_index.py keeps that as the truth: saved, sealed and rebuilt as
before); it is built from it in the background once a kind holds APPROX_MIN_VECTORS and kept in step with it.
"""

from __future__ import annotations

import math
from typing import Any

import faiss
import numpy as np

from memoryd.vectors.codec import Vector

#: Kinds with fewer vectors are always searched exhaustively (exact results, and a scan that costs < 1 ms).
APPROX_MIN_VECTORS = 20_000
#: Inverted lists per vector count: nlist = LISTS_PER_SQRT x sqrt(n) at training time.
LISTS_PER_SQRT = 2.0
#: Share of the lists visited per search (at least MIN_NPROBE): 24 of 316 lists gave recall@10 0.981 / recall@100
#: 0.966 against the exhaustive scan on 25k real MiniLM vectors (bench/bench_approx_recall.py, docs/benchmarks.md).
#: A share, not a count: lists grow with sqrt(n), so a fixed count would visit ever fewer vectors as a kind grows.
PROBE_SHARE = 0.075
MIN_NPROBE = 8
#: Training sample per list (faiss warns below 39; more costs training time and gains little).
TRAIN_PER_LIST = 48
#: The index is trained again once the kind has grown this many times the size it was trained at.
RETRAIN_GROWTH = 2.0


def list_count(vectors: int) -> int:
    """Inverted lists for an index trained on `vectors` vectors (at least 1)."""
    return max(1, int(LISTS_PER_SQRT * math.sqrt(max(vectors, 1))))


def probe_count(lists: int) -> int:
    """Lists a search visits in an index of `lists` lists."""
    return min(lists, max(MIN_NPROBE, math.ceil(PROBE_SHARE * lists)))


class ApproxIndex:
    """IVF (inner product, fp16 codes, no residuals) over one kind's vectors, keyed by vector id. Not thread-safe:
    AgentIndex calls it under the kind's lock."""

    def __init__(self, index: Any, trained_on: int, nprobe: int) -> None:
        self._index = index
        self.trained_on = trained_on
        self.nprobe = nprobe

    @classmethod
    def build(
        cls, ids: np.ndarray, vectors: Vector, *, nprobe: int | None = None, seed: int = 1234
    ) -> ApproxIndex:
        """Train on a sample of `vectors` (unit length, n x d float32) and add them all under `ids`."""
        n, dimension = vectors.shape
        nlist = list_count(n)
        quantizer = faiss.IndexFlatIP(dimension)
        index = faiss.IndexIVFScalarQuantizer(
            quantizer, dimension, nlist, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT, False
        )
        sample_size = min(n, nlist * TRAIN_PER_LIST)
        sample = vectors
        if sample_size < n:
            chosen = np.random.default_rng(seed).choice(n, size=sample_size, replace=False)
            sample = vectors[np.sort(chosen)]
        index.cp.seed = seed
        index.train(np.ascontiguousarray(sample, dtype=np.float32))
        index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), np.ascontiguousarray(ids))
        return cls(index, n, probe_count(nlist) if nprobe is None else nprobe)

    @property
    def count(self) -> int:
        """Vectors held."""
        return int(self._index.ntotal)

    def add(self, ids: np.ndarray, vectors: Vector) -> None:
        """Add vectors (the caller removed any it replaces)."""
        self._index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), np.ascontiguousarray(ids))

    def remove(self, ids: np.ndarray) -> None:
        """Remove these vector ids (absent ones are ignored)."""
        if len(ids):
            self._index.remove_ids(faiss.IDSelectorBatch(np.ascontiguousarray(ids, dtype=np.int64)))

    def search(self, query: Vector, k: int) -> tuple[np.ndarray, np.ndarray]:
        """faiss's (scores, ids) for the k nearest of one query (1 x d, unit length); ids -1 pad a short answer."""
        params = faiss.SearchParametersIVF()
        params.nprobe = self.nprobe
        scores, ids = self._index.search(query, k, params=params)
        return scores, ids

    def memory_bytes(self) -> int:
        """Codes (2 bytes per dimension) and ids (8 bytes) of every vector, plus the centroids."""
        index = self._index
        return int(index.ntotal) * (int(index.code_size) + 8) + int(index.nlist) * int(index.d) * 4

    def needs_retraining(self, count: int) -> bool:
        """True once the kind has outgrown the size the lists were trained for."""
        return count >= RETRAIN_GROWTH * self.trained_on


__all__ = ["APPROX_MIN_VECTORS", "PROBE_SHARE", "ApproxIndex", "list_count", "probe_count"]
