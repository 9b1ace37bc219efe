"""Garbage-collector settings for a long-running service: what start-up built is never scanned again, and a request's
short-lived objects are freed by reference counting before a collection sees them.

CPython's cyclic collector runs a young-generation pass every 700 net container allocations and, every 100 of those,
a full pass over every tracked object. memoryd holds ~100k tracked objects once serving (modules, the store's and the
indexes' tables, caches): a full pass took ~200-280 ms on the shared 2-core machine, paid by whichever request
triggered it; young passes added 0.6 ms to an average AssembleContext at 100k transcript rows. `settle_heap()`
collects once, freezes the survivors (gc.freeze: they move to a permanent generation no pass scans; a full pass after
it took < 1 ms instead of 196 ms in the same process) and raises the young threshold, so a request's temporary rows,
tuples and dicts are mostly freed before any pass runs (young passes 0.61 → 0.04 ms per AssembleContext, same run;
issue 17). Cycles are still collected, only in fewer, later passes.
"""

from __future__ import annotations

import gc
import logging

_log = logging.getLogger("servicekit.gc_tuning")

#: Net container allocations between young-generation passes (CPython's default is 700). The middle and old
#: generations keep CPython's multipliers (a middle pass every 10 young ones, a full one every 10 middle ones).
YOUNG_THRESHOLD = 10_000
OLDER_MULTIPLIERS = (10, 10)


def settle_heap(young_threshold: int = YOUNG_THRESHOLD) -> int:
    """Call once start-up is done (before serving): collect, freeze the survivors, raise the young threshold.

    Returns how many objects were frozen. Calling it again freezes what was built since. Frozen objects are still
    freed when their last reference goes; only garbage cycles among them are never collected, so call it after
    start-up work whose results live as long as the process.
    """
    if young_threshold <= 0:
        raise ValueError("young_threshold must be positive")
    gc.collect()
    gc.freeze()
    gc.set_threshold(young_threshold, *OLDER_MULTIPLIERS)
    frozen = gc.get_freeze_count()
    _log.debug("heap settled: %d objects frozen, gc thresholds %s", frozen, gc.get_threshold())
    return frozen


__all__ = ["OLDER_MULTIPLIERS", "YOUNG_THRESHOLD", "settle_heap"]
