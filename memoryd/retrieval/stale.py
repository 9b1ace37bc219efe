"""Stale values: what a user's correction replaced, and whether a memory line still states the replaced value."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memoryd.retrieval.terms import index_term, tokens
from memoryd.text import ENGLISH_STOP_WORDS as STOP_WORDS

#: A correction is recognisable only when the replaced value is a few words ("April", "Elm Street", "140"); a
#: rewritten sentence changes too much to say which words were the value.
MAX_VALUE_TERMS = 4


@dataclass(frozen=True)
class Correction:
    """The terms (stems) only the superseded fact has, and those only its replacement has."""

    old_value: frozenset[str]
    new_value: frozenset[str]


#: A resolved ISO date the writer appends to a plan ("… on September 22 (2027-09-22)"): the words before it already
#: carry the value, and its "09" would make the old value a set no turn quoting "September 22" ever holds.
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


#: A day said as an ordinal ("the 15th", "le 1er", "am 15.") is the same value as the number in a stored plan
#: ("December 15"): an assistant line wishing luck "on the 15th" still states the moved date.
_ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th|er|e|º|ª)\b|\b(\d{1,2})\.(?=\s)", re.IGNORECASE)


def _terms(text: str) -> frozenset[str]:
    said = _ORDINAL.sub(lambda m: m.group(1) or m.group(2), _ISO_DATE.sub(" ", text))
    return frozenset(index_term(t) for t in tokens(said) if t not in STOP_WORDS)


#: A value is a number, a capitalised name or a month or weekday: what a correction changes ("15" → "18",
#: "Jira" → "Linear"), as against the words a rephrasing changes ("the beta *launch* is on …" → "the beta slipped to
#: …").
_CALENDAR = frozenset(
    (
        *("january", "february", "march", "april", "may", "june", "july", "august", "september", "october"),
        *(
            "november",
            "december",
            "jan",
            "feb",
            "mar",
            "apr",
            "jun",
            "jul",
            "aug",
            "sep",
            "sept",
            "oct",
            "nov",
        ),
        *("dec", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    )
)


def _value_terms(text: str) -> frozenset[str]:
    said = _ORDINAL.sub(lambda m: m.group(1) or m.group(2), _ISO_DATE.sub(" ", text))
    # A capital opening the text or a sentence is no sign of a name.
    starts = {m.end() for m in re.finditer(r"(?:^|[.!?:]\s+)", said)}
    named: set[str] = set()
    for match in re.finditer(r"[^\W_]+", said):
        word = match.group(0)
        is_value = any(ch.isdigit() for ch in word) or word.casefold() in _CALENDAR
        if is_value or (word[:1].isupper() and match.start() not in starts):
            named.add(word)
    return frozenset(index_term(t) for t in tokens(" ".join(named)) if t not in STOP_WORDS)


def corrections_from(pairs: Iterable[tuple[str, str]]) -> tuple[Correction, ...]:
    """Corrections from (superseded text, replacing text) pairs; pairs whose difference is no short value skipped.

    When the texts differ by a value (a number, a name, a month) and by rewording too, the value is what the
    correction replaced: "The beta launch is on December 15" → "The beta slipped: December 18 is the new date"
    replaced "15", so a line saying "the beta on December 15" is stale though it never says "launch"."""
    out: list[Correction] = []
    for old, new in pairs:
        old_terms, new_terms = _terms(old), _terms(new)
        old_value, new_value = old_terms - new_terms, new_terms - old_terms
        old_named, new_named = old_value & _value_terms(old), new_value & _value_terms(new)
        if old_named and new_named:
            old_value, new_value = old_named, new_named
        if 1 <= len(old_value) <= MAX_VALUE_TERMS and new_value:
            out.append(Correction(old_value, new_value))
    return tuple(out)


def states_old_value(text: str, corrections: Iterable[Correction]) -> bool:
    """Whether the text carries a replaced value (every one of its terms) without the value that replaced it: an
    older turn or episode saying "the launch is September 22" after the user moved it to October 6."""
    terms: frozenset[str] | None = None
    for correction in corrections:
        if terms is None:
            terms = _terms(text)
        if correction.old_value <= terms and not correction.new_value & terms:
            return True
    return False


__all__ = ["MAX_VALUE_TERMS", "Correction", "corrections_from", "states_old_value"]
