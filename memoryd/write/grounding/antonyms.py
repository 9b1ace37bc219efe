"""Values of one closed slot that exclude each other: working part-time or full-time. "I've been made head of music
at the school, full-time now" after "The user teaches music part-time at Queen Elizabeth High".

Each class lists the words for one value in five languages (`CLASSES`); two classes of one slot exclude each other.
A user sentence in the first person that says one value, with a change cue (revisions.py reads only such
sentences), retires the older facts of the user's own that say the other value. It says nothing of a fact that
says neither ("The user teaches music at Queen Elizabeth High" stays), nor of someone else's ("my wife works
part-time" is hers; the sentence must be the user's: "I", "je", "yo", "ich", "eu").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_I = re.IGNORECASE
#: slot → its values, each a pattern of its words in five languages.
CLASSES: dict[str, tuple[str, ...]] = {
    "work_time": (
        r"part[- ]time|temps partiel|mi-temps|media jornada|tiempo parcial|teilzeit|meio[- ]período|tempo parcial|"
        r"meio expediente",
        r"full[- ]time|temps plein|plein temps|jornada completa|tiempo completo|vollzeit|tempo integral|"
        r"período integral",
    ),
}
_VALUES = tuple(
    (slot, index, re.compile(rf"\b(?:{words})\b", _I))
    for slot, values in CLASSES.items()
    for index, words in enumerate(values)
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|je|j'|yo|ich|eu|me|moi|mich)\b", _I)
#: A fact about someone in the user's life opens with its relation ("The user's wife works part-time").
_SOMEONE_ELSES = re.compile(r"^The user['’]s \w+ (?:is|works|has)\b|^\w+ (?:de l'|del |des |do )", _I)


def excluded(sentence: str, known: Sequence[str]) -> list[int]:
    """Indices of the older facts of the user's own stating a value the sentence's value excludes."""
    if not _FIRST_PERSON.search(sentence):
        return []
    said = {(slot, index) for slot, index, pattern in _VALUES if pattern.search(sentence)}
    out: list[int] = []
    for slot, index in said:
        others = [p for s, i, p in _VALUES if s == slot and i != index and (s, i) not in said]
        for at, text in enumerate(known):
            if at not in out and not _SOMEONE_ELSES.match(text) and any(p.search(text) for p in others):
                out.append(at)
    return out


__all__ = ["CLASSES", "excluded"]
