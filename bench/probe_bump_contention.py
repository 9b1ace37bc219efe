"""The pinned-usage bump while the writer commits (issue 17 item 4, fastctx4): on SQLite a bump on the request path
waits for the store's write lock whenever a write transaction holds it; the deferred bump (read/pinned_usage.py) only
counts. A real SQLite store with 2,000 facts; a writer thread commits 250-turn batches 20 ms apart; the two readers
bump 8 random facts each, interleaved (which goes first alternates). Afterwards the use counts must add up exactly.

Run: `python -m bench.probe_bump_contention [--bumps N]`. A probe: prints, writes no figures under bench/results.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from bench.assemble_services import percentile
from memoryd.read.memory_reader import StoreMemoryReader
from memoryd.read.search import MemorySearch
from memoryd.storage.store import open_store

AGENT = "agent"
PLACED = 8


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bumps", type=int, default=400, help="bumps per reader")
    args = parser.parse_args()
    store = open_store(Path(tempfile.mkdtemp(prefix="probe-bump-")) / "memory.sqlite")
    with store.db.write():
        ids = [
            store.db.insert(
                "INSERT INTO pinned_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES (?, ?, 1, 1)",
                (AGENT, f"fact {i} about sailing"),
            )
            for i in range(2000)
        ]
    search = MemorySearch(store)
    readers = {
        "sync": StoreMemoryReader(store, search, lambda: 1, deferred_usage=False),
        "deferred": StoreMemoryReader(store, search, lambda: 1, deferred_usage=True),
    }
    stop = threading.Event()

    def write() -> None:
        batch = 0
        while not stop.is_set():
            with store.db.write():
                for i in range(250):
                    store.db.execute(
                        "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count,"
                        " created_at_ms) VALUES (?, ?, ?, 'user', ?, 10, 1)",
                        (AGENT, f"c{batch}", i, f"turn {batch} {i}: words about the harbour and a dinner"),
                    )
            batch += 1
            time.sleep(0.02)

    writer = threading.Thread(target=write, name="probe-writer")
    writer.start()
    spent: dict[str, list[float]] = {name: [] for name in readers}
    rng = random.Random(1)
    try:
        for i in range(args.bumps):
            placed = [str(fact) for fact in rng.sample(ids, PLACED)]
            order = list(readers.items()) if i % 2 else list(readers.items())[::-1]
            for name, reader in order:
                started = time.perf_counter()
                reader.bump_pinned_usage(AGENT, placed, 1)
                spent[name].append((time.perf_counter() - started) * 1000)
            time.sleep(0.005)
    finally:
        stop.set()
        writer.join()
        for reader in readers.values():
            reader.close()  # the deferred one writes what is pending
        search.close()
    for name, times in spent.items():
        print(
            f"{name}: p50 {statistics.median(times):.3f} ms, p95 {percentile(times, 0.95):.3f}, "
            f"p99 {percentile(times, 0.99):.3f}, max {max(times):.1f}"
        )
    total = store.db.query("SELECT SUM(use_count) FROM pinned_facts")[0][0]
    print(f"use_count total {total}, expected {args.bumps * PLACED * len(readers)}")
    store.close()


if __name__ == "__main__":
    main()
