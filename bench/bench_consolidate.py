"""Consolidation benchmark (issue 7): one pass over 1M pinned facts + 200k episodes + 2M transcript rows in one
store — wall time, peak memory — and BufferTurn / SearchMemory latency during the pass against idle, same run.

memoryd runs as a subprocess (`python -m bench.bench_consolidate serve HOME PORT_FILE`: memoryd's own parts plus
the consolidator and its RunConsolidation mixin, composed as app.py will); this process is the client. It times
BufferTurn and SearchMemory while idle, then starts RunConsolidation and keeps timing them until the pass returns.
OSAURUS_BENCH_CONSOLIDATE_SCALE shrinks the store (default 1.0); the built store is cached in the temp dir.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import grpc

from bench import consolidate_seed as seed_store
from bench.report import BenchResult
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc

REPO = Path(__file__).resolve().parents[1]
ISSUE = 7
SCALE = float(os.environ.get("OSAURUS_BENCH_CONSOLIDATE_SCALE", "1.0"))
IDLE_S = float(os.environ.get("OSAURUS_BENCH_CONSOLIDATE_IDLE_SECONDS", "20"))
#: Pause between a client's calls: chat-like traffic, not a saturation test (bench_write measures that).
THINK_S = 0.01
TARGET_PASS_S = 60.0
USER = "Can you remind me which Postgres index type suits prefix search on product codes in our catalog?"


@dataclass
class Samples:
    """Latencies (ms) of one RPC in one phase."""

    values: list[float]

    def pct(self, q: float) -> float:
        ordered = sorted(self.values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# -- server (subprocess) -----------------------------------------------------------------------------------------


def serve(home: Path, port_file: Path) -> None:
    """memoryd as app.py builds it, plus RunConsolidation (app.consolidator once app.py wires it), until SIGTERM."""
    from typing import Any

    from memoryd.api.consolidate_rpcs import ConsolidationRpcs
    from memoryd.app import build_app, serve, write_port_file
    from memoryd.config import ServiceSettings
    from memoryd.consolidate import Consolidator

    settings = ServiceSettings(
        listen="127.0.0.1:0", home=home, inferd_addr="127.0.0.1:1", background_indexing=False
    )
    app = build_app(settings)
    consolidator: Consolidator | None = getattr(app, "consolidator", None)
    if consolidator is None:
        consolidator = Consolidator(
            app.store.consolidation,
            app.config,
            vectors=app.vectors,
            inference=app.inference,
            on_changed=[app.search.keyword_stats.invalidate, app.read_path.invalidate],
        )
        servicer: Any = app.memory
        servicer.__class__ = type("ConsolidatingServicer", (ConsolidationRpcs, type(servicer)), {})
        servicer.consolidator = consolidator
    server = serve(app)
    write_port_file(port_file, server.target)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    server.stop(5)
    consolidator.close()
    app.close()


def _spawn(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    port_file = home / "memoryd.port"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "protos" / "gen")]))
    blas = os.environ.get("OSAURUS_BENCH_CONSOLIDATE_BLAS_THREADS")
    if blas:
        env["OPENBLAS_NUM_THREADS"] = blas
    log = (home / "memoryd.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.bench_consolidate", "serve", str(home), str(port_file)],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 120
    while not port_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"memoryd did not start: {(home / 'memoryd.log').read_text()[-2000:]}")
        time.sleep(0.05)
    return process, port_file.read_text().strip()


def _memory_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak(pid: int) -> bool:
    """Reset VmHWM to the current RSS (Linux: write 5 to clear_refs); False when not permitted."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


# -- clients -----------------------------------------------------------------------------------------------------


