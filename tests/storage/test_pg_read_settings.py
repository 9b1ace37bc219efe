"""PostgreSQL read-path settings (issue #21, pgread2): every connection starts with JIT off (in its startup packet,
the DSN's own options kept), the search fans every kind's keyword side out on PostgreSQL only, and the full-text
index's table size and agent statistics keep their meaning on a real server."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoryd.domain import KIND_TRANSCRIPT, TurnInput
from memoryd.read.search import POSTGRES_KEYWORD_THREAD_ROWS, MemorySearch, SearchSettings
from memoryd.storage.pg_db import PgDatabase, startup_options
from memoryd.storage.store import Store, open_store
from tests.support.pg_stores import pg_store


def test_startup_options_add_jit_off_and_keep_the_dsns_own() -> None:
    assert startup_options("postgresql://u@/db?host=/tmp") == "-c jit=off"
    assert startup_options("postgresql://u@/db?options=-c%20work_mem%3D8MB") == "-c work_mem=8MB -c jit=off"
    # A DSN that names the setting itself keeps its own value.
    assert startup_options("postgresql://u@/db?options=-c%20jit%3Don") == "-c jit=on"


def test_every_connection_of_a_store_starts_with_jit_off() -> None:
    store = pg_store()
    try:
        assert isinstance(store.db, PgDatabase)
        assert store.db.scalar("SHOW jit") == "off"
        raw = store.db.connect_raw()
        try:
            assert raw.execute("SHOW jit").fetchone() == ("off",)
        finally:
            raw.close()
    finally:
        store.close()


def _search_settings(store: Store) -> SearchSettings:
    search = MemorySearch(store)
    try:
        return search.settings
    finally:
        search.close()


def test_keyword_sides_fan_out_on_postgresql_only(tmp_path: Path) -> None:
    pg = pg_store()
    sqlite = open_store(tmp_path / "memory.sqlite")
    try:
        assert _search_settings(pg).keyword_thread_rows == POSTGRES_KEYWORD_THREAD_ROWS
        assert _search_settings(sqlite) == SearchSettings()
        # The keyword sides wait for the query embedding's request on SQLite only (fastctx10).
        assert _search_settings(sqlite).keywords_after_send_s > 0
        assert _search_settings(pg).keywords_after_send_s == 0
        # Explicit settings are never replaced.
        explicit = SearchSettings(keyword_thread_rows=7)
        search = MemorySearch(pg, settings=explicit)
        assert search.settings is explicit
        search.close()
    finally:
        pg.close()
        sqlite.close()


@pytest.mark.parametrize("analyzed", [False, True])
def test_table_rows_and_agent_statistics_on_postgresql(analyzed: bool) -> None:
    store = pg_store()
    try:
        for agent, n in (("a", 3), ("b", 2)):
            for i in range(n):
                store.turns.buffer(
                    TurnInput(
                        agent, "c1", f"question {i} of {agent}", f"a longer answer number {i}", 1_000 + i
                    )
                )
        total = int(store.db.scalar("SELECT count(*) FROM transcript"))
        of_a = int(store.db.scalar("SELECT count(*) FROM transcript WHERE agent_id = ?", ("a",)))
        mean_a = float(
            store.db.scalar("SELECT avg(length(content)) FROM transcript WHERE agent_id = ?", ("a",))
        )
        assert total > of_a > 0
        if analyzed:  # the planner's estimate once the table has statistics
            store.db.execute("ANALYZE transcript")
        assert store.fts.table_rows(KIND_TRANSCRIPT) == total
        rows, mean = store.fts.agent_text_stats(KIND_TRANSCRIPT, "a")
        assert rows == of_a
        assert mean == pytest.approx(mean_a)
        assert store.fts.agent_text_stats(KIND_TRANSCRIPT, "nobody") == (0, 0.0)
    finally:
        store.close()
