"""Debounce of buffered turns per (agent, conversation): arm on each turn, flush on expiry, switch or EndSession."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

_log = logging.getLogger("memoryd.writer.buffer")

#: (agent_id, conversation_id)
Key = tuple[str, str]
#: Called with the conversation to distil and why ("debounce", "switch", "end_session").
FlushFn = Callable[[str, str, str], None]


@dataclass(frozen=True)
class ArmResult:
    """What one buffered turn did to the timers."""

    scheduled: bool
    delay_s: float
    flushed: tuple[Key, ...]


class Debouncer:
    """Deadlines per conversation, fired by one background thread (or by `fire_due()` in tests).

    `clock` returns monotonic seconds and is injectable: tests advance a fake clock and call `fire_due()` (or
    `poke()` when the thread runs). `on_flush` must not block for long; the writer hands the work to its pool.
    """

    def __init__(self, on_flush: FlushFn, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._on_flush = on_flush
        self._clock = clock
        self._cond = threading.Condition()
        self._deadlines: dict[Key, float] = {}
        self._active: dict[str, str] = {}
        self._thread: threading.Thread | None = None
        self._closed = False

    def turn_buffered(
        self, agent_id: str, conversation_id: str, *, debounce_s: float, automatic: bool
    ) -> ArmResult:
        """Record a turn: flush the agent's previous conversation on a switch, then (re)arm this one.

        With `automatic` False (extractionMode manual) nothing is armed and a switch flushes nothing.
        """
        key = (agent_id, conversation_id)
        flushed: list[Key] = []
        with self._cond:
            previous = self._active.get(agent_id)
            self._active[agent_id] = conversation_id
            if not automatic:
                self._deadlines.pop(key, None)
                return ArmResult(False, 0.0, ())
            if previous is not None and previous != conversation_id:
                self._deadlines.pop((agent_id, previous), None)
                flushed.append((agent_id, previous))
            self._deadlines[key] = self._clock() + debounce_s
            self._cond.notify_all()
        for agent, conversation in flushed:
            self._flush(agent, conversation, "switch")
        return ArmResult(True, debounce_s, tuple(flushed))

    def cancel(self, agent_id: str, conversation_id: str) -> bool:
        """Disarm a conversation's timer (EndSession and Ingest distil it themselves); True if one was armed."""
        with self._cond:
            return self._deadlines.pop((agent_id, conversation_id), None) is not None

    def cancel_all(self) -> int:
        """Disarm every timer (memory disabled, shutdown); returns how many were armed."""
        with self._cond:
            count = len(self._deadlines)
            self._deadlines.clear()
            return count

    def armed(self) -> dict[Key, float]:
        """Armed conversations and their deadlines (clock seconds)."""
        with self._cond:
            return dict(self._deadlines)

    def fire_due(self) -> list[Key]:
        """Flush every conversation whose deadline has passed; returns them."""
        now = self._clock()
        with self._cond:
            due = [key for key, deadline in self._deadlines.items() if deadline <= now]
            for key in due:
                del self._deadlines[key]
        for agent, conversation in due:
            self._flush(agent, conversation, "debounce")
        return due

    def poke(self) -> None:
        """Wake the background thread to re-check deadlines (after a fake clock moved)."""
        with self._cond:
            self._cond.notify_all()

    def start(self) -> None:
        """Start the background thread that fires deadlines."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memoryd-debounce", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the thread; armed conversations stay pending in the store and are recovered at next start."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(5)

    def _run(self) -> None:
        while self._sleep_until_due():
            self.fire_due()

    def _sleep_until_due(self) -> bool:
        """Wait for the earliest deadline or a poke; False once closed."""
        with self._cond:
            if self._closed:
                return False
            wait_s = min(self._deadlines.values(), default=self._clock() + 3600) - self._clock()
            if wait_s > 0:
                self._cond.wait(wait_s)
            return not self._closed

    def _flush(self, agent_id: str, conversation_id: str, reason: str) -> None:
        try:
            self._on_flush(agent_id, conversation_id, reason)
        except Exception:
            _log.exception("flush hand-off failed")


__all__ = ["ArmResult", "Debouncer", "FlushFn", "Key"]
