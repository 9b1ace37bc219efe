"""A change that names its slot: "he cambiado de harina: ahora compro a Harinas Serrano, el Molino Aurora cerró",
"Mudei de fornecedor: a Doce Minas atrasou três entregas, agora compro no Empório Cacau BH", "I've switched
suppliers, I'm ordering from Glasshouse Glass now".

The user says which slot changed (the noun after "changed", "switched", "cambiado de", "changé de", "mudei de",
"gewechselt"), and the new value, a name said with "now" (or its kin in five languages). The older facts the change
retires are those about that slot: a fact holding the slot's noun (same stem: "harina" in "Harina ecológica del Molino
Aurora") or a name the sentence says too ("fazer o pedido de chocolate na Doce Minas" when the sentence names Doce
Minas as the one left), which holds a name of its own and none of the new names (a fact already naming the new value
is the new state, not the old one).

Nothing is retired when the slot is a mind or a plan changed ("I changed my mind"), when no new name is said ("I
changed the tyres on the Volvo" leaves "The user drives a Volvo"), or when the change is for a while ("for now",
"this week").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.skeleton import masked
from memoryd.write.grounding.text import fold, light_stem

_I = re.IGNORECASE
_DET = r"(?:(?:my|our|the|a|de|d'|du|des|mon|ma|mes|notre|nos|mi|mis|el|la|los|las|meu|minha|o|a|os|as|do|da)\s*)?"
#: A change verb, then the slot's noun ("switched glass supplier": the head is the last word before a break).
_CHANGED = re.compile(
    rf"\b(?:changed|switched|swapped|change of|switch of|cambiado de|cambié de|cambiamos de|cambio de|changé de|"
    rf"changement de|change de|mudei de|mudámos de|mudamos de|troquei de|trocámos de|trocamos de|mudança de)\s+"
    rf"{_DET}(?P<noun>(?:[^\W\d_][\w'’-]*\s+){{0,2}}?[^\W\d_][\w'’-]*?)(?=\s*(?:[,.:;!—–-]|$|\s+(?:and|y|e|et|so|too|também|también|aussi)\b))",
    _I,
)
#: German: "(Wir haben) den Pflegedienst gewechselt", "ich wechsle die Praxis".
_GERMAN = re.compile(
    r"\b(?:(?:den|die|das|meinen|meine|unseren|unsere)\s+(?P<noun>\w+)\s+gewechselt|"
    r"wechsle\s+(?:den|die|das|meinen|meine)\s+(?P<noun2>\w+))\b",
    _I,
)
#: The new value said as holding now.
_NOW = re.compile(
    r"\b(?:now|from now on|instead|maintenant|désormais|ahora|a partir de ahora|jetzt|nun|ab sofort|agora|"
    r"a partir de agora)\b",
    _I,
)
_NOT_A_SLOT = re.compile(
    r"^(?:mind|minds|plan|plans|idea|ideas|opinion|avis|idée|opinión|idea|ideia|opinião|planes|planos)$", _I
)
#: A change for a while ("for now", "this week"). "Also" says the change is one more news ("Mudei de fornecedor
#: também"), not that a holder is added: the slot is named as changed.
_FOR_A_WHILE = re.compile(
    r"\b(?:for now|for the moment|this week|temporarily|pour l'instant|por ahora|de momento|vorerst|"
    r"por enquanto)\b",
    _I,
)


def _slot_noun(sentence: str) -> str:
    """The stem of the slot noun a change names, or ""."""
    match = _CHANGED.search(sentence)
    noun = ""
    if match is not None:
        noun = match.group("noun").split()[-1]
    else:
        german = _GERMAN.search(sentence)
        if german is not None:
            noun = german.group("noun") or german.group("noun2") or ""
    if not noun or _NOT_A_SLOT.match(noun):
        return ""
    return light_stem(fold(noun))


def _names(values: frozenset[str]) -> frozenset[str]:
    return frozenset(v for v in values if len(v) >= 3 and not any(ch.isdigit() for ch in v))


def slot_changes(sentence: str, known: Sequence[str]) -> tuple[list[int], frozenset[str]]:
    """(indices of the older facts a named slot change retires, the new names it says) (module docstring)."""
    noun = _slot_noun(sentence)
    if not noun or not _NOW.search(sentence) or _FOR_A_WHILE.search(sentence):
        return [], frozenset()
    said = masked(sentence)
    said_names = _names(said.values)
    retired: list[int] = []
    new_names: set[str] = set()
    for index, text in enumerate(known):
        old = masked(text)
        held = _names(old.values)
        fresh = said_names - held
        if not held or not fresh or any(name in fold(text) for name in fresh):
            continue
        about_slot = noun in {light_stem(w) for w in old.skeleton} | {light_stem(v) for v in held}
        if about_slot or (held & said_names):
            retired.append(index)
            new_names |= fresh
    return retired, frozenset(new_names)


__all__ = ["slot_changes"]
