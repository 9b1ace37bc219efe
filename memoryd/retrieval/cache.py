"""Assembly cache: results per (agent, normalised query): 10 s TTL, 256 entries, per-agent invalidation."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

#: How long an assembled block is reused (seconds): long enough for retries, short enough to stay fresh.
DEFAULT_TTL_S = 10.0
#: Most entries kept; the oldest go first.
DEFAULT_MAX_ENTRIES = 256
#: Characters of the normalised query that form the key.
KEY_QUERY_CHARS = 512


def normalise_query(query: str) -> str:
    """Cache key form of a query: casefolded, whitespace collapsed, trimmed, at most 512 characters."""
    return " ".join(query.casefold().split())[:KEY_QUERY_CHARS]


class AssemblyCache(Generic[V]):
    """A small TTL cache keyed by (agent_id, normalised query, variant); thread-safe; clock injectable.

    `variant` separates results that differ for the same query (for example another budget).
    """

    def __init__(
        self,
        *,
        ttl_s: float = DEFAULT_TTL_S,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl_s = ttl_s
        self._max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[tuple[str, str, Hashable], tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()
        # Bumped by invalidate(); a value computed before an invalidation must not be stored after it.
        self._epoch = 0
        self._agent_epochs: dict[str, int] = {}

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def get(self, agent_id: str, query: str, variant: Hashable = None) -> V | None:
        """The live value for the key, or None (expired entries are dropped on the way)."""
        key = (agent_id, normalise_query(query), variant)
        now = self._clock()
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            expires_at, value = entry
            if now >= expires_at:
                del self._entries[key]
                return None
            return value

    def stamp(self, agent_id: str) -> tuple[int, int]:
        """Take before computing a value; pass to put() so a value raced by an invalidation is not stored."""
        with self._lock:
            return (self._epoch, self._agent_epochs.get(agent_id, 0))

    def put(
        self,
        agent_id: str,
        query: str,
        value: V,
        variant: Hashable = None,
        stamp: tuple[int, int] | None = None,
    ) -> bool:
        """Store a value (False when `stamp` is stale); drops expired entries, then the oldest."""
        key = (agent_id, normalise_query(query), variant)
        now = self._clock()
        with self._lock:
            if stamp is not None and stamp != (self._epoch, self._agent_epochs.get(agent_id, 0)):
                return False
            self._entries.pop(key, None)
            self._entries[key] = (now + self._ttl_s, value)
            expired = [k for k, (expires_at, _) in self._entries.items() if now >= expires_at]
            for k in expired:
                del self._entries[k]
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)
        return True

    def invalidate(self, agent_id: str | None = None) -> int:
        """Drop one agent's entries (None: all); returns how many were dropped."""
        with self._lock:
            if agent_id is None:
                self._epoch += 1
                count = len(self._entries)
                self._entries.clear()
                return count
            self._agent_epochs[agent_id] = self._agent_epochs.get(agent_id, 0) + 1
            doomed = [k for k in self._entries if k[0] == agent_id]
            for k in doomed:
                del self._entries[k]
            return len(doomed)


__all__ = ["DEFAULT_MAX_ENTRIES", "DEFAULT_TTL_S", "AssemblyCache", "normalise_query"]
