"""A state the user says no longer holds: "I'm no longer a trainee from November", "I'm not CEO any more", "je ne
suis plus bénévole", "ya no soy jefa de cocina", "ich bin kein Azubi mehr", "já não sou treinadora", "I don't work
at the library any more"; or left: "I've also quit the call centre completely", "j'ai quitté Kerhervé", "he dejado
el coro", "ich habe den Verein verlassen", "saí da cozinha de casa".

The sentence names the state (`_STATE`: what follows "I'm no longer", "not … any more" and their kin in five
languages), and an older fact about the user that states it (its content words, stemmed, all in the older fact:
"a trainee" in "The user is a second-year trainee solicitor at Pembury Lowe") held the old value: it is retired.
Only facts of the user's own go ("The user is …", "The user's answer about …", "Plan: …"); a standing instruction
or a fact about someone in the user's life ("The user's brother is a trainee pilot", "Frère de l'utilisateur : …")
naming the same word stays.

A verbless "back to X" right after a sentence that left or dropped something ("I've dropped Fresha, too pricey. Back
to a paper diary plus Google Calendar") says what replaces it: that is the new state (`returned_to`, revisions.py);
a thing dropped ("dropped", "ditched", "laissé tomber", "cancelé", "larguei") is read as left only then.

Not a negated state: "not" without "any more" or "no longer" ("I'm not a morning person" is a trait, said now, not
a change), someone else ("she's no longer a trainee"), a question or a hypothetical (revisions.py reads only the
user's statements).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.lexicon import RELATIONS
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import STOP_WORDS, fold, light_stem

_I = re.IGNORECASE
_THING = r"([^\W\d_][\w'’ -]{1,50}?)"
_END = r"(?=\s*(?:[,.;:!?]|$|\s+(?:from|since|as of|now|depuis|desde|seit|ab|a partir)\b))"
#: A state of the user's said to hold no longer.
_STATE = re.compile(
    "|".join(
        (
            rf"\b(?:i'm|i am|we're|we are)\s+no longer\s+(?:an?\s+|the\s+)?{_THING}{_END}",
            rf"\b(?:i'm|i am|we're|we are)\s+not\s+(?:an?\s+|the\s+)?{_THING}\s+any ?more\b",
            rf"\bi\s+(?:no longer|don't|do not)\s+(?:work|teach|live|play|coach|volunteer|drive)\s+"
            rf"(?:at|in|for|with)?\s*(?:the\s+)?{_THING}(?:\s+any ?more)?{_END}",
            rf"\bje ne suis plus\s+(?:un\s+|une\s+|le\s+|la\s+)?{_THING}{_END}",
            rf"\b(?:ya no soy|ya no estoy)\s+(?:un\s+|una\s+|el\s+|la\s+)?{_THING}{_END}",
            rf"\bno soy\s+(?:un\s+|una\s+)?{_THING}\s+ya\b",
            rf"\bich bin\s+(?:kein(?:e|en)?|nicht mehr)\s+{_THING}(?:\s+mehr)?{_END}",
            rf"\b(?:já não sou|não sou mais|deixei de ser)\s+(?:um\s+|uma\s+|o\s+|a\s+)?{_THING}{_END}",
            # Off a treatment or a regime: "I'm off dialysis" (not "I'm off to Paris", a trip).
            rf"\b(?:i'm|i am)\s+(?:now\s+|finally\s+)?off\s+(?!to\b|for\b|sick\b|work\b)(?:the\s+|my\s+)?{_THING}{_END}",
            # Left or given up: "I've also quit the call centre completely", "j'ai quitté Kerhervé".
            rf"\b(?:i've|i have|i|we've|we have|we)\s+(?:also\s+|finally\s+|just\s+)?(?:quit|left|given up|gave up|sold)\s+"
            rf"(?:the\s+|my\s+|our\s+)?{_THING}{_END}",
            rf"\b(?:j'ai|on a|nous avons)\s+(?:aussi\s+|enfin\s+)?(?:quitté|arrêté|lâché)\s+(?:le\s+|la\s+|l'|mon\s+|ma\s+)?"
            rf"{_THING}{_END}",
            rf"\b(?:he|hemos)\s+(?:dejado|abandonado)\s+(?:el\s+|la\s+|mi\s+)?{_THING}{_END}",
            rf"\b(?:dejé|dejamos)\s+(?:el\s+|la\s+|mi\s+)?{_THING}{_END}",
            rf"\bich habe\s+(?:den\s+|die\s+|das\s+|meinen\s+|meine\s+)?{_THING}\s+(?:verlassen|gekündigt|aufgegeben)\b",
            rf"\b(?:saí|saímos)\s+(?:d[aoe]s?\s+)?{_THING}{_END}",
            rf"\b(?:deixei|deixámos|deixamos)\s+(?:o\s+|a\s+|os\s+|as\s+)?{_THING}{_END}",
        )
    ),
    _I,
)
#: A thing dropped ("I've dropped Fresha", "j'ai laissé tomber …", "cancelé …", "larguei …"): read as left only
#: when a "back to X" follows (`returned_to`), since "We've dropped Ravenscourt, our beans now come from Hillside
#: Coffee" is read whole as a change by revisions.py.
_DROPPED = re.compile(
    "|".join(
        (
            rf"\b(?:i've|i have|i|we've|we have|we)\s+(?:also\s+|finally\s+|just\s+)?(?:dropped|ditched|cancelled|"
            rf"canceled|stopped using)\s+(?:the\s+|my\s+|our\s+)?{_THING}{_END}",
            rf"\b(?:j'ai|on a|nous avons)\s+(?:aussi\s+|enfin\s+)?(?:laissé tomber|abandonné|résilié)\s+"
            rf"(?:le\s+|la\s+|l'|mon\s+|ma\s+)?{_THING}{_END}",
            rf"\b(?:abandoné|cancelé|he cancelado|hemos cancelado)\s+(?:el\s+|la\s+|mi\s+)?{_THING}{_END}",
            rf"\b(?:ich habe|wir haben)\s+(?:den\s+|die\s+|das\s+)?{_THING}\s+(?:abgeschafft|abbestellt|gekündigt)\b",
            rf"\b(?:larguei|cancelei|abandonei)\s+(?:o\s+|a\s+|os\s+|as\s+)?{_THING}{_END}",
        )
    ),
    _I,
)
#: A fact about someone in the user's life ("The user's brother is …", "Frère de l'utilisateur : …"): its
#: relation noun opens it.
_RELATION_FACT = re.compile(
    r"^(?:The user['’]s (?P<en>[\w-]+)|(?P<other>[\w-]+) (?:de l'utilisateur|del usuario|des Nutzers|do usuário|"
    r"do utilizador))\b",
    re.IGNORECASE,
)
#: How a standing instruction opens (it is the user's wish about answers, not a state of theirs).
_INSTRUCTION = tuple(
    render("instruction", lang, "\x00").split("\x00")[0] for lang in ("en", "fr", "es", "de", "pt")
)


def _about_user(text: str) -> bool:
    """Whether an older fact states something of the user's own: not a relation's fact, not an instruction."""
    if text.startswith(_INSTRUCTION):
        return False
    relation = _RELATION_FACT.match(text)
    if relation is None:
        return True
    noun = (relation.group("en") or relation.group("other") or "").lower()
    return not any(form in RELATIONS for form in (noun, fold(noun), noun.removesuffix("s")))


_WORD = re.compile(r"[^\W\d_][\w'’-]*")
#: Words of manner, not of the thing ("quit the call centre completely").
_MANNER = re.compile(
    r"\b(?:completely|entirely|for good|altogether|at last|too|as well|complètement|définitivement|aussi|"
    r"del todo|definitivamente|también|komplett|endgültig|auch|completamente|de vez|também)\b",
    _I,
)
#: The most content words a thing left may have (a longer phrase says more than what was left).
_MOST_WORDS = 4


def _stems(text: str) -> frozenset[str]:
    return frozenset(light_stem(fold(w)) for w in _WORD.findall(text) if fold(w) not in STOP_WORDS)


def _held(stem: str, held: frozenset[str]) -> bool:
    """A stem the older fact says, or the head of one of its compounds ("dialysis" of "haemodialysis")."""
    return stem in held or (len(stem) >= _HEAD_CHARS and any(w.endswith(stem) for w in held))


#: The shortest stem read as the head of a compound.
_HEAD_CHARS = 5


def negated_states(sentence: str, known: Sequence[str], *, returned: bool = False) -> list[int]:
    """Indices of the older facts about the user stating what the sentence says no longer holds; `returned`: a
    "back to X" follows, so a thing dropped is left too."""
    out: list[int] = []
    found = [*_STATE.finditer(sentence), *(_DROPPED.finditer(sentence) if returned else ())]
    for match in found:
        thing = next(g for g in match.groups() if g)
        stems = _stems(_MANNER.sub(" ", thing)) - {"mehr", "more"}
        if not stems or len(stems) > _MOST_WORDS:
            continue
        for index, text in enumerate(known):
            held = _stems(text)
            if index not in out and _about_user(text) and all(_held(stem, held) for stem in stems):
                out.append(index)
    return out


#: An older fact stating the user's profession at a place ("The user is a marine biologist at the university in
#: Hilo", "L'utilisateur est menuisier chez Kerhervé à Quimperlé").
_PROFESSION = re.compile(
    r"^(?P<subject>The user is|L'utilisateur est|El usuario es|Der Nutzer ist|O usuário é|O utilizador é)\s+"
    r"(?P<role>[^,.;:()]{2,60}?)\s+(?:at|with|for|chez|à|au|en|bei|an|na|no|em)\s+(?P<place>[^;()]+?)\.?$",
    _I,
)


def states_profession(text: str) -> bool:
    """Whether a fact states the user's profession at a place ("The user is a project manager at …")."""
    return _PROFESSION.match(text.strip()) is not None


