"""Resume stranded work: when a distillation leaves its signals pending for a cause that passes by itself (inferd
down or slow, breaker open, model unset or not resident, a failed attempt below the dead-letter cap), sweep every
pending conversation again later, with exponential back-off, until nothing is stranded.

Without this a conversation whose last turn arrived while inferd was down stayed pending until the next restart or
a manual SyncNow; the spec wants it to recover once the model is back.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from memoryd.write import outcome as oc

_log = logging.getLogger("memoryd.writer.resume")

#: Causes that hold for every conversation at once: a sweep that meets one stops (the rest would skip too).
_BLOCKING = frozenset(
    {
        oc.SKIPPED_CORE_MODEL_UNAVAILABLE,
        oc.SKIPPED_CORE_MODEL_UNSET,
        oc.SKIPPED_NOT_RESIDENT,
        oc.SKIPPED_BREAKER_OPEN,
    }
)

#: Runs one sweep: distil every pending conversation not armed or running, stopping at a blocking outcome.
Sweep = Callable[[Callable[[oc.Outcome], bool]], list[oc.Outcome]]


def is_blocking(outcome: oc.Outcome) -> bool:
    """The outcome's cause is global (inferd, model, breaker): no point trying the next conversation now."""
    return outcome.token in _BLOCKING


def is_resumable(token: str) -> bool:
    """Signals stay pending for a cause that passes: a later try either succeeds or (error:) dead-letters them."""
    return token in _BLOCKING or token.startswith("error:")


class ResumeSweeper:
    """At most one sweep scheduled or running. A stranded outcome schedules one after the current back-off
    (first_s, doubling to max_s while sweeps keep meeting stranded work); a successful distillation anywhere means
    inferd is back, so a far-off sweep is brought forward to first_s. `hold_s` returns how long a sweep is pointless
    anyway (the breaker's remaining cooldown); no sweep is scheduled sooner."""

    def __init__(
        self, sweep: Sweep, *, first_s: float, max_s: float, hold_s: Callable[[], float] = lambda: 0.0
    ) -> None:
        self._sweep = sweep
        self._hold_s = hold_s
        self._first_s = first_s
        self._max_s = max_s
        self._lock = threading.Lock()
        self._delay_s = first_s
        self._timer: threading.Timer | None = None
        self._due_s = 0.0
        self._running = False
        self._stranded_during_run = False
        self._closed = False

    def observe(self, outcome: oc.Outcome) -> None:
        """Called with every distillation outcome."""
        if outcome.is_distilled:
            self._bring_forward()
        elif is_resumable(outcome.token):
            self._stranded()

    def close(self) -> None:
        """Cancel the scheduled sweep; a running one ends after its current conversation (the writer cancels)."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    @property
    def is_scheduled(self) -> bool:
        """Whether a sweep is waiting to run (tests and status)."""
        with self._lock:
            return self._timer is not None

    def _stranded(self) -> None:
        with self._lock:
            if self._running:
                self._stranded_during_run = True
            elif self._timer is None:
                self._schedule(self._delay_s)

    def _bring_forward(self) -> None:
        with self._lock:
            self._delay_s = self._first_s
            if self._timer is not None and self._due_s > self._first_s:
                self._timer.cancel()
                self._schedule(self._first_s)

    def _schedule(self, delay_s: float) -> None:
        """Caller holds the lock."""
        if self._closed:
            return
        delay_s = max(delay_s, self._hold_s())
        self._due_s = delay_s
        self._timer = threading.Timer(delay_s, self._run)
        self._timer.name = "memoryd-resume"
        self._timer.daemon = True
        self._timer.start()

    def _run(self) -> None:
        with self._lock:
            if self._closed or self._timer is None or threading.current_thread() is not self._timer:
                return
            self._timer = None
            self._running = True
            self._stranded_during_run = False
        failed = False
        try:
            outcomes = self._sweep(is_blocking)
            _log.info("resume sweep: %d conversation(s) tried", len(outcomes))
        except Exception:
            _log.exception("resume sweep failed")
            outcomes, failed = [], True
        with self._lock:
            self._running = False
            stranded = failed or self._stranded_during_run or any(is_resumable(o.token) for o in outcomes)
            if stranded:
                self._delay_s = min(self._delay_s * 2, self._max_s)
                self._schedule(self._delay_s)
            else:
                self._delay_s = self._first_s


__all__ = ["ResumeSweeper", "Sweep", "is_blocking", "is_resumable"]
