"""Two or more served memoryd processes timed against each other on the same cache-miss queries (probes of issue 17
item 4): warm-up, a wait until every process is idle, then the queries interleaved (alternating which arm goes first),
and a printout of each arm's p50 / p95 against the first arm with the decisions compared query by query."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.assemble_corpus import AGENT
from bench.assemble_services import percentile
from bench.memoryd_process import wait_until_idle
from osaurus.memory.v1 import memory_pb2 as pb

#: What one call decided: the section, the placed rows, the block's tokens.
Decision = tuple[int, tuple[str, ...], int]


@dataclass
class ArmTimes:
    """Per arm: call times (ms), decisions, and calls whose query vector came late (full text only)."""

    ms: dict[str, list[float]] = field(default_factory=dict)
    decided: dict[str, list[Decision]] = field(default_factory=dict)
    late: dict[str, int] = field(default_factory=dict)


def time_arms(
    stubs: Mapping[str, Any], pids: Sequence[int], warm: Sequence[str], queries: Sequence[str], unit: str
) -> ArmTimes:
    """Warm every arm, wait until the processes `pids` are idle, then time `queries` on every arm, interleaved."""
    for i, q in enumerate(warm):
        for stub in stubs.values():
            stub.AssembleContext(pb.AssembleContextRequest(agent_id=AGENT, query=q), timeout=900)
        if i == len(warm) // 2:
            wait_until_idle(pids)
    waited, quiet = wait_until_idle(pids, timeout_s=300.0)
    load = os.getloadavg()[0]
    names = list(stubs)
    times = ArmTimes({n: [] for n in names}, {n: [] for n in names}, dict.fromkeys(names, 0))
    for i, q in enumerate(queries):
        for name in names if i % 2 == 0 else names[::-1]:
            started = time.perf_counter()
            reply = stubs[name].AssembleContext(
                pb.AssembleContextRequest(agent_id=AGENT, query=q), timeout=30
            )
            times.ms[name].append((time.perf_counter() - started) * 1000)
            placed = tuple(sorted(f"{p.kind}:{p.id}" for p in reply.placed))
            times.decided[name].append((reply.section, placed, reply.block_tokens))
            times.late[name] += "fts_only" in reply.reason
    print(
        f"{len(queries)} queries per {unit}, idle wait {waited:.0f} s (quiet: {quiet}),"
        f" load {load:.1f} -> {os.getloadavg()[0]:.1f}"
    )
    return times


def print_arms(times: ArmTimes, base: str, other: str) -> None:
    """Each arm's p50 / p95 and its ratio to `base`, and how many decisions `other` shares with `base`."""
    b50, b95 = statistics.median(times.ms[base]), percentile(times.ms[base], 0.95)
    for name, ms in times.ms.items():
        p50, p95 = statistics.median(ms), percentile(ms, 0.95)
        print(
            f"{name}: p50 {p50:.1f} p95 {p95:.1f} max {max(ms):.1f} ms (x{p50 / b50:.2f} / x{p95 / b95:.2f});"
            f" query vector late: {times.late[name]}"
        )
    pairs = list(zip(times.decided[base], times.decided[other], strict=True))
    print(
        f"decisions identical (section, placed): {sum(a[:2] == b[:2] for a, b in pairs)}/{len(pairs)};"
        f" block tokens equal: {sum(a[2] == b[2] for a, b in pairs)}/{len(pairs)}"
    )