def _traffic(
    stub: pb_grpc.MemoryServiceStub, stop: threading.Event, turns: Samples, searches: Samples
) -> None:
    """One chat-like client: BufferTurn, then a SearchMemory, with a short think time."""
    i = 0
    while not stop.is_set():
        started = time.perf_counter()
        stub.BufferTurn(
            pb.BufferTurnRequest(
                agent_id="agent-0001",
                conversation_id=f"bench-{i // 20}",
                user_message=f"{USER} {i}",
                assistant_message="Use a B-tree index with text_pattern_ops.",
            ),
            timeout=30,
        )
        turns.values.append((time.perf_counter() - started) * 1000)
        time.sleep(THINK_S)
        started = time.perf_counter()
        stub.SearchMemory(
            pb.SearchMemoryRequest(
                agent_id="agent-0001", scope=pb.SCOPE_TRANSCRIPT, query="index catalog", limit=5
            ),
            timeout=30,
        )
        searches.values.append((time.perf_counter() - started) * 1000)
        time.sleep(THINK_S)
        i += 1


def _phase(
    stub: pb_grpc.MemoryServiceStub, seconds: float | None, until: threading.Event | None
) -> tuple[Samples, Samples]:
    turns, searches = Samples([]), Samples([])
    stop = until or threading.Event()
    worker = threading.Thread(target=_traffic, args=(stub, stop, turns, searches))
    worker.start()
    if seconds is not None:
        time.sleep(seconds)
        stop.set()
    worker.join()
    return turns, searches


@dataclass
class PassRun:
    """One measured pass: its report, wall time seen by the client, server memory, and traffic samples."""

    report: pb.ConsolidationReport
    wall_s: float
    rss_before_mb: float
    peak_mb: float
    peak_reset: bool
    idle: tuple[Samples, Samples] | None = None
    during: tuple[Samples, Samples] | None = None


def _prepare(seed: seed_store.Seed, home: Path) -> None:
    seed_store.copy_to(seed, home)
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "memory.json").write_text(
        json.dumps({"summaryDebounceSeconds": 3600, "coreModel": "", "embeddingModel": seed_store.MODEL})
    )


def _measure(seed: seed_store.Seed, home: Path, *, traffic: bool) -> PassRun:
    """Start memoryd on a fresh copy of the store and run one pass (with chat-like traffic, or none)."""
    _prepare(seed, home)
    process, target = _spawn(home)
    try:
        with grpc.insecure_channel(target) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
            stub = pb_grpc.MemoryServiceStub(channel)
            stub.UpsertAgent(
                pb.UpsertAgentRequest(agent_id="agent-0001", search_memory_enabled=True), timeout=30
            )
            idle = None
            if traffic:
                _phase(stub, 2.0, None)  # warm-up
                idle = _phase(stub, IDLE_S, None)
            rss_before = _memory_kb(process.pid, "VmRSS")
            peak_reset = _reset_peak(process.pid)
            done = threading.Event()
            reply: list[pb.RunConsolidationResponse] = []

            def consolidate() -> None:
                try:
                    reply.append(stub.RunConsolidation(pb.RunConsolidationRequest(), timeout=1800))
                finally:
                    done.set()

            started = time.perf_counter()
            runner = threading.Thread(target=consolidate)
            runner.start()
            during = _phase(stub, None, done) if traffic else None
            runner.join()
            wall_s = time.perf_counter() - started
            peak = _memory_kb(process.pid, "VmHWM")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
    return PassRun(reply[0].report, wall_s, rss_before / 1024, peak / 1024, peak_reset, idle, during)


def _row(name: str, idle: Samples, during: Samples) -> str:
    ratio = during.pct(0.99) / idle.pct(0.99)
    return (
        f"| {name} | {len(idle.values)} | {idle.pct(0.5):.2f} | {idle.pct(0.99):.2f} | {len(during.values)} | "
        f"{during.pct(0.5):.2f} | {during.pct(0.99):.2f} | {max(during.values):.1f} | {ratio:.2f}× |"
    )


