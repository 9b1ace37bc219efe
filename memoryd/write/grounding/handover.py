"""A role handed from one holder to another, said with the role's verb rather than its noun: "Morwenna's moving to
Australia, so Alasdair's coaching our crew" after "The user's coach is Morwenna"; "Mererid doesn't teach pedal, so
I've moved to Elinor" after "The user's teacher is Mererid".

The slot is the relation and its holder. The older fact is about one holder of one role: a short relation fact
(at most `ROLE_WORDS` skeleton words) whose only name is the holder. The sentence hands the role over when:

- it says the role by its noun or by the noun's verb (the same stem once an agent ending is cut: "coaching" is
  "coach", "teach" is "teacher", "entrena" is "entrenador");
- one of its parts names the older holder and says they are gone or not doing it: a departure or a move ("is moving
  to Australia", "left", "retired") or a negation ("doesn't teach pedal");
- a later part names someone new, with the role's verb ("Alasdair's coaching") or a change said by the user
  ("I've moved to Elinor").

Not handed over: the holder doing the role somewhere new ("Morwenna's coaching the juniors at Tyne now": no part says
she is gone), a holder away for a while ("for now", "this week"), someone added ("also", "as well"), or a family
relation ("my sister Ana moved to Leeds, so Bea teaches me now" leaves "The user's sister is Ana" alone: family
is no role).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memoryd.write.grounding.lexicon import RELATIONS
from memoryd.write.grounding.text import fold, light_stem

_I = re.IGNORECASE
#: The most skeleton words of a fact about one holder of one role ("The user's coach is Morwenna": {coach}).
ROLE_WORDS = 2
#: Relations someone holds as a role and can hand over: the single-valued ones but a partner or a parent, and a
#: teacher, a mentor, a babysitter or a specialist (one the user sees for a thing). Family, friends, colleagues,
#: neighbours and pets are no role.
_ROLES = frozenset(k for k, single in RELATIONS.values() if single) - {"partner", "mother", "father"} | {
    "teacher",
    "mentor",
    "babysitter",
    "specialist",
}
#: Endings that make a verb an agent noun ("teach-er", "entren-ador", "entraîn-eur"); cut to compare with the verb.
_AGENT = re.compile(r"(?:adora|adores|ador|eure?s?|euse|er|or|ora|in)$")
#: A holder gone or not doing the role: leaving, moving, retiring, stopping, or a negation.
_GONE = re.compile(
    r"\b(?:left|leaving|leaves|quit|quits|retired|retiring|moving|moved|moves|gone|stopped|stopping|off to|"
    r"doesn't|does not|don't|can't|cannot|won't|isn't|is not|no longer|not any ?more|"
    r"part|partie?|quitte|arrête|ne \w+ pas|n'\w+ pas|plus|se va|se fue|se jubiló|se mudó|se muda|ya no|no|"
    r"geht|zieht|hört auf|nicht mehr|nicht|kein|vai|foi|saiu|sai|muda|mudou|reformou|já não|não)\b",
    _I,
)
#: A change said by the user ("I've moved to Elinor", "je suis maintenant avec …", "ahora voy con …").
_USER_CHANGE = re.compile(
    r"\b(?:i've|i have|i'm|we've|we're|j'ai|je suis|on est|he|me he|ahora voy|voy|ich bin|ich gehe|wir sind|"
    r"mudei|passei|vou)\b.*\b(?:moved|switched|changed|now|going|gone|maintenant|passé|changé|ahora|cambiado|"
    r"pasado|jetzt|gewechselt|agora|para)\b",
    _I,
)
_FOR_A_WHILE = re.compile(
    r"\b(?:for now|for the moment|this week|this month|temporarily|for a while|pour l'instant|por ahora|"
    r"de momento|vorerst|vorübergehend|por enquanto|also|as well|too|aussi|también|auch|também)\b",
    _I,
)
#: Where a sentence's parts meet: a comma, a semicolon, a colon, a dash, or "so"/"donc"/"así que"/"also".
_PARTS = re.compile(
    r"\s*[,;:]\s+|\s+[—–-]\s+|\s+(?:so|donc|alors|así que|entonces|deshalb|daher|então|por isso)\s+", _I
)
_NAME = re.compile(r"(?<![\w'’-])(?-i:[A-ZÀ-ÖØ-Þ])[\w’'-]+")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
#: Capitalised words that open a part without naming anyone.
_NOT_NAMES = frozenset(
    fold(w)
    for w in "I I'm I've I'd But And So Also Then Now Yes No Oh Well Cheers Mais Et Donc Pero Y Aber Und Mas E".split()  # noqa: SIM905
)


@dataclass(frozen=True)
class Handover:
    """An older fact (its index) whose role the sentence hands to someone new, and the part saying so."""

    index: int
    new_part: str
    new_name: str


def _stems(word: str) -> frozenset[str]:
    """A word's stem, and its stem once an agent ending is cut ("teacher" → teach; "entrenador" → entren)."""
    folded = fold(word)
    cut = _AGENT.sub("", folded)
    cuts = (cut, light_stem(cut)) if len(cut) >= 4 else ()
    return frozenset(s for s in (light_stem(folded), *cuts) if s)


