"""Changed values said plainly, which the clause readers miss: "I've changed the email sign-off, it's now 'Warmly,
Bao'", "meine Besuche sind jetzt dienstags", and the old value a contrast names ("new target is 3:55, not 3:45",
"in April instead of October").

- `changed_values`: a thing of the user's said to hold a new value now ("my/our/the X is now Y", "changed the X,
  it's now Y", in five languages) becomes a fact in the user's words ("The user's email sign-off is now 'Warmly,
  Bao'."). It has no slot: skeleton.py finds the older value it replaces.
- `with_contrasts`: a sentence that sets a new value against an old one ("Y, not X", "Y instead of X", "Y statt X",
  "Y en vez de X", "Y au lieu de X", "Y em vez de X") marks X as replaced on the facts read from that turn that
  state Y; supersede.py then retires the agent's facts naming X (grounding/stale.py, scope "thing"). Only a value is
  taken as X (a number, a day or month, a name): "coffee, not because I like it" names none.

A question, a hypothetical or someone else's thing ("his target is now …") is no change of the user's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.lexicon import HYPOTHETICAL, RELATIONS
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.skeleton import CHANGE_CUE, masked
from memoryd.write.grounding.stale import CHANGE_MARKER, EVENT, THING, names_value
from memoryd.write.grounding.summary import third_person
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import detect_language, fold, sentences
from memoryd.write.grounding.unfit import unfit_reason

_I = re.IGNORECASE
_NP = r"(?P<np>[^\W\d_][\w'’ -]{1,40}?)"
_VALUE = r"(?P<v>[^.;!?]{1,80}?)"
_END = r"\s*(?:[.;!?]|$)"
#: (language, possessive?, pattern): "my X is now Y" and its kin.
_NOW_IS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (lang, re.compile(pattern, _I))
    for lang, pattern in (
        ("en", rf"\b(?:changed|updated|switched) (?P<det>my|our|the) {_NP}[,:;—–-]+\s*(?:it's|it is|they're|"
               rf"they are) now {_VALUE}{_END}"),
        ("en", rf"\b(?P<det>my|our) {_NP} (?:is|are|'s) now {_VALUE}{_END}"),
        ("fr", rf"\b(?P<det>mon|ma|mes|notre|nos) {_NP} (?:est|sont) (?:maintenant|désormais) {_VALUE}{_END}"),
        ("es", rf"\b(?P<det>mi|mis|nuestro|nuestra|nuestros|nuestras) {_NP} (?:es|son|está|están) ahora "
               rf"{_VALUE}{_END}"),
        ("es", rf"\bahora (?P<det>mi|mis|nuestro|nuestra) {_NP} (?:es|son) {_VALUE}{_END}"),
        ("de", rf"\b(?P<det>mein|meine|unser|unsere) {_NP} (?:ist|sind) (?:jetzt|nun|ab jetzt) {_VALUE}{_END}"),
        ("pt", rf"\b(?P<det>meu|minha|meus|minhas|nosso|nossa) {_NP} (?:é|são|está|estão) agora {_VALUE}{_END}"),
        ("pt", rf"\b(?P<det>meu|minha|nosso|nossa) {_NP} agora (?:é|são) {_VALUE}{_END}"),
    )
)  # fmt: skip
_TEMPLATE = {
    "en": "The user's {np} is now {v}.",
    "fr": "{Np} de l'utilisateur : {v}.",
    "es": "{Np} del usuario: {v}.",
    "de": "{Np} des Nutzers: {v}.",
    "pt": "{Np} do usuário: {v}.",
}
#: Words that make a changed "thing" someone else's or no thing at all.
_NOT_A_THING = frozenset(fold(w) for w in "plan idea problem thing situation question answer point".split())  # noqa: SIM905


def changed_values(
    turns: Sequence[SourceTurn], session_lang: str, read: Sequence[GroundedFact] = ()
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Facts of things the user says hold a new value now, with the sentence each was read from; a value another
    reader already stated from that turn (`read`) is not said twice."""
    out: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for turn in turns:
        stated = [f.text for f in read if turn.index in f.turns]
        for sentence in sentences(turn.user.replace("’", "'")):
            if HYPOTHETICAL.search(sentence) or sentence.rstrip().endswith("?"):
                continue
            fact = _changed(sentence, turn.index, detect_language(sentence, default="") or session_lang)
            if fact is not None and not any(names_value(text, fact.value) for text in stated):
                out.append((fact, (sentence,)))
    return out


