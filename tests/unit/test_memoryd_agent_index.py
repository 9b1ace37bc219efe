"""AgentIndex: add replaces a row's vector, remove counts only what was there, and a reloaded index knows its ids."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from memoryd.domain import KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage.store import open_store
from memoryd.vectors.agent_index import AgentIndex
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
