"""Write-path benchmark (issue 5): BufferTurn latency and throughput at 1 and 8 clients beside a no-op RPC on the
same server in the same run, and Ingest(skip_extraction) turns/s for a 1,000-turn batch.

memoryd runs as a subprocess (`python -m memoryd`, or the module named by OSAURUS_BENCH_MEMORYD_MODULE); the
clients run in one separate process on grpc.aio, one channel per client, so the server keeps its own core.
The no-op is grpc.health.v1.Health/Check: same server, same interceptors, no work — the floor of Python gRPC here.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

try:
    from bench.report import BenchResult
except ImportError:  # pragma: no cover - bench/report.py absent

    @dataclass(frozen=True)
    class BenchResult:  # type: ignore[no-redef]
        """Compatible stand-in for bench.report.BenchResult."""

        issue: int
        metric: str
        value: str
        target: str
        detail: str = ""


from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc

REPO = Path(__file__).resolve().parents[1]
ISSUE = 5
DURATION_S = float(os.environ.get("OSAURUS_BENCH_WRITE_SECONDS", "4"))
WARMUP_CALLS = 200
USER = "Can you remind me which Postgres index type suits prefix search on product codes in our catalog? " * 2
ASSISTANT = (
    "For prefix search a B-tree index with text_pattern_ops works well; for infix matches consider a trigram "
    "GIN index. Keep an eye on write amplification on the hot catalog table. "
) * 2
INGEST_TURNS = 1000
INGEST_RUNS = 5


@dataclass(frozen=True)
class LoadResult:
    """One load run: per-call latencies (ms) and the calls completed in the timed window."""

    rpc: str
    clients: int
    latencies_ms: list[float]
    calls: int
    seconds: float

    @property
    def per_s(self) -> float:
        return self.calls / self.seconds

    def pct(self, q: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- server ------------------------------------------------------------------------------------------------------


def _spawn(module: str, home: Path) -> tuple[subprocess.Popen[bytes], str]:
    (home / "config").mkdir(parents=True, exist_ok=True)
    # No distillation during the run: long debounce, core model unset; one conversation per client (no switches).
    (home / "config" / "memory.json").write_text(
        json.dumps({"summaryDebounceSeconds": 3600, "coreModel": ""})
    )
    port_file = home / "memoryd.port"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "protos" / "gen")]))
    command = [
        sys.executable,
        "-m",
        module,
        "--listen",
        "127.0.0.1:0",
        "--port-file",
        str(port_file),
        "--home",
        str(home),
        "--inferd",
        "127.0.0.1:1",
        "--log-level",
        "WARNING",
    ]
    log = (home / "memoryd.log").open("wb")
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not port_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"memoryd did not start: {(home / 'memoryd.log').read_text()[-2000:]}")
        time.sleep(0.05)
    target = port_file.read_text().strip()
    with grpc.insecure_channel(target) as channel:
        grpc.channel_ready_future(channel).result(timeout=30)
    return process, target


# -- clients (run in a child process) ----------------------------------------------------------------------------


async def _client(
    target: str, rpc: str, index: int, ready: asyncio.Barrier, window: list[float], out: list[float]
) -> None:
    async with grpc.aio.insecure_channel(target) as channel:
        if rpc == "BufferTurn":
            stub = pb_grpc.MemoryServiceStub(channel)
            request: Any = pb.BufferTurnRequest(
                agent_id=f"bench-{index}",
                conversation_id=f"conv-{index}",
                user_message=USER,
                assistant_message=ASSISTANT,
            )
            call: Any = stub.BufferTurn
        else:
            request = health_pb2.HealthCheckRequest(service="")
            call = health_pb2_grpc.HealthStub(channel).Check
        for _ in range(WARMUP_CALLS // 4):
            await call(request, timeout=10)
        await ready.wait()
        if not window:  # the first client released by the barrier opens the timed window
            window.append(time.perf_counter())
        stop_at = window[0] + DURATION_S
        while time.perf_counter() < stop_at:
            started = time.perf_counter_ns()
            await call(request, timeout=10)
            out.append((time.perf_counter_ns() - started) / 1e6)


async def _load(target: str, rpc: str, clients: int) -> tuple[list[float], float]:
    per_client: list[list[float]] = [[] for _ in range(clients)]
    ready = asyncio.Barrier(clients)
    window: list[float] = []
    await asyncio.gather(*(_client(target, rpc, i, ready, window, per_client[i]) for i in range(clients)))
    return [x for lat in per_client for x in lat], time.perf_counter() - window[0]


def _child(target: str, rpc: str, clients: int, queue: Any) -> None:
    queue.put(asyncio.run(_load(target, rpc, clients)))


def _run_load(target: str, rpc: str, clients: int) -> LoadResult:
    """One load run in a fresh client process; throughput = calls completed / timed window."""
    context = mp.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_child, args=(target, rpc, clients, queue))
    process.start()
    latencies, seconds = queue.get(timeout=DURATION_S + 120)
    process.join(30)
    return LoadResult(rpc, clients, latencies, len(latencies), seconds)


# -- ingest --------------------------------------------------------------------------------------------------------


def _ingest(target: str) -> tuple[list[float], list[float]]:
    turns = [pb.Turn(user=f"{USER} #{i}", assistant=ASSISTANT) for i in range(INGEST_TURNS)]
    fresh: list[float] = []
    replace: list[float] = []
    with grpc.insecure_channel(target, options=[("grpc.max_send_message_length", 64 << 20)]) as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        for run in range(INGEST_RUNS):
            for bucket, conversation in ((fresh, f"ingest-{run}"), (replace, "ingest-0")):
                started = time.perf_counter()
                reply = stub.Ingest(
                    pb.IngestRequest(
                        agent_id="bench-ingest",
                        conversation_id=conversation,
                        turns=turns,
                        skip_extraction=True,
                    ),
                    timeout=120,
                )
                bucket.append(INGEST_TURNS / (time.perf_counter() - started))
                assert reply.turns_ingested == INGEST_TURNS
    return fresh, replace


def _scheduled(target: str) -> bool:
    with grpc.insecure_channel(target) as channel:
        reply = pb_grpc.MemoryServiceStub(channel).BufferTurn(
            pb.BufferTurnRequest(agent_id="probe", conversation_id="probe", user_message="probe"), timeout=10
        )
    return bool(reply.distillation_scheduled)


# -- report --------------------------------------------------------------------------------------------------------


def _row(r: LoadResult) -> str:
    return f"| {r.rpc} | {r.clients} | {r.pct(0.5):.2f} | {r.pct(0.99):.2f} | {r.per_s:,.0f} | {r.calls:,} |"


def run() -> list[BenchResult]:
    """Start memoryd, measure, stop it; returns the headline results with a markdown detail section."""
    module = os.environ.get("OSAURUS_BENCH_MEMORYD_MODULE", "memoryd")
    with tempfile.TemporaryDirectory(prefix="bench-write-") as tmp:
        home = Path(tmp)
        process, target = _spawn(module, home)
        try:
            armed = _scheduled(target)
            loads = {
                (rpc, n): _run_load(target, rpc, n)
                for n in (1, 8)
                for rpc in ("Health/Check (no-op)", "BufferTurn")
            }
            try:
                fresh, replace = _ingest(target)
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNIMPLEMENTED:  # type: ignore[attr-defined]
                    raise
                fresh, replace = [0.0], [0.0]  # this memoryd does not serve Ingest yet
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
    buf1, buf8 = loads[("BufferTurn", 1)], loads[("BufferTurn", 8)]
    noop8 = loads[("Health/Check (no-op)", 8)]
    ratio = buf8.per_s / noop8.per_s
    ingest_fresh, ingest_replace = statistics.median(fresh), statistics.median(replace)
    ingest_value = f"{ingest_fresh:,.0f} turns/s" if ingest_fresh else "Ingest not served by this memoryd"
    armed_note = "yes" if armed else "NO - the writer is not wired into this memoryd, the arm is not measured"
    table = "\n".join(
        ["| RPC | clients | p50 ms | p99 ms | calls/s | calls |", "| --- | --- | --- | --- | --- | --- |"]
        + [_row(loads[key]) for key in sorted(loads, key=lambda k: (k[1], k[0]))]
    )
    detail = f"""### Write path: BufferTurn and Ingest

