"""Calendar dates written in a query ("on 7 July, 2023", "October 13, 2023", "2023-07-07", "in May 2023") as
UTC time windows, for the date prior of search (rows from that day or month rank higher).

Only absolute dates with a year are read: "yesterday" or "last week" need the asker's clock and time zone, and a
bare year is too wide to help. A day window is widened by one day on each side, because the row times are UTC and
the user's day is local.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ORDINAL = r"(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?({_MONTH})\.?,?\s+(\d{{4}})\b", re.IGNORECASE
)
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}}){_ORDINAL},?\s+(\d{{4}})\b", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(\d{{4}})\b", re.IGNORECASE)
#: Time-zone slack around a day (row times are UTC; the asker's day is local).
DAY_SLACK = timedelta(days=1)
#: At most this many windows per query (a pasted calendar should not turn into dozens of queries).
MAX_WINDOWS = 4


@dataclass(frozen=True)
class Window:
    """[start_ms, end_ms) in UTC epoch milliseconds."""

    start_ms: int
    end_ms: int


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _day(year: int, month: int, day: int) -> Window | None:
    try:
        start = datetime(year, month, day, tzinfo=UTC)
    except (ValueError, OverflowError):
        return None
    return Window(_ms(start - DAY_SLACK), _ms(start + timedelta(days=1) + DAY_SLACK))


def _month(year: int, month: int) -> Window | None:
    if not 1 <= year <= 9998:
        return None
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return Window(_ms(start - DAY_SLACK), _ms(end + DAY_SLACK))


def date_windows(text: str) -> list[Window]:
    """Windows of the absolute dates in `text`, in order of appearance, without duplicates."""
    found: list[tuple[int, Window]] = []
    days: list[tuple[int, int]] = []
    for match in _DAY_MONTH_YEAR.finditer(text):
        window = _day(int(match[3]), _MONTHS[match[2].lower()], int(match[1]))
        if window is not None:
            found.append((match.start(), window))
            days.append(match.span())
    for match in _MONTH_DAY_YEAR.finditer(text):
        window = _day(int(match[3]), _MONTHS[match[1].lower()], int(match[2]))
        if window is not None:
            found.append((match.start(), window))
            days.append(match.span())
    for match in _ISO_DAY.finditer(text):
        window = _day(int(match[1]), int(match[2]), int(match[3]))
        if window is not None:
            found.append((match.start(), window))
            days.append(match.span())
    for match in _MONTH_YEAR.finditer(text):
        if any(start <= match.start() < end for start, end in days):
            continue  # the month of a full date already read
        window = _month(int(match[2]), _MONTHS[match[1].lower()])
        if window is not None:
            found.append((match.start(), window))
    ordered = dict.fromkeys(window for _, window in sorted(found, key=lambda item: item[0]))
    return list(ordered)[:MAX_WINDOWS]
