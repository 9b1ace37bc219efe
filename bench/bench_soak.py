"""Soak benchmark (issue 11): 16 clients mixing BufferTurn, AssembleContext and SearchMemory against a real memoryd
subprocess (inferd with its fake backend, also a subprocess), then a reads-only phase with the same clients.

Knobs: OSAURUS_BENCH_SOAK_S (mixed phase, default 720 s: the issue's 10 minutes plus room for a second
consolidation pass), OSAURUS_BENCH_SOAK_READ_S (reads-only phase after it, default 90 s; 0 skips it),
OSAURUS_BENCH_SOAK_SECOND_PASS (default 1: once the first scheduled consolidation pass has ended, wait
SECOND_PASS_GAP_S and run a second one through RunConsolidation, to see whether the memory the first pass left
behind is reused; 0 = off). The first pass starts 300 s after memoryd does and takes ~110 s here.

Reports throughput, p50/p99 per RPC and phase, errors (target 0), throughput per minute, and a memory trend that
separates data growth from leaks. Every 5 s the bench samples memoryd's RSS and open SQLite connections beside what
the store holds: transcript rows, stored vectors and the distillation backlog. Every vector stays in memory in the
per-agent faiss indexes, so RSS must grow with them: the bytes per vector are derived at the end from memoryd's real
index files (fp16 codes + 8-byte id, `AgentIndex.memory_bytes`) plus the measured id-lookup structures
(ID_LOOKUP_BYTES). It reports the slope of RSS − vector bytes (the "excess", which must level off) over the second
half of the mixed phase and over each third of it, and the RSS slope in the reads-only phase after it settled.
Clients run in one separate process on grpc.aio, one channel each. For a breakdown of the excess run memoryd with
OSAURUS_MEMORYD_MEMTRACE=PATH (memoryd/runtime/memtrace.py); the variable passes through to the memoryd subprocess.
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
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from bench.report import BenchResult
from memoryd.storage.db import PRAGMAS
from memoryd.vectors.agent_index import AgentIndex
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from tests.support.procs import ServiceProcess, spawn

ISSUE = 11
DURATION_S = float(os.environ.get("OSAURUS_BENCH_SOAK_S", "720"))
READ_S = float(os.environ.get("OSAURUS_BENCH_SOAK_READ_S", "90"))
CLIENTS = 16
WARMUP_S = 5.0
SAMPLE_EVERY_S = 5.0
#: The reads-only phase is judged after this long (the writer and the indexer finish the mixed phase's backlog).
READ_SETTLE_S = 30.0
SECOND_PASS = os.environ.get("OSAURUS_BENCH_SOAK_SECOND_PASS", "1") != "0"
#: Seconds between the end of the first consolidation pass and the RunConsolidation call of the second.
SECOND_PASS_GAP_S = 20.0
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

#: Bytes per vector that memoryd keeps for id lookups besides the index's own 8-byte id: IndexIDMap2's reverse hash
#: map (~37 B) and AgentIndex's Python set of held ids (~116 B), measured in a separate process at 8 agents x 25k
#: ids added in batches of 16 (RSS and tracemalloc deltas). They grow with the vectors, like the codes.
ID_LOOKUP_BYTES = 153
#: SQLite's page cache per connection, in bytes (memoryd.storage.db: a negative cache_size is KiB).
CACHE_BYTES_PER_CONNECTION = -int(PRAGMAS["cache_size"]) * 1024


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _connections(pid: int, db: Path) -> int:
    """Open SQLite connections of memoryd to the store (descriptors on the main database file)."""
    target, count = str(db), 0
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                count += os.readlink(fd) == target
            except OSError:
                continue
    except OSError:
        return 0
    return count


@dataclass(frozen=True)
class Sample:
    """One 5 s sample: seconds since the clients started, memoryd's RSS and SQLite connections, and what the store
    held then."""

    t: float
    rss_mb: float
    transcript_rows: int
    vectors: int
    pending: int
    connections: int


@dataclass(frozen=True)
class VectorCost:
    """Resident bytes per stored vector, derived from memoryd's real index files at the end of the run."""

    code_bytes: int
    id_bytes: int
    lookup_bytes: int
    dimension: int
    indexed: int

    @property
    def per_vector(self) -> int:
        return self.code_bytes + self.id_bytes + self.lookup_bytes

    def mb(self, vectors: int) -> float:
        return vectors * self.per_vector / 2**20

    def excess_mb(self, sample: Sample) -> float:
        """RSS beyond what the vectors need (the data footprint that grows with the store)."""
        return sample.rss_mb - self.mb(sample.vectors)


