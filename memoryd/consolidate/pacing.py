"""Paces the consolidator's writes: batches sized to a target lock hold, with rests that depend on traffic.

Every write batch holds memoryd's single write lock, so a BufferTurn that arrives meanwhile waits for at most one
batch. While others are writing (memoryd's commit counter moved between two of our batches) batches are short
(`busy_target_ms`) and each is followed by a rest as long as the batch (`busy_rest_ratio`), which bounds both the
wait and how often a request meets the lock taken. With no other writer for `quiet_after_s`, batches grow to
`quiet_target_ms` with short rests: a pass at night runs several times faster, and larger batches also write each
SQLite page fewer times.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Pacer:
    """Adaptive batch size (rows per write transaction) and the rest after each batch."""

    busy_target_ms: float = 2.0
    busy_rest_ratio: float = 1.0
    quiet_target_ms: float = 50.0
    quiet_rest_ratio: float = 0.1
    quiet_after_s: float = 1.0
    min_rows: int = 16
    max_rows: int = 20_000
    rows: int = 256
    #: Longest the pass works on Python-only code before letting request threads take the GIL.
    slice_ms: float = 2.0
    #: Commits by anyone so far (memoryd.storage.consolidation.ConsolidationStore.commits); None = always busy.
    commits: Callable[[], int] | None = None
    _seen: int = field(default=-1, init=False)
    _busy_until: float = field(default=0.0, init=False)
    _slice_start: float = field(default_factory=time.perf_counter, init=False)
    _calls: int = field(default=0, init=False)

    @property
    def is_busy(self) -> bool:
        """Whether other writers were seen recently (short batches, long rests)."""
        return self.commits is None or time.perf_counter() < self._busy_until

    def size(self) -> int:
        """Rows for the next batch."""
        return self.rows

    def done(self, rows: int, elapsed_s: float) -> None:
        """Record one committed batch of ours; resize towards the target and rest."""
        self._observe(own_commits=1)
        busy = self.is_busy
        target_ms = self.busy_target_ms if busy else self.quiet_target_ms
        elapsed_ms = max(elapsed_s * 1000.0, 1e-3)
        if rows > 0:
            ideal = rows * target_ms / elapsed_ms
            # Grow slowly, shrink fast: one slow batch (a cold page) must not be followed by many more.
            factor = min(ideal / self.rows, 1.5) if ideal > self.rows else max(ideal / self.rows, 0.25)
            self.rows = int(min(self.max_rows, max(self.min_rows, self.rows * factor)))
        time.sleep(elapsed_s * (self.busy_rest_ratio if busy else self.quiet_rest_ratio))
        self._observe(own_commits=0)
        self._slice_start = time.perf_counter()

    def _observe(self, own_commits: int) -> None:
        """Others committed if the counter moved more than our own commits did."""
        if self.commits is None:
            return
        now = self.commits()
        if self._seen >= 0 and now - self._seen > own_commits:
            self._busy_until = time.perf_counter() + self.quiet_after_s
        self._seen = now

    def breathe(self) -> None:
        """Call often in Python-heavy loops: after `slice_ms` of work, sleep briefly so request threads run."""
        self._calls += 1
        if self._calls % 16:  # reading the clock costs more than most loop bodies
            return
        now = time.perf_counter()
        if (now - self._slice_start) * 1000.0 >= self.slice_ms:
            ratio = self.busy_rest_ratio if self.is_busy else self.quiet_rest_ratio
            time.sleep((now - self._slice_start) * ratio)
            self._slice_start = time.perf_counter()


def unpaced() -> Pacer:
    """A pacer that never rests and uses large batches (tests and offline maintenance)."""
    return Pacer(
        busy_target_ms=1e9, busy_rest_ratio=0.0, rows=2000, max_rows=2000, slice_ms=1e9, quiet_target_ms=1e9
    )
