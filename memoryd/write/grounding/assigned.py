"""A new holder of a role given to the user by someone else's verb, answering the assistant's question for one:
"Have you been able to find another pilot?" — "Yes. The federation moved me to Karen Achebe on the Morning Tern."

The user's words name the holder but not the role ("moved me to", "assigned me to", "put me with", "m'a transféré
chez", "me pasaron a", "hat mich an … überwiesen", "passaram-me para"); the assistant's question the turn answers
names it ("another pilot", "a new vet", "un nouveau médecin", "otro fisioterapeuta", "einen neuen Tierarzt", "outro
médico"). The pair is read as one relation fact: the role from the question, the holder from the answer.

Read only when:
- the assistant's last sentence is a question asking for another or a new holder of a role (a relation of the
  lexicon, or a noun with an agent ending: "pilot", "editor", "tutor");
- the user's turn, not a question and not a hypothetical, says the user was moved, assigned, put or paired to a
  capitalised name, with "me" as the object (the federation's, the clinic's or the user's own doing alike);
- the name is not the role's holder the question asked to replace (named in the question).
"They moved my sister to Dr Alves" (someone else moved), "If they moved me to Karen, …", "Did they move me to
Karen?", and a move to a name with no question for a role before it are not read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from memoryd.write.grounding.lexicon import HYPOTHETICAL, NAME, RELATIONS, ROLE_SUFFIX
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import detect_language, fold, sentences

_I = re.IGNORECASE
#: "another pilot", "a new vet", "un nouveau médecin", "otro fisio", "einen neuen Tierarzt", "outro médico".
_ASKS_FOR = re.compile(
    r"\b(?:another|a new|new|a replacement|replacement|un autre|une autre|un nouveau|une nouvelle|nouveau|nouvelle|"
    r"otro|otra|nuevo|nueva|un nuevo|una nueva|einen neuen|eine neue|neuen|neue|neuer|outro|outra|novo|nova|"
    r"um novo|uma nova)\s+(?P<noun>[^\W\d_][\w-]{2,})",
    _I,
)
#: The user moved or assigned to a named holder by someone's verb, "me" as its object.
_ASSIGNED = re.compile(
    r"\b(?:(?:moved|put|assigned|switched|transferred|paired|matched|passed|handed|sent|referred)\s+me\s+"
    r"(?:on\s+|over\s+)?(?:to|with)|"
    r"(?:I(?:'ve| have)? been|I was|I got|I've got|I'm being)\s+(?:moved|assigned|put|switched|transferred|paired|"
    r"matched|referred)\s+(?:to|with)|"
    r"m'(?:a|ont)\s+(?:mis|mise|transférée?|affectée?|confiée?|envoyée?)\s+(?:à|avec|chez)|"
    r"me\s+(?:pasaron|asignaron|pusieron|cambiaron|mandaron|derivaron|han pasado|han asignado)\s+(?:a|con|al)|"
    r"hat\s+mich\s+(?:an|zu)|haben\s+mich\s+(?:an|zu)|"
    r"(?:passaram|puseram|mudaram|transferiram|encaminharam)-me\s+(?:para|a)|"
    r"me\s+(?:passaram|puseram|mudaram|transferiram|encaminharam)\s+(?:para|a))\s+"
    rf"(?:(?:a|o|la|le|el|the|den|die|der|dem)\s+)?{NAME}",
    _I,
)


def _asked_role(message: str) -> str:
    """The role the assistant's last sentence asks a new holder for, or ""."""
    said = sentences(message)
    last = said[-1].strip() if said else ""
    if not last.endswith("?"):
        return ""
    asked = _ASKS_FOR.search(last)
    if asked is None:
        return ""
    noun = asked.group("noun")
    entry = RELATIONS.get(noun.lower()) or RELATIONS.get(fold(noun))
    if entry is not None:
        return noun.lower() if entry[1] else ""  # "another sister" is no role with one holder
    return noun.lower() if ROLE_SUFFIX.search(noun) else ""


def assigned_holders(
    turns: Sequence[SourceTurn], session_lang: str
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Relation facts of the module docstring, each with its evidence (the question and the user's sentence)."""
    found: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for before, turn in pairwise(turns):
        role = _asked_role(before.assistant)
        if not role:
            continue
        for sentence in sentences(turn.user):
            if sentence.rstrip().endswith("?") or HYPOTHETICAL.search(sentence):
                continue
            match = _ASSIGNED.search(sentence.replace("’", "'"))
            if match is None:
                continue
            name = match.group("v")
            if fold(name) in fold(before.assistant):
                continue  # the holder the question asks to replace
            lang = detect_language(sentence, default="") or session_lang
            entry = RELATIONS.get(role) or RELATIONS.get(fold(role))
            key = entry[0] if entry is not None else fold(role)
            fact = GroundedFact(
                FactKind.RELATION,
                render("relation", lang, name, rel=role),
                f"relation.{key}",
                name,
                (before.index, turn.index),
                0.7,
                False,
                "extractor",
                lang,
            )
            found.append((fact, (sentences(before.assistant)[-1], sentence)))
            break
    return found


__all__ = ["assigned_holders"]
