"""Pinned-usage bumps off the request path: counted in memory, written in one transaction per agent by a flusher.

On SQLite every assembly that placed pinned facts used to take the file's write lock (BEGIN IMMEDIATE / UPDATE /
COMMIT) before AssembleContext answered (issue 17, item 4). The counts are now added to a pending table here and a
background thread writes them every FLUSH_INTERVAL_S: `use_count + n` for the n assemblies that placed a fact since
the last flush, and the latest stamp as last_used_at_ms (never moved backwards).

Exact: every bump is written once (a failed flush keeps its counts for the next one). Lost on a crash: at most the
bumps of the last FLUSH_INTERVAL_S (1 s), never more; close() writes the rest. A fact forgotten or deleted between a
bump and its flush is safe: the UPDATE names the agent and the id and finds no row, nothing comes back.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence

_log = logging.getLogger("memoryd.pinned_usage")

#: How often pending bumps are written (also the most a crash can lose).
FLUSH_INTERVAL_S = 1.0

#: Writes one agent's pending uses: fact id → (uses to add, latest used-at stamp in ms).
UsageWriter = Callable[[str, Mapping[int, tuple[int, int]]], None]


class PinnedUsageFlusher:
    """Batches pinned-usage bumps and writes them on a thread of its own (memoryd-usage)."""

    def __init__(self, write: UsageWriter, *, interval_s: float = FLUSH_INTERVAL_S) -> None:
        self._write = write
        self._interval_s = interval_s
        self._pending: dict[str, dict[int, tuple[int, int]]] = {}
        self._lock = threading.Lock()
        # Serialises flushes (the thread's and a caller's flush()/close()), so counts are written in order.
        self._flush_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memoryd-usage", daemon=True)
        self._thread.start()

    def bump(self, agent_id: str, fact_ids: Sequence[int], used_at_ms: int) -> None:
        """Count one use of each of these facts at used_at_ms (written by the next flush)."""
        if not fact_ids:
            return
        with self._lock:
            pending = self._pending.setdefault(agent_id, {})
            for fact_id in fact_ids:
                uses, stamp = pending.get(fact_id, (0, 0))
                pending[fact_id] = (uses + 1, max(stamp, used_at_ms))

    def pending(self) -> int:
        """Uses counted but not written yet."""
        with self._lock:
            return sum(uses for facts in self._pending.values() for uses, _ in facts.values())

    def flush(self) -> None:
        """Write every pending use now (one transaction per agent). An agent whose write fails keeps its uses, added
        to any counted meanwhile, for the next flush; the error is logged (no memory content), not raised."""
        with self._flush_lock:
            with self._lock:
                taken, self._pending = self._pending, {}
            for agent_id, uses in taken.items():
                try:
                    self._write(agent_id, uses)
                except Exception as error:
                    _log.warning("pinned-usage flush failed, kept for the next one: %s", type(error).__name__)
                    self._put_back(agent_id, uses)

    def _put_back(self, agent_id: str, uses: Mapping[int, tuple[int, int]]) -> None:
        with self._lock:
            pending = self._pending.setdefault(agent_id, {})
            for fact_id, (count, stamp) in uses.items():
                more, later = pending.get(fact_id, (0, 0))
                pending[fact_id] = (count + more, max(stamp, later))

    def _run(self) -> None:
        while not self._stop.wait(self._interval_s):
            self.flush()

    def close(self) -> None:
        """Stop the thread and write what is pending."""
        self._stop.set()
        self._thread.join(timeout=10)
        self.flush()


__all__ = ["FLUSH_INTERVAL_S", "PinnedUsageFlusher", "UsageWriter"]
