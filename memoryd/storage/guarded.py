"""Connection and cursor classes whose every database call holds a per-connection lock (and a transaction lock).

A live store swap (memoryd.security) closes other threads' connections. Closing one while its thread is inside a
statement crashes the interpreter (the statement returns into a connection whose handle is gone, and two
concurrent closes free it twice), so each call that reaches SQLite holds the connection's lock and close() waits
for it. A call made after the close gets the driver's ordinary ProgrammingError instead.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable
from typing import Any


@functools.cache
def guarded_connection_class(module: Any) -> type:
    """A Connection subclass of the DB-API `module` (sqlite3 or sqlcipher3.dbapi2) with guarded calls."""

    class GuardedCursor(module.Cursor):  # type: ignore[misc]
        """Cursor whose statement and fetch calls hold the connection's lock."""

        def __init__(self, connection: Any) -> None:
            super().__init__(connection)
            self._use: threading.RLock = connection._use

        def execute(self, sql: str, parameters: Any = (), /) -> Any:
            with self._use:
                return super().execute(sql, parameters)

        def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> Any:
            with self._use:
                return super().executemany(sql, seq_of_parameters)

        def executescript(self, script: str, /) -> Any:
            with self._use:
                return super().executescript(script)

        def fetchone(self) -> Any:
            with self._use:
                return super().fetchone()

        def fetchmany(self, size: int | None = None) -> list[Any]:
            with self._use:
                return list(super().fetchmany() if size is None else super().fetchmany(size))

        def fetchall(self) -> list[Any]:
            with self._use:
                return list(super().fetchall())

        def __next__(self) -> Any:
            with self._use:
                return super().__next__()

        def close(self) -> None:
            with self._use:
                super().close()

    class GuardedConnection(module.Connection):  # type: ignore[misc]
        """Connection whose calls (and whose close) hold one re-entrant lock."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._use = threading.RLock()
            #: Held by the owning thread from BEGIN to COMMIT/ROLLBACK; a swap waits for it (bounded).
            self._txn = threading.RLock()

        def cursor(self, factory: Any = GuardedCursor) -> Any:
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
                super().commit()

        def rollback(self) -> None:
            with self._use:
                super().rollback()

        def close(self) -> None:
            with self._use:
                super().close()

    GuardedConnection.__name__ = f"Guarded{module.__name__.split('.')[0].title()}Connection"
    return GuardedConnection


__all__ = ["guarded_connection_class"]