def _vector_cost(vectors_dir: Path) -> VectorCost:
    """Code size and id bytes of the saved per-agent indexes (memoryd flushes them on SIGTERM)."""
    code = dimension = indexed = 0
    for folder in sorted(p for p in vectors_dir.iterdir() if p.is_dir()) if vectors_dir.is_dir() else []:
        index = AgentIndex.load(folder)
        if index is None or not index.count:
            continue
        indexed += index.count
        code = index.memory_bytes() // index.count - 8
        dimension = index.dimension
    if not indexed:
        raise RuntimeError("no saved vector index to derive the vector footprint from")
    return VectorCost(code, 8, ID_LOOKUP_BYTES, dimension, indexed)


@dataclass(frozen=True)
class PassWindow:
    """When a consolidation pass ran (seconds since the clients started)."""

    start_t: float
    end_t: float


class StoreProbe:
    """Read-only counts from memoryd's database while it runs (WAL readers never block the writer)."""

    def __init__(self, db: Path, pid: int) -> None:
        self._db = db
        self._pid = pid
        self._connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, check_same_thread=False)

    def sample(self, t: float) -> Sample:
        c = self._connection
        rows = int(c.execute("SELECT coalesce(max(id), 0) FROM transcript").fetchone()[0])
        vectors = int(c.execute("SELECT count(*) FROM embeddings").fetchone()[0])
        pending = int(
            c.execute("SELECT count(*) FROM pending_signals WHERE status = 'pending'").fetchone()[0]
        )
        # The probe's own read-only connection is not memoryd's: only memoryd's descriptors are counted.
        return Sample(t, _rss_mb(self._pid), rows, vectors, pending, _connections(self._pid, self._db))

    def passes(self, wall_start_s: float) -> list[PassWindow]:
        """The consolidation passes memoryd ran, as seconds since the clients started."""
        rows = self._connection.execute(
            "SELECT created_at_ms, duration_ms FROM processing_log WHERE task_type = 'consolidate' ORDER BY id"
        ).fetchall()
        return [
            PassWindow((int(end) - int(took)) / 1000 - wall_start_s, int(end) / 1000 - wall_start_s)
            for end, took in rows
        ]

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


