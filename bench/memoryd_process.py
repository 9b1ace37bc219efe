"""`python -m memoryd` as its own process for a benchmark, on SQLite or PostgreSQL, and a wait for quiet.

`memoryd_process(home, inferd, database_url)` starts memoryd on the store under `home` (SQLite) or at
`database_url` (PostgreSQL, its `public` schema), pointed at a running inferd, and yields its gRPC target; memory.json
is the caller's (written before). `wait_until_idle(pids)` waits until those processes (and their children, e.g.
PostgreSQL's backends) stop using CPU: the end of the work a first search starts in the background (faiss loads and
the approximate index on SQLite, the pgvector refill and HNSW build on PostgreSQL, autovacuum after a bulk load),
so no timed call meets it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc

from bench.child_process import stop

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Memoryd:
    """A running memoryd process: its pid and gRPC target."""

    pid: int
    target: str


@contextmanager
def memoryd_process(home: Path, inferd_target: str, database_url: str = "") -> Iterator[Memoryd]:
    """memoryd on `home` (and `database_url` when given) until the block ends; SIGTERM, then kill after 20 s."""
    port_file = home / "memoryd.port"
    port_file.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "protos" / "gen")]))
    command = [sys.executable, "-m", "memoryd", "--listen", "127.0.0.1:0", "--port-file", str(port_file)]
    command += ["--home", str(home), "--inferd", inferd_target, "--log-level", "WARNING"]
    command += ["--database-url", database_url] if database_url else []
    log_path = home / "memoryd.log"
    with log_path.open("ab") as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while not port_file.exists():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"memoryd did not start: {log_path.read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)
        target = port_file.read_text().strip()
        with grpc.insecure_channel(target) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
        yield Memoryd(process.pid, target)
    finally:
        stop(process)


def _children(pid: int) -> list[int]:
    """Direct children of `pid` (from /proc/<pid>/task/*/children)."""
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def _ticks(pids: Iterable[int]) -> int:
    """User + system clock ticks used so far by the processes and their direct children."""
    total = 0
    for pid in {p for root in pids for p in (root, *_children(root))}:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        total += int(fields[11]) + int(fields[12])
    return total


def wait_until_idle(
    pids: Iterable[int], *, quiet_s: float = 2.0, max_ticks_per_s: float = 5.0, timeout_s: float = 900.0
) -> tuple[float, bool]:
    """Block until the processes used at most `max_ticks_per_s` clock ticks per second over `quiet_s` (5% of one
    core at 100 ticks/s), or `timeout_s` passed; returns (seconds waited, whether they went quiet)."""
    roots = list(pids)
    started = time.monotonic()
    while True:
        before = _ticks(roots)
        time.sleep(quiet_s)
        if _ticks(roots) - before <= max_ticks_per_s * quiet_s:
            return time.monotonic() - started, True
        if time.monotonic() - started > timeout_s:
            return time.monotonic() - started, False
