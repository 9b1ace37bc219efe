"""Whether a store lives in PostgreSQL, and how replication reaches it (raw connections on the store's schema)."""

from __future__ import annotations

from dataclasses import dataclass

from memoryd.storage.pg_coordination import Connect
from memoryd.storage.store import Store


@dataclass(frozen=True)
class PgEndpoint:
    """A PostgreSQL store's way in for LISTEN/NOTIFY, advisory locks and the coordination rows."""

    connect: Connect
    schema: str


def pg_endpoint(store: Store) -> PgEndpoint | None:
    """The store's PostgreSQL endpoint, or None for SQLite (one process: nothing to coordinate)."""
    db = store.db
    dialect = getattr(db, "dialect", None)
    if dialect is None or not getattr(dialect, "is_postgres", False):
        return None
    connect: Connect = getattr(db, "connect_raw")  # noqa: B009 - the PostgreSQL handle's (pgstore) method
    return PgEndpoint(connect=connect, schema=str(getattr(db, "schema")))  # noqa: B009


__all__ = ["PgEndpoint", "pg_endpoint"]
