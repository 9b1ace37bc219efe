"""Recent storage errors for Diagnose: a bounded, thread-safe ring fed by log records and explicit reports.

Log records follow the house rule (no memory content at INFO and above), and messages are redacted again on the
way out. Captured: ERROR and above from memoryd and from servicekit's error log (unhandled exceptions in RPCs),
WARNING and above from storage, vectors and the indexer.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque

from memoryd.console.records import StorageErrorRecord
from memoryd.console.redact import redact_text

#: (logger name, lowest level captured).
WATCHED: tuple[tuple[str, int], ...] = (
    ("memoryd", logging.ERROR),
    ("servicekit.errors", logging.ERROR),
    ("memoryd.storage", logging.WARNING),
    ("memoryd.vectors", logging.WARNING),
    ("memoryd.indexer", logging.WARNING),
)
#: Loggers the handler is attached to; records of their children propagate to it once.
ROOTS = ("memoryd", "servicekit.errors")
MAX_RECORDS = 50
MAX_MESSAGE_CHARS = 300


class StorageErrorLog(logging.Handler):
    """Keeps the newest MAX_RECORDS failures; attach() hooks it to the watched loggers, close() unhooks it."""

    def __init__(self, capacity: int = MAX_RECORDS) -> None:
        super().__init__(level=logging.WARNING)
        self._records: deque[StorageErrorRecord] = deque(maxlen=capacity)
        self._guard = threading.Lock()
        self._attached: list[logging.Logger] = []

    def attach(self) -> StorageErrorLog:
        """Start capturing from the watched loggers."""
        for name in ROOTS:
            logger = logging.getLogger(name)
            if self not in logger.handlers:
                logger.addHandler(self)
                self._attached.append(logger)
        return self

    def emit(self, record: logging.LogRecord) -> None:
        """Capture a record at or above the threshold of its most specific watched logger."""
        if record.levelno < _inherited_threshold(record.name):
            return
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not break logging
            message = str(record.msg)
        self.report(record.name, message, int(record.created * 1000))

    def report(self, operation: str, message: str, occurred_at_ms: int | None = None) -> None:
        """Record one failure explicitly."""
        entry = StorageErrorRecord(
            occurred_at_ms=occurred_at_ms if occurred_at_ms is not None else int(time.time() * 1000),
            operation=operation,
            message=redact_text(message, MAX_MESSAGE_CHARS),
        )
        with self._guard:
            self._records.append(entry)

    def recent(self) -> list[StorageErrorRecord]:
        """Newest first."""
        with self._guard:
            return list(reversed(self._records))

    def close(self) -> None:
        """Stop capturing."""
        for logger in self._attached:
            logger.removeHandler(self)
        self._attached.clear()
        super().close()


def _inherited_threshold(name: str) -> int:
    """The threshold of the most specific watched ancestor of logger `name`."""
    best, level = "", logging.ERROR
    for watched, watched_level in WATCHED:
        if (name == watched or name.startswith(watched + ".")) and len(watched) > len(best):
            best, level = watched, watched_level
    return level


__all__ = ["MAX_RECORDS", "WATCHED", "StorageErrorLog"]
