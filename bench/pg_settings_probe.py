"""pgread8's probe (issue #21): AssembleContext on PostgreSQL with pgserver's defaults beside deployment settings.

bench_assemble's corpus (OSAURUS_PROBE_SCALE of it) seeded by `assemble_services.seed_postgres` on a test server
(tests/support/postgres.py), the agent's pgvector partition filled and indexed by memoryd's first search, then
VACUUM ANALYZE. The server is stopped and its data directory copied, so two servers hold the same bytes: `a` keeps
pgserver's defaults, `b` gets `pg_server_settings.DEPLOYMENT_SETTINGS` (shared_buffers sized to the working set,
effective_cache_size, …). Arms, each an in-process memoryd app (`memoryd.app.start`) with its own
`application_name`, interleaved per query with the order rotated:

- `defaults`, `defaults_again`: server a as pgserver starts it (an A/A pair: the spread of identical arms);
- `session`: server a, with session settings in the connection's startup packet (random_page_cost 1.1, the usual
  SSD advice, and effective_cache_size 8GB): what memoryd could set itself at connect;
- `deployment`, `deployment_again`: server b (an A/A pair too).

Both servers log getrusage of every protocol message (`log_statement_stats`), so the table gives the server's CPU
per statement kind and the statements (execute messages) per assembly. Queries: bench_assemble's generator with its
measured seed (unique texts: every call misses the assembly cache, the search's reuse and the query-vector cache).
The decisions (section, reason, block) of every arm are compared with `defaults`'s query by query.

Run: `python -m bench.pg_settings_probe` (OSAURUS_PROBE_QUERIES per intended section, 30 by default;
OSAURUS_PROBE_WARM per section before timing, 8). Not a committed figure: docs/postgres_search.md ("ninth pass").
"""

from __future__ import annotations

import atexit
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from psycopg.conninfo import make_conninfo

from bench.assemble_corpus import AGENT, QUERY_MODEL, SEED, make_corpus, make_queries, write_config
from bench.assemble_services import percentile, seed_postgres
from bench.bench_assemble import inferd_process
from bench.pg_server_settings import (
    DEPLOYMENT_SETTINGS,
    pg_ctl_start,
    pg_ctl_stop,
    postmaster_pid,
    write_settings,
)
from bench.pg_statement_cpu import kind_of, print_cpu, server_cpu
from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from tests.support.postgres import running_postgres

#: Session settings a memoryd could send in its startup packet (shared_buffers cannot be one: it is the server's):
#: the usual SSD advice for random_page_cost, and effective_cache_size as the deployment server has it.
SESSION_SETTINGS: tuple[tuple[str, str], ...] = (("random_page_cost", "1.1"), ("effective_cache_size", "8GB"))
_LINE = re.compile(r"^\S+ \S+ \S+ \[(\d+)\] (\S*) (LOG|DETAIL|STATEMENT):\s+(.*)")
ARMS = ("defaults", "defaults_again", "session", "deployment", "deployment_again")


def _stats(dsn: str, on: bool) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        if on:
            conn.execute("ALTER SYSTEM SET log_statement_stats = on")
            conn.execute("ALTER SYSTEM SET log_statement = 'all'")
            conn.execute("ALTER SYSTEM SET log_line_prefix = '%m [%p] %a '")
        else:
            conn.execute("ALTER SYSTEM RESET log_statement_stats")
            conn.execute("ALTER SYSTEM RESET log_statement")
        conn.execute("SELECT pg_reload_conf()")


def _executes(log: str) -> dict[str, dict[str, int]]:
    """application name → statement kind (pg_statement_cpu's) → execute / simple-query messages logged."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for line in log.splitlines():
        head = _LINE.match(line)
        if head and head.group(3) == "LOG" and head.group(4).startswith(("execute ", "statement: ")):
            counts[head.group(2)][kind_of(head.group(4).split(": ", 1)[-1])] += 1
    return counts


def _working_set(dsn: str) -> list[tuple[str, float]]:
    """The largest relations of the store's schemas, MB (what shared_buffers would hold)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT c.relname, pg_relation_size(c.oid) / 1048576.0 FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')"
            " AND c.relkind IN ('r', 'i', 'm') ORDER BY 2 DESC LIMIT 25"
        ).fetchall()
    return [(str(name), float(mb)) for name, mb in rows]


