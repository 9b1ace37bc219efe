"""The storage suite runs on both backends: `backend` is "sqlite" (a real file under tmp_path) or "postgres" (a
fresh PostgreSQL schema on the session's server, tests/support/pg_stores.py). A test taking `store` or
`open_backend_store` runs once per backend. Tests of SQLite-only features (SQLCipher, file modes, WAL pragmas,
FTS5 mirrors, migrations of older files) open their own SQLite stores and carry the `sqlite_only` mark.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memoryd.storage.store import Store, open_store

BACKENDS = ("sqlite", "postgres")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The backend this run of the test uses."""
    return str(request.param)


@pytest.fixture
def open_backend_store(backend: str, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Opens a new, empty store on the test's backend (each call: another file, or another schema)."""
    opened: list[Store] = []

    def open_one() -> Store:
        if backend == "postgres":
            from tests.support.pg_stores import pg_store

            store = pg_store()
        else:
            store = open_store(tmp_path / f"memory{len(opened)}.sqlite")
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        store.close()


@pytest.fixture
def store(open_backend_store: Callable[[], Store]) -> Store:
    """An empty store on the test's backend."""
    return open_backend_store()
