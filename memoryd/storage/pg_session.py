"""Session settings of pooled psycopg connections, set once per connection instead of once per statement.

A setting made by `set_config(name, value, false)` lasts for the connection's session, but is undone when the
transaction it ran in rolls back. So the memo only records a value set outside a transaction (autocommit, idle):
inside one the setting is sent every time, as before. The memo is keyed by the connection object, so a reconnect
(a new object) starts with nothing remembered.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus


class SessionSettings:
    """Remembers, per connection, the session settings already applied."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._applied: weakref.WeakKeyDictionary[psycopg.Connection[Any], dict[str, str]] = (
            weakref.WeakKeyDictionary()
        )

    def apply(self, connection: psycopg.Connection[Any], name: str, value: str) -> None:
        """Make `name` = `value` on `connection` (one round trip, skipped when it already is)."""
        with self._lock:
            if self._applied.get(connection, {}).get(name) == value:
                return
        connection.execute("SELECT set_config(%s, %s, false)", (name, value))
        if connection.info.transaction_status == TransactionStatus.IDLE:
            with self._lock:
                self._applied.setdefault(connection, {})[name] = value
        else:  # a rollback would undo it: do not remember it
            with self._lock:
                self._applied.get(connection, {}).pop(name, None)
