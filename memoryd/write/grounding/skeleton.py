"""Same slot by structure: two facts that say the same thing about different values, found without a lexicon.

The slot readers (roles.py, schedule.py, moves.py, reschedule.py, quantities.py) know the phrasings their authors
met. What they miss is compared here by shape: each fact's VALUES are masked (numbers, dates and weekdays, times,
quoted spans, capitalised names that do not open a sentence), and what is left, the skeleton, is a set of stemmed,
folded content words ("The haul-out is booked for March 28th" → {haul, out, book}). A newer fact is in an older
fact's slot when

- the skeletons agree (Jaccard ≥ `MIN_OVERLAP`, at least `MIN_SHARED` shared words unless the skeletons are equal,
  the same relation nouns on both sides: "the user's sister moved to Lyon" is not about where the user lives),
- the values differ both ways (each holds a value the other does not: a repeat or an added detail replaces nothing),
- and the relation holds one value at a time (where one lives or works, a manager / doctor / vet / landlord, the
  date or time of an event, a target, a chosen tool, a diet), or the newer fact says it changed ("now", "no
  longer", "switched", "instead", "moved", "actually", in five languages): friends, pets, hobbies, colleagues and
  allergies gain values, they do not swap them.

A hypothetical ("if I moved to Lyon …") replaces nothing.

MiniLM cosine of the masked texts was the other candidate. The writer's embedder is inferd's model, and the bench's
fake backend embeds by hashing, so token overlap is what a distillation can rely on with every backend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.lexicon import HYPOTHETICAL, RELATIONS
from memoryd.write.grounding.synonyms import canonical, canonical_set
from memoryd.write.grounding.text import STOP_WORDS, fold, light_stem, word_set

#: Skeleton overlap (Jaccard of stemmed content words) from which two facts name the same slot.
MIN_OVERLAP = 0.5
#: Shared skeleton words needed: one shared word ("booked") says too little about what the facts are about.
MIN_SHARED = 2

#: A resolved date the writer appends ("(2026-04-13)"): the words before it carry the value already.
_ISO = re.compile(r"\(?\b\d{4}-\d{2}(?:-\d{2})?\b\)?")
#: A quoted span: double quotes, guillemets, or single quotes that stand apart from words (an apostrophe is none).
_QUOTED = re.compile(r"[\"“«„](?P<q>[^\"”»“]{1,60})[\"”»“]|(?<!\w)['‘](?P<s>[^'’]{1,60})['’](?!\w)")
_WORD = re.compile(r"[^\W_][\w'’.:-]*[^\W_]|[^\W_]", re.UNICODE)
_CALENDAR = (
    frozenset(MONTHS)
    | frozenset(WEEKDAYS)
    | word_set(
        "mondays tuesdays wednesdays thursdays fridays saturdays sundays lundis mardis mercredis jeudis vendredis "
        "samedis dimanches lunes martes miercoles jueves viernes sabados domingos montags dienstags mittwochs "
        "donnerstags freitags samstags sonntags segundas tercas quartas quintas sextas sabados domingos"
    )
)
#: Words the fact templates frame a fact with ("The user", "Prévu :", "Geplant:"): they are not about its slot.
_FRAME = word_set(
    "user users utilisateur utilisatrice usuario usuaria nutzer nutzers nutzerin usuario utilizador plan prevu "
    "geplant planejado"
)
_TITLES = word_set("dr dra mr mrs ms mx prof herr frau sr sra mme mlle me st")
#: Change cues in five languages: a newer value of a relation with many values replaces an older one only so.
#: "new" is none: a new friend is one more friend.
CHANGE_CUE = re.compile(
    r"\b(?:now|no longer|not any ?more|any ?more|switched|switching|changed|instead|moved|moving|actually|"
    r"replaced|left|quit|these days|from now on|"
    r"maintenant|désormais|plus (?:de|du|la|le)|au lieu|à la place|déménagé|changé|en fait|"
    r"ahora|ya no|en vez|en lugar|cambiado|cambié|mudado|en realidad|"
    r"jetzt|nicht mehr|kein(?:e|en)? mehr|statt|anstatt|gewechselt|umgezogen|eigentlich|inzwischen|"
    r"agora|já não|em vez|mudei|mudámos|mudamos|troquei|na verdade)\b",
    re.IGNORECASE,
)
#: Skeleton words (stemmed) of relations with one current value.
_SINGLE_WORDS = canonical_set(
    frozenset(
        light_stem(w)
        for w in word_set(
            "live lives living home moved move based city address habite habitent vit vive vivo vivimos mora moramos "
            "moro wohnt wohne wohnen lebt work works working job employer employed position post travaille trabaja "
            "trabajo arbeitet arbeite trabalha trabalho target goal aim objectif objetivo ziel meta "
            "use uses using chose chosen switched tool utilise usa uso nutzt verwendet benutzt diet regime dieta "
            "ernährung vegan vegetarian vegetarien vegetariano vegetarier booked scheduled date deadline due "
            "appointment meeting starts start begins launch wedding exam test"
        )
    )
    | frozenset(
        light_stem(fold(w))
        for w, (_key, single) in RELATIONS.items()
        if single and _key not in ("mother", "father")
    )
)
#: Relation nouns, folded ("vétérinaire" → "veterinaire"), to their relation key.
_RELATION_NOUNS = {fold(w): key for w, (key, _single) in RELATIONS.items()}


@dataclass(frozen=True)
class Masked:
    """A fact with its values taken out: the skeleton (stemmed content words), the values, and relation nouns."""

    skeleton: frozenset[str]
    values: frozenset[str]
    relations: frozenset[str]
    dated: bool


#: Words before a German common noun ("die erste Honigernte", "der nächste Termin"): German capitalises every noun,
#: so a capital after one of them is no name.
_NOUN_OPENERS = word_set(
    "der die das den dem des ein eine einen einem einer eines mein meine meinen meinem unser unsere unseren erste "
    "ersten erster nachste nachsten nachster neue neuen neuer letzte letzten kein keine keinen jeden jede jeder"
)


def _is_value(word: str, opens_sentence: bool, previous: str = "") -> bool:
    folded = fold(word)
    if any(ch.isdigit() for ch in word) or folded in _CALENDAR:
        return True
    if folded in _TITLES:
        return False
    if not word[:1].isupper() or opens_sentence or folded in _FRAME or previous in _NOUN_OPENERS:
        return False
    # "J'ai", "L'héliportage" after a template's colon: a function word, not a name.
    return not all(part in STOP_WORDS for part in re.split(r"['’]", folded)[:-1] or [folded])


@lru_cache(maxsize=8_192)
def masked(text: str) -> Masked:
    """The fact's skeleton and values (module docstring)."""
    said = _ISO.sub(" ", text)
    values: set[str] = set()
    for quoted in _QUOTED.finditer(said):
        values.add(fold(quoted.group("q") or quoted.group("s")).strip())
    said = _QUOTED.sub(" ", said)
    skeleton: set[str] = set()
    relations: set[str] = set()
    dated = False
    opens = True
    previous = ""
    for match in _WORD.finditer(said):
        word = match.group(0).rstrip(".:")
        folded = fold(word)
        if _is_value(word, opens, previous):
            values.add(folded)
            # A day or a month names a date; a bare number ("so I'm at 90 now") does not.
            dated = (
                dated or folded in _CALENDAR or bool(re.fullmatch(r"\d{1,2}(?:st|nd|rd|th|er|º|ª)", folded))
            )
        elif folded in _TITLES:
            pass  # "Mr." and "Ms." name no slot
        elif (noun := re.sub(r"['’]s$", "", folded)) in _RELATION_NOUNS:
            # "my sister's savings target" names the sister as much as "my sister" does
            relations.add(_RELATION_NOUNS[noun])
            skeleton.add(_RELATION_NOUNS[noun])
        elif (
            folded not in STOP_WORDS
            and folded not in _FRAME
            and len(folded) > 1
            and not CHANGE_CUE.fullmatch(word)
        ):
            for part in re.split(r"['’-]", folded):
                if len(part) > 1 and part not in STOP_WORDS:
                    # One word for one thing: "launch" and "release", "goal" and "target" (synonyms.py).
                    skeleton.add(canonical(light_stem(part)))
        previous = folded
        tail = said[match.end() : match.end() + 2]
        # A template's colon ("Gestora del usuario: Marisa Ortún") opens no sentence: the value follows it.
        ends = bool(re.match(r"\s*[.!?]", tail)) or match.group(0).endswith(".")
        opens = ends and folded not in _TITLES  # "Dr. Li": a title's dot ends no sentence
    return Masked(frozenset(skeleton), frozenset(values), frozenset(relations), dated)


