"""fastctx8's stage breakdown of a cache-miss AssembleContext on SQLite (issue 17 item 4): where the time beside and
after the query embedding goes, at p50 and p95.

The read path as memoryd builds it (probe_fastctx6's `new` arm) over bench_assemble's store (bench/assemble_corpus.py,
seeded by probe_place_cost), in-process, inferd its own process with the real all-MiniLM-L6-v2. Every query is
unique and each call follows ReadPath.transcript_changed, as the served bench's calls are cache misses: the assembly
cache and the query-embedding cache miss; the entities, identity, corrections and keyword statistics stay cached as
a running service keeps them (`--invalidate` re-reads them on every call as bench_assemble's in-process arm does).
After each call the same Embedder sends another unique text on its own (`alone`: the round trip with nothing else
running in this process).

probe_fastctx8_trace times every stage on every thread and reads the scheduler's counters of every thread of this
process and of inferd before and after each call. Per call:
- `send`: call start → the query embedding's request leaves (memoryd's Embedder._embed starts);
- `embed`: its round trip (gRPC → inferd's forward → reply, back on memoryd's helper thread); `alone`: the same
  with nothing else running here; `inferd run` / `inferd queue`: CPU time and run-queue wait of inferd's busiest
  thread in the call (the one that ran the forward);
- `kw after embed`: when the last evidence-pass keyword side ends, against the embedding's return (> 0: on the
  critical path); `scan after embed`: the vector side's faiss scans after the embedding; `loads after`: the
  evidence pass's end after both sides (each kind's nearest rows loaded, top rows);
- `hand-off`: the evidence pass's end → the main thread has its result;
- `pre-evidence main`: call start → the main thread starts waiting (entities, identity, prefetch);
- after the evidence: `identity cosine`, `features` (gate_features.compute), `gate` (model + rules), `plan` (its
  `section search`: fusion, priors, MMR, rows; `fit`: token counts and block render), `rest` (everything else on the
  main thread after the evidence); `post off-CPU`: that part's wall minus the main thread's CPU time in it (waiting
  for the GIL or a core);
- `main queue`: the main thread's run-queue wait over the call; `memoryd run`: CPU time of all this process's
  threads in the call; `cpu <stage>`: CPU time of a traced stage, on whichever thread ran it.

Printed: p50 / p95 / mean of each over all calls and the means of the slowest 10% against the others.

Results (bench_assemble's store, 200 cache-miss calls, the 2-core machine shared with other helpers), p50 / p95 ms:
- not pinned, load 4.6-4.9: total 24.3 / 46.1. Before the request leaves (`send`) 0.5 / 6.8 (the helper thread
  waits for the GIL at p95). The embedding's round trip 15.5 / 28.8 against 10.6 / 25.1 alone: inferd's forward ran
  7.3 ms and waited 6.4 / 16.4 ms in the run queue, i.e. for a core, while memoryd spent 18.5 / 27.5 ms of CPU in
  the call, 9.4 / 20.7 of it in the keyword sides (FTS5 statements 4.5 / 14.5); the keyword sides ended 2.0 ms
  before the embedding at p50 and 5.0 ms after it at p95. After the embedding: vector scans 1.7 / 5.5, the nearest
  rows' loads 1.2 / 1.9, hand-off 0.07, then the main thread 1.3 / 6.1 (features 0.7, gate 0.15, plan 0.15 / 4.7:
  the placed section's search 0 / 3.6 with priors and MMR ~1.5 each at p95; fit and token counts 0.13 / 0.7).
  GIL waits after the evidence are ~0 (post off-CPU -0.2 / 0.0: the main thread's wall time there is its CPU
  time); the main thread's run-queue wait over the call 2.0 / 8.2. So the ~13 ms beyond the embedding alone at p50
  are: the embedding slowed by memoryd's own CPU beside it (~5 ms), vector scans and row loads after it (~3 ms),
  the gate and planner (~1.3 ms), the request's start (~0.5 ms) and the keyword sides when they end last (p95).
- `--pin` (memoryd on core 0, inferd on core 1), load 7.2-7.4: total 18.3 / 32.3; embedding 10.7 / 19.8 (alone
  10.9 / 24.1), inferd's run-queue wait 0.25 / 5.8; the keyword sides now end last in the slowest tenth (+5.2 ms
  mean: common-term FTS5 statements on memoryd's one core), scans after the embedding 2.0 / 4.1.

Run: `python -m bench.probe_fastctx8_stages [--home DIR] [--queries N] [--invalidate] [--pin]` (seed DIR first with
`python -m bench.probe_place_cost --home DIR --queries 1`). A probe: prints, writes no figures under bench/results.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from bench import probe_fastctx6 as fc6
from bench import probe_place_cost as place
from bench.assemble_corpus import AGENT, QUERY_MODEL, SEED, make_corpus, make_queries
from bench.assemble_services import percentile
from bench.bench_assemble import RealQueryVectors, inferd_process
from bench.probe_fastctx8_ab import pinned
from bench.probe_fastctx8_trace import Event, Scheduler, Tracer, find_pid
from inferd.client import InferenceClient
from memoryd.read.assemble import DEFAULT_READ_BUDGET_S
from memoryd.read.line_token_filler import LineTokenFiller
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.tokens import InferdTokenCounter
from memoryd.vectors.embedding import Embedder
from servicekit.gc_tuning import settle_heap

#: Main-thread stages after the evidence, shown on their own (their nested stages are inside them).
POST_STAGES = ("identity_cosine", "features", "literal_flags", "corrections", "gate", "plan", "render")


def _first(events: Sequence[Event], label: str) -> Event | None:
    return next((e for e in events if e[0] == label), None)


def breakdown(
    events: Sequence[Event],
    main_tid: int,
    sched: tuple[float, float, float, float, float],
    alone_ms: float,
) -> dict[str, float]:
    """One call's stages (ms) from its events (probe_fastctx8_trace.Event) and scheduler deltas
    (main run, main queue, memoryd run, inferd run, inferd queue)."""
    call = _first(events, "call")
    assert call is not None
    t0, t1 = call[2], call[3]
    out: dict[str, float] = {"total": (t1 - t0) * 1000, "alone": alone_ms}
    main_run, main_queue, memoryd_run, inferd_run, inferd_queue = sched
    out.update(
        {
            "main run": main_run,
            "main queue": main_queue,
            "memoryd run": memoryd_run,
            "inferd run": inferd_run,
            "inferd queue": inferd_queue,
        }
    )
    for label in CPU_LABELS:  # CPU time (ms) of each traced stage, whichever thread ran it
        out[f"cpu {label}"] = sum(e[4] * 1000 for e in events if e[0].split(":")[0] == label)
    rpc = _first(events, "embed_rpc")
    wait = _first(events, "evidence_wait")
    passed = _first(events, "evidence_pass")
    vector = _first(events, "vector_side")
    if rpc is None or wait is None or passed is None:
        return out
    back = rpc[3]
    out["send"] = (rpc[2] - t0) * 1000
    out["embed"] = (rpc[3] - rpc[2]) * 1000
    kw_end = max((e[3] for e in events if e[0].startswith("kw_side")), default=t0)
    out["kw after embed"] = (kw_end - back) * 1000
    if vector is not None:
        out["scan after embed"] = (vector[3] - back) * 1000
    out["loads after"] = (passed[3] - max(kw_end, vector[3] if vector else back)) * 1000
    out["hand-off"] = (wait[3] - passed[3]) * 1000
    out["pre-evidence main"] = (wait[2] - t0) * 1000
    post = [e for e in events if e[1] == main_tid and e[2] >= wait[3]]
    top = [e for e in post if e[0] in POST_STAGES]
    for label in POST_STAGES:
        out[label] = sum((e[3] - e[2]) * 1000 for e in top if e[0] == label)
    out["section search"] = sum((e[3] - e[2]) * 1000 for e in post if e[0].startswith("section_search"))
    out["fit"] = sum((e[3] - e[2]) * 1000 for e in post if e[0] == "fit")
    for label in SEARCH_PARTS:
        out[label] = sum((e[3] - e[2]) * 1000 for e in post if e[0] == label)
    for kind_label in sorted({e[0] for e in events if e[0].startswith(("nearest:", "kw_side:", "ev_load:"))}):
        first = next(
            e for e in events if e[0] == kind_label
        )  # the evidence pass's (the section search reuses)
        out[kind_label] = (first[3] - first[2]) * 1000
    post_wall = (t1 - wait[3]) * 1000
    out["post evidence"] = post_wall
    out["rest"] = post_wall - sum(out[label] for label in POST_STAGES)
    pre_cpu = sum(e[4] for e in events if e[1] == main_tid and e[3] <= wait[3] and e[0] != "call")
    out["post off-CPU"] = post_wall - (call[4] - pre_cpu) * 1000
    return out


#: Stages whose CPU time is shown (cpu <label>), summed over kinds.
CPU_LABELS = (
    "kw_side",
    "fts",
    "nearest",
    "ev_load",
    "embed_rpc",
    "features",
    "gate",
    "section_search",
    "fit",
)

#: Parts of the placed section's search shown on their own (inside `section search`).
SEARCH_PARTS = ("priors", "mmr", "context_window", "episode_decisions")

ORDER = (
    "total",
    "pre-evidence main",
    "send",
    "embed",
    "alone",
    "inferd run",
    "inferd queue",
    "kw after embed",
    "scan after embed",
    "loads after",
    "hand-off",
    "post evidence",
    "identity_cosine",
    "features",
    "literal_flags",
    "corrections",
    "gate",
    "plan",
    "section search",
    *SEARCH_PARTS,
    "fit",
    "render",
    "rest",
    "post off-CPU",
    "main run",
    "main queue",
    "memoryd run",
    *(f"cpu {label}" for label in CPU_LABELS),
    *(
        f"{stage}:{kind}"
        for stage in ("kw_side", "nearest", "ev_load")
        for kind in ("pinned_fact", "episode", "transcript")
    ),
)


def table(calls: Sequence[dict[str, float]], share: float = 0.10) -> list[str]:
    """p50 / p95 / mean per stage, and the means of the slowest `share` of calls against the others."""
    ranked = sorted(calls, key=lambda c: c["total"])
    cut = len(ranked) - max(1, int(len(ranked) * share))
    lines = [
        f"| stage | p50 | p95 | mean | others' mean ({cut}) | slowest {share:.0%} mean ({len(ranked) - cut}) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for stage in ORDER:
        values = [c[stage] for c in ranked if stage in c]
        if not values:
            continue
        others = [c[stage] for c in ranked[:cut] if stage in c]
        slowest = [c[stage] for c in ranked[cut:] if stage in c]
        lines.append(
            f"| {stage} | {statistics.median(values):.2f} | {percentile(values, 0.95):.2f} |"
            f" {statistics.fmean(values):.2f} | {statistics.fmean(others) if others else 0:.2f} |"
            f" {statistics.fmean(slowest) if slowest else 0:.2f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-fastctx8"))
    parser.add_argument("--queries", type=int, default=40, help="per intended section")
    parser.add_argument(
        "--invalidate", action="store_true", help="re-read entities and identity on every call"
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="this process on core 0 and inferd on core 1 (probe_fastctx8_ab's `pin`)",
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
        arm: place.Arm | None = None
        tracer = Tracer()
        try:
            now_ms = int((store_home / "now_ms").read_text())
            corpus = make_corpus(random.Random(SEED))
            app.vectors.build_approximate(AGENT, QUERY_MODEL)
            client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
            lines.calibration(lines.model)  # the first count loads the model (the filler never does)
            LineTokenFiller(app.store, lines).run_once()
            arm = fc6.make_arm("new", app, client, lines, now_ms)
            alone = Embedder(RealQueryVectors(client), app.config, query_timeout_s=DEFAULT_READ_BUDGET_S)
            scheduler = Scheduler(find_pid(str(home / "inferd")))
            rng = random.Random(SEED + 23)
            for _, q in make_queries(corpus, rng, 3):  # warm (not measured)
                arm.path.invalidate(AGENT)
                arm.path.assemble(AGENT, q)
            queries = make_queries(corpus, rng, args.queries)
            main_tid = __import__("threading").get_native_id()
            if args.pin:
                stack.enter_context(pinned(scheduler.other_pid))
            tracer.install()
            settle_heap()
            load = os.getloadavg()[0]
            calls: list[dict[str, float]] = []
            by_section: dict[str, list[float]] = {}
            for _, query in queries:
                if args.invalidate:
                    arm.path.invalidate(AGENT)
                else:
                    arm.path.transcript_changed(AGENT)
                tracer.events.clear()
                before = scheduler.snapshot()
                assembly = arm.path.assemble(AGENT, query)
                after = scheduler.snapshot()
                events = list(tracer.events)
                started = time.perf_counter()
                alone.embed_query(f"{query} (alone)")
                alone_ms = (time.perf_counter() - started) * 1000
                main_run, main_queue = Scheduler.delta(before[0], after[0], main_tid)
                memoryd_run, _ = Scheduler.delta(before[0], after[0])
                # inferd's busiest thread in the call: the one that ran the forward
                inferd_run, inferd_queue = max(
                    (Scheduler.delta(before[1], after[1], tid) for tid in after[1]), default=(0.0, 0.0)
                )
                stages = breakdown(
                    events, main_tid, (main_run, main_queue, memoryd_run, inferd_run, inferd_queue), alone_ms
                )
                calls.append(stages)
                section = assembly.section.value if assembly.placed or assembly.block else "none"
                by_section.setdefault(section, []).append(stages["total"])
            tracer.uninstall()
            print(f"{len(calls)} cache-miss calls, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
            print(
                "sections: "
                + ", ".join(
                    f"{s} {len(v)} ({statistics.median(v):.1f}/{percentile(v, 0.95):.1f})"
                    for s, v in sorted(by_section.items())
                )
            )
            for line in table(calls):
                print(line)
        finally:
            tracer.uninstall()
            if arm is not None:
                arm.reader.inner.close()
                arm.search.close()
            lines.close()
            client.close()
            counter_client.close()
            app.close()


if __name__ == "__main__":
    main()
