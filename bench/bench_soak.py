"""Soak benchmark (issue 11): 16 clients mixing BufferTurn, AssembleContext and SearchMemory against a real memoryd
subprocess (inferd with its fake backend, also a subprocess), then a reads-only phase with the same clients.

Knobs: OSAURUS_BENCH_SOAK_S (mixed phase, default 600 s), OSAURUS_BENCH_SOAK_READ_S (reads-only phase after it,
default 90 s; 0 skips it).

Reports throughput, p50/p99 per RPC and phase, errors (target 0), throughput per minute, and a memory trend that
separates data growth from leaks. Every 5 s the bench samples memoryd's RSS beside what the store holds: transcript
rows, stored vectors (every turn is embedded and every vector is kept in memory by the per-agent faiss indexes, so
their bytes are data that RSS must grow with) and the distillation backlog. It reports the slope of RSS and of
RSS − vector bytes (the "excess", which must level off) over the second half of the mixed phase, and the RSS slope in
the reads-only phase after it settled, where nothing is written and RSS must be flat. Clients run in one separate
process on grpc.aio, one channel each.
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
READ_S = float(os.environ.get("OSAURUS_BENCH_SOAK_READ_S", "90"))
CLIENTS = 16
WARMUP_S = 5.0
SAMPLE_EVERY_S = 5.0
#: The reads-only phase is judged after this long (the writer and the indexer finish the mixed phase's backlog).
READ_SETTLE_S = 30.0
#: Share of each RPC in a client's calls (the reads-only phase keeps the reads' shares).
MIX = (("BufferTurn", 0.5), ("AssembleContext", 0.25), ("SearchMemory", 0.25))
READS = tuple((name, weight) for name, weight in MIX if name != "BufferTurn")
MIXED, READS_ONLY = "mixed", "reads-only"
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
    """What the client process measured: latencies (ms) per phase and RPC, errors per phase, RPC and code, calls
    per minute, and the seconds each phase lasted."""

    latencies_ms: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    per_minute: Counter[int] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=dict)

    def calls(self, phase: str) -> int:
        return sum(len(v) for v in self.latencies_ms.get(phase, {}).values())


# -- clients (in a child process) ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Schedule:
    """perf_counter instants: recording starts (after the warm-up), writes stop, everything stops."""

    record_from: float
    writes_until: float
    stop_at: float


async def _call(
    stub: pb_grpc.MemoryServiceStub,
    rpc: str,
    rng: random.Random,
    index: int,
    agent: str,
    turn: tuple[int, int],
) -> None:
    topic = rng.choice(_TOPICS)
    if rpc == "BufferTurn":
        conversation, turns = turn
        await stub.BufferTurn(
            pb.BufferTurnRequest(
                agent_id=agent,
                conversation_id=f"c{index}-{conversation}",
                user_message=f"Let's talk about {topic}. I think we should plan it carefully. #{turns}",
                assistant_message=f"Sure. For {topic}, start with a short list of next steps.",
            ),
            timeout=30,
        )
    elif rpc == "AssembleContext":
        question = rng.choice(_QUESTIONS).format(topic=topic)
        await stub.AssembleContext(
            pb.AssembleContextRequest(agent_id=agent, query=question, conversation_id="live"), timeout=30
        )
    else:
        await stub.SearchMemory(
            pb.SearchMemoryRequest(agent_id=agent, scope=rng.choice([1, 2, 3]), query=topic, limit=10),
            timeout=30,
        )


async def _client(index: int, target: str, schedule: Schedule, stats: ClientStats) -> None:
    rng = random.Random(index)
    agent = f"soak-{index % 8}"  # two clients per agent: concurrent writers to one partition
    conversation, turns = 0, 0
    async with grpc.aio.insecure_channel(target) as channel:
        stub = pb_grpc.MemoryServiceStub(channel)
        while (now := time.perf_counter()) < schedule.stop_at:
            phase = MIXED if now < schedule.writes_until else READS_ONLY
            mix = MIX if phase == MIXED else READS
            rpc = rng.choices([name for name, _ in mix], [weight for _, weight in mix])[0]
            started = time.perf_counter_ns()
            try:
                await _call(stub, rpc, rng, index, agent, (conversation, turns))
            except grpc.aio.AioRpcError as error:
                if now >= schedule.record_from:
                    stats.errors[f"{phase} {rpc} {error.code().name}"] += 1
                continue
            if rpc == "BufferTurn":
                turns += 1
                if turns % 12 == 0:
                    conversation += 1  # a switch flushes the previous conversation to the writer
            if now >= schedule.record_from:
                elapsed_ms = (time.perf_counter_ns() - started) / 1e6
                stats.latencies_ms.setdefault(phase, {}).setdefault(rpc, []).append(elapsed_ms)
                stats.per_minute[int((now - schedule.record_from) // 60)] += 1


async def _load(target: str, mixed_s: float, reads_s: float) -> ClientStats:
    stats = ClientStats()
    record_from = time.perf_counter() + WARMUP_S
    schedule = Schedule(record_from, record_from + mixed_s, record_from + mixed_s + reads_s)
    await asyncio.gather(*(_client(i, target, schedule, stats) for i in range(CLIENTS)))
    stats.seconds = {MIXED: mixed_s, READS_ONLY: max(0.0, time.perf_counter() - schedule.writes_until)}
    return stats


def _child(target: str, mixed_s: float, reads_s: float, queue: Any) -> None:
    queue.put(asyncio.run(_load(target, mixed_s, reads_s)))


# -- server side -------------------------------------------------------------------------------------------------


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass(frozen=True)
class Sample:
    """One 5 s sample: seconds since the clients started, memoryd's RSS, and what the store held then."""

    t: float
    rss_mb: float
    transcript_rows: int
    vectors: int
    vector_mb: float
    pending: int

    @property
    def excess_mb(self) -> float:
        """RSS beyond the vectors the faiss indexes must hold (the data footprint that grows with the store)."""
        return self.rss_mb - self.vector_mb


