"""pgread6's probe (issue #21): the PostgreSQL server's CPU per statement kind of a cache-miss AssembleContext.

bench_assemble's corpus (OSAURUS_PROBE_SCALE of it) seeded by `assemble_services.seed_postgres` on a test server
(tests/support/postgres.py, shared_buffers 128 MB), inferd with the fake LLM and the real MiniLM. Two in-process
memoryd apps (`memoryd.app.start`) on the same database, the same code — an A/A pair, so the spread of identical
arms is printed beside the figures — each connecting with its own `application_name`. The server logs getrusage
(user + system CPU) of every protocol message (`log_statement_stats`, with `%a` in the line prefix) while the
timed calls run; parse and bind messages (where planning happens) are one row, execute messages are grouped by
what the statement does. Queries: bench_assemble's generator with its measured seed, unique, so every call of
either app misses the assembly cache, the search's reuse and the query-embedding cache. Prints the table and p50 /
p95 per app. Not a committed figure: docs/postgres_search.md ("seventh pass") records the runs (there, main's
`pg_vectors.py` was swapped into one app's registry to compare code in one run).

Run: `python -m bench.pg_statement_cpu` (OSAURUS_PROBE_QUERIES per intended section, 20 by default;
OSAURUS_PROBE_PLANNING=1 splits the parse / bind row by the kind of statement planned; OSAURUS_PROBE_WHOLE_MATCH=1
gives the first app the keyword statement that reads a large match whole, pg_fts.WEAK_WINDOW None). The decisions
(section, reason, block) of the two apps are compared query by query.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import psycopg
from psycopg.conninfo import make_conninfo

from bench.assemble_corpus import AGENT, SEED, make_corpus, make_queries, write_config
from bench.assemble_services import percentile, seed_postgres
from bench.bench_assemble import inferd_process
from memoryd.storage.pg_fts import PgFtsIndex
from tests.support.postgres import running_postgres

ARMS = ("a", "a_again")
#: What an execute message's statement is, by a piece of its text (the first that matches).
KINDS = (
    ("<=>", "nearest rows (HNSW walk or exact scan)"),
    ("ts_rank", "ranked keyword candidates"),
    ("search_term_counts", "document frequencies / corpus"),
    ("ANY(", "rows by id"),
    ("set_config", "session settings"),
)
_STATS = re.compile(r"!\s+([\d.]+) s user, ([\d.]+) s system")
_LINE = re.compile(r"^\S+ \S+ \S+ \[(\d+)\] (\S*) (LOG|DETAIL|STATEMENT):\s+(.*)")


def kind_of(statement: str) -> str:
    text = " ".join(statement.split())
    for piece, name in KINDS:
        if piece in text:
            return name
    return "other"


def _settings(dsn: str, on: bool) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        if on:
            conn.execute("ALTER SYSTEM SET log_statement_stats = on")
            conn.execute("ALTER SYSTEM SET log_statement = 'all'")
            conn.execute("ALTER SYSTEM SET log_line_prefix = '%m [%p] %a '")
        else:
            conn.execute("ALTER SYSTEM RESET log_statement_stats")
            conn.execute("ALTER SYSTEM RESET log_statement")
        conn.execute("SELECT pg_reload_conf()")


def server_cpu(log: str, *, planning_by_kind: bool = False) -> dict[str, dict[str, float]]:
    """application name → statement kind → CPU ms (user + system) in the log text. With `planning_by_kind`, the
    parse and bind messages (logged before their statement's execute line) count as "planning: <kind>" of the
    statement executed next on the same backend instead of one "parse / bind (planning)" row."""
    statement: dict[str, str] = {}
    pending: dict[str, tuple[str, str]] = {}
    planned: dict[str, float] = defaultdict(float)
    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    pid = ""
    for line in log.splitlines():
        head = _LINE.match(line)
        if head:
            pid, app, level, message = head.groups()
            if level == "LOG" and message.startswith(("execute ", "statement: ")):
                statement[pid] = message.split(": ", 1)[-1]
                if planning_by_kind and pid in planned:
                    out[app][f"planning: {kind_of(statement[pid])}"] += planned.pop(pid)
            elif level == "LOG" and "STATISTICS" in message:
                pending[pid] = (message.split()[0], app)
            continue
        stats = _STATS.search(line)
        if stats and pid in pending:
            message_kind, app = pending.pop(pid)
            ms = (float(stats.group(1)) + float(stats.group(2))) * 1000
            if message_kind == "EXECUTE":
                out[app][kind_of(statement.get(pid, ""))] += ms
            elif planning_by_kind:
                planned[pid] += ms
            else:
                out[app]["parse / bind (planning)"] += ms
    return out


def print_cpu(cpu: dict[str, dict[str, float]], arms: tuple[str, ...], n: int) -> None:
    """The server CPU table: ms per assembly by statement kind (heaviest in the first arm first), then the total."""
    kinds = sorted({k for arm in arms for k in cpu[arm]}, key=lambda k: -cpu[arms[0]][k])
    print("server CPU ms per assembly (user + system):", " / ".join(arms))
    for kind in kinds:
        print(f"  {kind:45s} " + " / ".join(f"{cpu[arm][kind] / n:6.2f}" for arm in arms))
    print(f"  {'total':45s} " + " / ".join(f"{sum(cpu[arm].values()) / n:6.2f}" for arm in arms))


def main() -> None:
    per_section = int(os.environ.get("OSAURUS_PROBE_QUERIES", "20"))
    scale = float(os.environ.get("OSAURUS_PROBE_SCALE", "1.0"))
    from memoryd.app import start
    from memoryd.config import ServiceSettings

    home = Path(tempfile.mkdtemp(prefix="pg-statement-cpu-"))
    with running_postgres() as pg, inferd_process(home / "inferd") as target:
        admin = pg.dsn_for("postgres")
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET maintenance_work_mem = '1GB'")
            conn.execute("SELECT pg_reload_conf()")
        seed_postgres(home / "seed", target, pg.dsn, scale, int(time.time() * 1000))
        apps: dict[str, Any] = {}
        for arm in ARMS:
            (home / arm).mkdir()
            write_config(home / arm)
            dsn = make_conninfo(pg.dsn, application_name=arm)
            apps[arm] = start(
                ServiceSettings(
                    listen="127.0.0.1:0",
                    home=home / arm,
                    inferd_addr=target,
                    database_url=dsn,
                    background_indexing=False,
                )
            )
        if os.environ.get("OSAURUS_PROBE_WHOLE_MATCH") == "1":
            # The first app ranks a large keyword match's weak rows from the whole match (pg_fts.WEAK_WINDOW None,
            # the statement before the eighth pass), the second with the window: before / after in one run.
            store = apps[ARMS[0]][1].store
            store.fts = PgFtsIndex(store.db.percent_queries(), store.db.schema, weak_window=None)
        corpus = make_corpus(random.Random(SEED))
        decided: dict[str, list[tuple[str, str, str]]] = {arm: [] for arm in ARMS}
        try:
            for q in [
                q for _, q in make_queries(corpus, random.Random(SEED + 3), 4)
            ]:  # warm-up, not measured
                for _, app in apps.values():
                    app.read_path.assemble(AGENT, q)
            queries = [q for _, q in make_queries(corpus, random.Random(SEED + 2), per_section)]
            log = pg.pgdata / "log"
            _settings(admin, True)
            start_at = log.stat().st_size
            times: dict[str, list[float]] = {arm: [] for arm in ARMS}
            loads = [os.getloadavg()[0]]
            for i, q in enumerate(queries):
                for arm in ARMS[i % 2 :] + ARMS[: i % 2]:
                    t0 = time.perf_counter()
                    answer = apps[arm][1].read_path.assemble(AGENT, q)
                    times[arm].append((time.perf_counter() - t0) * 1000)
                    decided[arm].append((str(answer.section), answer.reason, answer.block))
                loads.append(os.getloadavg()[0])
            _settings(admin, False)
            cpu = server_cpu(
                log.read_bytes()[start_at:].decode("utf-8", "replace"),
                planning_by_kind=os.environ.get("OSAURUS_PROBE_PLANNING") == "1",
            )
        finally:
            for running, app in apps.values():
                running.stop(1.0)
                app.close()
    n = len(queries)
    print(f"{n} cache-miss assemblies per app, load {min(loads):.1f}-{max(loads):.1f}")
    print_cpu(cpu, ARMS, n)
    differ = [
        i for i, pair in enumerate(zip(*(decided[arm] for arm in ARMS), strict=True)) if pair[0] != pair[1]
    ]
    print(f"section, reason and block identical in {n - len(differ)} of {n} queries; differ: {differ}")
    for arm in ARMS:
        print(f"{arm}: p50 {statistics.median(times[arm]):.1f} p95 {percentile(times[arm], 0.95):.1f} ms")
    print(json.dumps({arm: {k: round(v / n, 3) for k, v in cpu[arm].items()} for arm in ARMS}))


if __name__ == "__main__":
    main()
