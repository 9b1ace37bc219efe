"""Stale values: what a user's correction replaced, and whether a memory line still states the replaced value.

Two kinds of line are stale: one stating a replaced value without its replacement (`corrections_from`), and a
transcript turn that is the source of a superseded fact and of no active one (`stale_turn`): the user's own words
"the beta is on December 15" once the beta moved to the 18th. Both are quoted only when the user asks for the literal
earlier turn (the caller passes no filter then)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from memoryd.retrieval.terms import index_term, tokens
from memoryd.text import ENGLISH_STOP_WORDS as STOP_WORDS

#: A correction is recognisable only when the replaced value is a few words ("April", "Elm Street", "140"); a
#: rewritten sentence changes too much to say which words were the value.
MAX_VALUE_TERMS = 4


@dataclass(frozen=True)
class Correction:
    """The terms (stems) only the superseded fact has, and those only its replacement has; or, for a stale source
    turn, the turn's whitespace-normalised text (`turn`), which a line must equal."""

    old_value: frozenset[str]
    new_value: frozenset[str]
    turn: str = ""


@runtime_checkable
class CorrectionSource(Protocol):
    """A reader of the agent's corrected facts: (superseded, replacing) text pairs."""

    def corrections(self, agent_id: str) -> Sequence[tuple[str, str]]:
        """(superseded text, replacing text) pairs whose replacement is active."""
        ...


@runtime_checkable
class StaleTurnSource(Protocol):
    """A reader of the transcript rows only superseded facts came from (StoreMemoryReader is one)."""

    def stale_turns(self, agent_id: str) -> Sequence[str]:
        """The text of each transcript row that is a source of a superseded fact and of no active fact."""
        ...


def _line(text: str) -> str:
    return " ".join(text.split())


def stale_turn(text: str) -> Correction:
    """A transcript turn only superseded facts came from: a line with its text is stale."""
    return Correction(frozenset(), frozenset(), _line(text))


def known_corrections(reader: CorrectionSource, agent_id: str) -> tuple[Correction, ...]:
    """The agent's corrections: replaced values, and the stale source turns when the reader knows them."""
    found = corrections_from(reader.corrections(agent_id))
    if isinstance(reader, StaleTurnSource):
        found += tuple(stale_turn(text) for text in reader.stale_turns(agent_id) if text.strip())
    return found


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
    line: str | None = None
    for correction in corrections:
        if correction.turn:
            line = _line(text) if line is None else line
            if line == correction.turn:
                return True
            continue
        if terms is None:
            terms = _terms(text)
        if correction.old_value <= terms and not correction.new_value & terms:
            return True
    return False


__all__ = [
    "MAX_VALUE_TERMS",
    "Correction",
    "CorrectionSource",
    "StaleTurnSource",
    "corrections_from",
    "known_corrections",
    "stale_turn",
    "states_old_value",
]
