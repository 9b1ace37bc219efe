"""Fills the read path's line token counts for stored rows ahead of time, on its own thread (issue 17, item 4).

A block's count is the sum of its lines' counts (retrieval/line_tokens.py) once every line is known. The rows a block
can show are stored long before they are shown, so their lines are rendered here as the planner renders them
(`blocks.pinned_line`, `episode_line` with the episode's decisions, `transcript_line`) and counted through inferd in batches, off the request path. Rows are walked by id per kind, from the
last id covered (per counting model: another model starts over); the thread wakes after writes (notify) and every
`interval_s`. A row changed after it was covered, or one whose id was handed out before a row already covered
(PostgreSQL sequences across replicas), renders a line not held yet: the read path counts it through inferd then,
as before, and learns it. The filler never makes inferd load the model (only_if_resident): until the read path's
first count has loaded it, a pass stops at once, and that count's calibration wakes the filler.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT, MemoryRow
from memoryd.retrieval import blocks
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.storage.store import Store

_log = logging.getLogger("memoryd.line_token_filler")

#: Rows read per statement (one line each; inferd takes 1,024 texts a call).
BATCH_ROWS = 500
INTERVAL_S = 30.0
#: After a nudge the thread waits this long before a pass, so a burst of turns costs one pass.
SETTLE_S = 0.5
KINDS = (KIND_PINNED, KIND_EPISODE, KIND_TRANSCRIPT)


def row_lines(kind: str, rows: Sequence[MemoryRow], decisions: dict[int, tuple[str, ...]]) -> list[str]:
    """The lines the planner renders for these rows (retrieval/planner.py hit_candidates), without the newline.

    A transcript row's line is rendered as stored: with a credential redacted (as a block shows it unless the
    literal turn is asked for) its line differs and is counted on the request path, then learnt. Redacting every row
    here cost ~250 us a row (25 s of CPU for bench_assemble's 100k turns) for the few rows that hold a credential.
    """
    lines: list[str] = []
    for row in rows:
        if not row.text.strip():
            continue
        if kind == KIND_PINNED:
            lines.append(blocks.pinned_line(row.text))
        elif kind == KIND_EPISODE:
            lines.append(blocks.episode_line(row.occurred_at_ms, row.text, decisions.get(row.id, ())))
        elif kind == KIND_TRANSCRIPT:
            lines.append(blocks.transcript_line(row.occurred_at_ms, row.role, row.text))
    return lines


class LineTokenFiller:
    """Counts the lines of stored rows into a LineTokenCounter, in the background."""

    def __init__(
        self,
        store: Store,
        counter: LineTokenCounter,
        *,
        batch_rows: int = BATCH_ROWS,
        interval_s: float = INTERVAL_S,
        settle_s: float = SETTLE_S,
    ) -> None:
        self._store = store
        self._counter = counter
        self._batch_rows = batch_rows
        self._interval_s = interval_s
        self._settle_s = settle_s
        self._marks: dict[str, int] = {}
        self._marks_model: str | None = None
        self._run_lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # Counting never loads the model: a pass that found it unloaded waits for the read path's first count.
        counter.on_calibrated(self.notify)

    def notify(self, agent_id: str | None = None) -> None:
        """Rows were written: cover them soon."""
        if not self._wake.is_set():
            self._wake.set()

    def run_once(self) -> int | None:
        """Cover every row not covered yet; how many lines were counted, None when inferd failed (or the model's
        counts cannot be summed) and the pass stopped."""
        with self._run_lock:
            model = self._counter.model
            if model != self._marks_model:
                self._marks, self._marks_model = {}, model
            learnt = 0
            for kind in KINDS:
                while not self._stop.is_set():
                    rows = self._store.rows.after(kind, self._marks.get(kind, 0), self._batch_rows)
                    if not rows:
                        break
                    counted = self._counter.prefill(row_lines(kind, rows, self._decisions(kind, rows)))
                    if counted is None:
                        return None
                    learnt += counted
                    self._marks[kind] = rows[-1].id
            return learnt

    def _decisions(self, kind: str, rows: Sequence[MemoryRow]) -> dict[int, tuple[str, ...]]:
        if kind != KIND_EPISODE:
            return {}
        by_agent: dict[str, list[int]] = {}
        for row in rows:
            by_agent.setdefault(row.agent_id, []).append(row.id)
        found: dict[int, tuple[str, ...]] = {}
        for agent_id, ids in by_agent.items():
            found.update(self._store.reads.episode_decisions(agent_id, ids))
        return found

    def start(self) -> None:
        """Start the thread (a first pass at once)."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="memoryd-line-tokens", daemon=True)
        self._thread.start()
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if self._wake.wait(timeout=self._interval_s):
                self._stop.wait(self._settle_s)
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                self.run_once()
            except Exception as error:  # a failed pass is retried on the next wake-up
                _log.warning("counting line tokens failed: %s", type(error).__name__)

    def close(self) -> None:
        """Stop the thread (a pass under way ends after its batch)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None


__all__ = ["LineTokenFiller", "row_lines"]
