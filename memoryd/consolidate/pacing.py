"""Paces the consolidator's writes: short batches sized to a target lock hold, with rests between them.

Every write batch holds memoryd's single write lock, so a BufferTurn that arrives meanwhile waits for at most one
batch. The batch size adapts so a batch takes about `target_ms`; after each batch the pass rests at least as long
as the batch took, which caps the share of time the request path can find the lock taken.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class Pacer:
    """Adaptive batch size (rows per write transaction) and the rest after each batch."""

    target_ms: float = 2.0
    rest_ratio: float = 1.0
    min_rows: int = 16
    max_rows: int = 20_000
    rows: int = 256
    #: Longest the pass works on Python-only code before letting request threads take the GIL.
    slice_ms: float = 2.0

    def __post_init__(self) -> None:
        self._slice_start = time.perf_counter()
        self._calls = 0

    def size(self) -> int:
        """Rows for the next batch."""
        return self.rows

    def done(self, rows: int, elapsed_s: float) -> None:
        """Record one committed batch; resize towards the target and rest."""
        elapsed_ms = max(elapsed_s * 1000.0, 1e-3)
        if rows > 0:
            ideal = rows * self.target_ms / elapsed_ms
            # Grow slowly, shrink fast: one slow batch (a checkpoint, a cold page) must not cost many more.
            factor = min(ideal / self.rows, 1.5) if ideal > self.rows else max(ideal / self.rows, 0.25)
            self.rows = int(min(self.max_rows, max(self.min_rows, self.rows * factor)))
        time.sleep(elapsed_s * self.rest_ratio)
        self._slice_start = time.perf_counter()

    def breathe(self) -> None:
        """Call often in Python-heavy loops: after `slice_ms` of work, sleep briefly so request threads run."""
        self._calls += 1
        if self._calls % 16:  # reading the clock costs more than most loop bodies
            return
        now = time.perf_counter()
        if (now - self._slice_start) * 1000.0 >= self.slice_ms:
            time.sleep((now - self._slice_start) * self.rest_ratio)
            self._slice_start = time.perf_counter()


def unpaced() -> Pacer:
    """A pacer that never rests and uses large batches (tests and offline maintenance)."""
    return Pacer(target_ms=1e9, rest_ratio=0.0, rows=2000, max_rows=2000, slice_ms=1e9)
