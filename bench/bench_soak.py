"""Soak benchmark (issue 11): 16 clients mixing BufferTurn, AssembleContext and SearchMemory against a real memoryd
subprocess (inferd with its fake backend, also a subprocess) for OSAURUS_BENCH_SOAK_S seconds (default 600).

Reports throughput, p50/p99 per RPC, errors (target 0), throughput per minute, and memoryd's RSS sampled every 5 s
(start, end, peak, and the slope over the second half of the run, which is where a leak would show once caches and
indexes have warmed up). Clients run in one separate process on grpc.aio, one channel each.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import os
import random
import signal
import sqlite3
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from bench.report import BenchResult
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from tests.support.procs import ServiceProcess, spawn

ISSUE = 11
DURATION_S = float(os.environ.get("OSAURUS_BENCH_SOAK_S", "600"))
CLIENTS = 16
WARMUP_S = 5.0
SAMPLE_EVERY_S = 5.0
#: Share of each RPC in a client's calls.
MIX = (("BufferTurn", 0.5), ("AssembleContext", 0.25), ("SearchMemory", 0.25))
_TOPICS = (
    "the billing migration to Postgres",
    "my sister's wedding in Lisbon next spring",
    "training for the autumn half marathon",
    "the espresso machine that keeps leaking",
    "learning Japanese with flash cards",
    "the flaky integration tests in CI",
    "a birthday present for Sam",
    "moving the team to a four-day week",
)
_QUESTIONS = (
    "What did we decide about {topic}?",
    "Remind me what I said about {topic}.",
    "What do you remember about my plans for {topic}?",
    "Any progress on {topic} since last time?",
)


@dataclass
class ClientStats:
    """What the client process measured: latencies (ms) per RPC, errors per RPC and code, calls per minute."""

    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    per_minute: Counter[int] = field(default_factory=Counter)
    seconds: float = 0.0


# -- clients (in a child process) ----------------------------------------------------------------------------------


async def _client(index: int, target: str, stop_at: float, record_from: float, stats: ClientStats) -> None:
    rng = random.Random(index)
    agent = f"soak-{index % 8}"  # two clients per agent: concurrent writers to one partition
    conversation, turns = 0, 0
    names = [name for name, _ in MIX]
    weights = [weight for _, weight in MIX]
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        while (now := time.perf_counter()) < stop_at:
            rpc = rng.choices(names, weights)[0]
            topic = rng.choice(_TOPICS)
            started = time.perf_counter_ns()
            try:
                if rpc == "BufferTurn":
                    await stub.BufferTurn(
                        pb.BufferTurnRequest(
                            agent_id=agent,
                            conversation_id=f"c{index}-{conversation}",
                            user_message=f"Let's talk about {topic}. I think we should plan it carefully. #{turns}",
                            assistant_message=f"Sure. For {topic}, start with a short list of next steps.",
                        ),
                        timeout=30,
                    )
                    turns += 1
                    if turns % 12 == 0:
                        conversation += 1  # a switch flushes the previous conversation to the writer
                elif rpc == "AssembleContext":
                    question = rng.choice(_QUESTIONS).format(topic=topic)
                    await stub.AssembleContext(
                        pb.AssembleContextRequest(agent_id=agent, query=question, conversation_id="live"),
                        timeout=30,
                    )
                else:
                    await stub.SearchMemory(
                        pb.SearchMemoryRequest(
                            agent_id=agent, scope=rng.choice([1, 2, 3]), query=topic, limit=10
                        ),
                        timeout=30,
                    )
            except grpc.aio.AioRpcError as error:
                if now >= record_from:
                    stats.errors[f"{rpc} {error.code().name}"] += 1
                continue
            if now >= record_from:
                stats.latencies_ms.setdefault(rpc, []).append((time.perf_counter_ns() - started) / 1e6)
                stats.per_minute[int((now - record_from) // 60)] += 1


async def _load(target: str, duration_s: float) -> ClientStats:
    stats = ClientStats()
    record_from = time.perf_counter() + WARMUP_S
    stop_at = record_from + duration_s
    await asyncio.gather(*(_client(i, target, stop_at, record_from, stats) for i in range(CLIENTS)))
    stats.seconds = time.perf_counter() - record_from
    return stats


def _child(target: str, duration_s: float, queue: Any) -> None:
    queue.put(asyncio.run(_load(target, duration_s)))


# -- server side -------------------------------------------------------------------------------------------------


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _slope_mb_per_min(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of RSS over time (MB per minute)."""
    if len(samples) < 2:
        return 0.0
    n = len(samples)
    mean_t = sum(t for t, _ in samples) / n
    mean_r = sum(r for _, r in samples) / n
    var = sum((t - mean_t) ** 2 for t, _ in samples)
    cov = sum((t - mean_t) * (r - mean_r) for t, r in samples)
    return cov / var * 60 if var else 0.0


def _start_stack(home: Path) -> tuple[ServiceProcess, ServiceProcess]:
    (home / "config").mkdir(parents=True, exist_ok=True)
    config = {"coreModel": "fake-llm", "embeddingModel": "fake-embedding", "summaryDebounceSeconds": 10}
    (home / "config" / "memory.json").write_text(json.dumps(config))
    inferd = spawn("inferd", home, ["--backend", "fake", "--log-level", "WARNING"])
    memoryd = spawn("memoryd", home, ["--inferd", inferd.target, "--log-level", "WARNING"])
    with grpc.insecure_channel(memoryd.target) as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        for agent in range(8):
            stub.UpsertAgent(
                pb.UpsertAgentRequest(agent_id=f"soak-{agent}", search_memory_enabled=True), timeout=10
            )
    return inferd, memoryd


