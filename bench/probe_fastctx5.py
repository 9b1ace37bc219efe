"""fastctx5's read-path changes (issue 17 item 4), each against the code before it: read paths over bench_assemble's
store, called on the same cache-miss queries, interleaved in one process, each arm first as often as the others
(probe_place_cost's rotation kept the first arm first on every query when there are two).

- `trip`: main before fastctx5: the planner's line costs and the block's count through inferd's CountTokens
  (InferdTokenCounter, cached per text), one round trip per placed section;
- `lines`: the block counted from its lines' counts (retrieval/line_tokens.py), which read/line_token_filler.py
  filled for every stored row before the timed calls (as memoryd's thread does after start).

- `serial` (not kept): as `lines`, every kind's evidence-pass keyword side on the evidence thread, one after the
  other (SearchSettings.keyword_thread_rows 0), so memoryd leaves a core to inferd's query forward.

Tried and not kept: `serial` (three arms, 200 queries each, load 7.8-9.0: all x1.00/x1.13, placed x1.01/x1.16
against `trip`; `lines` x1.00/x0.91, placed x0.96/x0.87); each kind's nearest rows read on the thread that scanned
its vectors instead of by the evidence after all scans (a search.py change; placed p50/p95 x1.13/x0.89 against
`lines` in a three-arm run at load 5.3-6.7).

Both count with inferd's fake LLM tokenizer (bench_assemble's memory.json); the entity cache stays (a buffered turn's
cache miss, as a live memoryd sees it). Printed: p50/p95 per placed section and arm with ratios, mean stages,
decisions (section, placed rows) and block token counts compared call by call, and how many of the `lines` arm's
blocks were counted without a trip.

Run: `python -m bench.probe_fastctx5 [--home DIR] [--queries N]` (DIR as probe_place_cost's: a store seeded
there is reused). A probe: prints its tables, writes no figures under bench/results; nothing here is tuned on.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

from bench import probe_place_cost as place
from bench.assemble_corpus import AGENT, QUERY_MODEL, SEED, make_corpus, make_queries
from bench.bench_assemble import RealQueryVectors, TimedCounter, TimedReader, inferd_process
from inferd.client import InferenceClient
from memoryd.read.assemble import DEFAULT_READ_BUDGET_S, ReadPath, ReadPathSettings
from memoryd.read.line_token_filler import LineTokenFiller
from memoryd.read.memory_reader import StoreMemoryReader
from memoryd.read.search import MemorySearch, SearchSettings
from memoryd.retrieval.gate import GateMode
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.tokens import InferdTokenCounter, TokenCounter
from memoryd.vectors.embedding import Embedder
from servicekit.gc_tuning import settle_heap


def make_arm(
    name: str, app: object, client: InferenceClient, counter_client: InferenceClient, now_ms: int
) -> tuple[place.Arm, LineTokenCounter | None]:
    """A read path as memoryd builds it; `lines` with the line counter, filled for every stored row first."""
    store = app.store  # type: ignore[attr-defined]
    real = RealQueryVectors(client)
    embedder = Embedder(real, app.config, query_timeout_s=DEFAULT_READ_BUDGET_S)  # type: ignore[attr-defined]
    # `serial`: every kind's evidence-pass keyword side on the evidence thread, one after the other.
    settings = SearchSettings(keyword_thread_rows=0) if name == "serial" else None
    search = MemorySearch(store, embedder=embedder, vectors=app.vectors, settings=settings)  # type: ignore[attr-defined]
    reader = TimedReader(StoreMemoryReader(store, search, lambda: now_ms, embedder))
    lines: LineTokenCounter | None = None
    inner: TokenCounter = InferdTokenCounter(counter_client, "fake-llm")
    if name in ("lines", "serial"):
        lines = LineTokenCounter(InferdTokenCounter(counter_client, "fake-llm"))
        lines.calibration(
            lines.model
        )  # the first count loads the model (the filler never does), then it fills
        started = time.perf_counter()
        counted = LineTokenFiller(store, lines).run_once()
        print(f"filled {counted} line counts in {time.perf_counter() - started:.1f} s", flush=True)
        inner = lines
    path = ReadPath(
        reader,
        lambda: ReadPathSettings(gate_mode=GateMode.HEURISTIC, budget_tokens=800),
        counter=TimedCounter(inner, reader.ms),
        read_budget_s=DEFAULT_READ_BUDGET_S,
    )
    return place.Arm(name, path, reader, real, search), lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-place-cost"))
    parser.add_argument("--queries", type=int, default=30, help="per intended section")
    parser.add_argument("--arms", default="trip,lines")
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
        arms: list[place.Arm] = []
        counters: list[LineTokenCounter] = []
        tokens: dict[str, list[int]] = {}
        try:
            now_ms = int((store_home / "now_ms").read_text())
            corpus = make_corpus(random.Random(SEED))
            app.vectors.build_approximate(AGENT, QUERY_MODEL)
            client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
            for name in args.arms.split(","):
                arm, lines = make_arm(name, app, client, counter_client, now_ms)
                arms.append(arm)
                counters += [lines] if lines is not None else []
            rng = random.Random(SEED + 11)
            for _, q in make_queries(corpus, rng, 3):  # warm every arm (not measured)
                for arm in arms:
                    arm.path.invalidate(AGENT)
                    arm.path.assemble(AGENT, q)
            queries = [q for _, q in make_queries(corpus, rng, args.queries)]
            summed_before = sum(c.summed_texts for c in counters)
            settle_heap()
            load = os.getloadavg()[0]
            for i, query in enumerate(queries):
                # Each arm goes first (and so meets SQLite's pages cold) as often as the others.
                for arm in arms[i % len(arms) :] + arms[: i % len(arms)]:
                    arm.path.transcript_changed(AGENT)  # a buffered turn's cache miss
                    arm.reader.ms.clear()
                    started = time.perf_counter()
                    assembly = arm.path.assemble(AGENT, query)
                    ms = (time.perf_counter() - started) * 1000
                    section = assembly.section.value if assembly.block else "none"
                    arm.calls.append((section, ms, dict(arm.reader.ms)))
                    placed = tuple(sorted(f"{p.kind.value}:{p.id}" for p in assembly.placed))
                    arm.decisions.append((assembly.section.value, placed, "fts_only" in assembly.reason))
                    tokens.setdefault(arm.name, []).append(assembly.tokens)
            print(f"{len(queries)} queries per arm, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
            for line in place.table(arms):
                print(line)
            for arm in arms[1:]:
                pairs = list(zip(arms[0].decisions, arm.decisions, strict=True))
                same = sum(a[:2] == b[:2] for a, b in pairs)
                late = sum(a[:2] != b[:2] and (a[2] or b[2]) for a, b in pairs)
                equal_tokens = sum(
                    a == b for a, b in zip(tokens[arms[0].name], tokens[arm.name], strict=True)
                )
                print(
                    f"{arms[0].name} vs {arm.name}: decisions identical {same}/{len(pairs)},"
                    f" block tokens equal {equal_tokens}/{len(pairs)}; of the others, {late} ran fts_only in one"
                    " arm (the 150 ms query-embedding deadline)"
                )
            for counter in counters:
                time.sleep(1.0)  # the last verification
                print(
                    f"line counter: {counter.summed_texts - summed_before} texts summed without a trip; sums found short"
                    f" by inferd's check: {counter.short_sums}; calibration {counter.calibration('fake-llm')}"
                )
        finally:
            for arm in arms:
                arm.reader.inner.close()
                arm.search.close()
            for counter in counters:
                counter.close()
            client.close()
            counter_client.close()
            app.close()


if __name__ == "__main__":
    main()
