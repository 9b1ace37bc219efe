"""fastctx9's A/B probe (issue 17 item 4): the transcript's common-term rankings kept between requests
(memoryd/read/common_matches.py) against ranking every such match again, on bench_assemble's store, in one process.

Arms (probe_fastctx8_ab's read paths, each with its own Embedder, MemorySearch and caches; the first arm of each
query alternates):
- `base`: as main before fastctx9: a match of common terms only is ranked by FTS5 on every request (Unkept);
- `keep`: as memoryd now builds it: the ranking is kept and reused (topped up with rows added since).

`--rounds R` draws R sets of unique cache-miss queries (as bench_assemble's rounds: the service, and so its kept
rankings, stays up between them); every call follows ReadPath.transcript_changed. Printed per round: p50/p95 per
placed section and arm with ratios against `base`, and decisions (section, placed rows) and blocks compared call by
call. `--append N`: N new turns (an existing turn's text) are written between rounds, so later rounds top kept
rankings up with the rows added since (the agreement then measured is the one the tolerance allows).

Results (200 queries per round, load 7-9; CPU: this process's time per call, wall: the call's): four rounds, the
first with nothing kept yet: CPU p95 x0.96, x0.85, x0.84, x0.75 and x0.90, x0.94, x0.83, x0.84 (fresh store); wall p95
x0.97, x0.98, x0.95, x0.83 and x0.81, x1.03, x0.92, x0.94; the calls whose match is of common terms only p50
x0.54-x0.88. `--append 300`: wall p95 x0.58, x0.93, x0.90, x0.89. Decisions and blocks identical 3,998 of 4,000 pairs
over five runs (two calls' query vector late in one arm, fts_only).

Run: `python -m bench.probe_fastctx9 [--home DIR] [--queries N] [--rounds R] [--append N]` (seed DIR first with
`python -m bench.probe_place_cost --home DIR --queries 1`). A probe: prints, writes no figures under bench/results.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import probe_fastctx8_ab as ab8
from bench.assemble_corpus import AGENT, QUERY_MODEL, SEED, make_corpus, make_queries
from bench.assemble_services import percentile
from bench.bench_assemble import inferd_process
from bench.probe_fastctx8_trace import Tracer
from inferd.client import InferenceClient
from memoryd.domain import KIND_TRANSCRIPT
from memoryd.read.common_matches import CommonMatches
from memoryd.read.line_token_filler import LineTokenFiller
from memoryd.read.search import MemorySearch
from memoryd.retrieval import hybrid
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.terms import query_terms
from memoryd.retrieval.tokens import InferdTokenCounter
from servicekit.gc_tuning import settle_heap


class Unkept(CommonMatches):
    """`base`: every match of common terms ranked by FTS5 again (main before fastctx9)."""

    def search(
        self,
        kind: str,
        agent_id: str,
        terms: Sequence[str],
        limit: int,
        rows_now: int,
        *,
        agent_in_match: bool = True,
    ) -> list[tuple[int, float]]:
        return self._fts.search(kind, agent_id, terms, limit, agent_in_match=agent_in_match)


#: Per arm: this process's CPU time (ms, every thread: the read path's; inferd's forward is another process) of each
#: timed call, less sensitive than the wall time to the other work on the shared machine.
cpu_ms: dict[str, list[float]] = {"base": [], "keep": []}


def call(arm: ab8.AbArm, query: str, tracer: Tracer, reasons: list[str]) -> None:
    """probe_fastctx8_ab's cache-miss call, the assembly's reason kept (a late query vector says fts_only) and the
    process's CPU time during it (cpu_ms)."""
    arm.arm.path.transcript_changed(AGENT)
    tracer.events.clear()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    assembly = arm.arm.path.assemble(AGENT, query)
    ms = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu_ms[arm.name].append(1000 * (after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime))
    section = assembly.section.value if assembly.placed or assembly.block else "none"
    arm.calls.append((section, ms, ab8.stages(list(tracer.events))))
    placed = tuple(sorted(f"{p.kind.value}:{p.id}" for p in assembly.placed))
    arm.decisions.append((assembly.section.value, placed, assembly.block))
    reasons.append(assembly.reason)


def common_only(search: MemorySearch, query: str) -> bool:
    """Whether the query's transcript match is of common terms only (the calls the kept rankings can serve)."""
    stats = search.keyword_stats
    rows = stats.corpus(KIND_TRANSCRIPT, AGENT).rows
    terms = query_terms(query)
    dfs = stats.doc_frequencies(KIND_TRANSCRIPT, AGENT, terms, rows)
    s = search.settings
    match = hybrid.candidate_terms(terms, dfs, rows, s.common_term_fraction, s.common_term_floor)
    limit = hybrid.common_limit(rows, s.common_term_fraction, s.common_term_floor)
    return bool(match) and all(dfs[t] > limit for t in match)


def append_turns(app: object, count: int, rng: random.Random) -> None:
    """`count` new turns of AGENT, each an existing turn's text, through the store's statements (FTS5's triggers
    index them); the read paths hear of them as a buffered turn (transcript_changed, called before every call)."""
    db = app.store.db  # type: ignore[attr-defined]
    texts = [r[0] for r in db.query("SELECT content FROM transcript WHERE agent_id = ? LIMIT 2000", (AGENT,))]
    with db.write():
        for i in range(count):
            text = rng.choice(texts)
            db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count,"
                " created_at_ms) VALUES (?, 'fastctx9', ?, 'user', ?, ?, 0)",
                (AGENT, i, text, len(text) // 4),
            )


