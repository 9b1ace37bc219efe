"""The user working for themselves: "je me suis mis à mon compte", "I've gone freelance", "me he hecho autónomo",
"ich habe mich selbstständig gemacht", "estou por conta própria".

Self-employment is the value of the employer slot (identity.employer) with no company to name, so the rules that
read "I work at X" never see it and a correction "I left Kerhervé. I've set up on my own" left the slot empty. Read
only in a statement of the user's own, in the first person, done or holding now: not a question, not a hypothetical
("if I went freelance"), not a hedge or a wish ("I'm thinking of going freelance", "je voudrais me mettre à mon
compte"), not someone else ("my sister went freelance": no first person).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.lexicon import HEDGE, HYPOTHETICAL
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.summary import third_person
from memoryd.write.grounding.text import fold, sentences

_I = re.IGNORECASE
_NOW = (
    r"(?:now\s+|just\s+|finally\s+|maintenant\s+|désormais\s+|ahora\s+|ya\s+|jetzt\s+|nun\s+|agora\s+|já\s+)?"
)
_SAID = {
    "en": re.compile(
        rf"\bI(?:'ve| have)\s+{_NOW}(?:gone|become)\s+(?:freelance|self-employed|independent)\b|"
        rf"\bI\s+{_NOW}went\s+(?:freelance|self-employed)\b|"
        rf"\bI(?:'m| am)\s+{_NOW}(?:self-employed|freelance|a freelancer|working for myself)\b|"
        rf"\bI(?:'ve| have)\s+{_NOW}(?:set up on my own|started my own business|gone out on my own)\b|"
        rf"\bI\s+{_NOW}work for myself\b",
        _I,
    ),
    "fr": re.compile(
        rf"\bje me suis\s+{_NOW}(?:mise?\s+)?(?:à mon compte|en (?:auto|micro)-?entrepreneur|en freelance|"
        rf"en indépendante?)\b|"
        rf"\bje suis\s+{_NOW}(?:à mon compte|auto-?entrepreneur|micro-?entrepreneur|freelance|indépendante?)\b|"
        rf"\bje travaille\s+{_NOW}à mon compte\b",
        _I,
    ),
    "es": re.compile(
        rf"\bme he\s+{_NOW}(?:hecho|dado de alta como)\s+autónom[oa]\b|\bsoy\s+{_NOW}autónom[oa]\b|"
        rf"\btrabajo\s+{_NOW}por (?:mi )?cuenta(?: propia)?\b|\bme he puesto\s+{_NOW}por mi cuenta\b",
        _I,
    ),
    "de": re.compile(
        rf"\bich\s+(?:habe|hab)\s+mich\s+{_NOW}selbst(?:st)?ändig gemacht\b|"
        rf"\bich bin\s+{_NOW}(?:selbst(?:st)?ändig|freiberufler(?:in)?|freiberuflich)\b|"
        rf"\bich arbeite\s+{_NOW}freiberuflich\b",
        _I,
    ),
    "pt": re.compile(
        rf"\b(?:estou|trabalho|fiquei)\s+{_NOW}por conta própria\b|"
        rf"\bsou\s+{_NOW}(?:freelancer|trabalhador(?:a)? independente)\b|\bmontei o meu próprio negócio\b",
        _I,
    ),
}
#: The user's words said of the user (the fact must be supported by the turn: verify.py): the first-person opening
#: and possessive of each language, in the third person.
_THIRD = {
    "fr": (
        ("je me suis", "L'utilisateur s'est"),
        ("je suis", "L'utilisateur est"),
        ("je travaille", "L'utilisateur travaille"),
        (" mon ", " son "),
    ),
    "es": (
        ("me he puesto", "El usuario se ha puesto"),
        ("me he", "El usuario se ha"),
        ("soy", "El usuario es"),
        ("trabajo", "El usuario trabaja"),
        (" mi ", " su "),
    ),
    "de": (
        ("ich habe mich", "Der Nutzer hat sich"),
        ("ich hab mich", "Der Nutzer hat sich"),
        ("ich bin", "Der Nutzer ist"),
        ("ich arbeite", "Der Nutzer arbeitet"),
    ),
    "pt": (
        ("estou", "O usuário está"),
        ("trabalho", "O usuário trabalha"),
        ("fiquei", "O usuário ficou"),
        ("sou", "O usuário é"),
        ("montei o meu", "O usuário montou o seu"),
    ),
}


def _said_of_user(span: str, lang: str) -> str:
    """The matched words as a fact about the user ("Je me suis mis à mon compte" → "L'utilisateur s'est mis à son
    compte.")."""
    if lang == "en":
        text = third_person(span)
    else:
        text = span
        for mine, theirs in _THIRD[lang]:
            if mine.startswith(" "):
                text = text.replace(mine, theirs)
            elif fold(text).startswith(fold(mine)):
                text = theirs + text[len(mine) :]
    return text[:1].upper() + text[1:].rstrip(" .,") + "."


#: A wish, not a change made ("je voudrais me mettre à mon compte", "quiero ser autónomo", "ich will mich …").
_WISH = re.compile(
    r"\b(?:want to|would like|wish|plan to|planning|voudrais|veux|aimerais|compte|quiero|quisiera|me gustaría|"
    r"will|möchte|würde|quero|gostaria)\b",
    _I,
)


def self_employment(turns: Sequence[SourceTurn]) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """The identity.employer facts of the module docstring, each with the sentence it was read from (in the
    language of the words matched)."""
    found: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for turn in turns:
        for sentence in sentences(turn.user.replace("’", "'")):
            if sentence.rstrip().endswith("?") or HYPOTHETICAL.search(sentence) or HEDGE.search(sentence):
                continue
            read = next(((lang, m) for lang, rule in _SAID.items() if (m := rule.search(sentence))), None)
            if read is None or _WISH.search(sentence[: read[1].start()]):
                continue
            said, match = read
            value = match.group(0)
            fact = GroundedFact(
                FactKind.IDENTITY,
                _said_of_user(value, said),
                "identity.employer",
                value,
                (turn.index,),
                0.9,
                True,
                "extractor",
                said,
            )
            found.append((fact, (sentence,)))
            break
    return found


__all__ = ["self_employment"]
