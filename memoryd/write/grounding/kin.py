"""Who a parent is does not change: "Papa ist umgezogen, er wohnt jetzt in Kassel" moves the father, it does not
retire "Vater des Nutzers: Horst.". The generic change readers of revisions.py leave such a fact (a parent named, and
nothing else said) alone; what the change is about (where he lives) is another fact, retired on its own."""

from __future__ import annotations

import re

from memoryd.write.grounding.lexicon import RELATIONS
from memoryd.write.grounding.text import fold

#: "The user's father is Horst.", "Vater des Nutzers: Horst.", "Mère de l'utilisateur : Odile.".
_NAMED = re.compile(
    r"^(?:The user['’]s (?P<en>[\w-]+) is|(?P<other>[\w-]+) (?:de l'utilisateur|del usuario|des Nutzers|"
    r"do usuário|do utilizador)\s*:)\s+(?P<name>[^\W\d_][\w.'’ -]{0,40}?)\.?$",
    re.IGNORECASE,
)
_PARENTS = frozenset({"mother", "father"})
#: The most words a name takes ("Horst", "Maria da Graça Sousa").
_NAME_WORDS = 4


def names_a_parent(text: str) -> bool:
    """Whether a fact only states who one of the user's parents is."""
    found = _NAMED.match(text.strip())
    if found is None or len(found.group("name").split()) > _NAME_WORDS:
        return False
    noun = (found.group("en") or found.group("other") or "").lower()
    entry = RELATIONS.get(noun) or RELATIONS.get(fold(noun))
    return entry is not None and entry[0] in _PARENTS


__all__ = ["names_a_parent"]
