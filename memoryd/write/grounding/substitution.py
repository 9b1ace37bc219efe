"""A value swapped inside an older fact that says more than that value: "le mardi au lieu du mercredi" after "Je roule
le mercredi et le dimanche avec le club", "dienstags statt mittwochs" after "Ich besuche Oma mittwochs und samstags".

The older fact mixes a stale part (Wednesday) with parts that still hold (Sunday, the club). Retiring it loses the
true parts; keeping it keeps the stale one. A sentence that names the new value against the old one ("X instead of
Y", "X, not Y", "X au lieu de Y", "X en vez de Y", "X statt Y", "X em vez de Y") says exactly which part changed,
so the older fact is retired and its text, with that one value swapped, is stored as the current fact.

The same holds for the old value said as no longer holding and the new one as holding now ("Ainhoa ya no viene los
domingos, ahora viene los sábados", "no longer …, now …", "ne … plus …, maintenant …", "nicht mehr …, jetzt …", "já
não …, agora …"); there the older fact must also share a word with the sentence (who or what changed: "Ainhoa"), so
"my neighbour no longer comes on Sundays, now on Saturdays" swaps nothing in "the user rides on Sundays".

Both values must be of one type: a weekday for a weekday, a month for a month, a number for a number, a name for a
name. The older fact must state the old value and not the new one (a fact already saying Tuesday needs nothing), and
no other older fact may state the old value too (which one changed would be unknown: none is chosen). A question or
a hypothetical swaps nothing (revisions.py reads only the user's statements).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.text import STOP_WORDS, fold

_I = re.IGNORECASE
_PLURAL = r"(?:s|es)?"
_MONTH = "|".join(sorted((re.escape(m) for m in MONTHS if len(m) > 3), key=len, reverse=True))
_ACCENTED = {"miercoles": "mi[eé]rcoles", "sabado": "s[aá]bado", "terca-feira": "ter[cç]a-feira"}
_WEEKDAY_RE = "|".join(sorted((_ACCENTED.get(w, re.escape(w)) for w in WEEKDAYS), key=len, reverse=True))
#: A value as said in a sentence: a weekday (plural too), a month, a number (an ordinal too), or a capitalised name.
_VALUE = (
    rf"(?:(?:{_WEEKDAY_RE}){_PLURAL}|(?:{_MONTH})|\d{{1,4}}(?:[.,:h]\d{{1,2}})?(?:st|nd|rd|th|er|e|º|ª)?|"
    r"(?-i:[A-ZÀ-ÖØ-Þ][\w'’-]+(?: [A-ZÀ-ÖØ-Þ][\w'’-]+){0,2}))"
)
_ARTICLE = r"(?:(?:on|the|a|le|la|les|l'|du|des|el|los|las|del|am|an|dem|den|der|die|o|os|as|do|da|dos|das|no|na|nos|nas)\s+)?"
_INSTEAD = (
    r"(?:instead of|rather than|and not|but not|not|au lieu d[eu]|au lieu de la|au lieu des|plutôt que|et pas|"
    r"pas|en vez de|en vez del|en lugar de|en lugar del|y no|no|statt|anstatt|und nicht|nicht|em vez de|em vez do|"
    r"em vez da|em vez dos|em vez das|ao invés de|e não|não)"
)
#: "X instead of Y", "X, not Y", "X au lieu du Y", "X statt Y".
_SWAP = re.compile(
    rf"(?<![\w'’:.,-])(?P<new>{_VALUE})(?![\w'’:-])\s*,?\s+{_INSTEAD}\s+{_ARTICLE}(?P<old>{_VALUE})(?![\w'’:-])",
    _I,
)


_RESOLVED = re.compile(r"^\s*\(\d{4}-\d{2}(?:-\d{2})?\)")


@dataclass(frozen=True)
class Swap:
    """An older fact (its index among the agent's facts) and its text with the old value swapped for the new."""

    index: int
    text: str
    new_value: str
    #: The value swapped out, as said.
    old_value: str = ""


def _kind(value: str) -> str:
    word = fold(value).rstrip(".")
    base = re.sub(r"(?:es|s)$", "", word)
    if word in WEEKDAYS or base in WEEKDAYS:
        return "weekday"
    if word in MONTHS:
        return "month"
    if word[:1].isdigit():
        return "number"
    # "And", "Mais", "Pero" open a sentence: a function word is no name.
    named = value[:1].isupper() and not any(w in STOP_WORDS for w in word.split())
    return "name" if named else ""


def _stem(value: str) -> str:
    """A weekday's singular, a number's digits: what the older fact must state ("mittwochs" states Mittwoch)."""
    word = fold(value)
    if _kind(value) == "weekday":
        base = re.sub(r"(?:es|s)$", "", word)
        return base if base in WEEKDAYS else word
    return re.sub(r"(?:st|nd|rd|th|er|e|º|ª)$", "", word) if word[:1].isdigit() else word


def _find(text: str, value: str) -> re.Match[str] | None:
    """Where a fact states a value: the word itself, a weekday in the plural too, folded."""
    pattern = rf"(?<![\w'’:.,-]){re.escape(_stem(value))}(?:{_PLURAL}|(?:st|nd|rd|th|er|e|º|ª))?(?![\w'’:-])"
    return re.search(pattern, fold(text), _I)


def _form(new: str, old: str) -> str:
    """The new weekday in the old one's form: singular or plural, capitalised or not ("jeden Mittwoch" with
    "dienstags" said → "jeden Dienstag")."""
    if _kind(new) != "weekday":
        return new
    base = _stem(new)
    word = new[: len(base)] if fold(new[: len(base)]) == base else new
    if fold(old) not in WEEKDAYS:
        word = new  # the old one was a plural ("Thursdays", "mittwochs"): the new one as said
    return word[:1].upper() + word[1:] if old[:1].isupper() else word[:1].lower() + word[1:]


#: "Ainhoa ya no viene los domingos, ahora viene los sábados", "she no longer comes on Sundays, now on Saturdays",
#: "il ne vient plus le dimanche, maintenant le samedi", "sie kommt nicht mehr sonntags, jetzt samstags", "já não
#: vem ao domingo, agora vem ao sábado": the old value said as no longer holding, then the new one as holding now.
_NO_LONGER = re.compile(
    rf"\b(?:no longer|not any ?more|ya no|plus|nicht mehr|já não|ja nao|não mais)\b[^.;!?]{{0,40}}?{_ARTICLE}"
    rf"(?<![\w'’-])(?P<old>{_VALUE})(?![\w'’:-])[^.;!?,]{{0,20}}[,;]\s*(?:(?:but|pero|mais|aber|mas)\s+)?"
    rf"(?:now|ahora|maintenant|désormais|jetzt|nun|agora)\b[^.;!?]{{0,40}}?{_ARTICLE}(?<![\w'’-])(?P<new>{_VALUE})"
    r"(?![\w'’:-])",
    _I,
)
_MIN_SHARED_CHARS = 3


def _shares_subject(sentence: str, fact: str, old: str, new: str) -> bool:
    """Whether an older fact shares a word of three letters or more (no function word) with the sentence besides
    the two values: who or what the change is about ("Ainhoa")."""
    values = {_stem(old), _stem(new), fold(old), fold(new)}
    said = {w for w in re.findall(r"[^\W\d_]+", fold(sentence)) if len(w) >= _MIN_SHARED_CHARS}
    held = {w for w in re.findall(r"[^\W\d_]+", fold(fact)) if len(w) >= _MIN_SHARED_CHARS}
    return bool((said & held) - values - STOP_WORDS)


def swaps(sentence: str, known: Sequence[str]) -> list[Swap]:
    """The older facts a "new instead of old" or "no longer old, now new" sentence swaps one value in (module
    docstring)."""
    out: list[Swap] = []
    found = [(m.group("new"), m.group("old"), False) for m in _SWAP.finditer(sentence)]
    found += [(m.group("new"), m.group("old"), True) for m in _NO_LONGER.finditer(sentence)]
    for new, old, needs_subject in found:
        kind = _kind(new)
        if not kind or kind != _kind(old) or _stem(new) == _stem(old):
            continue
        holding = [
            i
            for i, text in enumerate(known)
            if _find(text, old)
            and not _find(text, new)
            and (not needs_subject or _shares_subject(sentence, text, old, new))
        ]
        if len(holding) != 1:
            continue
        index = holding[0]
        text = known[index]
        match = _find(text, old)
        if match is None or len(fold(text)) != len(text):
            continue  # folding changed the text's length: positions would not line up
        # A resolved date the writer appended to the old value ("mercredi (2026-04-15)") went with it.
        rest = _RESOLVED.sub("", text[match.end() :], count=1)
        out.append(
            Swap(
                index, text[: match.start()] + _form(new, text[match.start() : match.end()]) + rest, new, old
            )
        )
    return out


__all__ = ["Swap", "swaps"]