def _second_pass(target: str, db: Path, wall_start_s: float, stop: threading.Event) -> None:
    """Once the first consolidation pass has ended, wait SECOND_PASS_GAP_S and run another through the RPC."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        while not stop.wait(SAMPLE_EVERY_S):
            done = connection.execute(
                "SELECT count(*) FROM processing_log WHERE task_type = 'consolidate' AND created_at_ms > ?",
                (int(wall_start_s * 1000),),
            ).fetchone()[0]
            if done:
                break
    finally:
        connection.close()
    if stop.wait(SECOND_PASS_GAP_S):
        return
    with grpc.insecure_channel(target) as channel:
        try:
            pb_grpc.MemoryServiceStub(channel).RunConsolidation(pb.RunConsolidationRequest(), timeout=900)
        except grpc.RpcError as error:  # reported: the report then says no second pass ended in time
            print(f"bench_soak: the second consolidation pass failed: {error.code()}", flush=True)


def run() -> list[BenchResult]:
    """Start the stack, soak it, stop it; the headline results with a markdown detail section."""
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        home = Path(tmp)
        inferd, memoryd = _start_stack(home)
        db = home / "memory" / "memory.sqlite"
        probe = StoreProbe(db, memoryd.process.pid)
        try:
            context = mp.get_context("spawn")
            queue = context.Queue()
            clients = context.Process(target=_child, args=(memoryd.target, DURATION_S, READ_S, queue))
            started, wall_start = time.monotonic(), time.time()
            clients.start()
            stop_trigger = threading.Event()
            if SECOND_PASS:
                threading.Thread(
                    target=_second_pass, args=(memoryd.target, db, wall_start, stop_trigger), daemon=True
                ).start()
            samples = [probe.sample(0.0)]
            while clients.is_alive() and queue.empty():
                time.sleep(SAMPLE_EVERY_S)
                if memoryd.process.poll() is not None:
                    raise RuntimeError(f"memoryd died during the soak:\n{memoryd.log()[-2000:]}")
                samples.append(probe.sample(time.monotonic() - started))
            stats: ClientStats = queue.get(timeout=DURATION_S + READ_S + 300)
            clients.join(30)
            samples.append(probe.sample(time.monotonic() - started))
            passes = probe.passes(wall_start)
        finally:
            stop_trigger.set()
            probe.close()
            memoryd.stop(signal.SIGTERM)
            inferd.stop(signal.SIGTERM)
        file_mb = _file_mb(db)
        cost = _vector_cost(home / "memory" / "vectors")
    return _results(stats, samples, file_mb, cost, passes)


@dataclass(frozen=True)
class Trend:
    """The memory verdict: excess slopes (MB/min) over the mixed phase (second half, and each third) and the RSS
    slope of the settled reads-only phase; mean excess per third shows whether it levels off."""

    mixed_rss: float
    mixed_vectors: float
    mixed_excess: float
    thirds_excess: tuple[float, float, float]
    thirds_mean: tuple[float, float, float]
    reads_rss: float
    reads_window_s: float
    around_pass: AroundPass | None = None
    second_pass: AroundPass | None = None


@dataclass(frozen=True)
class AroundPass:
    """The excess across the first consolidation pass of the mixed phase: means over the minute before it starts and
    the minute after it ends, and the slopes before it (from a third of the phase) and after it (to the end)."""

    window: PassWindow
    before_mb: float
    after_mb: float
    slope_before: float
    slope_after: float
    after_s: float


def _around_pass(
    samples: list[Sample], mixed_end_s: float, cost: VectorCost, passes: list[PassWindow], which: int = 0
) -> AroundPass | None:
    """The excess around pass number `which` (0: the first) of those inside the mixed phase with a minute after."""
    inside = [p for p in passes if p.start_t > 0 and p.end_t < mixed_end_s - 60]
    if len(inside) <= which:
        return None
    window = inside[which]
    mixed = [s for s in samples if s.t <= mixed_end_s]
    since = inside[which - 1].end_t + SAMPLE_EVERY_S if which else mixed_end_s / 3
    before = [s for s in mixed if since <= s.t < window.start_t]
    ends = inside[which + 1].start_t if len(inside) > which + 1 else mixed_end_s
    after = [s for s in mixed if window.end_t + SAMPLE_EVERY_S < s.t < ends]
    last_minute = [s for s in before if s.t >= window.start_t - 60]
    first_minute = [s for s in after if s.t <= window.end_t + 60 + SAMPLE_EVERY_S]

    def mean(part: list[Sample]) -> float:
        return sum(cost.excess_mb(s) for s in part) / len(part) if part else float("nan")

    return AroundPass(
        window,
        mean(last_minute),
        mean(first_minute),
        _slope_per_min([(s.t, cost.excess_mb(s)) for s in before]),
        _slope_per_min([(s.t, cost.excess_mb(s)) for s in after]),
        (after[-1].t - after[0].t) if len(after) > 1 else 0.0,
    )


def _trend(
    samples: list[Sample], mixed_end_s: float, cost: VectorCost, passes: list[PassWindow] | None = None
) -> Trend:
    mixed = [s for s in samples if s.t <= mixed_end_s]
    half = [s for s in mixed if s.t >= mixed_end_s / 2]
    reads = [s for s in samples if s.t >= mixed_end_s + READ_SETTLE_S]
    thirds = [[s for s in mixed if k * mixed_end_s / 3 <= s.t <= (k + 1) * mixed_end_s / 3] for k in range(3)]
    slope3 = [_slope_per_min([(s.t, cost.excess_mb(s)) for s in part]) for part in thirds]
    mean3 = [sum(cost.excess_mb(s) for s in part) / max(1, len(part)) for part in thirds]
    return Trend(
        _slope_per_min([(s.t, s.rss_mb) for s in half]),
        _slope_per_min([(s.t, cost.mb(s.vectors)) for s in half]),
        _slope_per_min([(s.t, cost.excess_mb(s)) for s in half]),
        (slope3[0], slope3[1], slope3[2]),
        (mean3[0], mean3[1], mean3[2]),
        _slope_per_min([(s.t, s.rss_mb) for s in reads]),
        (reads[-1].t - reads[0].t) if len(reads) > 1 else 0.0,
        _around_pass(samples, mixed_end_s, cost, passes or []),
        _around_pass(samples, mixed_end_s, cost, passes or [], which=1),
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


def _trace(samples: list[Sample], mixed_end_s: float, cost: VectorCost) -> list[str]:
    """About 16 evenly spaced samples as a table (the last sample of the mixed phase included)."""
    step = max(1, len(samples) // 14)
    chosen = {id(s): s for s in samples[::step]}
    boundary = max((s for s in samples if s.t <= mixed_end_s), key=lambda s: s.t)
    chosen.update({id(boundary): boundary, id(samples[-1]): samples[-1]})
    rows = [
        "| t s | phase | RSS MB | transcript rows | vectors | vector MB | RSS − vectors MB | SQLite connections "
        "| pending signals |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in sorted(chosen.values(), key=lambda s: s.t):
        phase = MIXED if s.t <= mixed_end_s else READS_ONLY
        rows.append(
            f"| {s.t:.0f} | {phase} | {s.rss_mb:.0f} | {s.transcript_rows:,} | {s.vectors:,} | "
            f"{cost.mb(s.vectors):.0f} | {cost.excess_mb(s):.0f} | {s.connections} | {s.pending:,} |"
        )
    return rows


def _second_pass_line(trend: Trend) -> str:
    first, second = trend.around_pass, trend.second_pass
    if first is None:
        return ""
    if second is None:
        return "No second consolidation pass ended inside the mixed phase with a minute to spare" + (
            " (OSAURUS_BENCH_SOAK_SECOND_PASS=0)." if not SECOND_PASS else "; give the mixed phase more time."
        )
    w = second.window
    return (
        f"A second pass (RunConsolidation, {SECOND_PASS_GAP_S:g} s after the first ended) ran at t = "
        f"{w.start_t:.0f}–{w.end_t:.0f} s: RSS − vectors {second.before_mb:.0f} → {second.after_mb:.0f} MB, **a step of "
        f"{second.after_mb - second.before_mb:+.0f} MB against {first.after_mb - first.before_mb:+.0f} MB for the first "
        f"pass**; slope after it {second.slope_after:+.2f} MB/min (over {second.after_s:.0f} s)."
    )


def _pass_line(trend: Trend) -> str:
    around = trend.around_pass
    if around is None:
        return "No consolidation pass ran inside the mixed phase."
    w = around.window
    return (
        f"The first scheduled consolidation pass ran at t = {w.start_t:.0f}–{w.end_t:.0f} s: RSS − vectors "
        f"{around.before_mb:.0f} MB over the minute before it → {around.after_mb:.0f} MB over the minute after it; "
        f"slope before it (from a third of the phase) {around.slope_before:+.2f} MB/min, **after it "
        f"{around.slope_after:+.2f} MB/min** (over {around.after_s:.0f} s)."
    )


def _memory_text(
    samples: list[Sample], mixed_end_s: float, cost: VectorCost, trend: Trend, file_mb: float
) -> str:
    """The memory section: how vectors are counted, the trace, the slopes, and what the rest is."""
    first, last = samples[0], samples[-1]
    at_switch = max((s for s in samples if s.t <= mixed_end_s), key=lambda s: s.t)
    peak_mb = max(s.rss_mb for s in samples)
    connections = max(s.connections for s in samples)
    cache_mb = connections * CACHE_BYTES_PER_CONNECTION / 2**20
    one_agent_mb = at_switch.vectors / 8 * cost.code_bytes / 2**20
    reads = [s for s in samples if s.t > mixed_end_s]
    reads_line = (
        f"Reads-only phase (judged over its last {trend.reads_window_s:.0f} s, after {READ_SETTLE_S:g} s for the "
        f"writer and indexer to finish the backlog): RSS slope **{trend.reads_rss:+.2f} MB/min**, RSS "
        f"{at_switch.rss_mb:.0f} → {last.rss_mb:.0f} MB."
        if reads
        else "No reads-only phase (OSAURUS_BENCH_SOAK_READ_S=0)."
    )
    thirds = ", ".join(
        f"{name} {slope:+.1f} MB/min (mean {mean:.0f} MB)"
        for name, slope, mean in zip(
            ("first", "middle", "last"), trend.thirds_excess, trend.thirds_mean, strict=True
        )
    )
    return f"""**Memory.** Every turn is kept and embedded, and the per-agent faiss indexes hold every vector in memory, so RSS
