"""Dates a request gives (gate-v7): a point in time is neither an input to compute with, nor a number, nor a name.

"What did Maria donate to a homeless shelter in December 2023?" and "What painting did Melanie show to Caroline on
October 13, 2023?" give a date to locate a memory. Before gate-v7 the features read its parts as something else:
"October 13, 2023" as two numbers the request carries (`q_numbers`, the cue of arithmetic with its inputs: "600
bottles at 14 francs"), "2023" and "13" as numbers memory does not hold (`cue_number_unknown`), and "October" (a
capitalised word past the first) as a name memory does not hold (`cue_name_unknown`). One general rule, in
en/fr/es/de/pt on folded text (gate.fold): the numbers that belong to a date are never inputs (`q_numbers`) nor
numbers memory lacks (`cue_number_unknown`) — they still count as numbers memory holds when it does ("14" of "el
14 de noviembre" against "14 November") —, and month and weekday words are never names. A date's numbers are

- a year, 1900-2099, standing alone ("in 2023", "em 2024");
- a day beside a month word, before or after it, with the connectives the five languages use ("13 october", "october
  13th", "le 3 juin", "16 de junio de 2023", "am 1. februar", "3 de junho");
- a numeric date ("11/08/2023", "2023-08-11", "11.08.").

Clock times and amounts are not dates and stay numbers ("at 7:30", "14 francs").
"""

from __future__ import annotations

import re

from memoryd.retrieval.gate_cues import DATE_WORDS

_MONTHS = sorted(
    (
        w
        for w in DATE_WORDS
        if w
        not in {
            *["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
            *["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
            *["lunes", "martes", "miercoles", "jueves", "viernes", "sabado", "domingo"],
            *["montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag", "sonnabend"],
            *["segunda", "terca", "quarta", "quinta", "sexta"],
        }
    ),
    key=len,
    reverse=True,
)
_MONTH = "(?:" + "|".join(_MONTHS) + r")\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th|er|e|o|a|\.)?"
_YEAR = r"(?:19|20)\d{2}"
_JOIN = r"(?:\s*,?\s*(?:de |del |of |the )?)"
_DATE = re.compile(
    "|".join(
        (
            # numeric dates: 11/08/2023, 2023-08-11, 11.08.2023, 11.08.
            r"(?<![\w.,/-])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}(?:[/.-]\d{2,4})?\.?)(?![\w/.-])",
            # day before a month, optionally a year after: "13 october 2023", "16 de junio de 2023", "1. februar"
            rf"(?<![\w.,]){_DAY}{_JOIN}{_MONTH}(?:{_JOIN}{_YEAR})?(?!\w)",
            # a month, then a day and / or a year: "october 13, 2023", "december 2023", "june 3rd"
            rf"(?<!\w){_MONTH}(?:\s*{_DAY}(?!\d))?(?:{_JOIN}{_YEAR})?(?!\w)",
            # a year standing alone
            rf"(?<![\w.,]){_YEAR}(?![\w])",
        )
    )
)


def without_dates(folded: str) -> str:
    """`folded` with every date expression replaced by a space (what is left holds the request's own numbers)."""
    return _DATE.sub(" ", folded)


__all__ = ["without_dates"]