class StoreProbe:
    """Read-only counts from memoryd's database while it runs (WAL readers never block the writer)."""

    def __init__(self, db: Path) -> None:
        self._connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, check_same_thread=False)
        self._vector_bytes = 0

    def sample(self, t: float, rss_mb: float) -> Sample:
        c = self._connection
        rows = int(c.execute("SELECT coalesce(max(id), 0) FROM transcript").fetchone()[0])
        vectors = int(c.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        if not self._vector_bytes and vectors:
            self._vector_bytes = int(c.execute("SELECT length(vector) FROM embeddings LIMIT 1").fetchone()[0])
        pending = int(
            c.execute("SELECT count(*) FROM pending_signals WHERE status = 'pending'").fetchone()[0]
        )
        return Sample(t, rss_mb, rows, vectors, vectors * self._vector_bytes / 2**20, pending)

    def close(self) -> None:
        self._connection.close()


def _slope_per_min(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over t (per minute)."""
    if len(points) < 2:
        return 0.0
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    cov = sum((t - mean_t) * (y - mean_y) for t, y in points)
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


def _file_mb(db: Path) -> float:
    return sum(p.stat().st_size for p in db.parent.glob("memory.sqlite*")) / 2**20


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def run() -> list[BenchResult]:
    """Start the stack, soak it, stop it; the headline results with a markdown detail section."""
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        home = Path(tmp)
        inferd, memoryd = _start_stack(home)
        db = home / "memory" / "memory.sqlite"
        probe = StoreProbe(db)
        try:
            context = mp.get_context("spawn")
            queue = context.Queue()
            clients = context.Process(target=_child, args=(memoryd.target, DURATION_S, READ_S, queue))
            started = time.monotonic()
            clients.start()
            samples = [probe.sample(0.0, _rss_mb(memoryd.process.pid))]
            while clients.is_alive() and queue.empty():
                time.sleep(SAMPLE_EVERY_S)
                if memoryd.process.poll() is not None:
                    raise RuntimeError(f"memoryd died during the soak:\n{memoryd.log()[-2000:]}")
                samples.append(probe.sample(time.monotonic() - started, _rss_mb(memoryd.process.pid)))
            stats: ClientStats = queue.get(timeout=DURATION_S + READ_S + 300)
            clients.join(30)
            samples.append(probe.sample(time.monotonic() - started, _rss_mb(memoryd.process.pid)))
        finally:
            probe.close()
            memoryd.stop(signal.SIGTERM)
            inferd.stop(signal.SIGTERM)
        file_mb = _file_mb(db)
    return _results(stats, samples, file_mb)


@dataclass(frozen=True)
class Trend:
    """The memory verdict: slopes (MB/min) over the mixed phase's second half and the settled reads-only phase."""

    mixed_rss: float
    mixed_vectors: float
    mixed_excess: float
    reads_rss: float
    reads_excess: float
    reads_window_s: float


def _trend(samples: list[Sample], mixed_end_s: float) -> Trend:
    half = [s for s in samples if mixed_end_s / 2 <= s.t <= mixed_end_s]
    reads = [s for s in samples if s.t >= mixed_end_s + READ_SETTLE_S]
    return Trend(
        _slope_per_min([(s.t, s.rss_mb) for s in half]),
        _slope_per_min([(s.t, s.vector_mb) for s in half]),
        _slope_per_min([(s.t, s.excess_mb) for s in half]),
        _slope_per_min([(s.t, s.rss_mb) for s in reads]),
        _slope_per_min([(s.t, s.excess_mb) for s in reads]),
        (reads[-1].t - reads[0].t) if len(reads) > 1 else 0.0,
    )


def _rpc_rows(stats: ClientStats) -> list[str]:
    rows = [
        "| phase | RPC | calls | calls/s | p50 ms | p99 ms | errors |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for phase, mix in ((MIXED, MIX), (READS_ONLY, READS)):
        seconds = stats.seconds.get(phase, 0.0)
        for rpc, _ in mix:
            values = stats.latencies_ms.get(phase, {}).get(rpc, [])
            if not values and not seconds:
                continue
            rpc_errors = sum(n for key, n in stats.errors.items() if key.startswith(f"{phase} {rpc} "))
            rows.append(
                f"| {phase} | {rpc} | {len(values):,} | {len(values) / max(seconds, 1e-9):,.1f} | "
                f"{_pct(values, 0.5):.2f} | {_pct(values, 0.99):.2f} | {rpc_errors} |"
            )
    return rows


def _trace(samples: list[Sample], mixed_end_s: float) -> list[str]:
    """About 16 evenly spaced samples as a table (the last sample of the mixed phase included)."""
    step = max(1, len(samples) // 14)
    chosen = {id(s): s for s in samples[::step]}
    boundary = max((s for s in samples if s.t <= mixed_end_s), key=lambda s: s.t)
    chosen.update({id(boundary): boundary, id(samples[-1]): samples[-1]})
    rows = [
        "| t s | phase | RSS MB | transcript rows | vectors | vector MB | RSS − vectors MB | pending signals |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in sorted(chosen.values(), key=lambda s: s.t):
        phase = MIXED if s.t <= mixed_end_s else READS_ONLY
        rows.append(
            f"| {s.t:.0f} | {phase} | {s.rss_mb:.0f} | {s.transcript_rows:,} | {s.vectors:,} | {s.vector_mb:.0f} | "
            f"{s.excess_mb:.0f} | {s.pending:,} |"
        )
    return rows


def _results(stats: ClientStats, samples: list[Sample], file_mb: float) -> list[BenchResult]:
    mixed_s, reads_s = stats.seconds.get(MIXED, 0.0), stats.seconds.get(READS_ONLY, 0.0)
    mixed_end_s = WARMUP_S + mixed_s
    total = stats.calls(MIXED)
    errors = sum(stats.errors.values())
    minutes = ", ".join(
        f"{stats.per_minute[m] / max(1.0, min(60.0, mixed_s + reads_s - 60 * m)):,.0f}"
        for m in sorted(stats.per_minute)
    )
    trend = _trend(samples, mixed_end_s)
    first, last = samples[0], samples[-1]
    at_switch = max((s for s in samples if s.t <= mixed_end_s), key=lambda s: s.t)
    peak_mb = max(s.rss_mb for s in samples)
    reads_line = (
        f"Reads-only phase ({reads_s:.0f} s; judged over its last {trend.reads_window_s:.0f} s, after "
        f"{READ_SETTLE_S:g} s for the writer and indexer to finish the backlog): RSS slope "
        f"**{trend.reads_rss:+.2f} MB/min**, RSS {at_switch.rss_mb:.0f} → {last.rss_mb:.0f} MB."
        if reads_s
        else "No reads-only phase (OSAURUS_BENCH_SOAK_READ_S=0)."
    )
    detail = f"""### Soak: {CLIENTS} clients, {mixed_s:.0f} s mixed then {reads_s:.0f} s reads only

memoryd (`python -m memoryd`, log level WARNING) with inferd's fake backend as peers, both subprocesses; clients in
one separate process on grpc.aio. Mixed phase, per client: {", ".join(f"{rpc} {w:.0%}" for rpc, w in MIX)}; 8 agents
(two clients each), a new conversation every 12 turns (so the writer distils continuously), questions over 8 topics.
Then the same clients send only AssembleContext and SearchMemory. First {WARMUP_S:g} s not counted. Machine:
{os.cpu_count()} cores shared by memoryd, inferd and the clients.

{chr(10).join(_rpc_rows(stats))}

Mixed phase: **{total / max(mixed_s, 1e-9):,.1f} calls/s**, **{errors} errors** over both phases
({dict(stats.errors) or "none"}). Throughput per minute (calls/s, both phases): {minutes}.

**Memory.** Every turn is kept and embedded, and the per-agent faiss indexes hold every vector in memory, so RSS
must grow with the vectors while turns arrive; anything else must level off. Sampled every {SAMPLE_EVERY_S:g} s:

{chr(10).join(_trace(samples, mixed_end_s))}

RSS {first.rss_mb:.0f} → {at_switch.rss_mb:.0f} MB over the mixed phase (peak {peak_mb:.0f} MB), while the vectors
grew to {at_switch.vector_mb:.0f} MB ({at_switch.vectors:,} vectors, {at_switch.transcript_rows:,} transcript rows;
{file_mb:.0f} MB on disk at the end). Second half of the mixed phase: RSS {trend.mixed_rss:+.2f} MB/min, vectors
{trend.mixed_vectors:+.2f} MB/min, so RSS − vectors **{trend.mixed_excess:+.2f} MB/min**. {reads_line}

Reading the trend: besides the vectors, two bounded costs grow early on. SQLite keeps a page cache per connection
(`cache_size` 4 MB, memoryd/storage/db.py; one connection per gRPC, search and writer thread, about 30), emptied on
every commit while turns arrive and kept once writes stop, which is the step at the start of the reads-only phase;
and glibc's malloc keeps some of the memory that churn frees. Both level off; a leak would keep the reads-only slope
positive."""
    results = [
        BenchResult(
            ISSUE,
            f"Soak throughput ({CLIENTS} clients, {mixed_s:.0f} s mixed)",
            f"{total / max(mixed_s, 1e-9):,.0f} calls/s",
            "—",
            detail,
        ),
        BenchResult(ISSUE, "Soak errors", str(errors), "0"),
        *(
            BenchResult(ISSUE, f"Soak {rpc} p50 / p99", f"{_pct(v, 0.5):.1f} / {_pct(v, 0.99):.1f} ms", "—")
            for rpc, _ in MIX
            if (v := stats.latencies_ms.get(MIXED, {}).get(rpc, []))
        ),
        BenchResult(
            ISSUE,
            "Soak memoryd RSS start → end of mixed phase (vectors held)",
            f"{first.rss_mb:.0f} → {at_switch.rss_mb:.0f} MB ({at_switch.vector_mb:.0f} MB)",
            "grows with the vectors only",
        ),
        BenchResult(
            ISSUE,
            "Soak RSS − vectors slope (mixed, second half)",
            f"{trend.mixed_excess:+.2f} MB/min",
            "≈ 0",
        ),
    ]
    if reads_s:
        results.append(
            BenchResult(
                ISSUE, "Soak RSS slope (reads only, settled)", f"{trend.reads_rss:+.2f} MB/min", "≈ 0"
            )
        )
    return results


if __name__ == "__main__":
    results = run()
    for result in results:
        print(f"{result.metric}: {result.value} (target {result.target})")
    print(results[0].detail)
