"""fastctx8's tracer (issue 17 item 4): timestamps of the read path's stages on every thread, and the scheduler's view
of every thread of this process and of inferd, for probe_fastctx8_stages and probe_fastctx8_ab.

`Tracer.install()` wraps the read path's functions (class attributes and the module names assemble.py calls) so each
call appends (label, native thread id, start, end, thread CPU seconds) to `Tracer.events`; `uninstall()` puts the
originals back. The wrappers cost ~2 us a call (a few dozen calls per assembly).

`Scheduler.snapshot()` reads /proc/<pid>/task/<tid>/schedstat for this process and inferd: per thread, nanoseconds
run on a core and nanoseconds waited in a run queue (a core was busy). A thread's wall time minus both is time it was
blocked (a lock, the GIL, a future, a socket).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: (label, native thread id, start, end, thread CPU seconds of the call)
Event = tuple[str, int, float, float, float]


def _targets() -> list[tuple[object, str, str, int | None]]:
    """(owner, attribute, label, index of the `kind` argument to add to the label or None)."""
    from memoryd.read import assemble, memory_reader, search
    from memoryd.retrieval import blocks, gate, line_tokens, planner
    from memoryd.storage import fts, read_queries
    from memoryd.vectors import embedding

    return [
        (assemble.ReadPath, "assemble", "call", None),
        (assemble.ReadPath, "_known_entities", "entities", None),
        (assemble.ReadPath, "_identity", "identity", None),
        (assemble.ReadPath, "_known_corrections", "corrections", None),
        (assemble, "compute", "features", None),
        (assemble, "trigger_flags", "literal_flags", None),
        (gate.RelevanceGate, "decide", "gate", None),
        (search.MemorySearch, "prefetch_evidence", "prefetch", None),
        (search.MemorySearch, "_vector_rankings", "vector_side", None),
        (search.MemorySearch, "_nearest", "nearest", 2),
        (search.MemorySearch, "_measure_evidence", "evidence_pass", None),
        (search.MemorySearch, "_evidence_side", "kw_side", 2),
        (search.MemorySearch, "_evidence", "ev_load", 2),
        (search.MemorySearch, "search_with_evidence", "section_search", 2),
        (search.MemorySearch, "_with_transcript_priors", "priors", None),
        (search.MemorySearch, "_with_context_window", "context_window", None),
        (search, "mmr", "mmr", None),
        (memory_reader.StoreMemoryReader, "sections_evidence", "evidence_wait", None),
        (memory_reader.StoreMemoryReader, "identity_similarity", "identity_cosine", None),
        (read_queries.ReadQueries, "episode_decisions", "episode_decisions", None),
        (planner.Planner, "plan", "plan", None),
        (planner, "fit", "fit", None),
        (blocks, "render_block", "render", None),
        (line_tokens.LineTokenCounter, "count", "count", None),
        (embedding.Embedder, "_embed", "embed_rpc", None),
        (fts.FtsIndex, "search", "fts", None),
    ]


@dataclass
class Tracer:
    """Collects Events from the wrapped functions while installed."""

    events: list[Event] = field(default_factory=list)
    _saved: list[tuple[object, str, Any]] = field(default_factory=list)

    def wrap(self, fn: Callable[..., Any], label: str, kind_at: int | None) -> Callable[..., Any]:
        events = self.events
        perf, cpu, ident = time.perf_counter, time.thread_time, threading.get_native_id

        def traced(*args: Any, **kwargs: Any) -> Any:
            name = label if kind_at is None or len(args) <= kind_at else f"{label}:{args[kind_at]}"
            t0, c0 = perf(), cpu()
            try:
                return fn(*args, **kwargs)
            finally:
                events.append((name, ident(), t0, perf(), cpu() - c0))

        traced.__wrapped__ = fn  # type: ignore[attr-defined]
        return traced

    def install(self) -> None:
        for owner, attr, label, kind_at in _targets():
            original = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
            self._saved.append((owner, attr, original))
            setattr(owner, attr, self.wrap(original, label, kind_at))

    def uninstall(self) -> None:
        for owner, attr, original in reversed(self._saved):
            setattr(owner, attr, original)
        self._saved.clear()


def _read_tasks(pid: int | str) -> dict[int, tuple[int, int]]:
    out: dict[int, tuple[int, int]] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            run, wait, _ = (task / "schedstat").read_text().split()
        except (OSError, ValueError):
            continue
        out[int(task.name)] = (int(run), int(wait))
    return out


def find_pid(needle: str) -> int | None:
    """The pid of the process whose command line contains `needle` (inferd's --home path)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if needle in cmdline and "inferd" in cmdline:
            return int(entry.name)
    return None


@dataclass
class Scheduler:
    """Per-thread run / run-queue nanoseconds of this process and of another (inferd)."""

    other_pid: int | None

    def snapshot(self) -> tuple[dict[int, tuple[int, int]], dict[int, tuple[int, int]]]:
        mine = _read_tasks("self")
        other = _read_tasks(self.other_pid) if self.other_pid is not None else {}
        return mine, other

    @staticmethod
    def delta(
        before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]], tid: int | None = None
    ) -> tuple[float, float]:
        """(run ms, run-queue ms) between two snapshots, of one thread or summed over all."""
        run = wait = 0
        for t, (r, w) in after.items():
            if tid is not None and t != tid:
                continue
            r0, w0 = before.get(t, (0, 0))
            run += r - r0
            wait += w - w0
        return run / 1e6, wait / 1e6