def seed_and_fill(dsn: str, home: Path, target: str, scale: float) -> None:
    """bench_assemble's rows on `dsn` (seeded as it seeds them), the agent's partition filled and indexed by a
    memoryd app's first search, then VACUUM ANALYZE and a checkpoint (the state autovacuum would reach)."""
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    seed_postgres(home / "seed", target, dsn, scale, int(time.time() * 1000))
    (home / "fill").mkdir()
    write_config(home / "fill")
    fill = build_app(
        ServiceSettings(
            listen="127.0.0.1:0",
            home=home / "fill",
            inferd_addr=target,
            database_url=dsn,
            background_indexing=False,
        )
    )
    try:  # memoryd's first vector search of the agent fills its partition and builds its HNSW indexes
        probe = np.ones(384, dtype=np.float32)
        for kind in (KIND_TRANSCRIPT, KIND_PINNED, KIND_EPISODE):
            if not fill.vectors.search(AGENT, kind, QUERY_MODEL, probe, 10):
                raise RuntimeError(f"no {kind} vectors after the refill")
    finally:
        fill.close()
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE)")
        conn.execute("CHECKPOINT")


def main() -> None:
    per_section = int(os.environ.get("OSAURUS_PROBE_QUERIES", "30"))
    warm_per_section = int(os.environ.get("OSAURUS_PROBE_WARM", "8"))
    scale = float(os.environ.get("OSAURUS_PROBE_SCALE", "1.0"))
    home = Path(tempfile.mkdtemp(prefix="pg-settings-probe-"))
    atexit.register(shutil.rmtree, home, True)  # the seeded homes are ~90 MB each
    corpus = make_corpus(random.Random(SEED))
    with running_postgres() as pg, inferd_process(home / "inferd") as target:
        admin = pg.dsn_for("postgres")
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET maintenance_work_mem = '1GB'")
            conn.execute("SELECT pg_reload_conf()")
        t0 = time.perf_counter()
        seed_and_fill(pg.dsn, home, target, scale)
        sizes = _working_set(pg.dsn)
        print(f"seeded, filled, vacuumed in {time.perf_counter() - t0:.0f} s", flush=True)
        print("largest relations MB:", ", ".join(f"{n} {mb:.0f}" for n, mb in sizes[:12]))
        print(f"sum of the 25 largest: {sum(mb for _, mb in sizes):.0f} MB", flush=True)

        from psycopg.conninfo import conninfo_to_dict

        socket_a = str(conninfo_to_dict(pg.dsn)["host"])
        pgdata_b = pg.pgdata.parent / "pgdata_b"
        pg_ctl_stop(pg.pgdata)
        subprocess.run(["cp", "-a", str(pg.pgdata), str(pgdata_b)], check=True)
        (pgdata_b / "log").write_text("")
        write_settings(pgdata_b, DEPLOYMENT_SETTINGS)
        pg_ctl_start(pg.pgdata, socket_a)
        pg_ctl_start(pgdata_b, str(pgdata_b))
        dsn_b = make_conninfo(pg.dsn, host=str(pgdata_b))
        admin_b = make_conninfo(admin, host=str(pgdata_b))
        try:
            with psycopg.connect(admin_b, autocommit=True) as conn:
                shown = {n: conn.execute(f"SHOW {n}").fetchone() for n, _ in DEPLOYMENT_SETTINGS}
            print("server b:", shown, "pid", postmaster_pid(pgdata_b), flush=True)
            session = " ".join(f"-c {n}={v}" for n, v in SESSION_SETTINGS)
            dsns = {
                "defaults": make_conninfo(pg.dsn, application_name="defaults"),
                "defaults_again": make_conninfo(pg.dsn, application_name="defaults_again"),
                "session": make_conninfo(pg.dsn, application_name="session", options=session),
                "deployment": make_conninfo(dsn_b, application_name="deployment"),
                "deployment_again": make_conninfo(dsn_b, application_name="deployment_again"),
            }
            _run(
                home, target, dsns, corpus, per_section, warm_per_section, admin, admin_b, pgdata_b, pg.pgdata
            )
        finally:
            pg_ctl_stop(pgdata_b)
            shutil.rmtree(pgdata_b, ignore_errors=True)
            # server a: the wheel's clean-up checks the postmaster it started, which the copy's stop replaced
            pg_ctl_stop(pg.pgdata)


