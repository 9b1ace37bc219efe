"""fastctx6's read-path probe (issue 17 item 4): what makes the slowest cache-miss calls slow on SQLite, and which
change cuts them. Read paths over bench_assemble's store, called on the same queries, interleaved in one process
(each arm first as often as the others), every call after ReadPath.invalidate (as bench_assemble: entities and
identity are read again, as after a write).

Arms (each its own Embedder, MemorySearch and reader; one line-token counter filled once and shared):
- `base`: as memoryd built it before fastctx6 (FTS5 ranks every match before the join: JoinedFts; identity read
  by SeparateReads);
- `fts`: as base, with fastctx6's FTS5 ranking (FtsIndex._prefiltered; the figures below were taken with its first,
  one-agent-store form, which ranked only the best `limit` matches; the lead generalised it to any agent holding
  most rows, ranking the best 4x `limit`);
- `new`: as memoryd builds it (fts, and the identity read in one statement);
- `swi`: as base, with sys.setswitchinterval(--switch-ms) for the call (`swi0.5`: 0.5 ms) (the interpreter hands the GIL to a waiting
  thread sooner: the query embedding's reply waits less behind the keyword sides' Python);
- `pre`: as base, the agent's entities and identity read before the call instead of while the evidence pass runs
  (timed with the call).

Results (machine shared, one interleaved in-process run each; decisions = section and placed rows, call by call):
- base vs new, 240 queries per arm, load 11.2-11.4: all p50/p95 x0.84/x0.85, placed x0.84/x0.79, decisions identical
  240/240; the identity stage 2.3 -> 0.3 ms mean.
- base vs fts vs new, 200 per arm, load 11-12: fts all x0.92/x0.82 (slowest tenth 177.8 -> 148.5 ms mean).
- Not kept: `swi` (1 and 0.5 ms; 240 per arm against new, load 12-15: all x1.02/x0.93 and x1.03/x1.00, noise); `pre`
  (200 per arm, load 8-9: x1.01/x1.10): the entity read costs 0.5 ms before the evidence pass and 6-10 ms during it,
  but that is the main thread waiting for the GIL while the pass runs, which it waits for afterwards anyway; known
  entities in one statement (group_concat): the stage unchanged.

Printed: p50/p95 per placed section and arm with ratios, mean stages of all calls and of each arm's slowest 10%
(`embed`: the query embedding's round trip), and decisions (section, placed rows) compared call by call.

Run: `python -m bench.probe_fastctx6 [--home DIR] [--queries N] [--arms base,swi]` (DIR as probe_place_cost's: a
store seeded there is reused). A probe: prints its tables, writes no figures under bench/results; nothing here is
tuned on.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import probe_place_cost as place
from bench.assemble_corpus import AGENT, QUERY_MODEL, SEED, make_corpus, make_queries
from bench.bench_assemble import RealQueryVectors, TimedCounter, TimedReader, inferd_process
from inferd.client import InferenceClient
from memoryd.domain import EXTRACTIVE_NARRATIVE
from memoryd.read.assemble import DEFAULT_READ_BUDGET_S, ReadPath, ReadPathSettings
from memoryd.read.line_token_filler import LineTokenFiller
from memoryd.read.memory_reader import StoreMemoryReader
from memoryd.read.search import MemorySearch
from memoryd.retrieval.gate import GateMode
from memoryd.retrieval.items import IdentityFact, IdentitySnapshot
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.tokens import InferdTokenCounter
from memoryd.storage.fts import FtsIndex, Mirror
from memoryd.vectors.embedding import Embedder
from servicekit.gc_tuning import settle_heap


class JoinedFts(FtsIndex):
    """FtsIndex before fastctx6: every match ranked by FTS5's `ORDER BY rank`, then joined (never _prefiltered)."""

    def _prefiltered(
        self, m: Mirror, agent_id: str, terms: Sequence[str], limit: int
    ) -> list[tuple[int, float]] | None:
        return None


class SeparateReads(StoreMemoryReader):
    """The reader before fastctx6: identity through IdentityStore.get (a transaction of three statements)."""

    def identity(self, agent_id: str) -> IdentitySnapshot:
        record = self._store.identity.get(agent_id)
        own = "" if record.model == EXTRACTIVE_NARRATIVE else record.content
        narrative = " ".join(part.strip() for part in (own, record.shared_content) if part.strip())
        return IdentitySnapshot(
            overrides=tuple(o.text for o in record.overrides),
            narrative=narrative,
            facts=tuple(IdentityFact(f.id, f.text, f.source_count) for f in record.facts),
        )


#: Reader classes for arms that run older code (name → class); the others use memoryd's own.
READERS: dict[str, Callable[..., StoreMemoryReader]] = {"base": SeparateReads, "fts": SeparateReads}


def make_arm(
    name: str, app: object, client: InferenceClient, lines: LineTokenCounter, now_ms: int
) -> place.Arm:
    """A read path as memoryd builds it, the block counted from the shared line counts."""
    store = app.store  # type: ignore[attr-defined]
    real = RealQueryVectors(client)
    embedder = Embedder(real, app.config, query_timeout_s=DEFAULT_READ_BUDGET_S)  # type: ignore[attr-defined]
    if name == "base":
        store = copy.copy(store)  # the same store, its FTS5 ranking as before fastctx6
        store.fts = JoinedFts(store.db)
    search = MemorySearch(store, embedder=embedder, vectors=app.vectors)  # type: ignore[attr-defined]
    reader_class = READERS.get(name, StoreMemoryReader)
    reader = TimedReader(reader_class(store, search, lambda: now_ms, embedder))
    path = ReadPath(
        reader,
        lambda: ReadPathSettings(gate_mode=GateMode.HEURISTIC, budget_tokens=800),
        counter=TimedCounter(lines, reader.ms),
        read_budget_s=DEFAULT_READ_BUDGET_S,
    )
    return place.Arm(name, path, reader, real, search)


