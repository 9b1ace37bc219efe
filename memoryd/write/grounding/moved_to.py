"""A move to a named place said without the old one: "Black Fern is moving to York", "Moved the yard to Dingwall",
"on a déménagé à Lyon", "nos mudamos a Córdoba", "wir sind nach Göttingen gezogen", "mudei-me para Braga".

relocation.py reads "from X to Y"; here only the new place is said, so the old one is the place the memory holds for
the user's life. The older facts placing the user there ("The user runs a small tattoo studio in Leeds called Black
Fern", "… a tree surgery outfit out of Inverness") are retired and stored again with the new place in their words.

Read only when:
- the sentence says a move (move, relocate, déménager, mudarse, ziehen, mudar) to a capitalised place ("to Y", "à
  Y", "a Y", "nach Y", "para Y"), done or under way, not a future ("will", "going to", "next year") and not hedged
  ("thinking of moving", "might move", "vielleicht"); the caller drops questions and hypotheticals ("if I moved");
- the session itself places the user's home in Y (a fact of the slot identity.home with that value, said as where
  the user lives, "I live in York now", "We live there now too", not only as a move), so Y is a place and not a teacher or a tool one "moves to" ("I've moved to
  Elinor in Machynlleth", "we dropped Cliniko and moved to Jane");
- the mover is the user: "I" / "we" (any of five languages), no subject ("Moved the yard to Dingwall"), "my / our
  <thing>" that is not a person ("my studio", not "my sister"), or a name the older fact holds ("Black Fern is moving
  to York"); "she moved up to Glasgow", "Tegan moved to Leeds", "my brother is moving to Lyon" are not the user's;
- among the agent's older undated facts (a plan or a task keeps its own place) that do not name Y, exactly one place
  is held after a preposition of place ("in", "out of", "near", "based in", "en", "à", "em", "in", "bei"); two
  places held leave the choice open and nothing is retired;
- no sentence of the session says that place stays ("commuting back" does not; "the stills stay in Dunoon" does).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.lexicon import HEDGE, RELATIONS
from memoryd.write.grounding.relocation import stays
from memoryd.write.grounding.substitution import Swap
from memoryd.write.grounding.text import fold

_I = re.IGNORECASE
_PLACE = r"(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+){0,2}"
#: The move verb, then at most four words ("the yard", "up", "myself"), then "to Y" in five languages.
_MOVE_TO = re.compile(
    r"\b(?P<verb>mov(?:e|es|ed|ing)|relocat(?:e|es|ed|ing)|déménag\w*|emménag\w*|"
    r"(?:me |nos )?mud(?:o|é|amos|ado|ei|ou|aram|ámos)(?:-(?:me|nos|se))?|zieh\w*|umgezogen|umziehen)\b"
    rf"(?P<mid>(?:\s+[\w'’-]+){{0,4}}?)\s+(?:to|into|à|a|au|en|nach|para|pra|pro)\s+(?P<new>{_PLACE})",
    _I,
)
#: German puts the verb last: "wir sind nach Göttingen gezogen", "ich bin nach Kiel umgezogen".
_NACH_GEZOGEN = re.compile(rf"\bnach\s+(?P<new>{_PLACE})\s+(?:um)?gezogen\b")
#: A move not yet done or not yet decided.
_NOT_DONE = re.compile(
    r"\b(?:will|won't|going to|gonna|'ll|next (?:year|month|week|spring|summer|autumn|fall|winter)|plan(?:ning)? to|"
    r"want to|wants to|hope to|hoping to|would|could|should|vais|allons|voy a|vamos a|quiero|werde|werden|wollen|"
    r"will(?:st)?|vou|vamos|quero)\b",
    _I,
)
#: The user as subject, in five languages.
_FIRST_PERSON = re.compile(
    r"\b(?:I|I've|I'm|we|we've|we're|we|je|j'ai|nous|on|yo|nosotros|nosotras|ich|wir|eu|nós)\b|^(?:me|nos)\b",
    _I,
)
_THIRD_PERSON = re.compile(
    r"\b(?:he|she|they|il|elle|ils|elles|él|ella|ellos|ellas|er|sie|ele|ela|eles|elas)\b", _I
)
_POSSESSIVE = re.compile(
    r"\b(?:my|our|mon|ma|mes|notre|nos|mi|mis|nuestr[oa]s?|mein\w*|unser\w*|meu|minha|nosso|nossa)\s+"
    r"(?P<noun>[\w'’-]+)",
    _I,
)
#: Words that may open the clause without being its subject ("Big news:", "Finally", "So").
_OPENERS = frozenset(
    fold(w)
    for w in [
        "so",
        "and",
        "then",
        "finally",
        "just",
        "already",
        "also",
        "well",
        "anyway",
        "yes",
        "ok",
        "okay",
        "alors",
        "enfin",
        "bon",
        "y",
        "pues",
        "also",
        "und",
        "dann",
        "então",
        "entao",
        "e",
    ]
)
#: A preposition placing the user's life in a place.
_HELD = re.compile(
    rf"\b(?:in|out of|near|based in|en|à|em|bei)\s+(?:the\s+)?(?P<p>{_PLACE})(?![\w'’-])",
)
_DATED = re.compile(r"\(\d{4}-\d{2}|\bweek of\b")
_CALENDAR = frozenset(fold(w) for w in (*MONTHS, *WEEKDAYS))


def _mover_is_user(before: str, placed: Sequence[str]) -> bool:
    """Whether the words before the move verb make the user, or what is theirs, the one who moves; `placed`: the
    older facts that hold a place."""
    clause = re.split(r"[,;:]|\b(?:and|but|so|et|mais|y|pero|und|aber|e|mas)\b", before, flags=_I)[-1].strip()
    if not [w for w in re.findall(r"[\w'’-]+", clause) if fold(w) not in _OPENERS]:
        return True  # "Moved the yard to Dingwall": no subject but the speaker
    if _THIRD_PERSON.search(clause):
        return False  # "she moved up to Glasgow"
    if _POSSESSIVE.search(clause):
        return _own_thing(clause)  # "my studio is moving", not "my brother is moving"
    if _FIRST_PERSON.search(clause):
        return True
    # "Black Fern is moving to York": a name held by an older fact that places the user's life.
    names = re.findall(r"(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+)*", clause)
    return any(len(n) >= 3 and any(re.search(rf"\b{re.escape(n)}\b", k) for k in placed) for n in names)


def _own_thing(clause: str) -> bool:
    """Whether every "my / our <noun>" is a thing of the user's ("my studio"), not a person ("my sister")."""
    nouns = [m.group("noun").lower() for m in _POSSESSIVE.finditer(clause)]
    return not any(RELATIONS.get(n) or RELATIONS.get(n[:-1]) or RELATIONS.get(fold(n)) for n in nouns)


