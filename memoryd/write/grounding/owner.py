"""Whose word it is: whether the word a newer sentence shares with an older fact of the user's belongs to the user or
to someone else ("A Andrés le han ofrecido trabajo" is the husband's job, not the user's work). One shared word makes
two facts one topic only when it is the user's (grounding/revisions.py, supersede.py's changed dates)."""

from __future__ import annotations

import re

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.lexicon import RELATIONS
from memoryd.write.grounding.text import detect_language, fold, light_stem

_WORDS = re.compile(r"[^\W_][\w'’-]*")
#: Words naming the user, as subject, object or owner, in five languages ("I", "we", "my", "me", "nos", "mir").
_USER_WORDS = frozenset(
    fold(w)
    for w in [
        "i",
        "i'm",
        "i've",
        "i'd",
        "i'll",
        "we",
        "we're",
        "we've",
        "we'd",
        "me",
        "my",
        "mine",
        "our",
        "us",
        "myself",
        "je",
        "j'",
        "j’",
        "moi",
        "me",
        "m'",
        "m’",
        "mon",
        "ma",
        "mes",
        "nous",
        "notre",
        "nos",
        "yo",
        "me",
        "mi",
        "mis",
        "mí",
        "nosotros",
        "nosotras",
        "nos",
        "nuestro",
        "nuestra",
        "nuestros",
        "nuestras",
        "conmigo",
        "ich",
        "mich",
        "mir",
        "mein",
        "meine",
        "meinen",
        "meinem",
        "meiner",
        "wir",
        "uns",
        "unser",
        "unsere",
        "unseren",
        "unserem",
        "unserer",
        "eu",
        "me",
        "mim",
        "meu",
        "minha",
        "meus",
        "minhas",
        "nós",
        "nosso",
        "nossa",
        "nossos",
        "nossas",
        "comigo",
    ]
)
#: Words naming another person as subject, object or owner: third-person pronouns and clitics ("he", "she",
#: "they", "il", "elle", "lui", "ella", "er", "sie", "ihm", "ele", "ela", "lhe"; not Spanish "él", which folds to
#: the article "el"). Spanish "le" and "les" ("A Andrés le han ofrecido …") are clitics only in Spanish
#: (`_OTHER_CLITICS`); in French they are articles.
_OTHER_WORDS = frozenset(
    fold(w)
    for w in [
        "he",
        "she",
        "they",
        "him",
        "his",
        "her",
        "their",
        "them",
        "he's",
        "she's",
        "they're",
        "il",
        "elle",
        "ils",
        "elles",
        "lui",
        "leur",
        "leurs",
        "ella",
        "ellos",
        "ellas",
        "er",
        "sie",
        "ihm",
        "ihn",
        "ihr",
        "ihre",
        "ihren",
        "ihrem",
        "ihrer",
        "sein",
        "seine",
        "seinen",
        "seinem",
        "seiner",
        "ele",
        "ela",
        "eles",
        "elas",
        "lhe",
        "lhes",
        "dele",
        "dela",
        "deles",
        "delas",
    ]
)
_OTHER_CLITICS = frozenset({"le", "les"})
#: Prepositions before a place ("in Leeds", "à Lyon", "en Valencia", "nach Kiel", "em Braga"): a name after one is
#: where, not who.
_PLACE_BEFORE = frozenset(
    fold(w)
    for w in [
        "in",
        "at",
        "from",
        "near",
        "to",
        "dans",
        "à",
        "en",
        "em",
        "no",
        "na",
        "nos",
        "nas",
        "nach",
        "bei",
        "im",
        "aus",
    ]
)
_RELATION_WORDS = frozenset(fold(w) for w in RELATIONS)
#: Articles and determiners: a capitalised word after one is a thing ("die Tour", "the Kew trip", "le Salon"), not
#: someone; a person's name stands bare or after a personal "a" ("A Andrés", "ao Pedro", "a Rita").
_DETERMINERS = frozenset(
    fold(w)
    for w in [
        "the",
        "this",
        "that",
        "these",
        "those",
        "an",
        "le",
        "la",
        "les",
        "un",
        "une",
        "ce",
        "cette",
        "ces",
        "du",
        "des",
        "el",
        "los",
        "las",
        "una",
        "este",
        "esta",
        "ese",
        "esa",
        "der",
        "die",
        "das",
        "den",
        "dem",
        "des",
        "ein",
        "eine",
        "einen",
        "einem",
        "einer",
        "dieser",
        "diese",
        "dieses",
        "os",
        "as",
        "um",
        "uma",
        "esse",
        "essa",
        "my",
        "our",
        "mon",
        "ma",
        "mes",
        "notre",
        "nos",
        "mi",
        "mis",
        "nuestro",
        "nuestra",
        "mein",
        "meine",
        "meinen",
        "unser",
        "unsere",
        "meu",
        "minha",
        "nosso",
        "nossa",
    ]
)
#: Words before a capitalised word that make it a place or a thing, not a person.
_NOT_WHO = _PLACE_BEFORE | _DETERMINERS
#: Days and months are no one.
_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS)


def someone_elses(clause: str, shared: frozenset[str], names: frozenset[str]) -> bool:
    """Whether the clause's word shared with the older fact belongs to someone other than the user.

    Read left to right up to that word, the last person named owns it: the user ("I", "we", "my", "me", "nos
    mudamos", "mir", "eu"; `_USER_WORDS`) or someone else: a third-person pronoun or clitic ("he", "she", "A Andrés
    le han ofrecido", "il", "ihm", "ela"; `_OTHER_WORDS`), a relation noun ("my husband's job", "ma sœur"), or a
    name of `names` (the names the older fact does not hold; no number, day or month), standing bare or after a
    personal "a" ("A Andrés", "ao Pedro"), not after a place preposition or a determiner ("in Leeds" is where, "die
    Tour" a thing). "My husband got a new job" and "A Andrés le han ofrecido trabajo" are someone else's; "My boss
    moved my review", "Me han ofrecido trabajo", "Stefan kann nicht, wir verschieben die Tour" and "Potatoes are
    going in on 11 April instead" (no person) are not."""
    words = [re.sub(r"['’]s$", "", fold(w)) for w in _WORDS.findall(clause)]
    stems = [light_stem(w) for w in words]
    at = next((i for i, stem in enumerate(stems) if stem in shared), -1)
    if at < 0:
        return False
    firsts = {
        v.split()[0]
        for v in names
        if not any(ch.isdigit() for ch in v) and v not in _CALENDAR and v.removesuffix("s") not in _CALENDAR
    }
    others = _OTHER_WORDS | (_OTHER_CLITICS if detect_language(clause) == "es" else frozenset())
    owner = ""
    for i, word in enumerate(words[:at]):
        if word in _USER_WORDS:
            owner = "user"
        elif (
            word in others
            or word in _RELATION_WORDS
            or (word in firsts and not (i and words[i - 1] in _NOT_WHO))
        ):
            owner = "other"
    return owner == "other"


__all__ = ["someone_elses"]