@dataclass
class ProbeStore:
    """A seeded store opened in process, with the inferd it embeds queries through, warmed for timing."""

    app: Any
    client: InferenceClient
    lines: LineTokenCounter
    now_ms: int
    corpus: Any


@contextmanager
def probe_store(home: Path) -> Iterator[ProbeStore]:
    """Open probe_place_cost's seeded store under `home`/sqlite with its own inferd (no background indexing), build
    the agent's approximate index, load the real query model and fill line token counts; close it all on exit."""
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    store_home = home / "sqlite"
    if not (store_home / "seeded").exists():
        raise SystemExit(f"seed {home} first: python -m bench.probe_place_cost --home {home} --queries 1")
    (home / "inferd" / "inferd.port").unlink(missing_ok=True)
    with ExitStack() as stack:
        target = stack.enter_context(inferd_process(home / "inferd"))
        app = build_app(
            ServiceSettings(
                listen="127.0.0.1:0", home=store_home, inferd_addr=target, background_indexing=False
            )
        )
        client = InferenceClient(target, deadline_s=300.0)
        counter_client = InferenceClient(target, deadline_s=5.0)
        lines = LineTokenCounter(InferdTokenCounter(counter_client, "fake-llm"))
        try:
            now_ms = int((store_home / "now_ms").read_text())
            corpus = make_corpus(random.Random(SEED))
            app.vectors.build_approximate(AGENT, QUERY_MODEL)
            client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
            lines.calibration(lines.model)
            LineTokenFiller(app.store, lines).run_once()
            yield ProbeStore(app, client, lines, now_ms, corpus)
        finally:
            lines.close()
            client.close()
            counter_client.close()
            app.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-fastctx8"))
    parser.add_argument("--queries", type=int, default=40, help="per intended section and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--append", type=int, default=0, help="turns written between rounds")
    parser.add_argument("--seed", type=int, default=31, help="added to the corpus seed for the query draw")
    args = parser.parse_args()
    with probe_store(args.home) as opened:
        app, client, lines, now_ms, corpus = (
            opened.app,
            opened.client,
            opened.lines,
            opened.now_ms,
            opened.corpus,
        )
        arms: list[ab8.AbArm] = []
        tracer = Tracer()
        try:
            for name in ("base", "keep"):
                arm = ab8.make_arm(name, app, client, lines, now_ms, MemorySearch)
                if name == "base":
                    arm.search.keyword_stats.common_matches = Unkept(app.store.fts)
                arms.append(ab8.AbArm(name, arm, nullcontext))
            rng = random.Random(SEED + args.seed)
            for _, q in make_queries(corpus, rng, 3):  # warm every arm (not measured)
                for arm_ in arms:
                    call(arm_, q, tracer, [])
            for r in range(args.rounds):
                if r and args.append:
                    append_turns(app, args.append, rng)
                for arm_ in arms:
                    arm_.calls.clear()
                    arm_.decisions.clear()
                queries = [q for _, q in make_queries(corpus, rng, args.queries)]
                reasons: dict[str, list[str]] = {arm_.name: [] for arm_ in arms}
                for spent in cpu_ms.values():
                    spent.clear()
                settle_heap()
                load = os.getloadavg()[0]
                tracer.install()
                for i, query in enumerate(queries):
                    for arm_ in arms if i % 2 == 0 else arms[::-1]:
                        call(arm_, query, tracer, reasons[arm_.name])
                tracer.uninstall()
                print(
                    f"round {r + 1}: {len(queries)} queries per arm, load {load:.1f} -> {os.getloadavg()[0]:.1f}"
                )
                for line in ab8.report(arms):
                    if not line.startswith("  "):
                        print(line, flush=True)
                b50, b95 = statistics.median(cpu_ms["base"]), percentile(cpu_ms["base"], 0.95)
                k50, k95 = statistics.median(cpu_ms["keep"]), percentile(cpu_ms["keep"], 0.95)
                print(
                    f"CPU ms per call p50/p95: base {b50:.1f}/{b95:.1f}, keep {k50:.1f}/{k95:.1f}"
                    f" (x{k50 / b50:.2f}/x{k95 / b95:.2f})"
                )
                common = [i for i, q in enumerate(queries) if common_only(arms[1].arm.search, q)]
                base_ms = [arms[0].calls[i][1] for i in common]
                keep_ms = [arms[1].calls[i][1] for i in common]
                if common:
                    print(
                        f"common-only calls {len(common)}: base p50 {statistics.median(base_ms):.1f} max"
                        f" {max(base_ms):.1f}, keep p50 {statistics.median(keep_ms):.1f} max {max(keep_ms):.1f}"
                        f" (x{statistics.median(keep_ms) / statistics.median(base_ms):.2f})"
                    )
                for i, (a, b) in enumerate(zip(arms[0].decisions, arms[1].decisions, strict=True)):
                    if a[:2] != b[:2]:
                        print(f"  differs: {queries[i]!r}: {reasons['base'][i]} / {reasons['keep'][i]}")
        finally:
            tracer.uninstall()
            for arm_ in arms:
                arm_.arm.reader.inner.close()
                arm_.arm.search.close()


if __name__ == "__main__":
    main()