Server: `python -m {module}` (log level WARNING, so the per-call access log does not count), SQLite WAL with
synchronous=NORMAL, a fresh `$OSAURUS_HOME`. Debounce armed on every BufferTurn: **{armed_note}**. Clients: one separate process on grpc.aio,
one channel per client, {DURATION_S:g} s per run after a warm-up; payload {len(USER)} + {len(ASSISTANT)} characters.
Calls/s = calls completed in the timed window / its length. The no-op is `grpc.health.v1.Health/Check` on the same server.
Machine: {os.cpu_count()} cores shared by server and clients.

{table}

BufferTurn at 8 clients reaches **{ratio:.0%}** of the no-op RPC's throughput.

Ingest with skip_extraction, {INGEST_TURNS} turns per request ({INGEST_RUNS} runs, median): new conversation
**{ingest_fresh:,.0f} turns/s**; re-ingest replacing the same conversation **{ingest_replace:,.0f} turns/s**
(one transaction: transcript rows + FTS mirror triggers)."""
    return [
        BenchResult(ISSUE, "BufferTurn p50 latency (1 client)", f"{buf1.pct(0.5):.2f} ms", "≤ 1 ms", detail),
        BenchResult(ISSUE, "BufferTurn p99 latency (1 client)", f"{buf1.pct(0.99):.2f} ms", "—"),
        BenchResult(
            ISSUE, "BufferTurn throughput (8 clients)", f"{buf8.per_s:,.0f} turns/s", "≥ 2,000 turns/s"
        ),
        BenchResult(ISSUE, "BufferTurn / no-op RPC throughput (8 clients)", f"{ratio:.0%}", "≥ 70%"),
        BenchResult(ISSUE, "Ingest skip_extraction (1,000 turns)", ingest_value, "—"),
    ]


if __name__ == "__main__":
    results = run()
    for result in results:
        print(f"{result.metric}: {result.value} (target {result.target})")
    print(results[0].detail)
