"""An action item the user dictated, as a fact: the task's words, whether a task repeats one already read from the
same turn, and the fact itself in the session's language (shared by noted_tasks.py and reminder_questions.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.dates import find_dates, with_resolved_dates
from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.summary import third_person
from memoryd.write.grounding.templates import render

#: Salience of an action item the user dictated (extract.py's SALIENCE for ACTION_ITEM).
ACTION_SALIENCE = 0.6
#: A task sharing at least this share of its words with one already read from its turn repeats it.
_OVERLAP = 0.5


def task_words(text: str) -> set[str]:
    """The task's words, case-folded."""
    return set(re.findall(r"\w+", text.casefold()))


def repeats(words: set[str], held: Sequence[set[str]]) -> bool:
    """Whether a task of these words repeats one already read from the same turn."""
    return any(len(words & h) >= _OVERLAP * len(words) for h in held)


def task_fact(value: str, template: str, turn: int, session_lang: str, session_time_ms: int) -> GroundedFact:
    """The action item stating `value` in the session's language (third person in English), its dates resolved."""
    phrased = third_person(value) if session_lang == "en" else value
    text = render(template, session_lang, phrased[:1].lower() + phrased[1:])
    text = with_resolved_dates(text, find_dates(text, session_time_ms))
    return GroundedFact(
        FactKind.ACTION_ITEM, text, "", value, (turn,), ACTION_SALIENCE, False, "extractor", session_lang
    )


__all__ = ["ACTION_SALIENCE", "repeats", "task_fact", "task_words"]