def _changed(sentence: str, turn: int, lang: str) -> GroundedFact | None:
    for pattern_lang, pattern in _NOW_IS:
        if pattern_lang != lang:
            continue
        match = pattern.search(sentence)
        if match is None:
            continue
        np, value = match.group("np").strip(), _own_value(match.group("v"))
        if not value or fold(np.split()[-1]) in _NOT_A_THING or len(np.split()) > 5:
            continue
        text = _TEMPLATE[lang].format(np=np, Np=np[:1].upper() + np[1:], v=value)
        return GroundedFact(
            FactKind.PREFERENCE,
            text,
            "",
            value,
            (turn,),
            0.7,
            False,
            language=lang,
            replaces=_contrasts(sentence),
        )
    return None


def _own_value(said: str) -> str:
    """The new value without the old one it is set against or a reason after a comma ("dienstags statt mittwochs,
    wegen …" → "dienstags"); a quoted value keeps its commas ("'Warmly, Bao'")."""
    contrast = _CONTRAST.search(said)
    if contrast is not None:
        said = said[: contrast.start()]
    if not said.lstrip().startswith(("'", '"', "“", "«")):
        said = re.split(r",\s", said)[0]
    return said.strip(" ,")


_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS)
#: The old value a contrast names: "…, not X", "instead of X", "statt X", "en vez de X", "au lieu de X" …
_CONTRAST = re.compile(
    r"(?:,\s*(?:and\s+)?not|,\s*pas|,\s*no|,\s*nicht|,\s*não|\binstead of|\brather than|\bau lieu d[eu']|"
    r"\bplutôt que|\ben vez de|\ben lugar de|\bstatt|\banstatt|\bem vez de|\bem lugar de)\s+"
    r"(?:(?:the|le|la|les|el|los|las|der|die|das|den|dem|o|a|os|as|on|in|am|im|au|en|em|no|na)\s+)?"
    r"(?P<x>[^\s,.;!?]+(?:\s+[^\s,.;!?]+)?)",
    _I,
)


def _is_value(word: str) -> bool:
    folded = fold(word.strip("'\""))
    stem = folded[:-1] if folded.endswith("s") else folded
    return (
        any(ch.isdigit() for ch in word)
        or folded in _CALENDAR
        or stem in _CALENDAR
        or (word[:1].isupper() and folded not in _CONTRAST_OPENERS)
    )


_CONTRAST_OPENERS = frozenset(fold(w) for w in "i we it that this me you".split())  # noqa: SIM905


def _contrasts(sentence: str) -> tuple[tuple[str, str], ...]:
    """(thing, old value) for each value a sentence contrasts its new value with."""
    out: list[tuple[str, str]] = []
    for match in _CONTRAST.finditer(sentence):
        words = match.group("x").split()
        # "not 3:45", "instead of October", "statt mittwochs", "not Lyon Lille" (the value is its leading values).
        value = []
        for word in words:
            if not _is_value(word):
                break
            value.append(word)
        if value and (THING, " ".join(value)) not in out:
            out.append((THING, " ".join(value)))
    return tuple(out)


def with_contrasts(facts: Sequence[GroundedFact], turns: Sequence[SourceTurn]) -> tuple[GroundedFact, ...]:
    """Facts with the old values their turn's contrasts name (module docstring), when they state none of them."""
    by_turn = {turn.index: turn.user.replace("’", "'") for turn in turns}
    contrasts: dict[int, list[tuple[str, tuple[tuple[str, str], ...]]]] = {}
    for index, said in by_turn.items():
        for sentence in sentences(said):
            if HYPOTHETICAL.search(sentence) or sentence.rstrip().endswith("?"):
                continue
            found = _contrasts(sentence)
            if found:
                contrasts.setdefault(index, []).append((sentence, found))
    if not contrasts:
        return tuple(facts)
    out = []
    for fact in facts:
        added = [
            pair
            for index in fact.turns
            for sentence, pairs in contrasts.get(index, [])
            if _read_from(fact, sentence)
            for pair in pairs
            if not names_value(fact.text, pair[1]) and pair not in fact.replaces
        ]
        out.append(replace(fact, replaces=(*fact.replaces, *dict.fromkeys(added))) if added else fact)
    return tuple(out)


def _read_from(fact: GroundedFact, sentence: str) -> bool:
    """Whether the fact states the new value of the sentence: its value, or a number / name of it, occurs there."""
    value = fact.value.strip()
    if value and names_value(sentence, value):
        return True
    said = re.sub(r"\(\d{4}-\d{2}(?:-\d{2})?\)", " ", fact.text)  # the writer's resolved dates
    marks = [w.strip(":'’-") for w in re.findall(r"[\w:'’-]+", said) if any(ch.isdigit() for ch in w)]
    return bool(marks) and all(names_value(sentence, mark) for mark in marks)


