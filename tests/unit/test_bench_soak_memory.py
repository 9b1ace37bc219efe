"""bench_soak's memory accounting: vector bytes from real index files, connection counts, slopes by third."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from bench.bench_soak import (
    ID_LOOKUP_BYTES,
    PassWindow,
    Sample,
    VectorCost,
    _connections,
    _trend,
    _vector_cost,
)
from memoryd.domain import KIND_TRANSCRIPT
from memoryd.vectors.agent_index import AgentIndex

DIM = 24


def test_the_vector_cost_comes_from_the_saved_indexes(tmp_path: Path) -> None:
    for agent, n in (("a", 5), ("b", 7)):
        index = AgentIndex(agent, "m", DIM)
        index.add(KIND_TRANSCRIPT, list(range(n)), np.ones((n, DIM), dtype=np.float32))
        index.save(tmp_path / agent)
    cost = _vector_cost(tmp_path)
    assert (cost.code_bytes, cost.id_bytes, cost.dimension, cost.indexed) == (2 * DIM, 8, DIM, 12)
    assert cost.per_vector == 2 * DIM + 8 + ID_LOOKUP_BYTES
    with pytest.raises(RuntimeError):
        _vector_cost(tmp_path / "missing")


def test_connections_count_descriptors_on_the_database_file(tmp_path: Path) -> None:
    db = tmp_path / "memory.sqlite"
    connections = [sqlite3.connect(db) for _ in range(3)]
    try:
        for c in connections:
            c.execute("CREATE TABLE IF NOT EXISTS t (x)")
        assert _connections(os.getpid(), db) == 3
    finally:
        for c in connections:
            c.close()
    assert _connections(os.getpid(), db) == 0


def test_excess_that_stops_growing_shows_a_flat_last_third() -> None:
    cost = VectorCost(code_bytes=1024 * 1024 - 8, id_bytes=8, lookup_bytes=0, dimension=1, indexed=1)
    # One 1 MB vector per second; RSS = vectors + an excess rising 60 MB/min for 100 s, then flat.
    samples = [Sample(t, t + 100 + min(t, 100), 0, t, 0, 1) for t in range(0, 301, 5)]
    trend = _trend(samples, 300.0, cost)
    assert trend.thirds_excess[0] == pytest.approx(60.0)
    assert trend.thirds_excess[2] == pytest.approx(0.0)
    assert trend.mixed_excess == pytest.approx(0.0)
    assert trend.thirds_mean[2] == pytest.approx(200.0)


def test_the_excess_around_a_consolidation_pass_is_reported_before_and_after_it() -> None:
    cost = VectorCost(code_bytes=1024 * 1024 - 8, id_bytes=8, lookup_bytes=0, dimension=1, indexed=1)
    # Flat excess of 100 MB, a 50 MB step during a pass at 300-330 s, flat again after it.
    samples = [Sample(t, t + 100 + (50 if t >= 300 else 0), 0, t, 0, 1) for t in range(0, 601, 5)]
    trend = _trend(samples, 600.0, cost, [PassWindow(300.0, 330.0), PassWindow(700.0, 710.0)])
    around = trend.around_pass
    assert around is not None and around.window == PassWindow(300.0, 330.0)
    assert (around.before_mb, around.after_mb) == (pytest.approx(100.0), pytest.approx(150.0))
    assert around.slope_before == pytest.approx(0.0) and around.slope_after == pytest.approx(0.0)
    assert _trend(samples, 600.0, cost, []).around_pass is None
