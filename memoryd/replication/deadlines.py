"""Debounce deadlines announced between replicas (NOTIFY on the change channel) and the earliest ones kept here.

A replica that arms a conversation's deadline (a buffered turn: now + debounce; EndSession or a switch: now) tells
the others, so each claim loop sleeps until the earliest deadline it knows instead of polling: the first replica
to wake claims the row (SKIP LOCKED), the others find nothing. The payload rides the change feed's channel and
connection (pg_notify.CHANNEL) with a mark no schema name can start with, so change listeners of any version
ignore it: `!due<TAB><schema><TAB><sender><TAB><ms until due>[<TAB><ms>…]`. Times are relative (replicas' clocks
need not agree; NOTIFY takes milliseconds), rounded to whole milliseconds.
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Iterable
from dataclasses import dataclass

#: First field of a deadline payload ("!" never starts a schema name: pg_db.check_schema).
MARK = "!due"
#: Deadlines per payload (PostgreSQL's limit is 8000 bytes; a deadline is at most ~10).
_PER_PAYLOAD = 500


@dataclass(frozen=True)
class Announced:
    """Deadlines another replica set, as received."""

    schema: str
    sender: str
    due_in_s: tuple[float, ...]


def deadline_payloads(schema: str, sender: str, due_in_s: Iterable[float]) -> list[str]:
    """The NOTIFY payloads announcing these deadlines (seconds from now)."""
    millis = sorted({max(0, round(s * 1000)) for s in due_in_s})
    head = f"{MARK}\t{schema}\t{sender}"
    return [
        "\t".join([head, *(str(ms) for ms in millis[i : i + _PER_PAYLOAD])])
        for i in range(0, len(millis), _PER_PAYLOAD)
    ]


def parse_deadlines(payload: str) -> Announced | None:
    """A deadline payload, or None when `payload` is not one (a change notification, or malformed)."""
    parts = payload.split("\t")
    if len(parts) < 4 or parts[0] != MARK:
        return None
    try:
        due = tuple(int(p) / 1000 for p in parts[3:])
    except ValueError:
        return None
    return Announced(parts[1], parts[2], due)


class DeadlineBoard:
    """The deadlines this replica knows of (its own and the others' announcements), on its monotonic clock."""

    def __init__(self) -> None:
        self._mu = threading.Lock()
        self._heap: list[float] = []

    def note(self, due_at: float) -> None:
        """A conversation is due at `due_at`."""
        with self._mu:
            heapq.heappush(self._heap, due_at)

    def earliest(self) -> float | None:
        """The earliest deadline not yet dealt with, or None."""
        with self._mu:
            return self._heap[0] if self._heap else None

    def settle(self, now: float) -> int:
        """Forget the deadlines up to `now` (a claim round took every due row it could); how many."""
        dropped = 0
        with self._mu:
            while self._heap and self._heap[0] <= now:
                heapq.heappop(self._heap)
                dropped += 1
        return dropped

    def __len__(self) -> int:
        with self._mu:
            return len(self._heap)


__all__ = ["MARK", "Announced", "DeadlineBoard", "deadline_payloads", "parse_deadlines"]