must grow with the vectors while turns arrive; anything else must level off. *Vector MB* is what memoryd keeps per
stored vector, derived at the end of the run from its real index files (memoryd/vectors: IndexIDMap2 over an fp16
IndexScalarQuantizer, format 2; {cost.indexed:,} vectors of {cost.dimension} dimensions): {cost.code_bytes} B of
codes + {cost.id_bytes} B of id (`AgentIndex.memory_bytes`), plus {cost.lookup_bytes} B of id lookups (IndexIDMap2's
reverse hash map ~37 B and AgentIndex's set of held ids ~116 B, measured apart at 8 agents × 25k ids) =
**{cost.per_vector} B per vector**; the fp32 blobs of the embeddings table (4 B per dimension) stay on disk. faiss's
code and id vectors grow by doubling, so up to half their capacity is spare, but spare capacity is never written and
so not resident (the code vectors, above the mmap threshold, each have their own mapping); a reallocation briefly
holds one agent's old and new codes (≤ {one_agent_mb:.0f} MB here). Sampled every {SAMPLE_EVERY_S:g} s:

{chr(10).join(_trace(samples, mixed_end_s, cost))}

RSS {first.rss_mb:.0f} → {at_switch.rss_mb:.0f} MB over the mixed phase (peak {peak_mb:.0f} MB), while the vectors
grew to {cost.mb(at_switch.vectors):.0f} MB ({at_switch.vectors:,} vectors, {at_switch.transcript_rows:,} transcript
rows; {file_mb:.0f} MB on disk at the end). Second half of the mixed phase: RSS {trend.mixed_rss:+.2f} MB/min, vectors
{trend.mixed_vectors:+.2f} MB/min, so RSS − vectors **{trend.mixed_excess:+.2f} MB/min**. By third of the mixed
phase: {thirds}. {_pass_line(trend)} {_second_pass_line(trend)} {reads_line}

What the rest is, and its ceiling (split in debug runs with `OSAURUS_MEMORYD_MEMTRACE`, memoryd/runtime/memtrace.py: RSS by
anon/file, glibc's mallinfo2, `sqlite3_memory_used`, faiss bytes, tracemalloc sites):
- **Code and start-up**: ~90 MB before the first call, ~50 MB of it shared libraries (faiss, numpy, grpc).
- **SQLite page caches**: `cache_size` {CACHE_BYTES_PER_CONNECTION // 1024:,} KiB per connection
  (memoryd/storage/db.py), one connection per thread that touched the store: {connections} here, so at most
  **{cache_mb:.0f} MB**. While turns arrive every commit invalidates the other connections' caches and SQLite held
  30–45 MB; once writes stop they fill to the ceiling (~135 MB measured), which is the step at the start of the
  reads-only phase.
- **Python caches**, all LRU or cleared when full: stems 131,072 tokens (~29 MB at ~230 B), term counts 8,192 texts
  (~7 MB for soak-sized rows, ~50 MB for 4 KB rows), shingle keys 8,192 texts (4–12 MB), token counts 8,192, entity
  names 16,384, query embeddings 1,024 (1.5 MB), assemblies 2 × 256 (10 s TTL), keyword document frequencies
  200,000 terms (~56 MB, cleared when full). Python's traced heap stayed at 10–13 MB in a traced soak (the soak's
  texts are short and repetitive). The shingle-set cache that duplicated the shingle keys (~100 MB at 8,192 texts
  of ~12 KB) is gone.
- **glibc's free lists**: freed memory stays in malloc's arenas for reuse. memoryd fixes glibc's mmap threshold at
  256 KiB and keeps 2 arenas (memoryd/runtime/malloc_tuning.py; glibc's dynamic threshold had climbed to the size of the
  faiss code vectors, tens of MB, and 30+ threads had up to 16 arenas): at ~95k vectors in 240 s debug soaks the
  arenas held 157 MB by default and 93 MB tuned, their free part 84 → 25 MB, flat after the first minute.
- **Consolidation**: the first scheduled pass runs 5 minutes after start (then every `consolidationIntervalHours`,
  so once per soak). Its working set (every agent's episode features, vectors and duplicate candidates) raises RSS
  by ~100–150 MB at ~100k rows while it runs; afterwards malloc's in-use memory is back to its level before the
  pass, but ~70 MB of what it freed stays resident in malloc's free lists (three 420 s debug soaks: +70, +72 and
  +74 MB; a `malloc_trim` after the pass did not release it). That step shows in the table; the slope after the
  pass is the levelling figure. Whether the next pass reuses that memory was not observed (one pass per soak).

A leak shows as a steady excess slope in every third and after the pass, and a positive reads-only slope; growth
with the data alone shows as a flat excess."""


def _results(
    stats: ClientStats,
    samples: list[Sample],
    file_mb: float,
    cost: VectorCost,
    passes: list[PassWindow] | None = None,
) -> list[BenchResult]:
    mixed_s, reads_s = stats.seconds.get(MIXED, 0.0), stats.seconds.get(READS_ONLY, 0.0)
    mixed_end_s = WARMUP_S + mixed_s
    total = stats.calls(MIXED)
    errors = sum(stats.errors.values())
    minutes = ", ".join(
        f"{stats.per_minute[m] / max(1.0, min(60.0, mixed_s + reads_s - 60 * m)):,.0f}"
        for m in sorted(stats.per_minute)
    )
    trend = _trend(samples, mixed_end_s, cost, passes)
    first = samples[0]
    at_switch = max((s for s in samples if s.t <= mixed_end_s), key=lambda s: s.t)
    detail = f"""### Soak: {CLIENTS} clients, {mixed_s:.0f} s mixed then {reads_s:.0f} s reads only

memoryd (`python -m memoryd`, log level WARNING) with inferd's fake backend as peers, both subprocesses; clients in
one separate process on grpc.aio. Mixed phase, per client: {", ".join(f"{rpc} {w:.0%}" for rpc, w in MIX)}; 8 agents
(two clients each), a new conversation every 12 turns (so the writer distils continuously), questions over 8 topics.
Then the same clients send only AssembleContext and SearchMemory. First {WARMUP_S:g} s not counted. Machine:
{os.cpu_count()} cores shared by memoryd, inferd and the clients.

{chr(10).join(_rpc_rows(stats))}

Mixed phase: **{total / max(mixed_s, 1e-9):,.1f} calls/s**, **{errors} errors** over both phases
({dict(stats.errors) or "none"}). Throughput per minute (calls/s, both phases): {minutes}.

{_memory_text(samples, mixed_end_s, cost, trend, file_mb)}"""
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
            f"Soak memoryd RSS start → end of mixed phase (vectors held, {cost.per_vector} B each)",
            f"{first.rss_mb:.0f} → {at_switch.rss_mb:.0f} MB ({cost.mb(at_switch.vectors):.0f} MB)",
            "grows with the vectors only",
        ),
        BenchResult(
            ISSUE,
            "Soak RSS − vectors slope (mixed, second half)",
            f"{trend.mixed_excess:+.2f} MB/min",
            "≈ 0",
        ),
        BenchResult(
            ISSUE,
            "Soak RSS − vectors slope (mixed, first → last third)",
            f"{trend.thirds_excess[0]:+.1f} → {trend.thirds_excess[2]:+.1f} MB/min",
            "levels off",
        ),
    ]
    last_pass = trend.second_pass or trend.around_pass
    if last_pass is not None:
        results.append(
            BenchResult(
                ISSUE,
                "Soak RSS − vectors slope after the last consolidation pass (to the end of the mixed phase)",
                f"{last_pass.slope_after:+.2f} MB/min ({last_pass.after_s:.0f} s)",
                "≈ 0",
            )
        )
    if trend.around_pass is not None and trend.second_pass is not None:
        first_step = trend.around_pass.after_mb - trend.around_pass.before_mb
        second_step = trend.second_pass.after_mb - trend.second_pass.before_mb
        results.append(
            BenchResult(
                ISSUE,
                "Soak RSS − vectors step across a second consolidation pass (first pass's step)",
                f"{second_step:+.0f} MB ({first_step:+.0f} MB)",
                "≈ 0: the first pass's memory is reused",
            )
        )
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
