"""AssembleContext over gRPC against two real memoryd processes, one per code tree, on copies of one seeded store
(issue 17 item 4, fastctx5): the headline's path, where memoryd's own line-token filler runs after start.

Both processes talk to one inferd (bench_assemble's: fake LLM for token counts, the real MiniLM for queries). After a
warm-up and a wait until both are idle (assemble_services' procedure), unique cache-miss queries go to both,
interleaved, each process first on every other query. Printed: p50/p95 per process with the ratio, late query
vectors, and decisions (section, placed rows, block tokens) compared query by query.

Run: `python -m bench.probe_fastctx5_services --base-repo DIR --store DIR [--queries N]`: DIR a clone of the code
to compare against (e.g. main), the store a seeded bench home (probe_place_cost's `<home>/sqlite`), copied twice
under /tmp. A probe: prints its figures, writes none under bench/results; nothing here is tuned on.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import grpc

from bench.assemble_corpus import SEED, make_corpus, make_queries
from bench.bench_assemble import inferd_process
from bench.child_process import stop
from bench.served_ab import print_arms, time_arms
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc

HERE = Path(__file__).resolve().parents[1]


@contextmanager
def memoryd_from(repo: Path, home: Path, inferd_target: str) -> Iterator[tuple[int, str]]:
    """`python -m memoryd` from the code under `repo` on the store under `home`; yields (pid, target)."""
    port_file = home / "memoryd.port"
    port_file.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(repo), str(repo / "protos" / "gen")]))
    command = [sys.executable, "-m", "memoryd", "--listen", "127.0.0.1:0", "--port-file", str(port_file)]
    command += ["--home", str(home), "--inferd", inferd_target, "--log-level", "WARNING"]
    with (home / "memoryd.log").open("ab") as log:
        process = subprocess.Popen(command, cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while not port_file.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"memoryd from {repo} did not start")
            time.sleep(0.05)
        yield process.pid, port_file.read_text().strip()
    finally:
        stop(process)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-repo", type=Path, required=True)
    parser.add_argument("--store", type=Path, default=Path("/tmp/probe-place-cost/sqlite"))
    parser.add_argument("--queries", type=int, default=40, help="per intended section")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fastctx5-services-"))
    arms = {"base": args.base_repo.resolve(), "new": HERE}
    homes = {}
    for name in arms:
        homes[name] = work / name
        shutil.copytree(args.store, homes[name], ignore=shutil.ignore_patterns("memoryd.port", "memoryd.log"))
    corpus = make_corpus(random.Random(SEED))
    warm = [q for _, q in make_queries(corpus, random.Random(SEED + 13), 2)]
    queries = [q for _, q in make_queries(corpus, random.Random(SEED + 17), args.queries)]
    try:
        with ExitStack() as stack:
            target = stack.enter_context(inferd_process(work / "inferd"))
            running = {
                n: stack.enter_context(memoryd_from(repo, homes[n], target)) for n, repo in arms.items()
            }
            stubs = {
                n: pb_grpc.MemoryServiceStub(stack.enter_context(grpc.insecure_channel(t)))
                for n, (_, t) in running.items()
            }
            pids = [pid for pid, _ in running.values()]
            times = time_arms(stubs, pids, warm, queries, "process")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print_arms(times, "base", "new")


if __name__ == "__main__":
    main()
