"""Pin a service's threads to a set of cores (OSAURUS_MEMORYD_CPUS, OSAURUS_INFERD_CPUS; off by default).

Why (issue 17 item 4, fastctx8): on a cache miss, AssembleContext waits for the query embedding, a ~7 ms numpy
forward in inferd, while memoryd's evidence pass runs ~9 ms of keyword-side CPU (SQLite FTS5, BM25 re-scoring) on
two threads beside it. On a 2-core machine three runnable threads share two cores, so inferd's forward waited ~6 ms
a call in the run queue (probe_fastctx8_stages: inferd's forward thread run 7.0 ms, run-queue wait 6.3 ms p50 per
call). With memoryd on one core and inferd on the other, memoryd's threads never take the forward's core.
probe_fastctx8_ab, base vs pinned, alternated query by query in one process, 200 cache-miss queries per arm,
decisions and blocks identical 200/200 in each of seven runs, all calls p50 / p95 (load of the shared machine in
brackets): x0.95 / x0.91 (2.3), x0.86 / x0.78 (3.0-3.7), x0.95 / x0.91 (4.1-5.5), x0.98 / x0.90 (7.4), x0.90 /
x0.88 (8.9-10), x0.85 / x0.58 (~10), x0.94 / x0.93 (8.9-9.6); pinning only memoryd x0.94 / x1.00, only inferd
x1.07 / x1.00. Over gRPC against real memoryd and inferd processes pinned by these settings
(probe_fastctx8_services, load 9-10): x0.80 / x0.71 and x0.81 / x0.83, decisions and block tokens identical
200/200. On PostgreSQL x0.96 / x0.94 (load 10): there the keyword sides run in the server's processes and end
after the embedding.

Why off by default: a pinned inferd generates text (distillation, chat) on its cores only (on the saturated shared
machine, load 12.9, SmolLM2 made 7.4 tokens/s pinned to one core against 7.0 free, alternated; a quiet machine may
lose more), memoryd's own background work (consolidation, indexing) gets one core, and a fixed split only suits a
machine whose other work is known. A deployment that wants the lower AssembleContext latency opts in, e.g.
OSAURUS_MEMORYD_CPUS=0 and OSAURUS_INFERD_CPUS=1 on two cores (docs/benchmarks.md, fastctx8).

Linux affinity is per thread and a new thread inherits its creator's, so `pin_process` sets every thread the
process has now (read from /proc/self/task: BLAS and gRPC threads may already run) and every later thread follows.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

_log = logging.getLogger("servicekit.cpu_affinity")


def parse_cpus(text: str) -> frozenset[int]:
    """Cores from a list such as "1", "0,2" or "0-3,6" (empty or blank: none, i.e. not pinned).

    ValueError (the message names the bad part) for anything else: a negative core, a reversed range, garbage.
    """
    cpus: set[int] = set()
    for raw in text.split(","):
        part = raw.strip()
        if not part:
            continue
        low_text, dash, high_text = part.partition("-")
        try:
            low = int(low_text)
            high = int(high_text) if dash else low
        except ValueError:
            raise ValueError(f"not a core or range of cores: {part!r}") from None
        if low < 0 or high < low:
            raise ValueError(f"not a core or range of cores: {part!r}")
        cpus.update(range(low, high + 1))
    return frozenset(cpus)


def pin_process(cpus: frozenset[int]) -> frozenset[int]:
    """Every thread of this process (and so every thread started later) on `cpus`; returns the cores applied.

    Nothing happens (empty result) for an empty set, or where the platform has no per-thread affinity (logged).
    ValueError when none of `cpus` is a core this process may run on.
    """
    if not cpus:
        return frozenset()
    if not hasattr(os, "sched_setaffinity"):
        _log.warning("CPU pinning is not supported on this platform; threads stay unpinned")
        return frozenset()
    available = frozenset(os.sched_getaffinity(0))
    usable = frozenset(cpus) & available
    if not usable:
        raise ValueError(f"none of cores {sorted(cpus)} is available (usable: {sorted(available)})")
    if usable != cpus:
        _log.warning("cores %s are not available; pinning to the others", sorted(cpus - available))
    tasks = Path("/proc/self/task")
    threads = [int(task.name) for task in tasks.iterdir()] if tasks.is_dir() else [0]
    for thread in threads:
        try:
            os.sched_setaffinity(thread, usable)
        except ProcessLookupError:
            continue  # the thread ended meanwhile
    _log.info("threads pinned to cores %s", ",".join(str(cpu) for cpu in sorted(usable)))
    return usable


__all__ = ["parse_cpus", "pin_process"]
