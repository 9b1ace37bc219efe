"""When something recurs, as a value a correction can change: the days of the week and the parts of the day a fact names.

"The user does the two out-apiaries on Sundays" / "Out-apiary inspections have gone to Wednesday mornings", "Unsere
Werkstattbesprechung ist jeden Montag" / "Die Besprechung machen wir seit Februar dienstags", "reminders the evening
before" / "the user wants them at lunchtime now": a schedule changes by its day or its part of the day, a value of
its own kind (neither a day of the year nor a count). The words are read in five languages, in the forms a schedule
says them ("Sundays", "le dimanche", "los domingos", "sonntags", "aos domingos"; "the evenings", "le soir", "por la
tarde", "abends", "à noite").

A correction says its new value in the clause of its change ("…at lunchtime now, the evenings have gone mad since
Dylan started rugby": lunchtime is the value, the evenings the reason), so `changed_clause` gives the clauses that
hold a change marker for the newer fact to be read in.
"""

from __future__ import annotations

import re

from memoryd.write.grounding.dates import WEEKDAYS
from memoryd.write.grounding.text import fold

#: Weekday words folded, with the adverbial and plural forms of a schedule ("sonntags", "Sundays", "domingos").
_WEEKDAY_WORD = re.compile(
    r"\b(" + "|".join(sorted((re.escape(d) for d in WEEKDAYS), key=len, reverse=True)) + r")(?:s|es)?\b"
)
#: Portuguese short weekday names after a plural article ("às quartas", "aos sábados" is read in WEEKDAYS).
_PT_SHORT = {"segunda": 0, "terca": 1, "quarta": 2, "quinta": 3, "sexta": 4}
_PT_SHORT_WORD = re.compile(r"\b(?:as|às|nas|todas as)\s+(segunda|terca|quarta|quinta|sexta)s?\b")
#: Parts of the day, folded, by the part they name: morning, midday, afternoon, evening, night. Spanish and
#: Portuguese "mañana", "tarde", "manhã" are read only after an article or preposition ("por la tarde", "las
#: mañanas", "à tarde", "de manhã"): alone they are "tomorrow" and "late".
_PARTS = (
    ("morning", r"\bmornings?\b|\bmatin(?:s|ee|ees)?\b|\bmorgens\b|\bvormittags?\b|\bfruh\b|"
                r"\b(?:por la|en la|las|la|de|pela|na|nas|a|de)\s+(?:manana|manha)s?\b"),
    ("midday", r"\blunch ?time\b|\bmidday\b|\bnoon\b|\bmidi\b|\bmediodia\b|\bmittags?\b|\bmittagspause\b|"
               r"\bhora de (?:comer|almuerzo|almoco)\b|\bmeio-dia\b|\bhora do almoco\b|\bal almuerzo\b"),
    ("afternoon", r"\bafternoons?\b|\bapres-midi\b|\bnachmittags?\b|"
                  r"\b(?:por la|en la|las|pela|a|as|na|nas|de)\s+tardes?\b"),
    ("evening", r"\bevenings?\b|\bsoirs?\b|\bsoirees?\b|\babends?\b|"
                r"\b(?:por la|en la|las|la|pela|a|as|na|nas|de|à)\s+noches?\b|\bnoites?\b"),
    ("night", r"\bnights?\b|\bnuits?\b|\bnachts?\b|\bmadrugada\b"),
)  # fmt: skip
_PART_RES = tuple((part, re.compile(pattern)) for part, pattern in _PARTS)
_CLAUSE = re.compile(r"[,;:]|\s[–—-]\s")


def weekdays(text: str) -> frozenset[int]:
    """The days of the week a text names (0 = Monday), in any of the five languages."""
    folded = fold(text)
    days = {WEEKDAYS[m.group(1)] for m in _WEEKDAY_WORD.finditer(folded)}
    days |= {_PT_SHORT[m.group(1)] for m in _PT_SHORT_WORD.finditer(folded)}
    return frozenset(days)


def day_parts(text: str) -> frozenset[str]:
    """The parts of the day a text names ("morning", "midday", "afternoon", "evening", "night")."""
    folded = fold(text)
    return frozenset(part for part, pattern in _PART_RES if pattern.search(folded))


def changed_clause(text: str, marker: re.Pattern[str]) -> str:
    """The clauses of `text` that hold a change `marker` (matched on folded text), or the whole text."""
    folded = fold(text)
    marked = [clause for clause in _CLAUSE.split(folded) if marker.search(clause)]
    return " ; ".join(marked) if marked else folded


__all__ = ["changed_clause", "day_parts", "weekdays"]