#: The user as a sentence's speaker: a change said of themselves ("I'm at 90 now", "jetzt habe ich nur noch fünf").
_FIRST_PERSON = re.compile(
    r"\b(?:I|I'm|I've|I'll|my|we|we're|we've|our|je|j'|mon|ma|mes|nous|notre|nos|yo|mi|mis|nosotros|hemos|"
    r"nuestro|nuestra|ich|mein|meine|meinen|wir|unser|unsere|eu|meu|minha|nós|nosso|nossa)\b"
    # Spanish and Portuguese say "we" with the verb alone ("seguimos", "abrimos", "mudámos").
    r"|\b[^\W\d_]{2,}(?:amos|emos|imos|ámos|êmos)\b",
    _I,
)
#: Someone else as the sentence's subject: their change is theirs ("She's in Leeds now", "My sister now lives …").
_OTHER_OPENING = re.compile(
    r"^\W*(?:he|she|they|his|her|their|il|elle|ils|elles|él|ella|ellos|er|sie|ele|ela|eles|"
    r"(?:my|mon|ma|mi|mein|meine|meu|minha)\s+(?-i:[a-zà-ÿ]+)\s+(?:is|are|has|est|es|ist|é))\b",
    _I,
)
#: A value a changed statement must carry: a number, a day or month, or a name inside the sentence.
_VALUE_WORD = re.compile(r"(?<=\s)(?-i:[A-ZÀ-ÖØ-Þ][\w'’-]+)|\d")
#: How long a sentence said as a change may be (words): longer ones say more than one thing.
_MAX_WORDS = 28


