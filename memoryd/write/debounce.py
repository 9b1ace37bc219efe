"""Debounce of buffered turns per (agent, conversation): arm on each turn, flush on expiry, switch or EndSession."""

from __future__ import annotations

import heapq
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

_log = logging.getLogger("memoryd.writer.buffer")

#: (agent_id, conversation_id)
Key = tuple[str, str]
#: Called with the conversation to distil and why ("debounce", "switch", "end_session"); any result is ignored.
FlushFn = Callable[[str, str, str], object]
#: With nothing armed the thread still re-checks this often (clock seconds).
IDLE_WAIT_S = 3600.0


@dataclass(frozen=True)
class ArmResult:
    """What one buffered turn did to the timers."""

    scheduled: bool
    delay_s: float
    flushed: tuple[Key, ...]


class DueQueue(Protocol):
    """What the writer needs of its deadlines: Debouncer in one process, memoryd.replication's database-backed queue
    when several replicas share one PostgreSQL database."""

    def turn_buffered(
        self, agent_id: str, conversation_id: str, *, debounce_s: float, automatic: bool
    ) -> ArmResult: ...

    def flush_now(self, agent_id: str, conversation_id: str, reason: str) -> None: ...

    def cancel(self, agent_id: str, conversation_id: str) -> bool: ...

    def cancel_all(self) -> int: ...

    def armed(self) -> dict[Key, float]: ...

    def start(self) -> None: ...

    def close(self) -> None: ...


class Debouncer:
    """Deadlines per conversation, fired by one background thread (or by `fire_due()` in tests).

    The hot path is cheap: a re-armed conversation only moves its deadline in a dict. A heap holds one entry per
    armed conversation (re-pushed when it surfaces with a deadline that has moved later, skipped once stale), and
    the thread is woken only when a new deadline is earlier than the one it sleeps until — never per turn.

    `clock` returns monotonic seconds and is injectable: tests advance a fake clock and call `fire_due()` (or
    `poke()` when the thread runs). `on_flush` must not block for long; the writer hands the work to its pool.
    """

    def __init__(self, on_flush: FlushFn, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._on_flush = on_flush
        self._clock = clock
        self._cond = threading.Condition()
        self._deadlines: dict[Key, float] = {}
        #: (deadline, sequence, key); the live entry of a key is the one whose sequence is _entry[key].
        self._heap: list[tuple[float, int, Key]] = []
        self._entry: dict[Key, tuple[float, int]] = {}
        self._sequence = 0
        #: Clock time the thread sleeps until; -inf while it is not sleeping (it re-reads the heap before it does).
        self._wake_at = -math.inf
        self._wakeups = 0
        self._active: dict[str, str] = {}
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def wakeups(self) -> int:
        """How many times an arm woke the thread (tests check that re-arming does not)."""
        return self._wakeups

    def turn_buffered(
        self, agent_id: str, conversation_id: str, *, debounce_s: float, automatic: bool
    ) -> ArmResult:
        """Record a turn: flush the agent's previous conversation on a switch, then (re)arm this one.

        With `automatic` False (extractionMode manual) nothing is armed and a switch flushes nothing.
        """
        key = (agent_id, conversation_id)
        flushed: tuple[Key, ...] = ()
        with self._cond:
            previous = self._active.get(agent_id)
            self._active[agent_id] = conversation_id
            if not automatic:
                self._disarm(key)
                return ArmResult(False, 0.0, ())
            if previous is not None and previous != conversation_id:
                self._disarm((agent_id, previous))
                flushed = ((agent_id, previous),)
            deadline = self._clock() + debounce_s
            self._deadlines[key] = deadline
            entry = self._entry.get(key)
            if entry is None or deadline < entry[0]:  # a later deadline is found when the old entry surfaces
                self._push(key, deadline)
            if deadline < self._wake_at:
                self._wake_at = -math.inf
                self._wakeups += 1
                self._cond.notify()
        for agent, conversation in flushed:
            self._flush(agent, conversation, "switch")
        return ArmResult(True, debounce_s, flushed)

    def cancel(self, agent_id: str, conversation_id: str) -> bool:
        """Disarm a conversation's timer (EndSession and Ingest distil it themselves); True if one was armed."""
        with self._cond:
            return self._disarm((agent_id, conversation_id))

    def flush_now(self, agent_id: str, conversation_id: str, reason: str) -> None:
        """Disarm the conversation and hand it to on_flush at once (EndSession without waiting)."""
        self.cancel(agent_id, conversation_id)
        self._flush(agent_id, conversation_id, reason)

    def cancel_all(self) -> int:
        """Disarm every timer (memory disabled, shutdown); returns how many were armed."""
        with self._cond:
            count = len(self._deadlines)
            self._deadlines.clear()
            self._entry.clear()
            self._heap.clear()
            return count

    def armed(self) -> dict[Key, float]:
        """Armed conversations and their deadlines (clock seconds)."""
        with self._cond:
            return dict(self._deadlines)

    def fire_due(self) -> list[Key]:
        """Flush every conversation whose deadline has passed (earliest first); returns them."""
        now = self._clock()
        due: list[Key] = []
        with self._cond:
            heap = self._heap
            while heap and heap[0][0] <= now:
                _, sequence, key = heapq.heappop(heap)
                entry = self._entry.get(key)
                if entry is None or entry[1] != sequence:
                    continue  # stale: disarmed, or superseded by an earlier deadline
                deadline = self._deadlines[key]
                if deadline > now:  # re-armed since this entry was pushed
                    self._push(key, deadline)
                    continue
                del self._deadlines[key], self._entry[key]
                due.append(key)
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

    def _push(self, key: Key, deadline: float) -> None:
        """Called with the condition held."""
        self._sequence += 1
        self._entry[key] = (deadline, self._sequence)
        heapq.heappush(self._heap, (deadline, self._sequence, key))

    def _disarm(self, key: Key) -> bool:
        """Called with the condition held; the heap entry goes stale."""
        self._entry.pop(key, None)
        return self._deadlines.pop(key, None) is not None

    def _run(self) -> None:
        while self._sleep_until_due():
            self.fire_due()

    def _sleep_until_due(self) -> bool:
        """Wait for the earliest deadline or a wake-up; False once closed."""
        with self._cond:
            if self._closed:
                return False
            now = self._clock()
            wake_at = self._heap[0][0] if self._heap else now + IDLE_WAIT_S
            if wake_at > now:
                self._wake_at = wake_at
                self._cond.wait(wake_at - now)
                self._wake_at = -math.inf
            return not self._closed

    def _flush(self, agent_id: str, conversation_id: str, reason: str) -> None:
        try:
            self._on_flush(agent_id, conversation_id, reason)
        except Exception:
            _log.exception("flush hand-off failed")


__all__ = ["ArmResult", "Debouncer", "DueQueue", "FlushFn", "Key"]
