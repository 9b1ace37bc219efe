"""A quantity the user lives by, as a value-type slot: how many of a thing per period, how many of them there are,
or the level of a graded thing.

Three structures, each naming its slot from the counted noun, never from a sentence:

- **a rate**: a number, a counted noun, a period ("three sessions a week max", "thirty minutes a day",
  "deux séances par semaine", "zwei Einheiten pro Woche") → `count.<noun>`;
- **a headcount of the user's group**: "we're four players now", "somos cinco jugadores", "wir sind sechs
  Spieler" → `count.<noun>`;
- **a graded noun and its number**: "magnitude 10", "Pflegegrad 2", "level 3", "the under-11s" → `count.<noun>`;
- **an edition by its year**: "the 2014 rules" → `count.rule`;
- **a limit on a thing**: "practice plans under thirty minutes" → `count.plan_minut`.

A later statement of the same noun with another number is a correction ("Two sessions a week is enough for now",
"we're back to five players", "Pflegegrad 3 wurde bewilligt"). A hypothetical, a hedge, or another person's count
("my sister runs three times a week") is no fact of the user.
"""

from __future__ import annotations

import re

from memoryd.write.grounding.lexicon import HEDGE, HYPOTHETICAL
from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.summary import third_person
from memoryd.write.grounding.text import NUMBER_WORDS, fold, light_stem

_I = re.IGNORECASE
#: Tens the shared number words stop before ("thirty minutes", "cuarenta minutos").
_TENS = {
    w: str(10 * n)
    for n, words in (
        (3, "thirty trente treinta dreißig dreissig trinta"),
        (4, "forty quarante cuarenta vierzig quarenta"),
        (5, "fifty cinquante cincuenta fünfzig funfzig cinquenta"),
        (6, "sixty soixante sesenta sechzig sessenta"),
        (9, "ninety quatre-vingt-dix noventa neunzig"),
    )
    for w in words.split()
}
_NUMBER = (
    r"(?P<n>\d{1,3}|"
    + "|".join(sorted((re.escape(w) for w in (*NUMBER_WORDS, *_TENS) if len(w) > 2), key=len, reverse=True))
    + r")"
)
_PERIOD = (
    r"(?:a|per|each|every|par|por|à la|a la|pro|in der|na|por|ao|à) (?P<per>week|day|month|semaine|jour|mois|semana|"
    r"día|dia|mes|mês|woche|tag|monat)"
)
_RATE = re.compile(rf"\b{_NUMBER}\s+(?P<noun>[a-zà-ÿ][\w-]{{3,}})\s+{_PERIOD}\b", _I)
_HEADCOUNT = re.compile(
    rf"\b(?:we're|we are|we'll be|nous sommes|on est|somos|wir sind|somos)\s+(?:now\s+|back to\s+|down to\s+|"
    rf"maintenant\s+|ahora\s+|jetzt\s+|agora\s+)?{_NUMBER}\s+(?P<noun>[a-zà-ÿ][\w-]{{3,}})",
    _I,
)
_GRADED = re.compile(
    r"\b(?P<noun>magnitude|level|grade|pflegegrad|pflegestufe|stufe|niveau|nivel|nível|band|tier|size|taille|"
    r"talla|größe|tamanho)\s+(?P<n>\d{1,3})\b|\b(?P<noun2>under|u|moins de|sub|unter)[- ]?(?P<n2>\d{1,2})s?\b",
    _I,
)
#: An edition said by its year: "the 2014 rules", "die Ausgabe 2024" is not read (the year leads).
_EDITION = re.compile(
    r"\b(?P<n>(?:19|20)\d{2})\s+(?P<noun>rules|ruleset|edition|version|revision|release|model|règles|édition|"
    r"reglas|edición|regeln|ausgabe|regras|edição)\b",
    _I,
)
#: A limit on a thing of the user's: "practice plans under thirty minutes", "answers up to 200 words".
_LIMIT = re.compile(
    rf"\b(?P<noun>[a-zà-ÿ][\w-]{{2,}})\s+(?:under|up to|at most|max|maximum|no more than|below|less than|"
    rf"sous|moins de|jusqu'à|hasta|menos de|bis zu|unter|höchstens|até)\s+{_NUMBER}\s+"
    rf"(?P<unit>minutes|mins|hours|words|pages|km|miles|kilometres|kilometers|minutos|horas|palabras|palavras|"
    rf"mots|heures|minuten|stunden|wörter|seiten)\b",
    _I,
)
#: Another person's count: "my sister runs three times a week", "his team is six players".
_OTHER = re.compile(
    r"\b(?:my|our|mon|ma|mi|mein|meine|meu|minha)\s+(?:sister|brother|son|daughter|wife|husband|partner|friend|"
    r"mother|father|mum|dad|kid|kids|sœur|frère|fils|fille|hermana|hermano|hijo|hija|schwester|bruder|sohn|tochter|"
    r"irmã|irmão|filho|filha)\b|\b(?:his|her|their|he|she|they)\b",
    _I,
)
#: Counted nouns that are units of time or money: a duration or a price, no quantity of a thing the user keeps.
_NOT_COUNTED = frozenset(
    light_stem(fold(w))
    for w in "times hours minutes days weeks months years euros pounds dollars percent kilos grams".split()  # noqa: SIM905
)


def _value(number: str) -> str:
    return NUMBER_WORDS.get(fold(number)) or _TENS.get(number.lower(), number)


def quantity(clause: str, turn: int, lang: str) -> GroundedFact | None:
    """The clause's rate, headcount or graded number, in the slot of the noun it counts."""
    said = clause.strip().rstrip(".!")
    if not said or HYPOTHETICAL.search(said) or HEDGE.search(said) or _OTHER.search(said):
        return None
    noun, number = "", ""
    for pattern in (_RATE, _HEADCOUNT):
        match = pattern.search(said)
        if match is not None and light_stem(fold(match.group("noun"))) not in _NOT_COUNTED:
            noun, number = match.group("noun"), match.group("n")
            break
    else:
        graded = _GRADED.search(said)
        edition = _EDITION.search(said)
        limit = _LIMIT.search(said)
        if graded is not None:
            noun = graded.group("noun") or "age group"
            number = graded.group("n") or graded.group("n2")
        elif edition is not None:
            noun, number = edition.group("noun"), edition.group("n")
        elif limit is not None:
            noun, number = f"{limit.group('noun')} {limit.group('unit')}", limit.group("n")
    if not noun:
        return None
    key = "_".join(light_stem(w) for w in fold(noun).split())
    shown = third_person(said) if lang == "en" else said
    text = f"{shown[:1].upper()}{shown[1:]}."  # the user's own words: no template says a count well
    return GroundedFact(
        FactKind.PREFERENCE, text, f"count.{key}", _value(number), (turn,), 0.6, False, "extractor", lang
    )


__all__ = ["quantity"]
