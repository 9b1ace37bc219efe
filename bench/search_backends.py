"""One real memoryd per storage backend beside one real inferd, for bench_search's LoCoMo part (issue 21).

`backend_stacks(home, backends)` starts inferd once (the real default models) and, per backend, memoryd's app and
gRPC server on a loopback port (memoryd.app.start, as bench/search_stack.py does): SQLite under `<home>/sqlite`,
PostgreSQL in the public schema of a local PostgreSQL 18 with pgvector (tests/support/postgres.py) through the same
database URL setting the service reads (OSAURUS_MEMORYD_DATABASE_URL). Each yields a search_stack.Stack, so the
benchmark drives both through the same gRPC calls and reaches each app for its settings.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from bench.backends import POSTGRES, SQLITE
from bench.search_stack import Stack, memoryd_stack
from inferd.app import close_all
from inferd.app import start as start_inferd
from inferd.config import for_tests as inferd_settings
from memoryd.config import ServiceSettings


@contextmanager
def _memoryd(home: Path, inferd_target: str, database_url: str) -> Iterator[Stack]:
    with memoryd_stack(
        ServiceSettings(
            listen="127.0.0.1:0",
            home=home,
            inferd_addr=inferd_target,
            background_indexing=False,
            database_url=database_url,
        )
    ) as stack:
        yield stack


@contextmanager
def backend_stacks(home: Path, backends: Sequence[str]) -> Iterator[dict[str, Stack]]:
    """backend label → a running memoryd on that backend; every one calls the same inferd."""
    with ExitStack() as stack:
        inferd = start_inferd(inferd_settings(home / "inferd", fake=False))
        stack.callback(close_all, *inferd)
        target = inferd[0].target
        stacks: dict[str, Stack] = {}
        if SQLITE in backends:
            stacks[SQLITE] = stack.enter_context(_memoryd(home / "sqlite", target, ""))
        if POSTGRES in backends:
            from tests.support.postgres import running_postgres

            pg = stack.enter_context(running_postgres())
            stacks[POSTGRES] = stack.enter_context(_memoryd(home / "postgresql", target, pg.dsn))
        yield stacks
