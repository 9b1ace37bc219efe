"""A date said to have changed without naming its event: "But their only Saturday left was September 25, 2027, so
the date's changed" after "We're aiming for September 12, 2027, in Edinburgh"; "Have you rebooked?" — "Yeah, the
next slot is August 14" after "The practical is booked for June 18".

The cue says a known date moved (`DATE_CHANGED`: "the date's changed", "new date", "rebooked", "rescheduled", "next
slot", "nouvelle date", "nueva fecha", "neues Datum", "nova data", …), in the user's sentence or in the assistant's
question it answers; the session's fact from that turn carries the new day (the writer resolved it: "(2027-09-25)").
The older plan it moves is the one dated near it: exactly one older dated fact within `WINDOW_DAYS` of the new day,
and not on it. With two candidates (which one moved is unknown) or none, nothing is retired.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from memoryd.write.grounding.event import plan_dates

_I = re.IGNORECASE
#: A known date said to have moved, its event unsaid.
DATE_CHANGED = re.compile(
    r"\b(?:the date(?:'s| has| is)? changed|date changed|new date|rebooked|re-booked|rescheduled|next slot|"
    r"nouvelle date|la date a changé|reporté|nueva fecha|la fecha ha cambiado|cambió la fecha|reprogramad[oa]|"
    r"neues datum|neuer termin|das datum hat sich geändert|nova data|a data mudou|remarcad[oa])\b",
    _I,
)
#: How far apart the old and the new day of one event may be.
WINDOW_DAYS = 75


def _day(iso: str) -> date | None:
    try:
        return date.fromisoformat(iso if len(iso) == 10 else f"{iso}-01")
    except ValueError:
        return None


def redated(cue: str, new_text: str, known: Sequence[str]) -> list[int]:
    """The one older dated fact a date change moves (module docstring); `cue` is the user's sentence with the
    assistant's question before it, `new_text` the session fact stating the new day."""
    if not DATE_CHANGED.search(cue):
        return []
    new_days = [d for d in (_day(iso) for iso in plan_dates(new_text)) if d is not None]
    if len(new_days) != 1:
        return []
    new = new_days[0]
    near = []
    for index, text in enumerate(known):
        days = [d for d in (_day(iso) for iso in plan_dates(text)) if d is not None]
        if days and new not in days and any(abs((d - new).days) <= WINDOW_DAYS for d in days):
            near.append(index)
    return near if len(near) == 1 else []


__all__ = ["DATE_CHANGED", "WINDOW_DAYS", "redated"]