def _names(part: str) -> list[str]:
    """The folded capitalised words of a part that may name someone (possessives cut), sentence openers aside."""
    out = []
    for match in _NAME.finditer(part):
        word = re.sub(r"['’]s$", "", fold(match.group(0)))
        if word not in _NOT_NAMES and len(word) >= 3:
            out.append(word)
    return out


def _holder(text: str) -> tuple[str, frozenset[str]] | None:
    """(the one holder, the role's stems) of a short relation fact about a role, else None."""
    role_words = [w for w in _WORD.findall(text) if fold(w) in RELATIONS or w.lower() in RELATIONS]
    if len(role_words) != 1:
        return None
    key, _single = RELATIONS.get(role_words[0].lower()) or RELATIONS[fold(role_words[0])]
    if key not in _ROLES:
        return None
    rest = text.replace(role_words[0], " ")
    names = [
        n for n in _names(rest) if n not in {"user", "the", "utilisateur", "usuario", "nutzer", "usuário"}
    ]
    content = [w for w in _WORD.findall(rest) if len(w) > 3 and fold(w) not in names]
    if len(names) != 1 or len(content) > ROLE_WORDS + 2:
        return None
    return names[0], _stems(role_words[0]) | _stems(key)


def handovers(sentence: str, known: Sequence[str]) -> list[Handover]:
    """The older role facts the sentence hands to someone new (module docstring)."""
    if _FOR_A_WHILE.search(sentence):
        return []
    parts = [p for p in _PARTS.split(sentence) if p and p.strip()]
    if len(parts) < 2:
        return []
    said_stems = {s for w in _WORD.findall(sentence) for s in _stems(w)}
    out: list[Handover] = []
    for index, text in enumerate(known):
        held = _holder(text)
        if held is None:
            continue
        holder, role = held
        if not (role & said_stems):
            continue
        for at, part in enumerate(parts):
            if holder not in _names(part) or not _GONE.search(part):
                continue
            found = _new_holder(parts[at + 1 :], holder, role)
            if found is not None:
                out.append(Handover(index, *found))
            break
    return out


def _new_holder(later: Sequence[str], holder: str, role: frozenset[str]) -> tuple[str, str] | None:
    """(the part, the new name) of the first later part naming someone new with the role's verb or a user change."""
    for part in later:
        new = [n for n in _names(part) if n != holder]
        if not new:
            continue
        verb = any(role & _stems(w) for w in _WORD.findall(part))
        if verb or _USER_CHANGE.search(part):
            return part, new[0]
    return None


__all__ = ["ROLE_WORDS", "Handover", "handovers"]
