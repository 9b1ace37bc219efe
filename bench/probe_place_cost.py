"""What placing a section costs on SQLite (issue 17 item 4, fastctx4): two read paths over bench_assemble's store,
called on the same cache-miss queries, interleaved in one process (which arm goes first alternates).

Each arm has its own Embedder and MemorySearch (their caches never serve the other arm) and its own reader, wrapped
in bench_assemble's TimedReader / TimedCounter, so a call's stages (evidence, search of the placed section, bump,
CountTokens) and the rest (the gate and planner's Python) are reported per placed section. The arms:
- `sync`: main before fastctx4: the pinned-usage bump written on the request path, and the placed section's search
  measures its evidence again and reads the nearest rows again;
- `deferred`: the bump counted and written by the flusher (pinned_usage.py), the search as in `sync`;
- `new`: deferred, and the search reuses the evidence pass's evidence and nearest rows;
- `turn`: as `new`, the cache miss made as a buffered turn makes it (ReadPath.transcript_changed: the agent's
  entities and identity stay cached) instead of ReadPath.invalidate (every arm above: read again on every call).

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
    decisions: list[tuple[str, tuple[str, ...], bool]] = field(default_factory=list)


def make_arm(
    name: str, app: object, client: InferenceClient, counter_client: InferenceClient, now_ms: int
) -> Arm:
    """A read path as memoryd builds it, the bump written on the request path (`sync`) or deferred."""
    store = app.store  # type: ignore[attr-defined]
    real = RealQueryVectors(client)
    embedder = Embedder(real, app.config, query_timeout_s=DEFAULT_READ_BUDGET_S)  # type: ignore[attr-defined]
    kind = MemorySearch if name in ("new", "turn") else _MeasuringAgain
    search = kind(store, embedder=embedder, vectors=app.vectors)  # type: ignore[attr-defined]
    inner = StoreMemoryReader(store, search, lambda: now_ms, embedder, deferred_usage=name != "sync")
    reader = TimedReader(inner)
    path = ReadPath(
        reader,
        lambda: ReadPathSettings(gate_mode=GateMode.HEURISTIC, budget_tokens=800),
        counter=TimedCounter(InferdTokenCounter(counter_client, "fake-llm"), reader.ms),
        read_budget_s=DEFAULT_READ_BUDGET_S,
    )
    return Arm(name, path, reader, real, search)


class _MeasuringAgain(MemorySearch):
    """The search before fastctx4: the placed section's search never finds the evidence pass's measurement."""

    def _remember_evidence(self, *args: object) -> None:
        return None


def call(arm: Arm, query: str) -> None:
    """One cache-miss assembly, its stages recorded."""
    if arm.name == "turn":
        arm.path.transcript_changed(AGENT)
    else:
        arm.path.invalidate(AGENT)
    arm.reader.ms.clear()
    arm.real.ms = 0.0
    started = time.perf_counter()
    assembly = arm.path.assemble(AGENT, query)
    ms = (time.perf_counter() - started) * 1000
    arm.calls.append(
        (assembly.section.value if assembly.placed or assembly.block else "none", ms, dict(arm.reader.ms))
    )
    placed = tuple(sorted(f"{p.kind.value}:{p.id}" for p in assembly.placed))
    arm.decisions.append((assembly.section.value, placed, "fts_only" in assembly.reason))


def table(arms: list[Arm]) -> list[str]:
    """p50 / p95 per placed section and arm, the ratio against the first arm, and mean stages."""
    lines = []
    sections = sorted({s for arm in arms for s, _, _ in arm.calls})
    for section in [*sections, "placed", "all"]:
        row = [f"{section:10s}"]
        base: tuple[float, float] | None = None
        for arm in arms:
            ms = [
                m for s, m, _ in arm.calls if section in ("all", s) or (section == "placed" and s != "none")
            ]
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


def profile(arm: Arm, queries: list[str]) -> None:
    """cProfile of the calling thread over these assemblies (helper threads' work shows as the wait for it)."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    for query in queries:
        arm.path.invalidate(AGENT)
        profiler.enable()
        arm.path.assemble(AGENT, query)
        profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(
        r"planner|search\.py|mmr|hybrid|blocks|tokens|rows\.py|memory_reader|turn_neighbours|context_prior|fts"
    )
    stats.sort_stats("tottime").print_stats(30)


def search_only(arms: list[Arm], queries: list[str], budget: int = 800) -> list[str]:
    """The placed section's search alone, after the evidence pass (as the read path calls it), per kind and arm:
    interleaved on the same queries, the query vector already in each arm's cache (no embedding wait)."""
    from memoryd.read.memory_reader import _KIND
    from memoryd.retrieval.gate_features import SEARCHED
    from memoryd.retrieval.planner import fetch_limit

    spent: dict[tuple[str, str], list[float]] = {}
    for i, query in enumerate(queries):
        for section in SEARCHED:
            rotated = arms[i % len(arms) :] + arms[: i % len(arms)]
            for arm in rotated:
                kinds = [_KIND[s] for s in SEARCHED]
                arm.search.evidence_many(AGENT, kinds, query, vector_timeout_s=5.0)
                started = time.perf_counter()
                arm.search.search_with_evidence(
                    AGENT, _KIND[section], query, fetch_limit(section, budget), vector_timeout_s=5.0
                )
                ms = (time.perf_counter() - started) * 1000
                spent.setdefault((section.value, arm.name), []).append(ms)
    lines = []
    for section in SEARCHED:
        base = spent[(section.value, arms[0].name)]
        row = [f"search {section.value:10s}"]
        for arm in arms:
            times = spent[(section.value, arm.name)]
            p50, p95 = statistics.median(times), percentile(times, 0.95)
            row.append(
                f"{arm.name} {p50:.2f}/{p95:.2f}"
                f" x{p50 / statistics.median(base):.2f}/x{p95 / percentile(base, 0.95):.2f}"
            )
        lines.append(" | ".join(row))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-place-cost"))
    parser.add_argument("--queries", type=int, default=30, help="per intended section")
    parser.add_argument("--arms", default="sync,deferred,new")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument(
        "--profile",
        default="",
        help="after the run: cProfile the last arm on N more queries of this intended section",
    )
    parser.add_argument("--search-only", action="store_true", help="time the placed section's search alone")
    args = parser.parse_args()
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    home: Path = args.home
    store_home = home / "sqlite"
    is_seeded = (store_home / "seeded").exists()
    store_home.mkdir(parents=True, exist_ok=True)
    now_path = store_home / "now_ms"
    (home / "inferd" / "inferd.port").unlink(missing_ok=True)  # a previous run's port
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
            if args.search_only:
                for line in search_only(arms, queries):
                    print(line)
                return
            settle_heap()
            load = os.getloadavg()[0]
            for i, query in enumerate(queries):
                rotated = arms[i % len(arms) :] + arms[: i % len(arms)]
                order: list[Arm] = rotated if i % 2 == 0 else rotated[::-1]
                for arm in order:
                    call(arm, query)
            print(f"{len(queries)} queries per arm, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
            for line in table(arms):
                print(line)
            for arm in arms[1:]:
                pairs = list(zip(arms[0].decisions, arm.decisions, strict=True))
                same = sum(a[:2] == b[:2] for a, b in pairs)
                timed_out = sum(a[:2] != b[:2] and (a[2] or b[2]) for a, b in pairs)
                print(
                    f"decisions identical between {arms[0].name} and {arm.name}: {same}/{len(pairs)}"
                    f" (of the others, {timed_out} ran fts_only in one arm: the 150 ms embedding deadline)"
                )
            if args.profile:
                profile(
                    arms[-1],
                    [q for s, q in make_queries(corpus, rng, args.queries) if args.profile in ("all", s)],
                )
        finally:
            for arm in arms:
                arm.reader.inner.close()
                arm.search.close()
            client.close()
            counter_client.close()
            app.close()


if __name__ == "__main__":
    main()
