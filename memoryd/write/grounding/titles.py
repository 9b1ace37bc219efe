"""A job title the user says they hold now: "I'm Chief Product Officer now", "I'm now head of product", "je suis
maintenant directrice technique", "ahora soy jefa de cocina", "ich bin jetzt Teamleiterin", "agora sou diretora
comercial".

The role rules read "I'm a nurse" (an article and a noun); a title said bare, often capitalised ("Chief Product
Officer"), or as "head of X", is not a noun after an article, so a promotion or a change of role named nothing. Read
only when:
- the user says it of themselves ("I'm", "je suis", "soy", "ich bin", "sou"), with a change marker beside it ("now",
  "the new", "maintenant", "désormais", "ahora", "jetzt", "nun", "agora"): the role changed, so it is the slot's new
  value;
- the title holds a word that heads a job title (officer, head, director, manager, lead, chief, directeur/directrice,
  responsable, jefe/jefa, director/directora, Leiter/Leiterin, Chef/Chefin, diretor/diretora, chefe, gerente);
- the sentence is a statement (no question, no hypothetical, no hedge) and no role was read from the turn already.
Not read: "I'm now in Leeds" (no title word), "if I were head of product", "I might be head of product soon", "my
wife is now head of sales" (not "I'm").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.lexicon import HEDGE, HYPOTHETICAL
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.summary import third_person
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import sentences

_I = re.IGNORECASE
#: Words that head a job title in five languages.
_TITLE_WORD = (
    r"(?:officer|head|director|manager|lead|chief|president|directeur|directrice|responsable|chef|cheffe|jefe|jefa|"
    r"directora|encargad[oa]|leiter|leiterin|chefin|diretor|diretora|chefe|gerente|coordinator|coordinatrice|"
    r"coordinador|coordinadora|koordinator|koordinatorin|coordenador|coordenadora)"
)
#: The title: up to six words (capitalised or joined by "of / de / du / des / für / do / da") holding a title word.
_TRAIL = (
    r"(?:\s+(?!(?:I|je|yo|ich|eu)\b)(?!(?:now|and|et|y|und|e|since|depuis|desde|seit|at|à|en|in|em|for|pour|para|für|with|avec|con|mit|com|"
    r"jetzt|nun|maintenant|ahora|agora)\b)[\w'’-]+){0,2}"
)
_TITLE = (
    rf"(?P<t>(?:[\w'’-]+\s+){{0,5}}?[\w-]*?{_TITLE_WORD}\b"
    rf"(?:\s+(?:of|de|du|des|de la|für|do|da|del)\s+[\w'’-]+{_TRAIL}|{_TRAIL}))"
)
_SAID = (
    (
        "en",
        re.compile(
            rf"\bI(?:'m| am)\s+(?:now the new\s+|now the\s+|the new\s+|now\s+)?{_TITLE}(?:\s+now)?\b", _I
        ),
    ),
    (
        "fr",
        re.compile(
            rf"\bje suis\s+(?:maintenant|désormais)\s+(?:la\s+|le\s+)?(?:nouvelle?\s+)?{_TITLE}\b", _I
        ),
    ),
    ("es", re.compile(rf"\b(?:ahora soy|ya soy|soy ahora)\s+(?:el\s+|la\s+)?(?:nuev[oa]\s+)?{_TITLE}\b", _I)),
    (
        "de",
        re.compile(rf"\bich bin\s+(?:jetzt|nun|seit kurzem)\s+(?:der\s+|die\s+)?(?:neue\s+)?{_TITLE}\b", _I),
    ),
    ("pt", re.compile(rf"\b(?:agora sou|já sou|sou agora)\s+(?:o\s+|a\s+)?(?:nov[oa]\s+)?{_TITLE}\b", _I)),
)
#: The change marker the English form needs ("I'm head of product" said of a standing role is read elsewhere).
_EN_CHANGE = re.compile(r"\b(?:now|the new)\b", _I)
#: Words that are no part of a title's start ("I'm now the …", "I'm now also …").
_NOT_TITLE_START = re.compile(r"^(?:also|officially|finally|actually|just|the|a|an|in|at|on|with)\b", _I)


def title_changes(
    turns: Sequence[SourceTurn], roles_read: Sequence[int]
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """identity.role facts of the module docstring with their sentence; `roles_read`: turns a role was read from."""
    found: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for turn in turns:
        if turn.index in roles_read:
            continue
        for sentence in sentences(turn.user.replace("’", "'")):
            if sentence.rstrip().endswith("?") or HYPOTHETICAL.search(sentence) or HEDGE.search(sentence):
                continue
            read = next(((lang, m) for lang, rule in _SAID if (m := rule.search(sentence))), None)
            if read is None:
                continue
            lang, match = read
            title = match.group("t").strip()
            if _NOT_TITLE_START.match(title) or (lang == "en" and not _EN_CHANGE.search(match.group(0))):
                continue
            said = match.group(0).strip()
            text = third_person(said) + "." if lang == "en" else render("role", lang, title)
            fact = GroundedFact(
                FactKind.IDENTITY,
                text[:1].upper() + text[1:],
                "identity.role",
                title,
                (turn.index,),
                0.9,
                True,
                "extractor",
                lang,
            )
            found.append((fact, (sentence,)))
            break
    return found


__all__ = ["title_changes"]
