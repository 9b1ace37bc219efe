"""fastctx8's A/B probe (issue 17 item 4): read paths over bench_assemble's store called on the same unique cache-miss
queries in one process, each arm first on every len(arms)-th query (probe_fastctx7's balanced order: the arm that
runs second finds SQLite's pages for the query's words warm), ratios of p50 and p95 against the first arm, and the
decisions (section, placed rows) and blocks compared call by call.

Each call follows ReadPath.transcript_changed, as the served bench's calls: the assembly and query-embedding caches
miss (unique texts); entities, identity and keyword statistics stay cached as a running service keeps them. Every arm
has its own Embedder, MemorySearch and reader (make_arm, as probe_fastctx6's); one line-token counter is shared.

Arms:
- `base`: as memoryd builds it;
- `pin`: base, with inferd's threads on core 1 and this process's on core 0 for the call (os.sched_setaffinity of
  every thread of both processes, set before the call and undone after it, outside the timing); `pinm`: only this
  process on core 0 (inferd free); `pini`: only inferd on core 1 (this process free);
- `send`: the query embedding's request sent from the calling thread (the gRPC call's future) before the evidence
  pass starts, a helper thread waiting for the reply (CallerSendSearch);
- `serial`: the kinds' nearest vectors scanned one after the other on the vector side's thread (SerialScanSearch);
- `nice5`, `nice10`: the evidence pass's and keyword-side helpers' threads at that niceness (nice_helpers);

Results (base first; all calls p50 / p95 ratios, 200 cache-miss queries per arm, decisions and blocks identical
200/200 for every arm of every run; the 2-core machine shared with other helpers):
- pin: x0.95 / x0.91 (load 2.3), x0.86 / x0.78 (3.0-3.7), x0.95 / x0.91 (4.1-5.5), x0.98 / x0.90 (7.4-7.6),
  x0.90 / x0.88 (8.9-10.0), x0.85 / x0.58 (~10), x0.94 / x0.93 (8.9-9.6; placed calls alone x1.00 / x1.51 in that
  run, its one noisy tail): kept as servicekit.cpu_affinity (opt-in). It takes inferd's
  forward off memoryd's core: embedding round trip p95 18.1 -> 16.3, 24.8 -> 16.8, 20.5 -> 16.8, 21.0 -> 19.0,
  49.7 -> 36.7, 46.9 -> 25.3, 38.0 -> 31.6 ms in those runs. Over gRPC against real processes pinned by their own
  settings: probe_fastctx8_services.
- nice5 x1.04 / x1.07, nice10 x1.02 / x0.92 (load ~10, same run as pin's x0.85 / x0.58): not kept.
- pinm x0.94 / x1.00 and pini x1.07 / x1.00 (load 4.1-5.5): one side alone does not do it.
- send x0.99 / x1.39, serial x0.98 / x1.11 (load 3.0-3.7): not kept. `send` removes the request's start delay
  but the reply of a gRPC future is handled by the channel's spin thread, which must take the GIL first.
- Also tried and not kept: only inferd's query forward pinned to core 1 (the request thread's affinity set around
  the inline forward, a second inferd started with it) with memoryd on core 0: x1.48 / x1.15 (load 8.9-10.0; its
  embedding 24.1 ms p50 against 12.2 pinned whole, cause not found); the arm is gone with the change.
- `--backend postgresql`, pin (load 10.3-10.7): x0.96 / x0.94, placed x1.01 / x1.05. On PostgreSQL the keyword
  sides (statements in server processes, not pinned) end after the embedding (+5.8 / +23.8 ms); pinning cut the
  embedding's p95 26.8 -> 16.5 ms but not them.

Printed: p50/p95 per placed section and arm with ratios, mean stages (probe_fastctx8_trace: the embedding's round
trip, the keyword sides' end against it), and decisions and blocks identical against the first arm.

Run: `python -m bench.probe_fastctx8_ab [--home DIR] [--queries N] [--arms base,pin] [--backend postgresql]` (seed
DIR first with `python -m bench.probe_place_cost --home DIR --queries 1`). A probe: prints, writes no figures under
bench/results.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import numpy as np

from bench import probe_place_cost as place
from bench.assemble_corpus import AGENT, QUERY_MODEL, SEED, make_corpus, make_queries
from bench.assemble_services import percentile
from bench.bench_assemble import RealQueryVectors, TimedCounter, TimedReader, inferd_process
from bench.probe_fastctx8_trace import Event, Tracer, find_pid
from inferd.client import InferenceClient
from memoryd.read.assemble import DEFAULT_READ_BUDGET_S, ReadPath, ReadPathSettings
from memoryd.read.line_token_filler import LineTokenFiller
from memoryd.read.memory_reader import StoreMemoryReader
from memoryd.read.search import MemorySearch
from memoryd.retrieval.gate import GateMode
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.tokens import InferdTokenCounter
from memoryd.vectors.embedding import Embedder, normalise_query
from osaurus.inference.v1 import inference_pb2
from servicekit.gc_tuning import settle_heap


def set_affinity(pid: int | str, cpus: set[int]) -> None:
    """Every thread of a process on these cores (Linux affinity is per thread)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            os.sched_setaffinity(int(task.name), cpus)
        except OSError:
            continue  # the thread ended meanwhile


