"""A weekly schedule is not a new date for a one-off event.

"The club has changed my nights, it's Mondays and Thursdays now" or "It is now the second Wednesday" changes when
something recurs; it gives no new day to "The club's spring pairs competition is on 25 April", a one-off event with
a day of the year. The retiring rules (revisions.py, supersede.py) keep such an older fact unless the new sentence
names a day of the year itself ("the competition moved to 2 May").
"""

from __future__ import annotations

import re

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS

_I = re.IGNORECASE
_MONTH = "|".join(sorted((re.escape(m) for m in MONTHS if len(m) > 2), key=len, reverse=True))
_WEEKDAY = "|".join(sorted((re.escape(d) for d in WEEKDAYS), key=len, reverse=True))
#: A day of the year: "25 April", "the 9th of March", "March 28th", "1º de junho", "am 12. Februar".
_ONE_DAY = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th|º|ª|er|\.)?\s+(?:of\s+|de\s+|d'\s*)?(?:{_MONTH})\b"
    rf"|\b(?:{_MONTH})\s+\d{{1,2}}(?:st|nd|rd|th)?\b",
    _I,
)
#: A recurring day: "Mondays", "every Tuesday", "the second Wednesday", "Wednesday evenings", "tous les lundis",
#: "cada martes", "jeden Montag", "todas as quartas".
_RECURRING = re.compile(
    rf"\b(?:{_WEEKDAY})s\b"
    rf"|\b(?:every|each|first|second|third|fourth|last|chaque|tous les|cada|todos los|todas las|jeden|jede|"
    rf"todas as|todos os)\s+(?:{_WEEKDAY})"
    rf"|\b(?:{_WEEKDAY})\s+(?:evenings|mornings|afternoons|nights)\b",
    _I,
)


def one_day(text: str) -> bool:
    """Whether the text names a day of the year."""
    return _ONE_DAY.search(text) is not None


def schedule_only(text: str) -> bool:
    """Whether the text names when something recurs and no day of the year."""
    return _RECURRING.search(text) is not None and not one_day(text)


def keeps_one_off(old: str, new: str) -> bool:
    """Whether an older fact of a one-off dated event stays beside a newer text that only states a schedule."""
    return one_day(old) and schedule_only(new)


__all__ = ["keeps_one_off", "one_day", "schedule_only"]
