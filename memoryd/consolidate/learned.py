"""When memory learned its transcript rows, for retention: transcript-id high-water marks recorded by each pass.

The transcript has one time column, created_at_ms, and it holds the turn's conversation time: Ingest backfills a
2023 session with 2023 times, which the read path needs to date what it returns. Retention must count from when
memory learned a row, not from that date, so every pass records a mark (its time, the highest transcript id).
Ids only grow (AUTOINCREMENT never reuses one), so every row at or below a mark taken at T was stored by T: a row
is past retention once a mark taken at or before the cutoff covers it. Rows newer than the last such mark wait for
a later pass (the lag is at most one mark spacing), and a store that has no mark old enough prunes no transcript
at all: what memory cannot date it keeps.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from memoryd.consolidate.state import StateStore

MARKS_KEY = "prune.transcript_marks"
_HOUR_MS = 3_600_000
_DAY_MS = 86_400_000
#: Marks kept at most (a few KB of JSON): a new one is added only when the last is this share of retention old.
MAX_MARKS = 256


@dataclass(frozen=True)
class Mark:
    """Every transcript row with id <= high_id was stored by at_ms."""

    at_ms: int
    high_id: int


def load(state: StateStore) -> list[Mark]:
    """The recorded marks, oldest first (none when absent or unreadable: then nothing counts as old)."""
    try:
        raw = json.loads(state.get(MARKS_KEY, "[]"))
        marks = [Mark(int(at), int(high)) for at, high in raw]
    except (ValueError, TypeError):
        return []
    return sorted(marks, key=lambda m: (m.at_ms, m.high_id))


def usable(marks: list[Mark], high_id: int) -> list[Mark]:
    """The marks, or none once the ids started again (the table's sequence was reset below the last mark): old
    marks would then cover new rows."""
    return [] if marks and high_id < marks[-1].high_id else marks


def learned_by(marks: list[Mark], cutoff_ms: int) -> int:
    """Highest transcript id known to have been stored at or before cutoff_ms (0: none)."""
    return max((m.high_id for m in marks if m.at_ms <= cutoff_ms), default=0)


def spacing_ms(retention_days: int) -> int:
    """Least time between two marks: a share of the retention (at least an hour), a day when kept forever."""
    if retention_days <= 0:
        return _DAY_MS
    return max(_HOUR_MS, retention_days * _DAY_MS // MAX_MARKS)


def with_new_mark(marks: list[Mark], now_ms: int, high_id: int, retention_days: int) -> list[Mark]:
    """The marks after this pass: a new one unless the last is recent, and none that a newer mark older than
    the cutoff makes useless (learned_by only ever needs the newest mark at or before the cutoff)."""
    kept = usable(list(marks), high_id)
    if not kept or now_ms - kept[-1].at_ms >= spacing_ms(retention_days):
        kept.append(Mark(now_ms, high_id))
    if retention_days > 0:
        cutoff_ms = now_ms - retention_days * _DAY_MS
        older = [i for i, m in enumerate(kept) if m.at_ms <= cutoff_ms]
        if older:
            kept = kept[older[-1] :]
    # Past the cap drop the oldest: a later mark then covers its rows, so they are kept longer, never less.
    return kept[-MAX_MARKS:]


def save(state: StateStore, marks: list[Mark], now_ms: int) -> None:
    """Store the marks (joins the caller's transaction when there is one)."""
    state.set(MARKS_KEY, json.dumps([[m.at_ms, m.high_id] for m in marks]), now_ms)


__all__ = [
    "MARKS_KEY",
    "MAX_MARKS",
    "Mark",
    "learned_by",
    "load",
    "save",
    "spacing_ms",
    "usable",
    "with_new_mark",
]