@contextmanager
def pinned(inferd_pid: int | None, *, mine: bool = True, theirs: bool = True) -> Iterator[None]:
    """inferd on core 1 (theirs), this process on core 0 (mine), for the duration (back on every core after)."""
    every = os.sched_getaffinity(0) | {0, 1}
    if inferd_pid is not None and theirs:
        set_affinity(inferd_pid, {1})
    if mine:
        set_affinity("self", {0})
    try:
        yield
    finally:
        if mine:
            set_affinity("self", every)
        if inferd_pid is not None and theirs:
            set_affinity(inferd_pid, every)


@dataclass
class AbArm:
    """A read path, what wraps its calls, and what its calls took."""

    name: str
    arm: place.Arm
    around: Callable[[], Any] = nullcontext
    calls: list[tuple[str, float, dict[str, float]]] = field(default_factory=list)
    decisions: list[tuple[str, tuple[str, ...], str]] = field(default_factory=list)


def stages(events: list[Event]) -> dict[str, float]:
    """The embedding's round trip and the keyword sides' end against its return (ms)."""
    out: dict[str, float] = {}
    rpc = next((e for e in events if e[0] == "embed_rpc"), None)
    if rpc is not None:
        out["embed"] = (rpc[3] - rpc[2]) * 1000
        kw_end = max((e[3] for e in events if e[0].startswith("kw_side")), default=rpc[3])
        out["kw_after"] = (kw_end - rpc[3]) * 1000
    wait = next((e for e in events if e[0] == "evidence_wait"), None)
    call = next((e for e in events if e[0] == "call"), None)
    if wait is not None and call is not None:
        out["post"] = (call[3] - wait[3]) * 1000
        out["evidence_end"] = (wait[3] - call[2]) * 1000
    return out


class CallerSendSearch(MemorySearch):
    """`send`: the query embedding's request leaves from the calling thread (the gRPC call's future), before the
    evidence pass starts; a helper thread waits for the reply and puts the vector in the Embedder's cache, then
    scans as before (_vector_rankings finds the vector cached)."""

    def _start_vector_side(
        self,
        agent_id: str,
        kinds: Sequence[str],
        query: str,
        vector_timeout_s: float | None,
        *,
        sending: threading.Event | None = None,
    ) -> Future[dict[str, Any]]:
        embedder = self._embedder
        assert isinstance(embedder, Embedder)
        model = embedder.model
        text = normalise_query(query)
        real = embedder._client
        assert isinstance(real, RealQueryVectors) and model is not None
        wait_s = (
            embedder.query_timeout_s
            if vector_timeout_s is None
            else min(vector_timeout_s, embedder.query_timeout_s)
        )
        started = time.perf_counter()
        pending = real.client._stub.Embed.future(
            inference_pb2.EmbedRequest(model=QUERY_MODEL, texts=[text]), timeout=wait_s
        )
        if sending is not None:  # the request has left (fastctx10's keywords_after_send_s)
            sending.set()

        def finish() -> dict[str, Any]:
            try:
                reply = pending.result()
                vectors = np.asarray([list(e.values) for e in reply.embeddings], dtype=np.float32)
                with embedder._lock:
                    embedder._cache[(model, text)] = np.ascontiguousarray(vectors)[0]
            except grpc.RpcError:
                pass  # _vector_rankings embeds again (and records why it failed)
            finally:
                real.ms += (time.perf_counter() - started) * 1000
            return self._vector_rankings(agent_id, kinds, query, vector_timeout_s)

        return self._pool.submit(finish)


class SerialScanSearch(MemorySearch):
    """`serial`: every kind's nearest vectors scanned one after the other on the vector side's thread (no scan-pool
    hand-off after the embedding returns)."""

    def _vector_rankings(
        self, agent_id: str, kinds: Sequence[str], query: str, timeout_s: float | None = None
    ) -> dict[str, Any]:
        if self._embedder is None or self._vectors is None or not self.settings.use_vectors:
            return {kind: (None, {}) for kind in kinds}
        if self._embedder.embed_query(query, timeout_s) is None:
            return {kind: (None, {}) for kind in kinds}
        return {kind: self._nearest(agent_id, kind, query, timeout_s) for kind in kinds}


