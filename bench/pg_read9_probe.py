"""pgread9's probe (issue #21): read-path variants on PostgreSQL as in-process memoryd apps, interleaved in one run.

The store: bench_assemble's corpus (100k turns, 10k pinned facts, 5k episodes for one agent) seeded by
`assemble_services.seed_postgres`, the agent's partition filled and indexed by memoryd's first search, VACUUM
ANALYZE (`pg_settings_probe.seed_and_fill`). Seeding takes minutes, so `seed` keeps the stopped server's data
directory under OSAURUS_PROBE_DIR and `run` starts a copy of it with the deployment settings
(`pg_server_settings.DEPLOYMENT_SETTINGS`, as bench_assemble's server). One in-process memoryd app
(`memoryd.app.start`) per arm, each with its own `application_name`; unique queries (bench_assemble's generator,
its measured seed), so every call of every arm misses the assembly cache, the search's reuse and the query-vector
cache and embeds its query with the real MiniLM (inferd, its own process); the arms' order rotates per query.
Prints p50 / p95 per arm and its ratios to the first arm, the decisions (section, reason, block) that differ from the
first arm's, and with OSAURUS_PROBE_CPU=1 the server's CPU per statement kind (log_statement_stats, as
pg_statement_cpu).

Arms (OSAURUS_PROBE_ARMS, comma-separated; a name may repeat, for A/A pairs):
- `text`: the query vector bound as pgvector's text form (before pgread9);
- `binary`: bound in halfvec's binary form (storage/pg_halfvec.py, shipped);
- `kw_serial`: `binary`, with the evidence pass's keyword sides one after the other on the request thread
  (read/search.py's keyword_thread_rows at SQLite's 20,000 instead of PostgreSQL's 1): the concurrency question.

Run: `python -m bench.pg_read9_probe seed`, then `python -m bench.pg_read9_probe run` (OSAURUS_PROBE_QUERIES per
intended section, 40; OSAURUS_PROBE_WARM per section, 6). Not a committed figure: docs/postgres_search.md (tenth
pass).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo

from bench.assemble_corpus import AGENT, SEED, make_corpus, make_queries, write_config
from bench.assemble_services import percentile
from bench.bench_assemble import inferd_process
from bench.pg_server_settings import DEPLOYMENT_SETTINGS, pg_ctl_start, pg_ctl_stop, write_settings
from bench.pg_statement_cpu import print_cpu, server_cpu

DIR = Path(os.environ.get("OSAURUS_PROBE_DIR", "/tmp/pgread9"))


def _text(app: Any) -> None:
    app.vectors._vectors.binary_query = False


def _binary(app: Any) -> None:
    app.vectors._vectors.binary_query = True


def _kw_serial(app: Any) -> None:
    _binary(app)
    app.search.settings = replace(app.search.settings, keyword_thread_rows=20_000)


CONFIGURE: dict[str, Callable[[Any], None]] = {"text": _text, "binary": _binary, "kw_serial": _kw_serial}


def _timed_searches(app: Any, spans: list[float]) -> None:
    """Record the wall time of each of the app's vector statements (PgVectorStore.nearest_rows: the query vector's
    parameter, the walk, the joined rows), ms, into `spans`."""
    store = app.vectors._vectors
    inner = store.nearest_rows

    def nearest_rows(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spans.append((time.perf_counter() - t0) * 1000)

    store.nearest_rows = nearest_rows


def seed() -> None:
    """Seed a server, stop it and keep its data directory (DIR/pgdata) with its DSN (DIR/dsn.json)."""
    from psycopg.conninfo import conninfo_to_dict

    from bench.pg_settings_probe import seed_and_fill
    from tests.support.postgres import running_postgres

    home = Path(tempfile.mkdtemp(prefix="pg-read9-seed-"))
    with running_postgres() as pg, inferd_process(home / "inferd") as target:
        with psycopg.connect(pg.dsn_for("postgres"), autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET maintenance_work_mem = '1GB'")
            conn.execute("SELECT pg_reload_conf()")
        seed_and_fill(pg.dsn, home, target, 1.0)
        socket = str(conninfo_to_dict(pg.dsn)["host"])
        (DIR / "dsn.json").write_text(json.dumps({"dsn": pg.dsn, "socket": socket}))
        pg_ctl_stop(pg.pgdata)
        subprocess.run(["cp", "-a", str(pg.pgdata), str(DIR / "pgdata")], check=True)
        pg_ctl_start(pg.pgdata, socket)  # the wheel's clean-up stops the server it started
    shutil.rmtree(home, ignore_errors=True)


def _stats(admin: str, on: bool) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        if on:
            conn.execute("ALTER SYSTEM SET log_statement_stats = on")
            conn.execute("ALTER SYSTEM SET log_statement = 'all'")
            conn.execute("ALTER SYSTEM SET log_line_prefix = '%m [%p] %a '")
        else:
            conn.execute("ALTER SYSTEM RESET log_statement_stats")
            conn.execute("ALTER SYSTEM RESET log_statement")
        conn.execute("SELECT pg_reload_conf()")


def run() -> None:
    arms = [a.strip() for a in os.environ.get("OSAURUS_PROBE_ARMS", "text,binary,text,binary").split(",")]
    names = [f"{a}#{arms[:i].count(a) + 1}" for i, a in enumerate(arms)]
    per_section = int(os.environ.get("OSAURUS_PROBE_QUERIES", "40"))
    warm = int(os.environ.get("OSAURUS_PROBE_WARM", "6"))
    cpu_on = os.environ.get("OSAURUS_PROBE_CPU") == "1"
    saved = json.loads((DIR / "dsn.json").read_text())
    home = Path(tempfile.mkdtemp(prefix="pg-read9-run-"))
    pgdata = home / "pgdata"
    subprocess.run(["cp", "-a", str(DIR / "pgdata"), str(pgdata)], check=True)
    shutil.chown(home, "pgserver")
    os.chmod(home, 0o755)
    (pgdata / "log").write_text("")
    shutil.chown(pgdata / "log", "pgserver")
    write_settings(pgdata, DEPLOYMENT_SETTINGS)
    pg_ctl_start(pgdata, str(pgdata))
    dsn = make_conninfo(saved["dsn"], host=str(pgdata))
    admin = make_conninfo(dsn, dbname="postgres")
    from memoryd.app import start
    from memoryd.config import ServiceSettings

    apps: dict[str, Any] = {}
    corpus = make_corpus(random.Random(SEED))
    decided: dict[str, list[tuple[str, str, str]]] = {n: [] for n in names}
    times: dict[str, list[float]] = {n: [] for n in names}
    spans: dict[str, list[float]] = {n: [] for n in names}
    try:
        with inferd_process(home / "inferd") as target:
            for name, arm in zip(names, arms, strict=True):
                (home / name).mkdir()
                write_config(home / name)
                apps[name] = start(
                    ServiceSettings(
                        listen="127.0.0.1:0",
                        home=home / name,
                        inferd_addr=target,
                        database_url=make_conninfo(dsn, application_name=name.replace("#", "_")),
                        background_indexing=False,
                    )
                )
                CONFIGURE[arm](apps[name][1])
                _timed_searches(apps[name][1], spans[name])
            for q in [q for _, q in make_queries(corpus, random.Random(SEED + 3), warm)]:
                for _, app in apps.values():
                    app.read_path.assemble(AGENT, q)
            queries = [q for _, q in make_queries(corpus, random.Random(SEED + 2), per_section)]
            for held in spans.values():
                held.clear()
            log = pgdata / "log"
            if cpu_on:
                _stats(admin, True)
            start_at = log.stat().st_size
            loads = [os.getloadavg()[0]]
            for i, q in enumerate(queries):
                k = i % len(names)
                for name in names[k:] + names[:k]:
                    t0 = time.perf_counter()
                    answer = apps[name][1].read_path.assemble(AGENT, q)
                    times[name].append((time.perf_counter() - t0) * 1000)
                    decided[name].append((str(answer.section), answer.reason, answer.block))
                loads.append(os.getloadavg()[0])
            if cpu_on:
                _stats(admin, False)
            text = log.read_bytes()[start_at:].decode("utf-8", "replace")
    finally:
        for running, app in apps.values():
            running.stop(1.0)
            app.close()
        pg_ctl_stop(pgdata)
        shutil.rmtree(home, ignore_errors=True)
    n = len(queries)
    print(f"{n} cache-miss assemblies per arm, arms {names}, load {min(loads):.1f}-{max(loads):.1f}")
    if cpu_on:
        cpu = server_cpu(text)
        print_cpu({name: cpu[name.replace("#", "_")] for name in names}, tuple(names), n)
    first = names[0]
    base50, base95 = statistics.median(times[first]), percentile(times[first], 0.95)
    for name in names:
        t = times[name]
        differ = [i for i, (x, y) in enumerate(zip(decided[name], decided[first], strict=True)) if x != y]
        print(
            f"{name}: p50 {statistics.median(t):.1f} p95 {percentile(t, 0.95):.1f} mean {statistics.fmean(t):.1f} ms;"
            f" ÷ {first}: p50 {statistics.median(t) / base50:.3f} p95 {percentile(t, 0.95) / base95:.3f};"
            f" decisions differ in {len(differ)} of {n}; vector statements {len(spans[name])}, p50 / p95 / mean"
            f" {statistics.median(spans[name]):.2f} / {percentile(spans[name], 0.95):.2f} /"
            f" {statistics.fmean(spans[name]):.2f} ms"
        )
        for i in differ:
            print(
                f"    {i}: {decided[first][i][:2]} -> {decided[name][i][:2]}; block equal "
                f"{decided[first][i][2] == decided[name][i][2]}"
            )
    print(json.dumps({name: [round(x, 2) for x in times[name]] for name in names}))


if __name__ == "__main__":
    {"seed": seed, "run": run}[sys.argv[1] if len(sys.argv) > 1 else "run"]()
