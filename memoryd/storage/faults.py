"""Storage faults: tell a full disk and a read-only store from bugs, and remember the current one for health.

SQLite reports them as OperationalError with its primary result code (SQLITE_FULL, SQLITE_READONLY); peewee
re-raises them as its own classes with the original as `__context__` and first argument, and file writes (vector
files, quarantine) raise OSError with ENOSPC / EROFS. PostgreSQL (psycopg) gives an SQLSTATE: disk_full, a
read-only transaction (a standby), or a lost or refused connection (STORAGE_UNAVAILABLE). Only codes and the
drivers' fixed texts are read: never content.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

_log = logging.getLogger("memoryd.storage.faults")

STORAGE_FULL = "STORAGE_FULL"
STORAGE_READ_ONLY = "STORAGE_READ_ONLY"
STORAGE_UNAVAILABLE = "STORAGE_UNAVAILABLE"

#: SQLite primary result codes (the low byte of an extended code).
_SQLITE_READONLY = 8
_SQLITE_FULL = 13
_TEXTS = (
    ("database or disk is full", STORAGE_FULL),
    ("attempt to write a readonly database", STORAGE_READ_ONLY),
)
_ERRNOS = {errno.ENOSPC: STORAGE_FULL, errno.EDQUOT: STORAGE_FULL, errno.EROFS: STORAGE_READ_ONLY}
#: PostgreSQL SQLSTATEs (exact, or a class by its first two characters).
_SQLSTATES = {
    "53100": STORAGE_FULL,  # disk_full
    "25006": STORAGE_READ_ONLY,  # read_only_sql_transaction (a standby, or default_transaction_read_only)
    "53300": STORAGE_UNAVAILABLE,  # too_many_connections
    "57P01": STORAGE_UNAVAILABLE,  # admin_shutdown
    "57P02": STORAGE_UNAVAILABLE,  # crash_shutdown
    "57P03": STORAGE_UNAVAILABLE,  # cannot_connect_now
    "08": STORAGE_UNAVAILABLE,  # connection_exception and its subclasses
}
#: psycopg's classes for a connection that failed or broke before any SQLSTATE (client side).
_PSYCOPG_LOST = frozenset({"OperationalError", "InterfaceError"})
#: How many linked exceptions (cause, context, first argument) are followed.
_MAX_CHAIN = 6

#: What a client is told, per reason (no paths: the data root is the operator's business).
DESCRIPTIONS = {
    STORAGE_FULL: "the memory store's disk is full; nothing was stored. Free space, then retry",
    STORAGE_READ_ONLY: (
        "the memory store is read-only (file permissions, an immutable flag or a read-only mount, or a "
        "PostgreSQL standby); nothing was stored"
    ),
    STORAGE_UNAVAILABLE: "the memory database server cannot be reached; nothing was stored. Retry when it is back",
}


#: Modules whose exceptions are the database's: peewee re-raises sqlite3 and psycopg errors as its own classes.
_DATABASE_MODULES = frozenset({"sqlite3", "peewee", "psycopg", "psycopg.errors"})


def is_database_error(error: BaseException) -> bool:
    """Whether `error` was raised by SQLite, PostgreSQL's driver or peewee (the databases' own texts)."""
    return isinstance(error, sqlite3.Error) or type(error).__module__ in _DATABASE_MODULES


def _postgres_reason(error: BaseException) -> str | None:
    if not type(error).__module__.startswith("psycopg"):
        return None
    state = getattr(error, "sqlstate", None)
    if isinstance(state, str):
        return _SQLSTATES.get(state) or _SQLSTATES.get(state[:2])
    return STORAGE_UNAVAILABLE if type(error).__name__ in _PSYCOPG_LOST else None


def _linked(error: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    todo: list[BaseException] = [error]
    while todo and len(seen) < _MAX_CHAIN:
        current = todo.pop(0)
        if any(current is s for s in seen):
            continue
        seen.append(current)
        for nxt in (current.__cause__, current.__context__, *current.args[:1]):
            if isinstance(nxt, BaseException):
                todo.append(nxt)
    return seen


def fault_reason(error: BaseException) -> str | None:
    """STORAGE_FULL, STORAGE_READ_ONLY, or None when `error` is not a storage fault."""
    for linked in _linked(error):
        postgres = _postgres_reason(linked)
        if postgres is not None:
            return postgres
        code = getattr(linked, "sqlite_errorcode", None)
        if isinstance(code, int):
            if code & 0xFF == _SQLITE_FULL:
                return STORAGE_FULL
            if code & 0xFF == _SQLITE_READONLY:
                return STORAGE_READ_ONLY
        if isinstance(linked, OSError) and linked.errno in _ERRNOS:
            return _ERRNOS[linked.errno]
        text = str(linked).lower() if not isinstance(linked, OSError) else ""
        for phrase, reason in _TEXTS:
            if phrase in text:
                return reason
    return None


@dataclass(frozen=True)
class StorageFault:
    """The store's current fault: which, since when (epoch ms), and the operation that first met it."""

    reason: str
    since_ms: int
    operation: str

    @property
    def description(self) -> str:
        """The client-facing sentence for the reason."""
        return DESCRIPTIONS.get(self.reason, self.reason)


#: Called with the new fault (None: cleared) whenever it changes from none to some or back.
FaultListener = Callable[[StorageFault | None], None]


class StorageHealth:
    """The current storage fault. Set by a failed write that is a fault, cleared by the next committed write."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._current: StorageFault | None = None
        self._listeners: list[FaultListener] = []

    @property
    def current(self) -> StorageFault | None:
        """The fault in force, or None."""
        return self._current

    def listen(self, listener: FaultListener) -> None:
        """Call `listener` on every change (health wiring)."""
        self._listeners.append(listener)

    def observe(self, error: BaseException, operation: str) -> StorageFault | None:
        """Record `error` if it is a storage fault; return the fault (None: not one)."""
        reason = fault_reason(error)
        if reason is None:
            return None
        with self._guard:
            previous = self._current
            if previous is not None and previous.reason == reason:
                return previous
            fault = StorageFault(reason, int(time.time() * 1000), operation)
            self._current = fault
        # WARNING on memoryd.storage: Diagnose's recent errors capture it; the text is ours, never content.
        _log.warning("storage fault %s during %s: %s", reason, operation, fault.description)
        self._notify(fault)
        return fault

    def clear(self) -> None:
        """A write committed: the store takes writes again."""
        if self._current is None:  # the hot path: one attribute read per commit
            return
        with self._guard:
            previous, self._current = self._current, None
        if previous is not None:
            _log.warning("storage fault %s cleared: a write committed", previous.reason)
            self._notify(None)

    def _notify(self, fault: StorageFault | None) -> None:
        for listener in self._listeners:
            try:
                listener(fault)
            except Exception as error:  # a listener must not turn a storage fault into another failure
                _log.error("storage fault listener failed: %s", type(error).__name__)


__all__ = [
    "DESCRIPTIONS",
    "STORAGE_FULL",
    "STORAGE_READ_ONLY",
    "STORAGE_UNAVAILABLE",
    "FaultListener",
    "StorageFault",
    "StorageHealth",
    "fault_reason",
    "is_database_error",
]