def trade_of(text: str) -> tuple[str, frozenset[str]]:
    """The profession an older fact states at a place, as a fact of its own, and its stems ("The user is a marine
    biologist.", {"marin", "biologist"}); ("", {}) when the fact states none."""
    held = _PROFESSION.match(text.strip())
    if held is None or not _stems(held.group("role")):
        return "", frozenset()
    return f"{held.group('subject')} {held.group('role').strip()}.", _stems(held.group("role"))


def said_stems(sentence: str) -> frozenset[str]:
    """The content stems of a sentence, as trade_of gives a role's."""
    return _stems(sentence)


def profession_kept(sentence: str, text: str) -> str:
    """The profession an older fact states beside the place the sentence says the user left, as a fact of its own
    ("The user is a marine biologist." once "I've left the university" retires "The user is a marine biologist at
    the university in Hilo."), else "". Leaving an institution ends the affiliation, not the trade; a state said
    to hold no longer that names the role itself ("I'm no longer a trainee") keeps nothing."""
    held = _PROFESSION.match(text.strip())
    if held is None:
        return ""
    role, place = _stems(held.group("role")), _stems(held.group("place"))
    if not role:
        return ""
    for match in _STATE.finditer(sentence):
        thing = next(g for g in match.groups() if g)
        stems = _stems(_MANNER.sub(" ", thing)) - {"mehr", "more"}
        if stems and all(_held(stem, place) for stem in stems) and not any(_held(s, role) for s in stems):
            return f"{held.group('subject')} {held.group('role').strip()}."
    return ""


#: "Back to a paper diary plus Google Calendar", "Retour au carnet papier", "De vuelta al Excel", "Zurück zum
#: Papierkalender", "De volta ao caderno": what the user returned to, said without a verb.
_BACK_TO = re.compile(
    r"^(?:(?:and|so|et|donc|y|pues|und|also|e|então)\s+)?(?:(?:we're|we are|i'm|i am|going|we went|i went)\s+)?"
    r"(?:back to|retour (?:à|au|aux)|de vuelta (?:a|al)|vuelvo (?:a|al)|volvemos (?:a|al)|zurück (?:zu|zum|zur)|"
    r"de volta (?:a|ao|à|aos|às)|voltei (?:a|ao|à|para))\s+(?P<v>[^.;!?]{2,80}?)\s*[.!]*$",
    _I,
)


def returned_to(sentence: str) -> str:
    """What a verbless "back to X" sentence says the user returned to, or "" (read only after a sentence that left
    something: revisions.py)."""
    found = _BACK_TO.match(sentence.strip())
    return found.group("v").strip() if found else ""


__all__ = ["negated_states", "profession_kept", "returned_to", "said_stems", "states_profession", "trade_of"]
