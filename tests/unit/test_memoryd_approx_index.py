"""The approximate index of a large kind (memoryd/vectors/approx.py through AgentIndex): exact below the threshold,
close to exact above it, in step with every add, replace and remove, built in the background by a large search, and
never saved (the file on disk stays the exhaustive index)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from memoryd.domain import KIND_PINNED, KIND_TRANSCRIPT
from memoryd.vectors.agent_index import AgentIndex
from memoryd.vectors.approx import ApproxIndex

DIM = 32
#: The test's threshold (the real one is 20k); the corpus has N rows in clusters, like sentence embeddings.
THRESHOLD = 2000
N = 3000


def _corpus(seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((40, DIM)).astype(np.float32)
    vectors = centres[rng.integers(0, 40, N)] + 0.6 * rng.standard_normal((N, DIM)).astype(np.float32)
    unit: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return unit


def _query(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).standard_normal((1, DIM)).astype(np.float32)
    return vector / np.linalg.norm(vector)


def _filled(threshold: int | None = THRESHOLD) -> tuple[AgentIndex, np.ndarray]:
    vectors = _corpus()
    index = AgentIndex("A", "m", DIM, approx_min_vectors=threshold)
    index.add(KIND_TRANSCRIPT, list(range(1, N + 1)), vectors)
    index.add(KIND_PINNED, [1, 2], vectors[:2])
    return index, vectors


def test_a_small_kind_is_searched_exhaustively() -> None:
    index, _ = _filled()
    exact, _ = _filled(threshold=None)
    assert not index.build_approximate(KIND_PINNED)  # 2 vectors: below the threshold
    assert not index.is_approximate(KIND_PINNED)
    for seed in range(5):
        assert index.search(KIND_PINNED, _query(seed), 2) == exact.search(KIND_PINNED, _query(seed), 2)


def test_a_large_kind_answers_close_to_the_exhaustive_scan() -> None:
    index, vectors = _filled()
    exact, _ = _filled(threshold=None)
    assert index.build_approximate(KIND_TRANSCRIPT)
    assert index.is_approximate(KIND_TRANSCRIPT) and not exact.is_approximate(KIND_TRANSCRIPT)
    overlap = []
    for seed in range(50):
        approx = index.search(KIND_TRANSCRIPT, _query(seed), 10)
        truth = exact.search(KIND_TRANSCRIPT, _query(seed), 10)
        overlap.append(len({r for r, _ in approx} & {r for r, _ in truth}) / 10)
        # Same fp16 codes: a row it returns has the exact index's cosine.
        scores = dict(truth)
        assert all(abs(score - scores[row]) < 1e-6 for row, score in approx if row in scores)
    assert np.mean(overlap) >= 0.9
    # A stored vector finds its own row first.
    assert index.search(KIND_TRANSCRIPT, vectors[41:42], 1)[0][0] == 42


def test_adds_replacements_and_removals_reach_the_approximate_index() -> None:
    index, vectors = _filled()
    assert index.build_approximate(KIND_TRANSCRIPT)
    target = _query(99)
    index.add(KIND_TRANSCRIPT, [N + 1], target)
    assert index.search(KIND_TRANSCRIPT, target, 1)[0][0] == N + 1
    index.add(KIND_TRANSCRIPT, [N + 1], -target)  # replaced: the old vector is gone
    assert N + 1 not in {row for row, _ in index.search(KIND_TRANSCRIPT, target, 20)}
    assert index.remove(KIND_TRANSCRIPT, [42]) == 1
    assert 42 not in {row for row, _ in index.search(KIND_TRANSCRIPT, vectors[41:42], 20)}
    assert index.memory_bytes() > N * (2 * DIM + 8) * 2  # the exhaustive and the approximate codes


def test_a_large_search_builds_it_in_the_background_and_it_is_never_saved(tmp_path: Path) -> None:
    index, vectors = _filled()
    assert not index.is_approximate(KIND_TRANSCRIPT)
    first = index.search(KIND_TRANSCRIPT, vectors[0:1], 5)  # exhaustive, and starts the build
    assert first[0][0] == 1
    index.remove(KIND_TRANSCRIPT, [7])  # during or after the build: either way it must not come back
    deadline = time.monotonic() + 60
    while not index.is_approximate(KIND_TRANSCRIPT) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert index.is_approximate(KIND_TRANSCRIPT)
    assert 7 not in {row for row, _ in index.search(KIND_TRANSCRIPT, vectors[6:7], 20)}
    index.save(tmp_path)
    loaded = AgentIndex.load(tmp_path)
    assert loaded is not None and loaded.count == index.count and not loaded.is_approximate(KIND_TRANSCRIPT)


def test_a_failed_build_leaves_the_exact_search_and_can_be_tried_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    index, vectors = _filled()
    exact, _ = _filled(threshold=None)

    def broken(*args: object, **kwargs: object) -> ApproxIndex:
        raise RuntimeError("training failed")

    with monkeypatch.context() as patch:
        patch.setattr(ApproxIndex, "build", broken)
        with pytest.raises(RuntimeError):
            index.build_approximate(KIND_TRANSCRIPT)
    assert not index.is_approximate(KIND_TRANSCRIPT)
    # Exact meanwhile, and the next large search starts the build again (in the background).
    assert index.search(KIND_TRANSCRIPT, vectors[3:4], 5) == exact.search(KIND_TRANSCRIPT, vectors[3:4], 5)
    deadline = time.monotonic() + 60
    while not index.is_approximate(KIND_TRANSCRIPT) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert index.is_approximate(KIND_TRANSCRIPT)
