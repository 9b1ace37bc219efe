"""Answer kinds: which kind of value a question asks for, and which kinds a memory row holds (issue 17, gate-v6).

"When is the beta launching?" asks for a date; "The user talked about the beta launch." holds none, "The beta
launch moved to December 18" holds one. The gate compares the kind a question asks for with the kinds its
sections' top rows hold, so a vague summary without the value loses to the fact that has it. Five kinds, each a
general rule in en/fr/es/de/pt (patterns on folded text for the question, on the row's own text for values):

- date: a month or weekday word, a numeric date, a year, a clock time, a relative day ("tomorrow", "demain");
- number: a digit or a small number word ("two", "deux", "zwei");
- place: a capitalised name after a locative preposition ("in Lisbon", "à Lyon", "nach Berlin", "em Évora");
- person: any other capitalised name past a sentence's first word (not a date word);
- the question side: when / what day / what time → date; where → place; who / whom / with whom → person;
  how many / how much / how long / how old → number (and date for how long).

Rows are read as written (capitals matter); the question folded (gate.fold). Nothing here queries the store.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memoryd.retrieval.gate_cues import DATE_WORDS
from memoryd.retrieval.terms import fold as term_fold

KINDS: tuple[str, ...] = ("date", "number", "place", "person")

#: Question forms asking for each kind (folded text).
_ASKS: dict[str, re.Pattern[str]] = {
    "date": re.compile(
        r"\b(?:when|what (?:day|date|time)|which (?:day|date)|what year|how long|until when"
        r"|quand|quel jour|quelle date|a quelle heure|depuis quand|jusqu'?a quand"
        r"|cuando|que dia|que fecha|a que hora|hasta cuando|desde cuando"
        r"|wann|welche[nmrs]? (?:tag|datum)|an welchem tag|um wie viel uhr|bis wann|seit wann|wie lange"
        r"|quando|que dia|qual (?:a )?data|a que horas|ate quando|desde quando)\b"
    ),
    "place": re.compile(
        r"\b(?:where|which (?:city|country|town|place|hotel|restaurant)|what (?:city|country|town|address)"
        r"|quelle (?:ville|adresse)|quel (?:pays|endroit|hotel|restaurant)"
        r"|donde|adonde|en que (?:ciudad|pais|hotel)|que (?:ciudad|pais)"
        r"|wo|wohin|woher|in welche[mnr]? (?:stadt|land|hotel)|welche[nmrs]? (?:stadt|land|adresse)"
        r"|onde|aonde|em que (?:cidade|pais|hotel)|qual (?:cidade|pais|endereco))\b"
    ),
    "person": re.compile(
        r"\b(?:who|whom|whose|with whom|which (?:person|friend|doctor|colleague)"
        r"|qui|avec qui|a qui|quien|quienes|con quien|a quien"
        r"|wer|wem|wen|wessen|mit wem|quem|com quem)\b"
    ),
    "number": re.compile(
        r"\b(?:how (?:many|much|long|old|often)|what (?:number|percentage|amount|size|price)"
        r"|combien|quel (?:age|montant|prix|numero)|cuant[oa]s?|que (?:edad|precio|numero)"
        r"|wie (?:viele?|lange|alt|oft)|welche[nmrs]? (?:nummer|grosse|preis)"
        r"|quant[oa]s?|que idade|qual (?:o )?(?:numero|preco|valor))\b"
    ),
}
#: A numeric date, a year or a clock time (run only when the text has a digit).
_DATE_NUMBER = re.compile(
    r"\d{1,2}[/.-]\d{1,2}|\d{1,2}:\d{2}|\d\s?(?:am|pm|h\d{0,2}|uhr)\b|\b(?:19|20)\d{2}\b"
)
#: Relative days and weeks (folded words), and the words that make "week" / "month" a date ("next week").
_RELATIVE = frozenset(
    """
    today tonight tomorrow yesterday aujourd demain hier hoy manana ayer heute morgen gestern hoje amanha ontem
    """.split()  # noqa: SIM905 - a word list reads better as text
)
_RELATIVE_PHRASE = re.compile(
    r"\b(?:next|last) (?:week|month|year)|this (?:week|weekend)|semaine prochaine|proxima semana|nachste woche"
)
_RELATIVE_LEAD = frozenset(("next", "last", "this", "prochaine", "proxima", "nachste"))
_NUMBER_WORDS = frozenset(
    """
    one two three four five six seven eight nine ten eleven twelve dozen hundred thousand
    deux trois quatre cinq sept huit neuf dix onze douze cent mille
    dos tres cuatro cinco seis siete ocho nueve diez once doce cien mil
    zwei drei vier funf sechs sieben acht neun zehn elf zwolf hundert tausend
    dois duas quatro cinco seis sete oito nove dez onze doze cem
    """.split()  # noqa: SIM905 - a word list reads better as text
)
#: Locative prepositions before a place name (lower case, as written).
_LOCATIVE = frozenset(
    [
        "in",
        "at",
        "to",
        "from",
        "near",
        "à",
        "au",
        "aux",
        "dans",
        "vers",
        "en",
        "a",
        "em",
        "no",
        "na",
        "nos",
        "nas",
        "para",
        "nach",
        "bei",
        "aus",
        "zum",
        "zur",
        "im",
    ]
)
_LETTERS = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"\d")
_CAPITALISED = re.compile(r"\b[A-ZÀ-ÖØ-Þ][^\W\d_]*")
_BEFORE = re.compile(r"(\w+)?([^\w\s]*)\s*$")
_STOPS = frozenset(".!?:;")
_OU = re.compile(r"(?<!\w)où(?!\w)")


def asked_kinds(query: str) -> frozenset[str]:
    """The kinds of value the question asks for; empty when it asks for none of them. French "où" is read before
    folding (folded, it is "ou", "or")."""
    folded = term_fold(query)
    out = {kind for kind, pattern in _ASKS.items() if pattern.search(folded)}
    if _OU.search(query.casefold()):
        out.add("place")
    return frozenset(out)


@lru_cache(maxsize=8192)
def value_kinds(text: str) -> frozenset[str]:
    """The kinds of value a row's text holds (cached: the same rows come back query after query)."""
    folded = term_fold(text)
    out: set[str] = set()
    words = set(_LETTERS.findall(folded))
    has_digit = _DIGIT.search(folded) is not None
    if (
        words & DATE_WORDS
        or words & _RELATIVE
        or (has_digit and _DATE_NUMBER.search(folded))
        or (words & _RELATIVE_LEAD and _RELATIVE_PHRASE.search(folded))
    ):
        out.add("date")
    if has_digit or words & _NUMBER_WORDS:
        out.add("number")
    for match in _CAPITALISED.finditer(text):
        start = match.start()
        if start == 0:
            continue
        before = _BEFORE.search(text, max(0, start - 24), start)
        previous, marks = (before.group(1), before.group(2)) if before else (None, "")
        if previous is None or _STOPS & set(marks) or "\n" in text[max(0, start - 3) : start]:
            continue  # a sentence's first word
        if term_fold(match.group()) in DATE_WORDS:
            continue  # a month or weekday
        out.add("place" if previous in _LOCATIVE else "person")
    return frozenset(out)


def answers(asked: frozenset[str], held: frozenset[str]) -> bool:
    """Whether a row holding `held` kinds holds a value of a kind the question asks for."""
    return bool(asked & held)


__all__ = ["KINDS", "answers", "asked_kinds", "value_kinds"]