def _held_places(text: str) -> list[str]:
    return [m.group("p") for m in _HELD.finditer(text) if fold(m.group("p")) not in _CALENDAR]


def moved_to(
    sentence: str, known: Sequence[str], homes: Collection[str], session_said: Sequence[str] = ()
) -> list[Swap]:
    """The older facts a move to a new place places anew (module docstring); `homes`: the values of the session's
    identity.home facts; `session_said`: the session's user turns."""
    if HEDGE.search(sentence) or _NOT_DONE.search(sentence):
        return []
    move = _MOVE_TO.search(sentence)
    if move is not None:
        new, before = move.group("new"), sentence[: move.start()]
    else:
        late = _NACH_GEZOGEN.search(sentence)
        if late is None:
            return []
        new, before = late.group("new"), sentence[: late.start()]
    if fold(new) in _CALENDAR or fold(new) not in {fold(h) for h in homes}:
        return []
    candidates = [
        (index, text)
        for index, text in enumerate(known)
        if not _DATED.search(text) and not re.search(rf"\b{re.escape(new)}\b", text)
    ]
    held = {fold(p): p for _, text in candidates for p in _held_places(text)}
    if len(held) != 1 or not _mover_is_user(before, [t for _, t in candidates if _held_places(t)]):
        return []
    old = next(iter(held.values()))
    if stays(old, session_said):
        return []
    out: list[Swap] = []
    for index, text in candidates:
        at = next((m for m in _HELD.finditer(text) if m.group("p") == old), None)
        if at is not None:
            out.append(Swap(index, text[: at.start("p")] + new + text[at.end("p") :], new, old))
    return out


def said_as_move(text: str) -> bool:
    """Whether a fact says a move to its place ("The user moved to Elinor") rather than where the user lives."""
    return _MOVE_TO.search(text) is not None or _NACH_GEZOGEN.search(text) is not None


__all__ = ["moved_to", "said_as_move"]