def call(arm: place.Arm, query: str, switch_s: float) -> None:
    """One cache-miss assembly (after invalidate), its stages and the embedding's round trip recorded."""
    arm.path.invalidate(AGENT)
    arm.reader.ms.clear()
    arm.real.ms = 0.0
    before = sys.getswitchinterval()
    if arm.name.startswith("swi"):
        sys.setswitchinterval(float(arm.name[3:]) / 1000 if arm.name[3:] else switch_s)
    started = time.perf_counter()
    try:
        if arm.name == "pre":
            arm.path._known_entities(AGENT)
            arm.path._identity(AGENT)
        assembly = arm.path.assemble(AGENT, query)
    finally:
        ms = (time.perf_counter() - started) * 1000
        sys.setswitchinterval(before)
    stages = dict(arm.reader.ms)
    stages["embed"] = arm.real.ms
    arm.calls.append((assembly.section.value if assembly.placed or assembly.block else "none", ms, stages))
    placed = tuple(sorted(f"{p.kind.value}:{p.id}" for p in assembly.placed))
    arm.decisions.append((assembly.section.value, placed, "fts_only" in assembly.reason))


def slowest(arms: list[place.Arm], share: float = 0.10) -> list[str]:
    """Mean stages of each arm's slowest `share` of calls against its other calls (embed overlaps the rest)."""
    lines = []
    for arm in arms:
        ordered = sorted(arm.calls, key=lambda c: c[1])
        cut = max(1, int(len(ordered) * share))
        for label, group in (("slowest", ordered[-cut:]), ("others", ordered[:-cut])):
            stages = sorted({k for _, _, st in group for k in st})
            shown = ", ".join(
                f"{k} {statistics.fmean(st.get(k, 0.0) for _, _, st in group):.1f}" for k in stages
            )
            lines.append(
                f"  {arm.name} {label} {len(group)}: mean {statistics.fmean(m for _, m, _ in group):.1f} ms; {shown}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-place-cost"))
    parser.add_argument("--queries", type=int, default=30, help="per intended section")
    parser.add_argument("--arms", default="base,swi")
    parser.add_argument("--switch-ms", type=float, default=1.0, help="the `swi` arm's switch interval")
    args = parser.parse_args()
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    home: Path = args.home
    store_home = home / "sqlite"
    if not (store_home / "seeded").exists():
        raise SystemExit(f"seed {home} first: python -m bench.probe_place_cost --home {home} --queries 1")
    (home / "inferd" / "inferd.port").unlink(missing_ok=True)
    with inferd_process(home / "inferd") as target:
        settings = ServiceSettings(
            listen="127.0.0.1:0", home=store_home, inferd_addr=target, background_indexing=False
        )
        app = build_app(settings)
        client = InferenceClient(target, deadline_s=300.0)
        counter_client = InferenceClient(target, deadline_s=5.0)
        lines = LineTokenCounter(InferdTokenCounter(counter_client, "fake-llm"))
        arms: list[place.Arm] = []
        try:
            now_ms = int((store_home / "now_ms").read_text())
            corpus = make_corpus(random.Random(SEED))
            app.vectors.build_approximate(AGENT, QUERY_MODEL)
            client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
            lines.calibration(
                lines.model
            )  # the first count loads the model (the filler never does), then it fills
            started = time.perf_counter()
            counted = LineTokenFiller(app.store, lines).run_once()
            print(f"filled {counted} line counts in {time.perf_counter() - started:.1f} s", flush=True)
            arms = [make_arm(name, app, client, lines, now_ms) for name in args.arms.split(",")]
            switch_s = args.switch_ms / 1000
            rng = random.Random(SEED + 13)
            for _, q in make_queries(corpus, rng, 3):  # warm every arm (not measured)
                for arm in arms:
                    call(arm, q, switch_s)
            for arm in arms:
                arm.calls.clear()
                arm.decisions.clear()
            queries = [q for _, q in make_queries(corpus, rng, args.queries)]
            settle_heap()
            load = os.getloadavg()[0]
            for i, query in enumerate(queries):
                rotated = arms[i % len(arms) :] + arms[: i % len(arms)]
                for arm in rotated if i % 2 == 0 else rotated[::-1]:
                    call(arm, query, switch_s)
            print(f"{len(queries)} queries per arm, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
            for line in [*place.table(arms), *slowest(arms)]:
                print(line)
            for arm in arms[1:]:
                pairs = list(zip(arms[0].decisions, arm.decisions, strict=True))
                same = sum(a[:2] == b[:2] for a, b in pairs)
                late = sum(a[:2] != b[:2] and (a[2] or b[2]) for a, b in pairs)
                print(
                    f"{arms[0].name} vs {arm.name}: decisions identical {same}/{len(pairs)}; of the others, {late}"
                    " ran fts_only in one arm (the 150 ms query-embedding deadline)"
                )
        finally:
            for arm in arms:
                arm.reader.inner.close()
                arm.search.close()
            lines.close()
            client.close()
            counter_client.close()
            app.close()


if __name__ == "__main__":
    main()
