"""fastctx8's served-path check of CPU pinning (issue 17 item 4): AssembleContext over gRPC against real memoryd and
inferd processes, pinned by their own settings (OSAURUS_MEMORYD_CPUS=0, OSAURUS_INFERD_CPUS=1, servicekit/
cpu_affinity.py) or not, the headline's path.

Two pairs run at once, each on its own copy of one seeded store (probe_place_cost's `<home>/sqlite`): `free` (memoryd
and inferd unpinned) and `pin` (memoryd started with OSAURUS_MEMORYD_CPUS=0, its inferd with OSAURUS_INFERD_CPUS=1).
After a warm-up and a wait until every process is idle (assemble_services' procedure), unique cache-miss queries go
to both, interleaved, each pair first on every other query; while one pair serves, the other is idle. Printed: p50 /
p95 per pair with the ratio, late query vectors, and decisions (section, placed rows, block tokens) compared query by
query.

Results (200 unique cache-miss queries per pair, the shared 2-core machine): load 9.1-9.9: free p50 / p95 33.7 /
100.0 ms, pin 27.0 / 70.7 (x0.80 / x0.71); load 9.0-9.4: free 29.0 / 62.3, pin 23.4 / 51.5 (x0.81 / x0.83).
Decisions identical 200/200 and block tokens equal 200/200 in both; no late query vector.

Run: `python -m bench.probe_fastctx8_services [--store DIR] [--queries N]`. A probe: prints its figures, writes
none under bench/results; nothing here is tuned on.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import grpc

from bench.assemble_corpus import SEED, make_corpus, make_queries
from bench.bench_assemble import inferd_process
from bench.memoryd_process import memoryd_process
from bench.served_ab import print_arms, time_arms
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc

#: pair → (memoryd's OSAURUS_MEMORYD_CPUS, inferd's OSAURUS_INFERD_CPUS); "" = not pinned.
PAIRS = {"free": ("", ""), "pin": ("0", "1")}


@contextmanager
def environment(**values: str) -> Iterator[None]:
    """os.environ with these values set (removed when empty) for the block: the bench's process helpers pass
    os.environ on to the processes they start."""
    saved = {name: os.environ.get(name) for name in values}
    for name, value in values.items():
        if value:
            os.environ[name] = value
        else:
            os.environ.pop(name, None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", type=Path, default=Path("/tmp/probe-fastctx8/sqlite"))
    parser.add_argument("--queries", type=int, default=40, help="per intended section")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fastctx8-services-"))
    homes = {}
    for name in PAIRS:
        homes[name] = work / name
        shutil.copytree(args.store, homes[name], ignore=shutil.ignore_patterns("memoryd.port", "memoryd.log"))
    corpus = make_corpus(random.Random(SEED))
    warm = [q for _, q in make_queries(corpus, random.Random(SEED + 13), 2)]
    queries = [q for _, q in make_queries(corpus, random.Random(SEED + 19), args.queries)]
    try:
        with ExitStack() as stack:
            stubs = {}
            pids = []
            for name, (memoryd_cpus, inferd_cpus) in PAIRS.items():
                with environment(OSAURUS_INFERD_CPUS=inferd_cpus):
                    target = stack.enter_context(inferd_process(work / f"inferd-{name}"))
                with environment(OSAURUS_MEMORYD_CPUS=memoryd_cpus):
                    served = stack.enter_context(memoryd_process(homes[name], target))
                pids.append(served.pid)
                stubs[name] = pb_grpc.MemoryServiceStub(
                    stack.enter_context(grpc.insecure_channel(served.target))
                )
            times = time_arms(stubs, pids, warm, queries, "pair")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print_arms(times, "free", "pin")


if __name__ == "__main__":
    main()
