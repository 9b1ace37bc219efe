"""The background thread each replication part runs (claim loop, change feed, pass resumer): one daemon thread,
the `stop` and `wake` events its loop waits on, started once and stopped with a bounded join."""

from __future__ import annotations

import threading
from collections.abc import Callable

#: How long close() waits for the loop to notice `stop` (its waits are shorter than this).
JOIN_S = 5.0


class Worker:
    """Runs `loop` on a named daemon thread; the loop watches `stop` and sleeps on `wake` (or `stop`)."""

    def __init__(self, name: str, loop: Callable[[], None]) -> None:
        self.name = name
        self._loop = loop
        self.stop = threading.Event()
        self.wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread (once; later calls do nothing)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Ask the loop to stop, wake it, and wait for it (up to JOIN_S)."""
        self.stop.set()
        self.wake.set()
        if self._thread is not None:
            self._thread.join(JOIN_S)


__all__ = ["JOIN_S", "Worker"]
