"""Real storage failures on a live store: a full disk (SQLite's max_page_count) and a read-only file (query_only).

Both are set on every open connection of the store and on the ones it opens later (peewee's pragma list), so the
server's group-commit writer, its handler threads and background threads all see the same disk.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memoryd.storage.db import Database


def _apply(db: Database, pragma: str, value: int) -> None:
    internals: Any = db.pw
    internals._pragmas = [*[(k, v) for k, v in internals._pragmas if k != pragma], (pragma, value)]
    with internals._registry_lock:
        conns = [conn for conn, _ in internals._open.values()]
    for conn in conns:
        conn.execute(f"PRAGMA {pragma} = {value}")


@contextmanager
def disk_full(db: Database) -> Iterator[None]:
    """Inside: the file may not grow past its current page count (SQLITE_FULL on the next page it needs)."""
    pages = int(db.scalar("PRAGMA page_count") or 1)
    _apply(db, "max_page_count", pages)
    try:
        yield
    finally:
        _apply(db, "max_page_count", 1 << 30)


@contextmanager
def read_only(db: Database) -> Iterator[None]:
    """Inside: every write is refused with SQLITE_READONLY, as for a read-only file."""
    _apply(db, "query_only", 1)
    try:
        yield
    finally:
        _apply(db, "query_only", 0)


__all__ = ["disk_full", "read_only"]
