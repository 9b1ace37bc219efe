"""glibc malloc tuning for the memoryd process: a fixed mmap threshold and few arenas, so freed memory goes back.

glibc serves blocks above its mmap threshold (128 KiB at start) from their own mappings and returns them on free.
But the threshold is dynamic: each freed mapping raises it to that block's size, up to 32 MiB. In memoryd the faiss
code vectors reallocate by doubling (MBs each), so after a few minutes blocks of up to tens of MB (set tables of the
id sets, faiss reverse maps, SQLite and numpy buffers, a consolidation pass's working set) land in the arenas
instead, and what they free stays there as fragmented free memory. Fixing the threshold (mallopt also turns the
dynamic adjustment off) sends them back to the OS on free. And glibc gives threads up to 8 arenas per core, each
keeping its own free memory; memoryd's 30+ threads mostly run Python under the GIL, so 2 arenas cost no throughput.
In 240 s soaks at ~95k vectors glibc's arenas held 157 MB by default, 117 MB with the fixed threshold and 93 MB with
both (bench_soak, issue 11). Elsewhere (musl, macOS) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

_log = logging.getLogger("memoryd.malloc_tuning")

#: mallopt parameter numbers (glibc malloc.h).
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8


def _mallopt(param: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    done = bool(mallopt(param, value))
    if not done:
        _log.warning("mallopt(%d, %d) was refused", param, value)
    return done


def fix_mmap_threshold(threshold_bytes: int) -> bool:
    """Serve blocks of at least `threshold_bytes` from their own mappings from now on; False when not glibc."""
    return _mallopt(M_MMAP_THRESHOLD, threshold_bytes)


def limit_arenas(arenas: int) -> bool:
    """At most `arenas` malloc arenas for threads created from now on (call before starting threads)."""
    return _mallopt(M_ARENA_MAX, arenas)


def tune_malloc(mmap_threshold_bytes: int, arena_max: int) -> None:
    """Apply memoryd's settings; 0 leaves that one at glibc's default."""
    if mmap_threshold_bytes > 0:
        fix_mmap_threshold(mmap_threshold_bytes)
    if arena_max > 0:
        limit_arenas(arena_max)


__all__ = [
    "M_ARENA_MAX",
    "M_MMAP_THRESHOLD",
    "fix_mmap_threshold",
    "limit_arenas",
    "tune_malloc",
]
