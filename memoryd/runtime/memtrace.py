"""Memory debug probe (off by default): a thread appending one JSON line per period that splits memoryd's RSS.

Turned on by OSAURUS_MEMORYD_MEMTRACE=PATH (read in memoryd.config). Each line holds the process's RSS (anon /
file / shmem), glibc's heap (mallinfo2: in use, free but kept, mmapped), what SQLite's allocator holds
(sqlite3_memory_used) and the bytes held by the faiss indexes (from a callable). With OSAURUS_MEMORYD_TRACEMALLOC=N
(frames, > 0) it also traces Python allocations and lists the sites that grew most since the first line; that
slows every allocation down, so it is for debug runs (bench_soak investigations), never for figures.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import logging
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

_log = logging.getLogger("memoryd.memtrace")

#: Seconds between lines.
PERIOD_S = 20.0
#: Allocation sites reported per line.
TOP_SITES = 25


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _libc() -> Any:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def _sqlite() -> Any:
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
        lib.sqlite3_memory_used.restype = ctypes.c_int64
        lib.sqlite3_memory_highwater.restype = ctypes.c_int64
        lib.sqlite3_memory_highwater.argtypes = [ctypes.c_int]
        return lib
    except (OSError, AttributeError):
        return None


def malloc_info() -> dict[str, int] | None:
    """glibc's mallinfo2() summed over every arena (bytes and block counts), or None without glibc."""
    libc = _libc()
    if libc is None or not hasattr(libc, "mallinfo2"):
        return None
    libc.mallinfo2.restype = _MallInfo2
    info = libc.mallinfo2()
    return {field[0]: int(getattr(info, field[0])) for field in _MallInfo2._fields_}


def process_memory() -> dict[str, float]:
    """VmRSS, RssAnon, RssFile and RssShmem of this process, in MB."""
    wanted = {"VmRSS", "RssAnon", "RssFile", "RssShmem"}
    result: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in wanted:
            result[key] = int(value.split()[0]) / 1024
    return result


class MemoryTrace:
    """Appends one JSON line per period to `path` until stop()."""

    def __init__(
        self, path: Path, faiss_bytes: Callable[[], int], *, frames: int = 0, period_s: float = PERIOD_S
    ) -> None:
        self._path = path
        self._frames = frames
        self._faiss_bytes = faiss_bytes
        self._period_s = period_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memoryd-memtrace", daemon=True)
        self._sqlite = _sqlite()
        self._first: tracemalloc.Snapshot | None = None
        self._started = time.monotonic()

    def start(self) -> None:
        """Start the writer thread (and tracing Python allocations when frames > 0)."""
        if self._frames > 0 and not tracemalloc.is_tracing():
            tracemalloc.start(self._frames)
        self._started = time.monotonic()
        self._thread.start()
        _log.warning("memory trace on (debug): writing to %s", self._path)

    def stop(self) -> None:
        """Write a last line and stop."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=60)

    def _run(self) -> None:
        while not self._stop.wait(self._period_s):
            self._write()
        self._write()

    def line(self) -> dict[str, Any]:
        """One measurement (also usable directly from a test)."""
        record: dict[str, Any] = {
            "t": round(time.monotonic() - self._started, 1),
            **{k: round(v, 1) for k, v in process_memory().items()},
            "faiss_mb": round(self._safe(self._faiss_bytes) / 2**20, 1),
            "threads": threading.active_count(),
        }
        info = malloc_info()
        if info is not None:
            record["malloc_arena_mb"] = round(info["arena"] / 2**20, 1)
            record["malloc_mmapped_mb"] = round(info["hblkhd"] / 2**20, 1)
            record["malloc_in_use_mb"] = round(info["uordblks"] / 2**20, 1)
            record["malloc_free_kept_mb"] = round(info["fordblks"] / 2**20, 1)
        if self._sqlite is not None:
            record["sqlite_used_mb"] = round(self._sqlite.sqlite3_memory_used() / 2**20, 1)
            record["sqlite_highwater_mb"] = round(self._sqlite.sqlite3_memory_highwater(0) / 2**20, 1)
        if tracemalloc.is_tracing():
            record.update(self._python())
        return record

    def _python(self) -> dict[str, Any]:
        """Python's traced total and the allocation sites that grew most since the first snapshot."""
        snapshot = tracemalloc.take_snapshot().filter_traces(
            (tracemalloc.Filter(False, tracemalloc.__file__),)
        )
        if self._first is None:
            self._first = snapshot
        current, _ = tracemalloc.get_traced_memory()
        grew = [
            {
                "site": " <- ".join(f"{Path(f.filename).name}:{f.lineno}" for f in stat.traceback),
                "mb": round(stat.size / 2**20, 2),
                "diff_mb": round(stat.size_diff / 2**20, 2),
                "count": stat.count,
            }
            for stat in snapshot.compare_to(self._first, "traceback")[:TOP_SITES]
        ]
        return {"python_traced_mb": round(current / 2**20, 1), "grew": grew}

    def _write(self) -> None:
        try:
            record = self.line()
            with self._path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")
        except Exception as error:  # a debug aid must never take memoryd down
            _log.warning("memory trace failed: %s", type(error).__name__)

    @staticmethod
    def _safe(call: Callable[[], int]) -> int:
        try:
            return int(call())
        except Exception:
            return 0


__all__ = ["MemoryTrace", "malloc_info", "process_memory"]
