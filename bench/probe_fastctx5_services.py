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
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import grpc

from bench.assemble_corpus import AGENT, SEED, make_corpus, make_queries
from bench.assemble_services import percentile
from bench.bench_assemble import inferd_process
from bench.child_process import stop
from bench.memoryd_process import wait_until_idle
from osaurus.memory.v1 import memory_pb2 as pb
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
    ms: dict[str, list[float]] = {name: [] for name in arms}
    decided: dict[str, list[tuple[int, tuple[str, ...], int]]] = {name: [] for name in arms}
    late = dict.fromkeys(arms, 0)
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
            for i, q in enumerate(warm):
                for name in stubs:
                    stubs[name].AssembleContext(
                        pb.AssembleContextRequest(agent_id=AGENT, query=q), timeout=900
                    )
                if i == len(warm) // 2:
                    wait_until_idle(pids)
            waited, quiet = wait_until_idle(pids, timeout_s=300.0)
            load = os.getloadavg()[0]
            names = list(stubs)
            for i, q in enumerate(queries):
                for name in names if i % 2 == 0 else names[::-1]:
                    started = time.perf_counter()
                    reply = stubs[name].AssembleContext(
                        pb.AssembleContextRequest(agent_id=AGENT, query=q), timeout=30
                    )
                    ms[name].append((time.perf_counter() - started) * 1000)
                    placed = tuple(sorted(f"{p.kind}:{p.id}" for p in reply.placed))
                    decided[name].append((reply.section, placed, reply.block_tokens))
                    late[name] += "fts_only" in reply.reason
            print(
                f"{len(queries)} queries per process, idle wait {waited:.0f} s (quiet: {quiet}),"
                f" load {load:.1f} -> {os.getloadavg()[0]:.1f}"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    b50, b95 = statistics.median(ms["base"]), percentile(ms["base"], 0.95)
    for name in arms:
        p50, p95 = statistics.median(ms[name]), percentile(ms[name], 0.95)
        print(
            f"{name}: p50 {p50:.1f} p95 {p95:.1f} max {max(ms[name]):.1f} ms (x{p50 / b50:.2f} / x{p95 / b95:.2f});"
            f" query vector late: {late[name]}"
        )
    pairs = list(zip(decided["base"], decided["new"], strict=True))
    print(
        f"decisions identical (section, placed): {sum(a[:2] == b[:2] for a, b in pairs)}/{len(pairs)};"
        f" block tokens equal: {sum(a[2] == b[2] for a, b in pairs)}/{len(pairs)}"
    )


if __name__ == "__main__":
    main()
