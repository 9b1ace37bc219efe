"""Connection and cursor classes that let a live store swap close every thread's connection safely.

A live store swap (memoryd.security) closes other threads' connections. Closing one while its thread is inside a
statement crashes the interpreter (the statement returns into a connection whose handle is gone, and two
concurrent closes free it twice), so each call that reaches SQLite holds the connection's lock and close() waits
for it. Beyond single calls, a swap must not close a connection whose thread is between `execute` and the last
`fetch`, and must not leave a cursor holding a statement of the old file (sqlite3 keeps such a connection open as
a "zombie" after close(), so the old file is never free). So:

- every cursor registers with its connection and is *pending* from an execute that returned rows until its rows are
  exhausted, it is closed or it is garbage-collected;
- `retire()` marks a connection as leaving: a new statement on it that would start work on an idle connection
  (no transaction, no pending cursor) raises StoreSwappedError before anything runs, so the caller can reconnect
  (memoryd.storage.keyed retries it on the new store); work already under way may finish;
- `close_for_swap()` closes the registered cursors, then the connection; any later call on either raises
  StoreSwappedError (retryable: the store was swapped under it), never the driver's ProgrammingError.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import weakref
from collections.abc import Iterable
from typing import Any


class StoreSwappedError(RuntimeError):
    """The connection was retired or closed by a live store swap; the call did not run (retry it)."""

    def __init__(self, message: str = "the memory store was swapped during the call; retry") -> None:
        super().__init__(message)


class StoreOfflineError(RuntimeError):
    """The store was offline (being converted or recovered) for longer than memoryd.storage.keyed.OFFLINE_WAIT_S.

    Not a DB-API or peewee error on purpose: peewee re-raises those as its own types (by class name, then the first
    base's), which would hide this one from connect()'s wait loop and from the gRPC mapping.
    """


@functools.cache
def guarded_connection_class(module: Any) -> type:
    """A Connection subclass of the DB-API `module` (sqlite3 or sqlcipher3.dbapi2) with guarded calls."""

    class GuardedCursor(module.Cursor):  # type: ignore[misc]
        """Cursor whose statement and fetch calls hold the connection's lock, and which says when rows are pending."""

        def __init__(self, connection: Any) -> None:
            super().__init__(connection)
            self._use: threading.RLock = connection._use
            self._owner: Any = connection
            #: True from an execute that produced a result set until its rows are exhausted or it is closed.
            self.pending = False
            with connection._use:
                connection._cursors.add(self)

        def _may_run(self) -> None:
            owner = self._owner
            if owner.swapped:
                raise StoreSwappedError()
            if owner.retired and not owner.in_transaction and not owner.has_pending(self):
                raise StoreSwappedError()

        def _may_fetch(self) -> None:
            if self._owner.swapped:
                raise StoreSwappedError()

        def execute(self, sql: str, parameters: Any = (), /) -> Any:
            with self._use:
                self._may_run()
                self.pending = False
                result = super().execute(sql, parameters)
                self.pending = self.description is not None
                return result

        def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> Any:
            with self._use:
                self._may_run()
                self.pending = False
                return super().executemany(sql, seq_of_parameters)

        def executescript(self, script: str, /) -> Any:
            with self._use:
                self._may_run()
                self.pending = False
                return super().executescript(script)

        def fetchone(self) -> Any:
            with self._use:
                self._may_fetch()
                row = super().fetchone()
                if row is None:
                    self.pending = False
                return row

        def fetchmany(self, size: int | None = None) -> list[Any]:
            with self._use:
                self._may_fetch()
                wanted = self.arraysize if size is None else size
                rows = list(super().fetchmany(wanted))
                if len(rows) < wanted:
                    self.pending = False
                return rows

        def fetchall(self) -> list[Any]:
            with self._use:
                self._may_fetch()
                rows = list(super().fetchall())
                self.pending = False
                return rows

        def __next__(self) -> Any:
            with self._use:
                self._may_fetch()
                try:
                    return super().__next__()
                except StopIteration:
                    self.pending = False
                    raise

        def close(self) -> None:
            with self._use:
                self.pending = False
                if not self._owner.swapped:
                    super().close()

    class GuardedConnection(module.Connection):  # type: ignore[misc]
        """Connection whose calls (and whose close) hold one re-entrant lock; see the module docstring."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._use = threading.RLock()
            #: Held by the owning thread from BEGIN to COMMIT/ROLLBACK; a swap waits for it (bounded).
            self._txn = threading.RLock()
            self._cursors: weakref.WeakSet[Any] = weakref.WeakSet()
            #: Set by a swap: no new work may start on this connection once it is idle.
            self.retired = False
            #: Set when a swap closed it: every call raises StoreSwappedError.
            self.swapped = False

        def has_pending(self, besides: Any = None) -> bool:
            """Whether a cursor (other than `besides`) still has rows to deliver."""
            with self._use:
                return any(cursor.pending for cursor in list(self._cursors) if cursor is not besides)

        def is_idle(self) -> bool:
            """No open transaction and no pending cursor (a closed connection is idle)."""
            with self._use:
                if self.swapped:
                    return True
                try:
                    in_transaction = bool(self.in_transaction)
                except module.ProgrammingError:  # closed by its owner
                    return True
                return not in_transaction and not self.has_pending()

        def retire(self) -> None:
            """Refuse new work once idle (StoreSwappedError); work under way may finish."""
            with self._use:
                self.retired = True

        def close_for_swap(self) -> None:
            """Close every cursor (so no statement keeps the file open), then the connection."""
            with self._use:
                if self.swapped:
                    return
                for cursor in list(self._cursors):
                    with contextlib.suppress(module.Error):
                        module.Cursor.close(cursor)
                    cursor.pending = False
                self.swapped = True
                super().close()

        def cursor(self, factory: Any = GuardedCursor) -> Any:
            with self._use:
                if self.swapped:
                    raise StoreSwappedError()
                return super().cursor(factory)

        def execute(self, sql: str, parameters: Any = (), /) -> Any:
            cursor = self.cursor()
            cursor.execute(sql, parameters)
            return cursor

        def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> Any:
            cursor = self.cursor()
            cursor.executemany(sql, seq_of_parameters)
            return cursor

        def executescript(self, script: str, /) -> Any:
            cursor = self.cursor()
            cursor.executescript(script)
            return cursor

        def commit(self) -> None:
            with self._use:
                if self.swapped:
                    raise StoreSwappedError()
                super().commit()

        def rollback(self) -> None:
            with self._use:
                if not self.swapped:  # a swapped connection's transaction ended with it
                    super().rollback()

        def close(self) -> None:
            with self._use:
                if not self.swapped:
                    super().close()

    GuardedConnection.__name__ = f"Guarded{module.__name__.split('.')[0].title()}Connection"
    return GuardedConnection


__all__ = ["StoreOfflineError", "StoreSwappedError", "guarded_connection_class"]