def nice_helpers(search: MemorySearch, niceness: int) -> None:
    """`niceN`: the evidence pass's threads and the keyword-side helpers (the work beside the query embedding) at
    niceness N (CFS then gives inferd's forward the larger share of a core they compete for); vector scans and the
    calling thread unchanged."""

    def lower() -> None:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)

    search._evidence_pool.shutdown()
    search._keyword_pool.shutdown()
    search._evidence_pool = ThreadPoolExecutor(max_workers=4, initializer=lower)
    search._keyword_pool = ThreadPoolExecutor(max_workers=2, initializer=lower)


def make_arm(
    name: str,
    app: Any,
    client: InferenceClient,
    lines: LineTokenCounter,
    now_ms: int,
    search_class: type[MemorySearch],
    backend: tuple[Any, Any] | None = None,
) -> place.Arm:
    """probe_fastctx6's arm as memoryd builds it, with this search class, over the app's store and vectors or over
    `backend` (store, vector registry: the PostgreSQL twin)."""
    store, vectors = backend or (app.store, app.vectors)
    real = RealQueryVectors(client)
    embedder = Embedder(real, app.config, query_timeout_s=DEFAULT_READ_BUDGET_S)
    search = search_class(store, embedder=embedder, vectors=vectors)
    reader = TimedReader(StoreMemoryReader(store, search, lambda: now_ms, embedder))
    path = ReadPath(
        reader,
        lambda: ReadPathSettings(gate_mode=GateMode.HEURISTIC, budget_tokens=800),
        counter=TimedCounter(lines, reader.ms),
        read_budget_s=DEFAULT_READ_BUDGET_S,
    )
    return place.Arm(name, path, reader, real, search)


#: name → search class of the arm (MemorySearch when not named).
SEARCHES: dict[str, type[MemorySearch]] = {"send": CallerSendSearch, "serial": SerialScanSearch}

#: name → (memoryd arm kind for probe_fastctx6.make_arm, setup(arm, inferd pid) → context manager factory)
ARMS: dict[str, Callable[[place.Arm, int | None], Callable[[], Any]]] = {
    "base": lambda arm, pid: nullcontext,
    "pin": lambda arm, pid: lambda: pinned(pid),
    "pinm": lambda arm, pid: lambda: pinned(pid, theirs=False),
    "pini": lambda arm, pid: lambda: pinned(pid, mine=False),
    "send": lambda arm, pid: nullcontext,
    "nice5": lambda arm, pid: nullcontext,
    "nice10": lambda arm, pid: nullcontext,
    "serial": lambda arm, pid: nullcontext,
}


def call(ab: AbArm, query: str, tracer: Tracer) -> None:
    """One cache-miss assembly."""
    ab.arm.path.transcript_changed(AGENT)
    with ab.around():
        tracer.events.clear()
        started = time.perf_counter()
        assembly = ab.arm.path.assemble(AGENT, query)
        ms = (time.perf_counter() - started) * 1000
        events = list(tracer.events)
    section = assembly.section.value if assembly.placed or assembly.block else "none"
    ab.calls.append((section, ms, stages(events)))
    placed = tuple(sorted(f"{p.kind.value}:{p.id}" for p in assembly.placed))
    ab.decisions.append((assembly.section.value, placed, assembly.block))


def report(arms: list[AbArm]) -> list[str]:
    """p50/p95 per placed section with ratios against the first arm, mean stages, decisions and blocks compared."""
    lines = []
    sections = sorted({s for ab in arms for s, _, _ in ab.calls})
    for section in [*sections, "placed", "all"]:
        row = [f"{section:10s}"]
        base: tuple[float, float] | None = None
        for ab in arms:
            ms = [m for s, m, _ in ab.calls if section in ("all", s) or (section == "placed" and s != "none")]
            if not ms:
                continue
            p50, p95 = statistics.median(ms), percentile(ms, 0.95)
            ratio = "" if base is None else f" x{p50 / base[0]:.2f}/x{p95 / base[1]:.2f}"
            base = base or (p50, p95)
            row.append(f"{ab.name} n={len(ms)} {p50:.1f}/{p95:.1f}{ratio}")
        lines.append(" | ".join(row))
    for ab in arms:
        names = sorted({k for _, _, st in ab.calls for k in st})
        shown = ", ".join(
            f"{k} {statistics.median([st[k] for _, _, st in ab.calls if k in st]):.1f}"
            f"/{percentile([st[k] for _, _, st in ab.calls if k in st], 0.95):.1f}"
            for k in names
        )
        lines.append(f"  {ab.name} stages p50/p95: {shown}")
    for ab in arms[1:]:
        pairs = list(zip(arms[0].decisions, ab.decisions, strict=True))
        same = sum(a[:2] == b[:2] for a, b in pairs)
        blocks = sum(a[2] == b[2] for a, b in pairs)
        lines.append(
            f"{arms[0].name} vs {ab.name}: decisions identical {same}/{len(pairs)}, blocks identical"
            f" {blocks}/{len(pairs)}"
        )
    return lines