def _steps_table(quiet: pb.ConsolidationReport, busy: pb.ConsolidationReport) -> str:
    lines = [
        "| step | rows changed | vectors deleted | s (no traffic) | s (with traffic) | skip / error |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for a, b in zip(quiet.steps, busy.steps, strict=True):
        lines.append(
            f"| {a.name} | {a.rows_changed:,} | {a.vectors_deleted:,} | {a.duration_ms / 1000:.1f} | "
            f"{b.duration_ms / 1000:.1f} | {a.skip_reason or a.error or ''} |"
        )
    return "\n".join(lines)


def run() -> list[BenchResult]:
    """Build (or reuse) the store; one pass with no traffic, one under chat-like traffic; headline results."""
    seed = seed_store.cached(SCALE, int(time.time() * 1000))
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-consolidate-") as tmp:
        quiet = _measure(seed, Path(tmp) / "quiet", traffic=False)
    with tempfile.TemporaryDirectory(prefix="bench-consolidate-") as tmp:
        busy = _measure(seed, Path(tmp) / "busy", traffic=True)
    load_after = os.getloadavg()[0]
    assert busy.idle is not None and busy.during is not None
    (idle_turns, idle_search), (during_turns, during_search) = busy.idle, busy.during
    quiet_s, busy_s = quiet.report.duration_ms / 1000, busy.report.duration_ms / 1000
    ratio = during_turns.pct(0.99) / idle_turns.pct(0.99)
    peak_note = "" if quiet.peak_reset else " (VmHWM since process start: reset not permitted)"
    blas = os.environ.get("OSAURUS_BENCH_CONSOLIDATE_BLAS_THREADS", "")
    blas_note = f" OPENBLAS_NUM_THREADS={blas} for memoryd." if blas else ""
    detail = f"""Store: {seed_store.describe(seed)} (scale {SCALE:g}; built once in {seed.build_s:.0f} s and cached).
Rows span {seed_store.SPAN_DAYS} days; retention 365 days, salience floor 0.2; 2% of episodes are near-copies;
every row was last decayed a day before. A first pass: every episode is new to merge (its worst case).
memoryd runs as a subprocess.{blas_note} Two passes, each on a fresh copy of the store: one with no other traffic
(the pacer sees no other writer and uses 50 ms batches), one while a client sends BufferTurn then SearchMemory with
{THINK_S * 1000:.0f} ms think time (2 ms batches, each followed by an equal rest). Load average of the machine
(2 cores, shared): {load_before:.1f} before, {load_after:.1f} after.

{_steps_table(quiet.report, busy.report)}

Pass with no traffic: **{quiet_s:.1f} s**; with traffic: **{busy_s:.1f} s** (target ≤ {TARGET_PASS_S:.0f} s).
Server RSS {quiet.rss_before_mb:.0f} MB before the pass, peak **{quiet.peak_mb:.0f} MB** during it{peak_note}
(with traffic: {busy.peak_mb:.0f} MB).

| rpc | idle calls | idle p50 ms | idle p99 ms | calls during pass | p50 ms | p99 ms | max ms | p99 ratio |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
{_row("BufferTurn", idle_turns, during_turns)}
{_row("SearchMemory", idle_search, during_search)}"""
    scale_note = "1M facts, 200k episodes, 2M turns" if SCALE == 1.0 else f"scale {SCALE:g}"
    return [
        BenchResult(
            ISSUE,
            f"consolidation pass, no traffic ({scale_note})",
            f"{quiet_s:.1f} s",
            f"≤ {TARGET_PASS_S:.0f} s",
            detail,
        ),
        BenchResult(
            ISSUE, f"consolidation pass under chat traffic ({scale_note})", f"{busy_s:.1f} s", "reported"
        ),
        BenchResult(
            ISSUE, "consolidation pass peak memory (server RSS)", f"{quiet.peak_mb:.0f} MB", "reported"
        ),
        BenchResult(ISSUE, "BufferTurn p99 during a pass / idle p99", f"{ratio:.2f}×", "≤ 2×"),
    ]


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "serve":
        serve(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        results = run()
        for result in results:
            print(f"{result.metric}: {result.value} (target {result.target})")
        print(results[0].detail)