def single_valued(skeleton: frozenset[str], *, dated: bool) -> bool:
    """Whether the relation a skeleton states holds one value at a time (a date of one event is single too)."""
    return dated or bool(skeleton & _SINGLE_WORDS)


def same_slot(old: str, new: str) -> bool:
    """Whether `new` gives another value in the slot `old` states (module docstring)."""
    if HYPOTHETICAL.search(new):
        return False
    a, b = masked(old), masked(new)
    if a.relations != b.relations or not a.values or not b.values:
        return False
    if not (a.values - b.values) or not (b.values - a.values):
        return False
    shared = a.skeleton & b.skeleton
    union = a.skeleton | b.skeleton
    cued = bool(CHANGE_CUE.search(new))
    if cued and len(shared) >= MIN_SHARED:
        # Said as a change and about the same things ("the subscription collection moves from Wednesday to Thursday"
        # after "… a bread subscription … who collect on Wednesdays"): an older fact that says more still goes.
        return True
    if not shared or len(shared) / len(union) < MIN_OVERLAP:
        return False
    if len(shared) < MIN_SHARED and a.skeleton != b.skeleton:
        return False
    single = single_valued(shared, dated=a.dated and b.dated)
    return single or bool(CHANGE_CUE.search(new))


__all__ = ["CHANGE_CUE", "MIN_OVERLAP", "MIN_SHARED", "Masked", "masked", "same_slot", "single_valued"]