@dataclass(frozen=True)
class StoreSize:
    """What memoryd held at the end: rows, vectors (kept in memory by the faiss indexes too), file size."""

    transcript_rows: int
    vector_mb: float
    file_mb: float


def _store_size(db: Path) -> StoreSize:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        rows = int(connection.execute("SELECT count(*) FROM transcript").fetchone()[0])
        vector_bytes = int(
            connection.execute("SELECT coalesce(sum(length(vector)), 0) FROM embeddings").fetchone()[0]
        )
    connection.close()
    file_mb = sum(p.stat().st_size for p in db.parent.glob("memory.sqlite*")) / 2**20
    return StoreSize(rows, vector_bytes / 2**20, file_mb)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def run() -> list[BenchResult]:
    """Start the stack, soak it, stop it; the headline results with a markdown detail section."""
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        home = Path(tmp)
        inferd, memoryd = _start_stack(home)
        try:
            context = mp.get_context("spawn")
            queue = context.Queue()
            clients = context.Process(target=_child, args=(memoryd.target, DURATION_S, queue))
            started = time.monotonic()
            clients.start()
            rss: list[tuple[float, float]] = [(0.0, _rss_mb(memoryd.process.pid))]
            while clients.is_alive() and queue.empty():
                time.sleep(SAMPLE_EVERY_S)
                if memoryd.process.poll() is not None:
                    raise RuntimeError(f"memoryd died during the soak:\n{memoryd.log()[-2000:]}")
                rss.append((time.monotonic() - started, _rss_mb(memoryd.process.pid)))
            stats: ClientStats = queue.get(timeout=DURATION_S + 300)
            clients.join(30)
            rss.append((time.monotonic() - started, _rss_mb(memoryd.process.pid)))
        finally:
            memoryd.stop(signal.SIGTERM)
            inferd.stop(signal.SIGTERM)
        store = _store_size(home / "memory" / "memory.sqlite")
    return _results(stats, rss, store)


def _results(stats: ClientStats, rss: list[tuple[float, float]], store: StoreSize) -> list[BenchResult]:
    total = sum(len(v) for v in stats.latencies_ms.values())
    errors = sum(stats.errors.values())
    rows = ["| RPC | calls | calls/s | p50 ms | p99 ms | errors |", "| --- | --- | --- | --- | --- | --- |"]
    for rpc, _ in MIX:
        values = stats.latencies_ms.get(rpc, [])
        rpc_errors = sum(n for key, n in stats.errors.items() if key.startswith(f"{rpc} "))
        rows.append(
            f"| {rpc} | {len(values):,} | {len(values) / stats.seconds:,.1f} | {_pct(values, 0.5):.2f} | "
            f"{_pct(values, 0.99):.2f} | {rpc_errors} |"
        )
    minutes = ", ".join(
        f"{stats.per_minute[m] / max(1.0, min(60.0, stats.seconds - 60 * m)):,.0f}"
        for m in sorted(stats.per_minute)
    )
    second_half = [s for s in rss if s[0] >= rss[-1][0] / 2]
    slope = _slope_mb_per_min(second_half)
    start_mb, end_mb, peak_mb = rss[0][1], rss[-1][1], max(r for _, r in rss)
    trace = ", ".join(f"{r:.0f}" for _, r in rss[:: max(1, len(rss) // 12)])
    detail = f"""### Soak: {CLIENTS} clients for {stats.seconds:.0f} s

memoryd (`python -m memoryd`, log level WARNING) with inferd's fake backend as peers, both subprocesses; clients in
one separate process on grpc.aio. Mix per client: {", ".join(f"{rpc} {w:.0%}" for rpc, w in MIX)}; 8 agents (two
clients each), a new conversation every 12 turns (so the writer distils continuously), questions over 8 topics.
First {WARMUP_S:g} s not counted. Machine: {os.cpu_count()} cores shared by memoryd, inferd and the clients.

{chr(10).join(rows)}

Total **{total / stats.seconds:,.1f} calls/s**, **{errors} errors** ({dict(stats.errors) or "none"}).
Throughput per minute (calls/s): {minutes}.

memoryd RSS: start **{start_mb:.0f} MB**, end **{end_mb:.0f} MB**, peak {peak_mb:.0f} MB; slope over the second half
**{slope:+.2f} MB/min** (samples every {SAMPLE_EVERY_S:g} s, MB: {trace}).

Every turn is kept and embedded, and the per-agent faiss indexes hold every vector in memory: at the end the store
had {store.transcript_rows:,} transcript rows and **{store.vector_mb:.0f} MB of vectors** ({store.file_mb:.0f} MB on
disk), against {end_mb - start_mb:.0f} MB of RSS growth. Growth beyond the vectors is what to watch for a leak."""
    return [
        BenchResult(
            ISSUE,
            f"Soak throughput ({CLIENTS} clients, {stats.seconds:.0f} s)",
            f"{total / stats.seconds:,.0f} calls/s",
            "—",
            detail,
        ),
        BenchResult(ISSUE, "Soak errors", str(errors), "0"),
        *(
            BenchResult(ISSUE, f"Soak {rpc} p50 / p99", f"{_pct(v, 0.5):.1f} / {_pct(v, 0.99):.1f} ms", "—")
            for rpc, _ in MIX
            if (v := stats.latencies_ms.get(rpc, []))
        ),
        BenchResult(
            ISSUE, "Soak memoryd RSS start → end", f"{start_mb:.0f} → {end_mb:.0f} MB", "no growth trend"
        ),
        BenchResult(ISSUE, "Soak memoryd RSS slope (second half)", f"{slope:+.2f} MB/min", "≈ 0"),
    ]


if __name__ == "__main__":
    results = run()
    for result in results:
        print(f"{result.metric}: {result.value} (target {result.target})")
    print(results[0].detail)
