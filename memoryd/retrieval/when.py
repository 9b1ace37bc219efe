"""Questions that ask for a time ("when did…") and rows that mention one, for the time-reference prior of search.

Why: the answer to "When did Maria start volunteering?" is a turn that says *when* ("I started volunteering last
month", "…in May 2023"): with the row's own time, that is what dates the event. Among the turns about volunteering,
those that carry a time reference are the likelier evidence. English only, like the stop words; a question that is
not a "when" question is left alone. Chosen on the LoCoMo dev split (bench/bench_search.py): with weight 0.25 the
temporal questions' recall@5 rose from 78.3% to 86.1% (all questions 61.4% → 63.3%), recall within 800 tokens
83.9% → 84.2%.
"""

from __future__ import annotations

import re

_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# "may" is left out as a bare word (it is mostly the verb); "May 2023" / "May 7" / "in May" still count.
_MONTHS = "january|february|march|april|june|july|august|september|october|november|december"
_PERIODS = f"week|weekend|month|year|night|morning|evening|summer|winter|spring|fall|autumn|{_WEEKDAYS}"

_ASKS_WHEN = re.compile(
    r"^\s*when\b|\bwhat (?:date|day|year|month|time)\b|\bhow long ago\b|\bsince when\b", re.IGNORECASE
)
_TIME_REFERENCE = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|earlier|soon"
    rf"|(?:last|next|this|past|previous|coming) (?:{_PERIODS}|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)"
    rf"|{_WEEKDAYS}|{_MONTHS}|may \d|(?:in|of|since|until|last|next) may"
    r"|(?:19|20)\d\d|weeks?|months?|years?)\b",
    re.IGNORECASE,
)


def asks_when(query: str) -> bool:
    """True for a question about a time: "When did…", "What year…", "How long ago…", "Since when…"."""
    return bool(_ASKS_WHEN.search(query))


def has_time_reference(text: str) -> bool:
    """True when the text says when something happened: a relative day or period, a weekday, a month or a year."""
    return bool(_TIME_REFERENCE.search(text))
