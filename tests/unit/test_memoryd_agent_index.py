"""AgentIndex: add replaces a row's vector, remove counts only what was there, a reloaded index knows its ids, and a
kind's own index answers as the exhaustive scan."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from memoryd.domain import KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage.store import open_store
from memoryd.vectors.agent_index import AgentIndex, new_faiss_index
from memoryd.vectors.registry import VectorRegistry, agent_dir_name
from memoryd.vectors.sealing import sealer_for

DIM = 8


def _unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).standard_normal((1, DIM)).astype(np.float32)
    return vector / np.linalg.norm(vector)


def test_adding_a_row_again_replaces_its_vector() -> None:
    index = AgentIndex("A", "m", DIM)
    index.add(KIND_TRANSCRIPT, [1, 2], np.vstack([_unit(1), _unit(2)]))
    index.add(KIND_TRANSCRIPT, [1], _unit(3))
    assert index.count == 2
    best_row, score = index.search(KIND_TRANSCRIPT, _unit(3), 1)[0]
    assert best_row == 1 and score > 0.99


def test_remove_counts_only_vectors_that_were_present_and_keeps_kinds_apart() -> None:
    index = AgentIndex("A", "m", DIM)
    index.add(KIND_TRANSCRIPT, [5], _unit(5))
    index.add(KIND_PINNED, [5], _unit(6))
    assert index.remove(KIND_TRANSCRIPT, [5, 6, 7]) == 1
    assert index.remove(KIND_TRANSCRIPT, [5]) == 0
    assert index.counts() == {KIND_PINNED: 1}
    index.add(KIND_TRANSCRIPT, [5], _unit(5))
    assert index.counts() == {KIND_PINNED: 1, KIND_TRANSCRIPT: 1}


def test_a_loaded_index_replaces_and_removes_rows_saved_before(tmp_path: Path) -> None:
    index = AgentIndex("A", "m", DIM)
    index.add(KIND_TRANSCRIPT, [1, 2, 3], np.vstack([_unit(1), _unit(2), _unit(3)]))
    index.save(tmp_path)
    loaded = AgentIndex.load(tmp_path)
    assert loaded is not None and loaded.count == 3
    loaded.add(KIND_TRANSCRIPT, [2], _unit(9))
    assert loaded.count == 3
    assert loaded.search(KIND_TRANSCRIPT, _unit(9), 1)[0][0] == 2
    assert loaded.remove(KIND_TRANSCRIPT, [1, 3]) == 2
    assert loaded.count == 1


def test_an_encrypted_store_renames_readable_index_folders_left_by_an_older_release(tmp_path: Path) -> None:
    sealer = sealer_for(bytes(range(32)))
    assert sealer is not None
    index = AgentIndex("alice-agent", "m", DIM)
    index.add(KIND_TRANSCRIPT, [1], _unit(1))
    legacy = tmp_path / agent_dir_name("alice-agent")
    index.save(legacy, sealer)  # sealed files in a folder that names the agent
    store = open_store(tmp_path / "memory.sqlite")
    try:
        registry = VectorRegistry(tmp_path / "vectors-root-unused", store.embeddings, sealer=sealer)
        registry.retarget(tmp_path, sealer)
        names = [p.name for p in tmp_path.iterdir() if p.is_dir()]
        assert names == [sealer.folder_name("alice-agent")]
        loaded = AgentIndex.load(registry.directory("alice-agent"), sealer)
        assert loaded is not None and loaded.count == 1
    finally:
        store.close()


def test_a_kind_returns_the_exact_nearest_rows_beside_other_kinds_before_and_after_a_reload(
    tmp_path: Path,
) -> None:
    # Added in batches, some removed, other kinds beside them, saved as one file and split again on load: the k best
    # must be those of one exhaustive scan of the kind's codes.
    rng = np.random.default_rng(7)
    n = 20_500
    vectors = rng.standard_normal((n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = AgentIndex("A", "m", DIM)
    for start in range(0, n, 4000):
        index.add(
            KIND_TRANSCRIPT, list(range(start + 1, min(n, start + 4000) + 1)), vectors[start : start + 4000]
        )
    index.add(KIND_PINNED, [1, 2], np.vstack([_unit(1), _unit(2)]))
    assert index.remove(KIND_TRANSCRIPT, [1, 4001, 8001]) == 3
    index.save(tmp_path)
    loaded = AgentIndex.load(tmp_path)
    assert loaded is not None and loaded.counts() == {KIND_TRANSCRIPT: n - 3, KIND_PINNED: 2}
    # The reference: one unsharded index of the same fp16 codes, scanned exhaustively.
    kept = np.asarray([i for i in range(n) if i not in (0, 4000, 8000)])
    reference = new_faiss_index(DIM)
    reference.add_with_ids(vectors[kept], kept + 1)
    query = _unit(11)
    scores, ids = reference.search(query, 50)
    expected = [(int(i), float(c)) for c, i in zip(scores[0], ids[0], strict=True)]
    for searched in (index, loaded):
        hits = searched.search(KIND_TRANSCRIPT, query, 50)
        assert [row for row, _ in hits] == [row for row, _ in expected]
        assert np.allclose([c for _, c in hits], [c for _, c in expected], atol=1e-5)
    assert {row for row, _ in loaded.search(KIND_PINNED, query, 5)} == {1, 2}
