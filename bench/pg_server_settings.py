"""The PostgreSQL server settings a benchmark's test server runs with (issue #21, pgread8).

pgserver starts PostgreSQL with its defaults (shared_buffers 128 MB, random_page_cost 4). A deployment sizes
shared_buffers to its working set (docs/scaling.md); at bench_assemble's 100k rows per agent that is ~0.6 GB (the
vectors partition with its three HNSW graphs, the transcript heap and its GIN, the facts and episodes), so the
deployment settings give 1 GB. OSAURUS_BENCH_PG_SERVER picks them: `deployment` (the default) or `defaults`
(pgserver's, as before pgread8). shared_buffers needs a restart, so `apply` restarts the server (pg_ctl, as the
pgserver wheel runs it) and returns the instance with the new postmaster's pid.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.support.postgres import PostgresInstance

ENV = "OSAURUS_BENCH_PG_SERVER"
DEPLOYMENT = "deployment"
DEFAULTS = "defaults"
#: What a deployment with a few GB of RAM per database node gives a memoryd database (docs/scaling.md). jit is off
#: in every memoryd session already (storage/pg_db.py), and the pgserver build has no JIT provider. random_page_cost
#: stays at 4: 1.1 (the usual SSD advice) made the keyword ranking statement cost ~1.2 ms more server CPU per
#: assembly in two interleaved runs (docs/postgres_search.md, ninth pass).
DEPLOYMENT_SETTINGS: tuple[tuple[str, str], ...] = (
    ("shared_buffers", "1GB"),
    ("effective_cache_size", "8GB"),
    ("jit", "off"),
)


def chosen() -> str:
    """`deployment` or `defaults` (OSAURUS_BENCH_PG_SERVER); ValueError for anything else."""
    value = os.environ.get(ENV, DEPLOYMENT).strip().lower() or DEPLOYMENT
    if value not in (DEPLOYMENT, DEFAULTS):
        raise ValueError(f"{ENV} must be {DEPLOYMENT} or {DEFAULTS}; got {value!r}")
    return value


def settings_for(choice: str) -> tuple[tuple[str, str], ...]:
    """The settings `choice` adds to pgserver's (none for `defaults`)."""
    return DEPLOYMENT_SETTINGS if choice == DEPLOYMENT else ()


def server_settings() -> tuple[tuple[str, str], ...]:
    """The settings OSAURUS_BENCH_PG_SERVER chooses."""
    return settings_for(chosen())


def describe(settings: Sequence[tuple[str, str]]) -> str:
    """ "shared_buffers 1GB, …" or pgserver's defaults, for a report's headline."""
    if not settings:
        return "pgserver's defaults (shared_buffers 128MB, effective_cache_size 4GB, random_page_cost 4)"
    return ", ".join(f"{name} {value}" for name, value in settings)


def _system_user() -> str | None:
    return "pgserver" if os.geteuid() == 0 else None


def _socket_dir(pg: PostgresInstance) -> str:
    from psycopg.conninfo import conninfo_to_dict

    return str(conninfo_to_dict(pg.dsn)["host"])


def postmaster_pid(pgdata: Path) -> int:
    """The pid of the postmaster running on `pgdata` (first line of postmaster.pid)."""
    return int((pgdata / "postmaster.pid").read_text().splitlines()[0])


def pg_ctl_start(pgdata: Path, socket_dir: str) -> None:
    """Start a stopped server on `pgdata` as the pgserver wheel does (Unix socket only, log in the data dir)."""
    from pgserver._commands import pg_ctl  # type: ignore[attr-defined]

    args = ["-w", "-o", '-h ""', "-o", f"-k {socket_dir}", "-l", str(pgdata / "log"), "start"]
    pg_ctl(args, pgdata=pgdata, user=_system_user(), timeout=120)


def pg_ctl_stop(pgdata: Path) -> None:
    """Stop the server on `pgdata` (fast mode, waits)."""
    from pgserver._commands import pg_ctl  # type: ignore[attr-defined]

    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=_system_user(), timeout=120)


def write_settings(pgdata: Path, settings: Sequence[tuple[str, str]]) -> None:
    """Append `settings` to the data directory's postgresql.auto.conf (as ALTER SYSTEM would; read at start)."""
    with (pgdata / "postgresql.auto.conf").open("a", encoding="utf-8") as conf:
        for name, value in settings:
            conf.write(f"{name} = '{value}'\n")


def apply(pg: PostgresInstance, settings: Sequence[tuple[str, str]]) -> PostgresInstance:
    """`settings` on the running server `pg` (ALTER SYSTEM, then a restart when any is given)."""
    if not settings:
        return pg
    import psycopg
    from psycopg import sql

    with psycopg.connect(pg.dsn_for("postgres"), autocommit=True) as conn:
        for name, value in settings:
            conn.execute(sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value)))
    socket_dir = _socket_dir(pg)
    pg_ctl_stop(pg.pgdata)
    pg_ctl_start(pg.pgdata, socket_dir)
    restarted = replace(pg, server_pid=postmaster_pid(pg.pgdata))
    with psycopg.connect(restarted.dsn_for("postgres"), autocommit=True) as conn:
        for name, value in settings:
            got = conn.execute(sql.SQL("SHOW {}").format(sql.Identifier(name))).fetchone()
            if got is None or not _same(str(got[0]), value):
                raise RuntimeError(f"{name} is {got} after the restart, not {value}")
    return restarted


@contextmanager
def restarted_with(pg: PostgresInstance, settings: Sequence[tuple[str, str]]) -> Iterator[PostgresInstance]:
    """`apply`, and stop the restarted server on exit: the wheel's own clean-up only stops the postmaster it
    started (it checks that process), so a restarted one would outlive the deleted data directory."""
    if not settings:
        yield pg
        return
    restarted = apply(pg, settings)
    try:
        yield restarted
    finally:
        pg_ctl_stop(restarted.pgdata)


def _same(shown: str, value: str) -> bool:
    return shown.replace(" ", "").lower() == value.replace(" ", "").lower()