def now_statements(
    turns: Sequence[SourceTurn], session_lang: str, read: Sequence[GroundedFact] = ()
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """First-person sentences that say a value holds now ("I'm at 90 now", "so I joined Bloc Haus instead",
    "jetzt habe ich nur noch fünf") and that no other reader read a value of: stored in the user's words, as the
    extractor stores a plan it has no template for. skeleton.py and the contrasts decide what they replace."""
    out: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for turn in turns:
        stated = [f.text for f in read if turn.index in f.turns]
        for sentence in sentences(turn.user.replace("’", "'")):
            said = _changed_part(sentence.strip())
            if not said:
                continue
            values = _values(said)
            if not values or any(names_value(text, v) for text in stated for v in values):
                continue
            lang = detect_language(said, default="") or session_lang
            shown = third_person(said.rstrip(".!")) if lang == "en" else said.rstrip(".!")
            text = render("plan", lang, shown[:1].upper() + shown[1:])
            fact = GroundedFact(
                FactKind.PLAN, text, "", values[0], (turn.index,), 0.6, False, language=lang,
                replaces=_contrasts(said),
            )  # fmt: skip
            out.append((fact, (sentence,)))
    return out


#: Where a sentence's clauses part ("…, so I joined Bloc Haus instead", "…; jetzt habe ich …").
_CLAUSES = re.compile(
    r",\s*(?=(?:so|and|but|then|donc|alors|et|mais|y|pero|así que|und|aber|also|e|mas|então)\b)|;\s*", _I
)


#: "now" that says no change: "right now", "for now", "just now", "by now", "until now" and their kin.
_NOT_A_CHANGE = re.compile(
    r"\b(?:right now|for now|just now|by now|until now|up to now|pour l'instant|por ahora|de momento|"
    r"im moment|für jetzt|por agora|por enquanto)\b",
    _I,
)


def _said_by_user(said: str) -> bool:
    """Whether the user speaks of themselves: "I", "we", a first-person verb, or "my" before anything but a person
    ("my lessons", not "my sister")."""
    for match in _FIRST_PERSON.finditer(said):
        word = fold(match.group(0))
        if word not in _POSSESSIVES:
            return True
        following = said[match.end() :].split()
        if following and fold(following[0].strip(",.")) not in _PEOPLE:
            return True
    return False


_POSSESSIVES = frozenset(
    fold(w)
    for w in "my our mon ma mes notre nos mi mis nuestro nuestra mein meine meinen unser unsere meu minha nosso nossa".split()  # noqa: SIM905
)
_PEOPLE = frozenset(fold(w) for w in RELATIONS)


#: Cues that say only what is over ("I don't live in Madrid anymore", "ya no", "nicht mehr"): no new value.
_ONLY_OVER = re.compile(r"^(?:any ?more|no longer|ya no|já não)$", _I)


def _says_change(clause: str) -> bool:
    cues = [m.group(0) for m in CHANGE_MARKER.finditer(_NOT_A_CHANGE.sub(" ", clause))]
    return any(not _ONLY_OVER.match(cue) for cue in cues)


def _changed_part(sentence: str) -> str:
    """The sentence, or its clause that says the change when the sentence opens with someone else ("They put the
    pass up, so I joined Bloc Haus instead" → "so I joined Bloc Haus instead"); "" when it says no change of the
    user's."""
    if sentence.endswith("?") or HYPOTHETICAL.search(sentence) or unfit_reason(sentence):
        return ""
    if len(sentence.split()) > _MAX_WORDS:
        return ""
    clause = next((c.strip() for c in _CLAUSES.split(sentence) if _says_change(c)), "")
    if not clause or _OTHER_OPENING.search(clause) or not (_said_by_user(clause) or _said_by_user(sentence)):
        return ""
    # The clause alone when the sentence opens with someone else, unless the clause names no value of its own
    # ("He only does Tuesdays and Thursdays, so that's when my lessons are now").
    said = clause if _OTHER_OPENING.search(sentence) and _values(clause) else sentence
    said = re.sub(
        r"^(?:so|and|but|then|donc|alors|et|mais|y|pero|así que|und|aber|also|e|mas|então)\s+",
        "",
        said,
        flags=_I,
    )
    return said if len(said.split()) >= 4 else ""


def _values(said: str) -> list[str]:
    found = []
    for word in re.findall(r"[\w:'’-]+", said):
        folded = fold(word)
        if any(ch.isdigit() for ch in word) or folded in _CALENDAR or folded.rstrip("s") in _CALENDAR:
            found.append(word)
    found += [m.group(0) for m in _VALUE_WORD.finditer(said) if not m.group(0).isdigit()]
    return [v for v in dict.fromkeys(found) if fold(v) not in _CONTRAST_OPENERS and fold(v) not in _NOT_NAMES]


#: Capitalised words inside a sentence that are no value ("I", "I'm", a greeting's "Hi").
_NOT_NAMES = frozenset(fold(w) for w in "i i'm i've i'll i'd ok okay hi hey".split())  # noqa: SIM905


#: Cues that a date moved, besides the change cues: "finally", "slipped", "pushed", "postponed" … in five languages.
_DATE_MOVED = re.compile(
    r"\b(?:finally|in the end|slipp(?:ed|ing)|pushed|postponed|delayed|brought forward|rescheduled|"
    r"finalement|décalée?s?|repoussée?s?|reportée?s?|al final|finalmente|aplazad[oa]s?|retrasad[oa]s?|"
    r"schließlich|verschoben|verschieben|verlegt|adiad[oa]s?|afinal)\b",
    _I,
)


def _around(fact: GroundedFact, said: Sequence[str]) -> tuple[str, str]:
    """(the sentence a fact states its value in, with the one before it; that sentence alone): "the haul-out kept
    slipping. Kittiwake now comes out on May 2nd"; ("", "") when no sentence states it."""
    value = fact.value.strip()
    for i, sentence in enumerate(said):
        if value and names_value(sentence, value):
            return " ".join(said[max(0, i - 1) : i + 1]), sentence
    return "", ""


def with_event_context(
    facts: Sequence[GroundedFact], turns: Sequence[SourceTurn]
) -> tuple[GroundedFact, ...]:
    """Dated facts of a turn that says a date changed carry the turn's words (scope "event"), so the older dated
    plan about what the turn names is retired though the new fact names it otherwise ("the haul-out kept slipping.
    Kittiwake now comes out on May 2nd" after "The haul-out is booked for March 28th")."""
    by_turn = {turn.index: sentences(turn.user) for turn in turns}
    out = []
    for fact in facts:
        said, own = _around(fact, [s for i in fact.turns for s in by_turn.get(i, [])])
        # The change is said in the fact's own sentence ("Kittiwake now comes out on May 2nd"): a date said after a
        # sentence about another event moving, with no cue of its own ("The course got pushed. I'm seeing Sam on 9
        # January"), is a plan of its own.
        if (
            fact.is_identity
            or not masked(fact.text).dated
            or HYPOTHETICAL.search(said)
            or not (CHANGE_CUE.search(own) or _DATE_MOVED.search(own))
        ):
            out.append(fact)
            continue
        context = " ".join(sorted(masked(said).skeleton))
        out.append(replace(fact, replaces=(*fact.replaces, (EVENT, context))) if context else fact)
    return tuple(out)


__all__ = ["changed_values", "now_statements", "with_contrasts", "with_event_context"]
