"""Two memoryd replicas' storage and replication parts over one PostgreSQL database, for the replication tests
(tests/integration/test_replication_{term_fold,consolidation}.py): one PostgreSQL per test module, a fresh database
per test, and each replica's Store with its Replication (pass lock, resumer, term folder) built as memoryd builds
them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memoryd.domain import now_ms
from memoryd.storage.pg_db import PgDatabase
from memoryd.storage.store import Store, open_store
from memoryd.wiring.replication import Replication, build_replication
from tests.integration.test_replication_store import database_url
from tests.support.postgres import PostgresInstance, postgres_or_skip

REPLICAS = 2


@pytest.fixture(scope="module")
def pg() -> Iterator[PostgresInstance]:
    """One PostgreSQL for the test module (skipped where the wheel cannot run)."""
    with postgres_or_skip() as instance:
        yield instance


@pytest.fixture
def replicas(pg: PostgresInstance) -> Iterator[list[tuple[Store, Replication]]]:
    """Two replicas of one new database, each a Store and its Replication (never started here).

    On teardown each replication is closed first (its folder and resumer threads stop, its lock connection
    closes), then every connection of its store, from any thread: the consolidators and folders of these tests
    open connections on threads of their own, which closing only this thread's connection would leave open.
    """
    url = database_url(pg.create_database(f"replicas_{now_ms() % 10_000_000}"))
    out: list[tuple[Store, Replication]] = []
    try:
        for _ in range(REPLICAS):
            store = open_store(url, schema="memory")
            replication = build_replication(store, [], lease_s=30)
            assert replication is not None and replication.folder is not None
            out.append((store, replication))
        yield out
    finally:
        for store, replication in out:
            replication.close()
            if isinstance(store.db, PgDatabase):
                store.db.close_all()
            else:
                store.close()
