"""fastctx10's A/B probe (issue 17 item 4): cuts of a cache miss's serial work on SQLite against main before them, on
bench_assemble's store, in one process (probe_fastctx9's set-up and calls, probe_fastctx8_ab's arms and report).

- `mmr`: an MMR pool's uncached texts are shingled in one numpy pass (mmr.pool_shingle_keys) instead of one numpy
  pass per text (~35 us each, most of it numpy's per-call overhead: ~2.5 ms for a cold 72-turn pool);
- `send`: a prefetched evidence pass starts its keyword sides once the vector side's thread is about to send the
  query embedding's request (SearchSettings.keywords_after_send_s, at most 5 ms), instead of beside it, where their
  Python could hold the GIL while the request waited to leave;
- `new`: both, as memoryd now builds it; `base`: neither (main before fastctx10).
- Tried and removed (its arm with it): each kind's nearest rows read on its scan's thread right after the scan,
  instead of by the evidence step once both sides ended; see FASTCTX10_NOTE.

Every arm has its own MemorySearch, Embedder and caches; the arms run one after the other on each query, the first
arm alternating (probe_fastctx9.call: the reason and this process's CPU time kept). `--rounds R` draws R sets of
unique cache-miss queries, the service (and its caches) staying up between them. Printed per round: p50/p95 per
placed section with ratios against `base` and mean stages (embedding round trip, keyword sides' end against it, the
main thread after the evidence), this process's CPU time per call, and decisions (section, placed rows) and blocks
compared call by call.

Results: see FASTCTX10_NOTE in bench/bench_assemble.py.

Run: `python -m bench.probe_fastctx10 [--home DIR] [--queries N] [--rounds R] [--arms base,new]` (seed DIR first with
`python -m bench.probe_place_cost --home DIR --queries 1`). A probe: prints, writes no figures under bench/results.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench import probe_fastctx8_ab as ab8
from bench import probe_fastctx8_stages as stages8
from bench import probe_fastctx9 as fc9
from bench.assemble_corpus import SEED, make_queries
from bench.assemble_services import percentile
from bench.probe_fastctx8_trace import Event, Tracer
from memoryd.read.search import MemorySearch
from memoryd.retrieval import mmr
from memoryd.retrieval.terms import tokens
from memoryd.storage.store import Store
from memoryd.text import shingles
from servicekit.gc_tuning import settle_heap


class SendTogether(MemorySearch):
    """A prefetched pass's keyword sides start at once, beside the vector side's send (keywords_after_send_s 0, main
    before fastctx10)."""

    def __init__(self, store: Store, **kwargs: Any) -> None:
        super().__init__(store, **kwargs)
        self.settings = replace(self.settings, keywords_after_send_s=0.0)


def one_text_keys(text: str) -> npt.NDArray[np.int64]:
    """shingle_keys as main computed it before fastctx10: one text, its own numpy pass."""
    words = tokens(text)
    joined = " ".join(words)
    if not joined.isascii():
        return np.array(
            sorted({mmr.shingle_key(s) for s in shingles(words, mmr.SHINGLE_CHARS)}), dtype=np.int64
        )
    short = [mmr.shingle_key(word) for word in words if len(word) < mmr.SHINGLE_CHARS]
    grams = np.zeros(0, dtype=np.int64)
    if len(joined) >= mmr.SHINGLE_CHARS:
        b = np.frombuffer(joined.encode("ascii"), dtype=np.uint8).astype(np.int64)
        windows = [b[i : len(b) - mmr.SHINGLE_CHARS + 1 + i] for i in range(mmr.SHINGLE_CHARS)]
        inside = windows[0] != ord(" ")
        packed = windows[0]
        for window in windows[1:]:
            inside &= window != ord(" ")
            packed = packed << 8 | window
        grams = packed[inside] | (mmr.SHINGLE_CHARS << 32)
    keys: npt.NDArray[np.int64] = np.unique(np.concatenate([grams, np.array(short, dtype=np.int64)]))
    return keys


def one_text_at_a_time() -> Callable[[], Any]:
    """For each call of an arm: MMR pools shingled one text at a time, through the arm's own functools LRU cache of
    KEY_CACHE_TEXTS texts, as main did (the calls of one arm never overlap another's)."""
    cached = lru_cache(maxsize=mmr.KEY_CACHE_TEXTS)(one_text_keys)

    @contextmanager
    def around() -> Iterator[None]:
        batched = mmr.pool_shingle_keys
        mmr.pool_shingle_keys = lambda texts: [cached(text) for text in texts]
        try:
            yield
        finally:
            mmr.pool_shingle_keys = batched

    return around


def batched_keys() -> Callable[[], Any]:
    """For each call of an arm: pools shingled together (mmr.pool_shingle_keys) with the arm's own KEY_CACHE."""
    mine = mmr._KeyCache(mmr.KEY_CACHE_TEXTS)

    @contextmanager
    def around() -> Iterator[None]:
        shared = mmr.KEY_CACHE
        mmr.KEY_CACHE = mine
        try:
            yield
        finally:
            mmr.KEY_CACHE = shared

    return around


#: name → (search class, what makes the wrapper of each of its calls).
ARMS: dict[str, tuple[type[MemorySearch], Callable[[], Callable[[], Any]]]] = {
    "base": (SendTogether, one_text_at_a_time),
    "mmr": (SendTogether, batched_keys),
    "send": (MemorySearch, one_text_at_a_time),
    "new": (MemorySearch, batched_keys),
}


def cut_stages(events: Sequence[Event], main_tid: int) -> dict[str, float]:
    """What each cut shortens, per call (ms): `send`, the call's start to the query embedding's request (`send`;
    `embed back`: to its reply), `after embed`, the evidence pass's end after the query embedding's
    return (the vector scans, the nearest rows' loads and the evidence: `rows`), and `post cpu`, the main thread's
    CPU time after the evidence (features, gate, planner with the placed section's search, block: `mmr`), which,
    unlike wall times, the other work of a shared machine does not lengthen."""
    out: dict[str, float] = {}
    rpc = next((e for e in events if e[0] == "embed_rpc"), None)
    passed = next((e for e in events if e[0] == "evidence_pass"), None)
    wait = next((e for e in events if e[0] == "evidence_wait"), None)
    call = next((e for e in events if e[0] == "call"), None)
    if rpc is not None and call is not None:
        out["send"] = (rpc[2] - call[2]) * 1000
        out["embed back"] = (rpc[3] - call[2]) * 1000
    if rpc is not None and passed is not None:
        out["after embed"] = (passed[3] - rpc[3]) * 1000
    if wait is not None:
        out["post cpu"] = 1000 * sum(
            e[4] for e in events if e[1] == main_tid and e[2] >= wait[3] and e[0] in stages8.POST_STAGES
        )
    return out


def stage_values(arm: ab8.AbArm, stage: str) -> list[float]:
    """One stage's values over the arm's calls."""
    return [stages[stage] for _, _, stages in arm.calls if stage in stages]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-fastctx8"))
    parser.add_argument("--queries", type=int, default=40, help="per intended section and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--arms", default="base,new")
    parser.add_argument("--seed", type=int, default=41, help="added to the corpus seed for the query draw")
    args = parser.parse_args()
    names = args.arms.split(",")
    with fc9.probe_store(args.home) as opened:
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
            for name in names:
                search_class, wrapper = ARMS[name]
                arm = ab8.make_arm(name, app, client, lines, now_ms, search_class)
                arms.append(ab8.AbArm(name, arm, wrapper()))
            fc9.cpu_ms.clear()
            fc9.cpu_ms.update({name: [] for name in names})

            main_tid = threading.get_native_id()

            def call(arm: ab8.AbArm, query: str, reasons: list[str]) -> None:
                with arm.around():
                    fc9.call(arm, query, tracer, reasons)
                if arm.calls:
                    arm.calls[-1][2].update(cut_stages(list(tracer.events), main_tid))

            rng = random.Random(SEED + args.seed)
            for _, q in make_queries(corpus, rng, 3):  # warm every arm (not measured)
                for arm_ in arms:
                    call(arm_, q, [])
            for r in range(args.rounds):
                for arm_ in arms:
                    arm_.calls.clear()
                    arm_.decisions.clear()
                queries = [q for _, q in make_queries(corpus, rng, args.queries)]
                reasons: dict[str, list[str]] = {arm_.name: [] for arm_ in arms}
                for spent in fc9.cpu_ms.values():
                    spent.clear()
                settle_heap()
                load = os.getloadavg()[0]
                tracer.install()
                for i, query in enumerate(queries):
                    for arm_ in arms[i % len(arms) :] + arms[: i % len(arms)]:
                        call(arm_, query, reasons[arm_.name])
                tracer.uninstall()
                print(
                    f"round {r + 1}: {len(queries)} queries per arm, load {load:.1f} -> {os.getloadavg()[0]:.1f}"
                )
                for line in ab8.report(arms):
                    print(line, flush=True)
                base = arms[0].name
                measures = {arm_.name: {"process cpu": fc9.cpu_ms[arm_.name]} for arm_ in arms}
                for arm_ in arms:
                    for stage in ("send", "embed back", "after embed", "post cpu"):
                        measures[arm_.name][stage] = stage_values(arm_, stage)
                for arm_ in arms:
                    shown = []
                    for stage, values in measures[arm_.name].items():
                        before = measures[base][stage]
                        v50, v95 = statistics.median(values), percentile(values, 0.95)
                        b50, b95 = statistics.median(before), percentile(before, 0.95)
                        shown.append(f"{stage} {v50:.2f}/{v95:.2f} (x{v50 / b50:.2f}/x{v95 / b95:.2f})")
                    print(f"{arm_.name} p50/p95 ms: " + "; ".join(shown))
                for arm_ in arms[1:]:
                    for i, (a, b) in enumerate(zip(arms[0].decisions, arm_.decisions, strict=True)):
                        if a[:2] != b[:2]:
                            print(
                                f"  {arm_.name} differs: {queries[i]!r}: {reasons[base][i]} /"
                                f" {reasons[arm_.name][i]}"
                            )
        finally:
            tracer.uninstall()
            for arm_ in arms:
                arm_.arm.reader.inner.close()
                arm_.arm.search.close()


if __name__ == "__main__":
    main()
