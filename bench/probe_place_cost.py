"""What placing a section costs on SQLite (issue 17 item 4, fastctx4): two read paths over bench_assemble's store,
called on the same cache-miss queries, interleaved in one process (which arm goes first alternates).

Each arm has its own Embedder and MemorySearch (their caches never serve the other arm) and its own reader, wrapped
in bench_assemble's TimedReader / TimedCounter, so a call's stages (evidence, search of the placed section, bump,
CountTokens) and the rest (the gate and planner's Python) are reported per placed section. The arms:
- `sync` / `deferred`: the pinned-usage bump written on the request path, or counted and written by the flusher.

Run: `python -m bench.probe_place_cost [--home DIR] [--queries N] [--arms sync,deferred]` (a store already seeded in
DIR is reused). A probe: prints its tables, writes no figures under bench/results; nothing here is tuned on.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.assemble_corpus import AGENT, QUERY_MODEL, SEED, make_corpus, make_queries, seed, write_config
from bench.assemble_services import percentile
from bench.bench_assemble import RealQueryVectors, TimedCounter, TimedReader, inferd_process
from inferd.client import InferenceClient
from memoryd.read.assemble import DEFAULT_READ_BUDGET_S, ReadPath, ReadPathSettings
from memoryd.read.memory_reader import StoreMemoryReader
from memoryd.read.search import MemorySearch
from memoryd.retrieval.gate import GateMode
from memoryd.retrieval.tokens import InferdTokenCounter
from memoryd.vectors.embedding import Embedder
from servicekit.gc_tuning import settle_heap


@dataclass
class Arm:
    """One read path and what its calls took."""

    name: str
    path: ReadPath
    reader: TimedReader
    real: RealQueryVectors
    search: MemorySearch
    calls: list[tuple[str, float, dict[str, float]]] = field(default_factory=list)
    decisions: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)


def make_arm(
    name: str, app: object, client: InferenceClient, counter_client: InferenceClient, now_ms: int
) -> Arm:
    """A read path as memoryd builds it, the bump written on the request path (`sync`) or deferred."""
    store = app.store  # type: ignore[attr-defined]
    real = RealQueryVectors(client)
    embedder = Embedder(real, app.config, query_timeout_s=DEFAULT_READ_BUDGET_S)  # type: ignore[attr-defined]
    search = MemorySearch(store, embedder=embedder, vectors=app.vectors)  # type: ignore[attr-defined]
    inner = StoreMemoryReader(store, search, lambda: now_ms, embedder, deferred_usage=name != "sync")
    reader = TimedReader(inner)
    path = ReadPath(
        reader,
        lambda: ReadPathSettings(gate_mode=GateMode.HEURISTIC, budget_tokens=800),
        counter=TimedCounter(InferdTokenCounter(counter_client, "fake-llm"), reader.ms),
        read_budget_s=DEFAULT_READ_BUDGET_S,
    )
    return Arm(name, path, reader, real, search)


def call(arm: Arm, query: str) -> None:
    """One cache-miss assembly, its stages recorded."""
    arm.path.invalidate(AGENT)
    arm.reader.ms.clear()
    arm.real.ms = 0.0
    started = time.perf_counter()
    assembly = arm.path.assemble(AGENT, query)
    ms = (time.perf_counter() - started) * 1000
    arm.calls.append(
        (assembly.section.value if assembly.placed or assembly.block else "none", ms, dict(arm.reader.ms))
    )
    arm.decisions.append(
        (assembly.section.value, tuple(sorted(f"{p.kind.value}:{p.id}" for p in assembly.placed)))
    )


def table(arms: list[Arm]) -> list[str]:
    """p50 / p95 per placed section and arm, the ratio against the first arm, and mean stages."""
    lines = []
    sections = sorted({s for arm in arms for s, _, _ in arm.calls})
    for section in [*sections, "all"]:
        row = [f"{section:10s}"]
        base: tuple[float, float] | None = None
        for arm in arms:
            ms = [m for s, m, _ in arm.calls if section in ("all", s)]
            if not ms:
                continue
            p50, p95 = statistics.median(ms), percentile(ms, 0.95)
            ratio = "" if base is None else f" x{p50 / base[0]:.2f}/x{p95 / base[1]:.2f}"
            base = base or (p50, p95)
            row.append(f"{arm.name} n={len(ms)} {p50:.1f}/{p95:.1f}{ratio}")
        lines.append(" | ".join(row))
    for arm in arms:
        for section in sections:
            picked = [(m, st) for s, m, st in arm.calls if s == section]
            stages = sorted({k for _, st in picked for k in st})
            means = {k: statistics.fmean(st.get(k, 0.0) for _, st in picked) for k in stages}
            rest = statistics.fmean(m for m, _ in picked) - sum(means.values())
            shown = ", ".join(f"{k} {v:.1f}" for k, v in means.items())
            lines.append(
                f"  {arm.name} {section}: mean {statistics.fmean(m for m, _ in picked):.1f} = {shown}, rest {rest:.1f}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-place-cost"))
    parser.add_argument("--queries", type=int, default=30, help="per intended section")
    parser.add_argument("--arms", default="sync,deferred")
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    home: Path = args.home
    store_home = home / "sqlite"
    is_seeded = (store_home / "seeded").exists()
    store_home.mkdir(parents=True, exist_ok=True)
    now_path = store_home / "now_ms"
    with inferd_process(home / "inferd") as target:
        if not is_seeded:
            write_config(store_home)
        settings = ServiceSettings(
            listen="127.0.0.1:0", home=store_home, inferd_addr=target, background_indexing=False
        )
        app = build_app(settings)
        client = InferenceClient(target, deadline_s=300.0)
        counter_client = InferenceClient(target, deadline_s=5.0)
        arms: list[Arm] = []
        try:
            if is_seeded:
                now_ms = int(now_path.read_text())
                corpus = make_corpus(random.Random(SEED))
            else:
                now_ms = int(time.time() * 1000)
                started = time.perf_counter()
                corpus, _ = seed(app, client, app.vectors, args.scale, now_ms)
                now_path.write_text(str(now_ms))
                (store_home / "seeded").write_text("1")
                print(f"seeded in {time.perf_counter() - started:.0f} s", flush=True)
            app.vectors.build_approximate(AGENT, QUERY_MODEL)
            client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
            arms = [make_arm(name, app, client, counter_client, now_ms) for name in args.arms.split(",")]
            rng = random.Random(SEED + 7)
            for _, q in make_queries(corpus, rng, 3):  # warm every arm (not measured)
                for arm in arms:
                    call(arm, q)
            for arm in arms:
                arm.calls.clear()
                arm.decisions.clear()
            queries = [q for _, q in make_queries(corpus, rng, args.queries)]
            settle_heap()
            load = os.getloadavg()[0]
            for i, query in enumerate(queries):
                order: list[Arm] = arms if i % 2 == 0 else arms[::-1]
                for arm in order:
                    call(arm, query)
            print(f"{len(queries)} queries per arm, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
            for line in table(arms):
                print(line)
            same = sum(a == b for a, b in zip(arms[0].decisions, arms[-1].decisions, strict=True))
            print(f"decisions identical between {arms[0].name} and {arms[-1].name}: {same}/{len(queries)}")
        finally:
            for arm in arms:
                arm.reader.inner.close()
                arm.search.close()
            client.close()
            counter_client.close()
            app.close()


if __name__ == "__main__":
    main()
