"""Watchdog inside the plugin process: exits when a command runs past its deadline, since threads cannot be killed.

The host kills a plugin whose command outlives the plugin's call timeout, but only while a caller waits; a command
whose caller gave up earlier would otherwise hold a worker thread forever. The watchdog closes that gap.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Exit code of a plugin process stopped by its watchdog.
EXIT_HUNG = 75
_log = logging.getLogger("plugin_host.runner")


class Watchdog:
    """Tracks running commands; ends the process when one has run longer than limit_s."""

    def __init__(self, limit_s: float, check_every_s: float = 0.5) -> None:
        self._limit_s = limit_s
        self._check_every_s = check_every_s
        self._running: dict[int, tuple[str, float]] = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start the checking thread (a daemon)."""
        threading.Thread(target=self._watch, name="plugin-watchdog", daemon=True).start()

    @contextmanager
    def track(self, command: str) -> Iterator[None]:
        """Mark one command as running for the duration of the block."""
        key = next(self._ids)
        with self._lock:
            self._running[key] = (command, time.monotonic())
        try:
            yield
        finally:
            with self._lock:
                self._running.pop(key, None)

    def overdue(self) -> str | None:
        """The name of a command running past the limit, if any."""
        now = time.monotonic()
        with self._lock:
            for command, started in self._running.values():
                if now - started > self._limit_s:
                    return command
        return None

    def _watch(self) -> None:
        while True:
            time.sleep(self._check_every_s)
            command = self.overdue()
            if command is not None:
                _log.error(
                    "command %r ran past %.0fs; exiting so the host restarts this plugin",
                    command,
                    self._limit_s,
                )
                os._exit(EXIT_HUNG)