@contextmanager
def postgres_twin(app: Any) -> Iterator[tuple[Any, Any]]:
    """(store, vector registry) of a PostgreSQL copy of the app's store on a local server with the deployment
    settings (bench/pg_twin.py, bench/pg_server_settings.py); the server is stopped and deleted after."""
    from bench import pg_server_settings
    from bench.assemble_corpus import QUERY_MODEL
    from bench.pg_twin import pg_twin
    from tests.support.postgres import running_postgres

    with (
        running_postgres() as started,
        pg_server_settings.restarted_with(started, pg_server_settings.server_settings()) as pg,
    ):
        began = time.perf_counter()
        twin = pg_twin(app.store, pg.dsn, "fastctx8", QUERY_MODEL, 384)
        print(f"PostgreSQL twin: copy {twin.copy_s:.0f} s, vectors {twin.index_s:.0f} s", flush=True)
        print(f"  ({time.perf_counter() - began:.0f} s)", flush=True)
        try:
            yield twin.store, twin.vectors
        finally:
            twin.db.close_all()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-fastctx8"))
    parser.add_argument("--queries", type=int, default=40, help="per intended section")
    parser.add_argument("--arms", default="base,pin")
    parser.add_argument("--seed", type=int, default=31, help="added to the corpus seed for the query draw")
    parser.add_argument(
        "--backend",
        default="sqlite",
        choices=("sqlite", "postgresql"),
        help="postgresql: every arm reads a PostgreSQL copy of the store (bench/pg_twin.py, deployment settings)",
    )
    args = parser.parse_args()
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    home: Path = args.home
    store_home = home / "sqlite"
    if not (store_home / "seeded").exists():
        raise SystemExit(f"seed {home} first: python -m bench.probe_place_cost --home {home} --queries 1")
    (home / "inferd" / "inferd.port").unlink(missing_ok=True)
    with ExitStack() as stack:
        target = stack.enter_context(inferd_process(home / "inferd"))
        settings = ServiceSettings(
            listen="127.0.0.1:0", home=store_home, inferd_addr=target, background_indexing=False
        )
        app = build_app(settings)
        client = InferenceClient(target, deadline_s=300.0)
        counter_client = InferenceClient(target, deadline_s=5.0)
        lines = LineTokenCounter(InferdTokenCounter(counter_client, "fake-llm"))
        arms: list[AbArm] = []
        tracer = Tracer()
        try:
            now_ms = int((store_home / "now_ms").read_text())
            corpus = make_corpus(random.Random(SEED))
            app.vectors.build_approximate(AGENT, QUERY_MODEL)
            client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
            lines.calibration(lines.model)  # the first count loads the model (the filler never does)
            LineTokenFiller(app.store, lines).run_once()
            inferd_pid = find_pid(str(home / "inferd"))
            backend = None
            if args.backend == "postgresql":
                backend = stack.enter_context(postgres_twin(app))
            for name in args.arms.split(","):
                arm = make_arm(name, app, client, lines, now_ms, SEARCHES.get(name, MemorySearch), backend)
                if name.startswith("nice"):
                    nice_helpers(arm.search, int(name[4:]))
                arms.append(AbArm(name, arm, ARMS[name](arm, inferd_pid)))
            rng = random.Random(SEED + args.seed)
            for _, q in make_queries(corpus, rng, 3):  # warm every arm (not measured)
                for ab in arms:
                    call(ab, q, tracer)
            for ab in arms:
                ab.calls.clear()
                ab.decisions.clear()
            queries = [q for _, q in make_queries(corpus, rng, args.queries)]
            tracer.install()
            settle_heap()
            load = os.getloadavg()[0]
            for i, query in enumerate(queries):
                for ab in arms[i % len(arms) :] + arms[: i % len(arms)]:
                    call(ab, query, tracer)
            tracer.uninstall()
            print(f"{len(queries)} queries per arm, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
            for line in report(arms):
                print(line)
        finally:
            tracer.uninstall()
            for ab in arms:
                ab.arm.reader.inner.close()
                ab.arm.search.close()
            lines.close()
            client.close()
            counter_client.close()
            app.close()


if __name__ == "__main__":
    main()
