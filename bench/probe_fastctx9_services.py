"""fastctx9's served-path check (issue 17 item 4): AssembleContext over gRPC against two real memoryd processes, one
running a checkout without the kept common-term rankings (`--base-repo`, e.g. /work/main before the merge) and one
this checkout's (read/common_matches.py), each with its own inferd and its own copy of one seeded store
(probe_place_cost's `<home>/sqlite`). served_ab's procedure: a warm-up, a wait until every process is idle, then
unique cache-miss queries to both, interleaved, each first on every other query; `--rounds R` rounds of new unique
queries against the same processes (as bench_assemble's rounds: the kept rankings stay between them). Printed per
round: p50 / p95 per arm with the ratio, late query vectors, and decisions (section, placed rows, block tokens)
compared query by query.

Results (bench_assemble's store freshly seeded with fake corpus vectors, base = main's checkout, 200 queries per
round, load ~10): p50 / p95 x0.91 / x1.00, x0.96 / x0.88, x1.04 / x1.39, x1.09 / x0.82; decisions and block tokens
identical 800/800, no late query vector. The store must have every row indexed: a copy holding turns without vectors
(written by probe_fastctx9 --append) has both processes' background indexers embed them at their own pace, and then
~50 of 200 decisions differ whatever the arms run.

Run: `python -m bench.probe_fastctx9_services --base-repo DIR [--store DIR] [--queries N] [--rounds R]`. A probe:
prints its figures, writes none under bench/results; nothing here is tuned on.
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
from contextlib import ExitStack
from pathlib import Path

import grpc

from bench import memoryd_process as served_memoryd
from bench.assemble_corpus import SEED, make_corpus, make_queries
from bench.bench_assemble import inferd_process
from bench.served_ab import print_arms, time_arms
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", type=Path, default=Path("/tmp/probe-fastctx8/sqlite"))
    parser.add_argument("--base-repo", type=Path, required=True, help="the checkout memoryd `base` runs from")
    parser.add_argument("--queries", type=int, default=40, help="per intended section and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    repos = {"base": args.base_repo.resolve(), "keep": served_memoryd.REPO}
    work = Path(tempfile.mkdtemp(prefix="fastctx9-services-"))
    corpus = make_corpus(random.Random(SEED))
    warm = [q for _, q in make_queries(corpus, random.Random(SEED + 13), 2)]
    rng = random.Random(SEED + 23)
    try:
        with ExitStack() as stack:
            stubs = {}
            pids = []
            for name, repo in repos.items():
                home = work / name
                shutil.copytree(
                    args.store, home, ignore=shutil.ignore_patterns("memoryd.port", "memoryd.log")
                )
                target = stack.enter_context(inferd_process(work / f"inferd-{name}"))
                served_memoryd.REPO = (
                    repo  # read when the process starts (its PYTHONPATH and working directory)
                )
                served = stack.enter_context(served_memoryd.memoryd_process(home, target))
                pids.append(served.pid)
                stubs[name] = pb_grpc.MemoryServiceStub(
                    stack.enter_context(grpc.insecure_channel(served.target))
                )
            served_memoryd.REPO = repos["keep"]
            for r in range(args.rounds):
                queries = [q for _, q in make_queries(corpus, rng, args.queries)]
                print(f"round {r + 1}:", end=" ")
                times = time_arms(stubs, pids, warm if r == 0 else [], queries, "arm")
                print_arms(times, "base", "keep")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