def _run(
    home: Path,
    target: str,
    dsns: dict[str, str],
    corpus: Any,
    per_section: int,
    warm_per_section: int,
    admin_a: str,
    admin_b: str,
    pgdata_b: Path,
    pgdata_a: Path,
) -> None:
    from memoryd.app import start
    from memoryd.config import ServiceSettings

    apps: dict[str, Any] = {}
    decided: dict[str, list[tuple[str, str, str]]] = {arm: [] for arm in ARMS}
    try:
        for arm in ARMS:
            (home / arm).mkdir()
            write_config(home / arm)
            apps[arm] = start(
                ServiceSettings(
                    listen="127.0.0.1:0",
                    home=home / arm,
                    inferd_addr=target,
                    database_url=dsns[arm],
                    background_indexing=False,
                )
            )
        for q in [q for _, q in make_queries(corpus, random.Random(SEED + 3), warm_per_section)]:
            for _, app in apps.values():
                app.read_path.assemble(AGENT, q)
        queries = [q for _, q in make_queries(corpus, random.Random(SEED + 2), per_section)]
        logs = {"a": pgdata_a / "log", "b": pgdata_b / "log"}
        _stats(admin_a, True)
        _stats(admin_b, True)
        starts = {k: p.stat().st_size for k, p in logs.items()}
        times: dict[str, list[float]] = {arm: [] for arm in ARMS}
        loads = [os.getloadavg()[0]]
        for i, q in enumerate(queries):
            k = i % len(ARMS)
            for arm in ARMS[k:] + ARMS[:k]:
                t0 = time.perf_counter()
                answer = apps[arm][1].read_path.assemble(AGENT, q)
                times[arm].append((time.perf_counter() - t0) * 1000)
                decided[arm].append((str(answer.section), answer.reason, answer.block))
            loads.append(os.getloadavg()[0])
        _stats(admin_a, False)
        _stats(admin_b, False)
        text = "\n".join(p.read_bytes()[starts[k] :].decode("utf-8", "replace") for k, p in logs.items())
        cpu = server_cpu(text)
        executes = _executes(text)
    finally:
        for running, app in apps.values():
            running.stop(1.0)
            app.close()
    n = len(queries)
    print(f"{n} cache-miss assemblies per arm, load {min(loads):.1f}-{max(loads):.1f}")
    print_cpu(cpu, ARMS, n)
    print("statements (execute messages) per assembly:", " / ".join(ARMS))
    for kind in sorted({k for arm in ARMS for k in executes[arm]}):
        print(f"  {kind:45s} " + " / ".join(f"{executes[arm][kind] / n:6.2f}" for arm in ARMS))
    print(f"  {'total':45s} " + " / ".join(f"{sum(executes[arm].values()) / n:6.2f}" for arm in ARMS))
    base = decided["defaults"]
    for arm in ARMS:
        differ = [i for i, (x, y) in enumerate(zip(decided[arm], base, strict=True)) if x != y]
        t = times[arm]
        print(
            f"{arm}: p50 {statistics.median(t):.1f} p95 {percentile(t, 0.95):.1f} mean {statistics.fmean(t):.1f} ms;"
            f" ratio to defaults p50 {statistics.median(t) / statistics.median(times['defaults']):.2f}"
            f" p95 {percentile(t, 0.95) / percentile(times['defaults'], 0.95):.2f};"
            f" decisions differ from defaults in {len(differ)} of {n}: {differ}"
        )
        for i in differ:
            print(
                f"    {i}: {base[i][:2]} -> {decided[arm][i][:2]}; block equal {base[i][2] == decided[arm][i][2]}"
            )
    print(json.dumps({arm: {k: round(v / n, 3) for k, v in cpu[arm].items()} for arm in ARMS}))
    print(json.dumps({arm: [round(x, 2) for x in times[arm]] for arm in ARMS}))


if __name__ == "__main__":
    main()
