"""Circuit breaker for core-model calls: closed → open after repeated failures → half-open probe after a cooldown."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

CLOSED = "closed"
OPEN = "open"
HALF_OPEN = "half_open"


@dataclass(frozen=True)
class BreakerSnapshot:
    """The breaker's state for status reports."""

    state: str
    consecutive_failures: int
    open_cycles: int
    open_until_s: float


class CircuitBreaker:
    """Opens after `threshold` consecutive failures, for min(base × 2^cycles, max) seconds.

    After the cooldown exactly one caller gets through as a half-open probe: its success closes the breaker and
    clears everything; its failure re-opens it with the next (longer) cooldown. `clock` returns monotonic seconds.
    """

    def __init__(
        self,
        *,
        threshold: int = 5,
        base_cooldown_s: float = 60.0,
        max_cooldown_s: float = 1800.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._threshold = threshold
        self._base_cooldown_s = base_cooldown_s
        self._max_cooldown_s = max_cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._cycles = 0
        self._open_until_s = 0.0
        self._state = CLOSED
        self._probe_in_flight = False

    def allow(self) -> bool:
        """Whether a call may go ahead now; when it is the half-open probe, the caller must report back."""
        with self._lock:
            if self._state == CLOSED:
                return True
            if self._state == OPEN and self._clock() >= self._open_until_s:
                self._state = HALF_OPEN
                self._probe_in_flight = False
            if self._state == HALF_OPEN and not self._probe_in_flight:
                self._probe_in_flight = True
                return True
            return False

    def record_success(self) -> None:
        """A call succeeded: close and forget every failure."""
        with self._lock:
            self._state = CLOSED
            self._failures = 0
            self._cycles = 0
            self._probe_in_flight = False

    def record_failure(self) -> None:
        """A call failed for good (after its retries)."""
        with self._lock:
            self._failures += 1
            if self._state == HALF_OPEN or self._failures >= self._threshold:
                cooldown = min(self._base_cooldown_s * 2 ** min(self._cycles, 5), self._max_cooldown_s)
                self._cycles += 1
                self._state = OPEN
                self._open_until_s = self._clock() + cooldown
                self._failures = 0
                self._probe_in_flight = False

    def release_probe(self) -> None:
        """The half-open probe ended without a verdict (cancelled, model unavailable): let another probe try."""
        with self._lock:
            self._probe_in_flight = False

    def snapshot(self) -> BreakerSnapshot:
        """Current state (an expired open breaker reports half_open)."""
        with self._lock:
            state = self._state
            if state == OPEN and self._clock() >= self._open_until_s:
                state = HALF_OPEN
            return BreakerSnapshot(state, self._failures, self._cycles, self._open_until_s)


__all__ = ["CLOSED", "HALF_OPEN", "OPEN", "BreakerSnapshot", "CircuitBreaker"]
