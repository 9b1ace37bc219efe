"""Root test configuration: make the generated protos importable even without an editable install, and close the
PostgreSQL stores a test opened (tests/support/pg_stores.py) when it ends."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[1]
for _path in (_REPO, _REPO / "protos" / "gen"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


@pytest.fixture(autouse=True)
def _close_pg_stores() -> Iterator[None]:
    yield
    if "tests.support.pg_stores" in sys.modules:  # only when a test used PostgreSQL
        sys.modules["tests.support.pg_stores"].close_pg_stores()
