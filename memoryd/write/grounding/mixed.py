"""One value replaced inside an older fact that holds more than that value, said without "X instead of Y": "The
team is moving to Slack" after "The user's team uses Microsoft Teams, based in Leeds".

Retiring the older fact loses what still holds (Leeds); keeping it keeps the stale tool. The older fact's names are
told apart by where they stand: a name after a preposition of place ("in Leeds", "at Acme", "near", "à", "en",
"bei", "em") places the fact; any other name is the thing the fact is about ("uses Microsoft Teams"). When the
correction names one new value that stands in no place position itself ("moving to Slack", "switching to Notion"),
and the older fact holds exactly one name that is not a place and at least one that is, that one name is swapped
and the rest of the older fact is kept ("The user's team uses Slack, based in Leeds.").

Days and months are dates, never things here, and a lone capitalised word that opens a sentence or what a fact's
frame introduces ("Prévu : J'expose au salon de Mirecourt …"), alone or after an article ("Die Ausstellung in Hanau
ist verschoben": German capitalises every noun), is the sentence's capital, not a thing or a new value: such an
older fact holds no thing to swap, and is replaced whole as before. Nothing is swapped when the new value is itself placed ("we're moving to an office in York"), when the older fact
holds two things or none (which one changed is unknown), or when it holds no place (then it is about that one
thing, and the whole fact is replaced, as before).
"""

from __future__ import annotations

import re

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.text import fold

_I = re.IGNORECASE
_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS)
#: A capitalised name (with its capitalised neighbours and "&": "Microsoft Teams", "Ledge & Ladder").
_NAME = re.compile(r"(?<![\w'’-])(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*(?:\s+(?:&\s+)?(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*)*")
#: A preposition placing what follows.
_PLACE_BEFORE = re.compile(
    r"\b(?:in|at|near|from|around|outside|à|au|aux|en|près de|de|del|desde|cerca de|bei|aus|nahe|em|no|na|perto de)\s*$",
    _I,
)
#: Template openings and sentence-initial words that are no names.
_NOT_NAMES = frozenset(
    [
        "The",
        "User",
        "User's",
        "L'utilisateur",
        "El",
        "Usuario",
        "Der",
        "Nutzer",
        "Nutzers",
        "O",
        "Usuário",
        "A",
        "I",
        "We",
        "Plan",
        "Prévu",
        "Geplant",
        "Planejado",
        "Standing",
        "Also",
        "And",
        "But",
        "So",
    ]
)


#: Articles that may open a sentence before a capitalised noun (German capitalises every noun).
_ARTICLES = frozenset(
    [
        "The",
        "A",
        "An",
        "Le",
        "La",
        "Les",
        "L'",
        "Un",
        "Une",
        "El",
        "Los",
        "Las",
        "Una",
        "Uno",
        "Der",
        "Die",
        "Das",
        "Den",
        "Dem",
        "Des",
        "Ein",
        "Eine",
        "Einen",
        "O",
        "Os",
        "As",
        "Um",
        "Uma",
    ]
)


def _opens_sentence(text: str, start: int) -> bool:
    """Whether a word at `start` opens the text, a sentence or what a fact's frame introduces ("Prévu : J'expose au
    salon …", "Plan: Dinner at …"): a capital there is the sentence's, not a name's."""
    before = text[:start].rstrip()
    return not before or before[-1] in ":.!?"


def _names(text: str) -> list[tuple[str, bool]]:
    """(name, placed) for each name of a text, skipping template words and a lone capitalised word that opens the
    text, a sentence or a frame's content ("Prévu : J'expose …": the capital is the sentence's)."""
    out: list[tuple[str, bool]] = []
    for match in _NAME.finditer(text):
        name = match.group(0)
        words = [w for w in name.split() if w not in _NOT_NAMES and w != "&"]
        # "J'expose …", "Die Ausstellung in Hanau …": one word, or an article and one word (German capitalises every
        # noun), opening a sentence carry the sentence's capital, not a name's.
        if not words or (
            _opens_sentence(text, match.start()) and len([w for w in words if w not in _ARTICLES]) == 1
        ):
            continue
        if any(fold(w) in _CALENDAR or fold(w).removesuffix("s") in _CALENDAR for w in words):
            continue  # a day or a month is a date, which the date readers compare, not a thing
        if name.split()[0] in _NOT_NAMES:
            start = match.start() + text[match.start() :].find(words[0])
            name = text[start : match.end()]
        else:
            start = match.start()
        out.append((name, bool(_PLACE_BEFORE.search(text[:start]))))
    return out


def swapped_thing(sentence: str, old: str) -> str:
    """The older fact with its one thing replaced by the sentence's one new value, or "" (module docstring)."""
    said = [(n, placed) for n, placed in _names(sentence) if n not in old]
    if len(said) != 1 or said[0][1]:
        return ""
    new = said[0][0]
    held = _names(old)
    things = [n for n, placed in held if not placed]
    if len(things) != 1 or not any(placed for _n, placed in held):
        return ""
    return old.replace(things[0], new, 1)


__all__ = ["swapped_thing"]
