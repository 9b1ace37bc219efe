"""Session settings sent once per connection (storage/pg_session.py), on a real PostgreSQL, through both runners."""

from __future__ import annotations

import numpy as np
import pytest

from memoryd.storage.pg_db import PgDatabase
from memoryd.storage.pg_sql import PgSql
from memoryd.storage.pg_vectors import PgVectorStore
from tests.support.pg_search import new_search_schema, pg, postgres  # noqa: F401  (fixtures)
from tests.support.postgres import PostgresInstance


def _current(db: PgSql, name: str) -> str:
    return str(db.scalar("SELECT current_setting(%s)", (name,)))


def test_a_setting_is_applied_then_not_sent_again(pg: PgSql) -> None:  # noqa: F811
    pg.setting("work_mem", "7MB")
    assert _current(pg, "work_mem") == "7MB"
    # Changed behind the memo's back: a second apply of the same value sends nothing, so the change stays.
    pg.execute("SET work_mem = '9MB'")
    pg.setting("work_mem", "7MB")
    assert _current(pg, "work_mem") == "9MB"
    # Another value is sent.
    pg.setting("work_mem", "5MB")
    assert _current(pg, "work_mem") == "5MB"


def test_a_setting_made_in_a_rolled_back_transaction_is_sent_again(pg: PgSql) -> None:  # noqa: F811
    def rolled_back() -> None:
        with pg.transaction():
            pg.setting("work_mem", "6MB")
            assert _current(pg, "work_mem") == "6MB"
            raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        rolled_back()
    assert _current(pg, "work_mem") != "6MB"  # the rollback undid it
    pg.setting("work_mem", "6MB")
    assert _current(pg, "work_mem") == "6MB"


def test_a_new_connection_gets_its_settings_again(pg: PgSql) -> None:  # noqa: F811
    pg.setting("work_mem", "3MB")
    pg.close()
    assert _current(pg, "work_mem") != "3MB"
    pg.setting("work_mem", "3MB")
    assert _current(pg, "work_mem") == "3MB"


def test_store_connections_search_with_ef_search_sized_to_k(postgres: PostgresInstance) -> None:  # noqa: F811
    runner = PgSql(postgres.dsn)
    schema = new_search_schema(runner)
    runner.close()
    db = PgDatabase(postgres.dsn, schema=schema)
    try:
        queries = db.percent_queries()
        store = PgVectorStore(queries, schema)
        agent = store.switch_model("a", "m", 4)
        store.put(agent, "transcript", [1, 2, 3], np.eye(3, 4, dtype=np.float32))
        found = store.nearest(agent, "transcript", np.array([1, 0, 0, 0], dtype=np.float32), 150)
        assert found is not None and found[0][0] == 1
        assert queries.scalar("SELECT current_setting('hnsw.ef_search')") == "150"
        assert queries.scalar("SELECT current_setting('hnsw.iterative_scan')") == "off"
        store.nearest(agent, "transcript", np.array([0, 1, 0, 0], dtype=np.float32), 5)
        assert queries.scalar("SELECT current_setting('hnsw.ef_search')") == "100"
    finally:
        db.close_all()
