"""Memory accounting and tuning: faiss bytes per index, the debug memory trace (off by default), the mmap threshold."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from memoryd.config import parse_settings
from memoryd.domain import KIND_PINNED, KIND_TRANSCRIPT
from memoryd.retrieval.mmr import KEY_CACHE, shingle_key, shingle_keys, shingles
from memoryd.runtime.memtrace import MemoryTrace, malloc_info, process_memory
from memoryd.storage.store import open_store
from memoryd.vectors.agent_index import AgentIndex
from memoryd.vectors.registry import VectorRegistry

DIM = 16
REPO = Path(__file__).resolve().parents[2]


def _vectors(n: int) -> np.ndarray:
    return np.random.default_rng(n).standard_normal((n, DIM)).astype(np.float32)


def test_an_index_holds_two_bytes_per_dimension_and_an_eight_byte_id_per_vector() -> None:
    index = AgentIndex("A", "m", DIM)
    assert index.memory_bytes() == 0
    index.add(KIND_TRANSCRIPT, list(range(10)), _vectors(10))
    index.add(KIND_PINNED, [1, 2], _vectors(2))
    assert index.memory_bytes() == 12 * (2 * DIM + 8)
    index.remove(KIND_TRANSCRIPT, [0, 1, 2])
    assert index.memory_bytes() == 9 * (2 * DIM + 8)


def test_the_registry_sums_the_loaded_indexes(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    try:
        registry = VectorRegistry(tmp_path / "vectors", store.embeddings)
        assert registry.memory_bytes() == 0
        registry.add("A", KIND_TRANSCRIPT, "m", [1, 2, 3], _vectors(3))
        registry.add("B", KIND_TRANSCRIPT, "m", [1], _vectors(1))
        assert registry.memory_bytes() == 4 * (2 * DIM + 8)
    finally:
        store.close()


def test_the_trace_is_off_unless_a_path_is_given() -> None:
    settings = parse_settings([], env={})
    assert settings.memory_trace is None and settings.memory_trace_frames == 0
    traced = parse_settings(
        [], env={"OSAURUS_MEMORYD_MEMTRACE": "/tmp/m.jsonl", "OSAURUS_MEMORYD_TRACEMALLOC": "3"}
    )
    assert traced.memory_trace == Path("/tmp/m.jsonl") and traced.memory_trace_frames == 3
    assert parse_settings([], env={"OSAURUS_MEMORYD_TRACEMALLOC": "lots"}).memory_trace_frames == 0


def test_a_trace_line_splits_rss_into_its_parts(tmp_path: Path) -> None:
    line = MemoryTrace(tmp_path / "m.jsonl", lambda: 3 * 2**20).line()
    assert line["VmRSS"] > 0 and line["RssAnon"] > 0
    assert line["faiss_mb"] == 3.0
    assert {"malloc_in_use_mb", "malloc_free_kept_mb", "sqlite_used_mb"} <= set(line)
    assert "grew" not in line  # tracemalloc stays off without frames
    assert process_memory()["VmRSS"] > 0


def test_the_trace_thread_writes_lines_with_python_sites_when_frames_are_asked(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    trace = MemoryTrace(path, lambda: 0, frames=2, period_s=0.05)
    was_tracing = tracemalloc.is_tracing()
    trace.start()
    try:
        keep = [bytearray(4096) for _ in range(256)]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(path.read_text().splitlines() if path.exists() else []) < 2:
            time.sleep(0.05)
    finally:
        trace.stop()
        if not was_tracing:
            tracemalloc.stop()
    lines = [json.loads(raw) for raw in path.read_text().splitlines()]
    assert len(lines) >= 2 and keep
    assert lines[-1]["python_traced_mb"] >= 0 and isinstance(lines[-1]["grew"], list)


def test_shingle_sets_are_not_cached_but_their_keys_are() -> None:
    assert not hasattr(shingles, "cache_info")
    assert KEY_CACHE.maxsize == 8_192
    assert set(shingle_keys("painting paintings").tolist()) == {
        shingle_key(s) for s in shingles("painting paintings")
    }


_PROBE = """
import sys
from memoryd.runtime.malloc_tuning import fix_mmap_threshold
from memoryd.runtime.memtrace import malloc_info
if sys.argv[1] == "fixed":
    assert fix_mmap_threshold(256 * 1024)
big = bytearray(8 << 20)
del big  # freeing an 8 MiB mapping raises glibc's dynamic threshold to 8 MiB
before = malloc_info()["hblks"]
block = bytearray(1 << 20)
print(malloc_info()["hblks"] - before)
"""


def _run(script: str, mode: str) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "protos" / "gen")])}
    env.pop("MALLOC_MMAP_THRESHOLD_", None)
    done = subprocess.run(
        [sys.executable, "-c", script, mode], capture_output=True, text=True, env=env, cwd=REPO, check=True
    )
    return int(done.stdout.strip())


@pytest.mark.skipif(malloc_info() is None, reason="glibc only")
def test_a_fixed_mmap_threshold_keeps_large_blocks_out_of_the_arenas() -> None:
    # glibc's own threshold had climbed past 1 MiB: the block sits in an arena
    assert _run(_PROBE, "dynamic") == 0
    assert _run(_PROBE, "fixed") == 1  # fixed at 256 KiB: its own mapping, returned to the OS on free


def test_malloc_settings_default_to_256_kib_and_2_arenas_and_yield_to_glibcs_variables() -> None:
    settings = parse_settings([], env={})
    assert (settings.mmap_threshold_bytes, settings.malloc_arena_max) == (256 * 1024, 2)
    off = parse_settings(
        [], env={"OSAURUS_MEMORYD_MMAP_THRESHOLD_KIB": "0", "OSAURUS_MEMORYD_MALLOC_ARENA_MAX": "0"}
    )
    assert (off.mmap_threshold_bytes, off.malloc_arena_max) == (0, 0)
    glibc = parse_settings([], env={"MALLOC_MMAP_THRESHOLD_": "65536", "MALLOC_ARENA_MAX": "4"})
    assert (glibc.mmap_threshold_bytes, glibc.malloc_arena_max) == (0, 0)


_ARENAS = """
import ctypes, sys, tempfile, threading
from memoryd.runtime.malloc_tuning import limit_arenas
if sys.argv[1] == "limited":
    assert limit_arenas(1)
blocks, gate = [], threading.Barrier(6)
def work() -> None:
    gate.wait()  # all six alive at once
    blocks.append(bytearray(64 * 1024))  # below the mmap threshold: from this thread's arena
    gate.wait()
threads = [threading.Thread(target=work) for _ in range(6)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL("libc.so.6")
libc.fopen.restype = ctypes.c_void_p
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
libc.fclose.argtypes = [ctypes.c_void_p]
with tempfile.NamedTemporaryFile(suffix=".xml") as out:
    handle = libc.fopen(out.name.encode(), b"w")
    libc.malloc_info(0, handle)
    libc.fclose(handle)
    print(open(out.name).read().count("<heap nr="))
"""


@pytest.mark.skipif(malloc_info() is None, reason="glibc only")
def test_limited_arenas_are_shared_by_threads() -> None:
    assert _run(_ARENAS, "default") > 1
    assert _run(_ARENAS, "limited") == 1
