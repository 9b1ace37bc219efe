"""A standing instruction said the other way round: "A partir de agora podes usar emojis" after "Instrução permanente
do usuário: responde-me sempre em português, e sem emojis"; "actually do send me reminders" after "Standing
instruction from the user: don't send me reminders"; "stop giving me romaji" after "always give me romaji too".

The slot is the thing the instruction is about (a content word both say, stemmed: "emojis"), and the value is its
polarity: negated when a negation stands within `NEAR` words before it ("sem emojis", "never suggest bananas",
"don't send reminders", "stop giving me romaji"), allowed otherwise. A user sentence that allows or asks for the thing
("you can use", "podes usar", "do send", "please send", "tu peux", "puedes", "du kannst"; `_ALLOWS`) flips an older
instruction that negates it, and a sentence that forbids it, the negation opening a clause ("stop giving me romaji",
"no more emojis", "sem emojis"; `_FORBIDS`; not "I don't have time for …"), flips an older instruction that allows
it.

The older instruction's other parts still hold ("responde-me sempre em português"): the part about the thing is cut
and the rest is stored again as the standing instruction (the older row is retired either way). A sentence about
another thing ("you can use metric" after "no emojis"), a question, or a hypothetical flips nothing; nor does a
sentence that says the same polarity again ("still no emojis").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import STOP_WORDS, fold, light_stem

_I = re.IGNORECASE
#: How many words before a thing a negation may stand ("sem emojis", "don't ever send me reminders").
NEAR = 4
_NEGATION = frozenset(
    fold(w)
    for w in [
        "no",
        "not",
        "never",
        "don't",
        "dont",
        "stop",
        "without",
        "nothing",
        "none",
        "anymore",
        "sem",
        "nada",
        "nunca",
        "jamais",
        "não",
        "nao",
        "sin",
        "ni",
        "tampoco",
        "pas",
        "rien",
        "ne",
        "n'",
        "kein",
        "keine",
        "keinen",
        "keinem",
        "nicht",
        "ohne",
        "nie",
        "niemals",
        "aufhören",
        "arrête",
        "pare",
        "parar",
    ]
)
#: A sentence allowing or asking for a thing.
_ALLOWS = re.compile(
    r"\b(?:you can|you may|feel free to|go ahead and|do (?:send|use|give|tell|include|add|remind|write|call)|"
    r"please (?:send|use|give|tell|include|add|remind|write|call)|(?:start|keep) (?:sending|using|giving|adding)|"
    r"podes|pode|podem|pode usar|podes usar|puedes|puede|podés|tu peux|vous pouvez|du kannst|sie können|"
    r"ihr könnt|dürfen|darfst|manda|mandá|envía|envoie|schick|usa|use|utilise|benutze|verwende|"
    # allowed again: "bananas are back", "potassium isn't restricted any more"
    r"(?:is|are) back|(?:isn't|is not|aren't|are not) restricted any ?more|no longer restricted|allowed again|"
    r"de nuevo permitid[oa]s?|à nouveau autorisée?s?|wieder erlaubt|liberad[oa]s?)\b",
    _I,
)
#: A sentence forbidding a thing, said as an instruction: the negation opens a clause ("Stop giving me romaji",
#: "no more emojis", "sem emojis", "pas de majuscules"), not a statement of the user's ("I don't have time").
_FORBIDS = re.compile(
    r"(?:^|[,;:.!—–-]\s*|\b(?:please|and|now|so|actually|from now on|agora|ahora|maintenant|jetzt)\s+)"
    r"(?:stop|don't|do not|never|no more|no|sem|nada de|sin|nunca|pas de|plus de|arrête de|arrêtez de|jamais|"
    r"para de|pare de|deja de|hör auf|kein|keine|keinen|nie|não)\b",
    _I,
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
#: Where a clause ends: a negation reaches no further.
_CLAUSE = re.compile(r"[,;:.!?—–]")
#: Where an instruction's parts meet.
_PARTS = re.compile(r"\s*(?:[;]|,\s*(?:and|e|y|et|und)?)\s+|\s+(?:and|e|y|et|und)\s+(?=\w+\s)", _I)
#: Words an instruction says about how, never what it is about.
_FRAME = frozenset(
    light_stem(fold(w))
    for w in [
        "always",
        "never",
        "please",
        "use",
        "using",
        "send",
        "sending",
        "give",
        "giving",
        "keep",
        "answer",
        "reply",
        "write",
        "tell",
        "me",
        "my",
        "you",
        "your",
        "sempre",
        "usar",
        "usa",
        "responde",
        "responde-me",
        "escreve",
        "manda",
        "sempre",
        "siempre",
        "usa",
        "responde",
        "escribe",
        "toujours",
        "utilise",
        "réponds",
        "écris",
        "immer",
        "benutze",
        "antworte",
        "schreib",
        "ever",
        "from",
        "now",
        "on",
        "agora",
        "ahora",
        "maintenant",
        "jetzt",
        "partir",
        "occasionally",
        "sometimes",
        "vez",
        "quando",
        "importo",
        "time",
    ]
)


@dataclass(frozen=True)
class Flip:
    """An older instruction (its index) the sentence flips, and what of it still holds ("" when nothing does)."""

    index: int
    rest: str


#: How a standing instruction opens in each language ("Standing instruction from the user: ").
_PREFIXES = tuple(
    render("instruction", lang, "\x00").split("\x00")[0] for lang in ("en", "fr", "es", "de", "pt")
)


def _polarity(text: str) -> dict[str, bool]:
    """Each content stem of a text → whether a negation stands within `NEAR` words before it, in its clause (a
    comma ends a negation's reach: "stop giving me romaji, kana only" negates romaji, not kana)."""
    out: dict[str, bool] = {}
    for clause in _CLAUSE.split(text):
        words = [fold(w) for w in _WORD.findall(clause)]
        for at, word in enumerate(words):
            stem = light_stem(word)
            if word in STOP_WORDS or word in _NEGATION or stem in _FRAME or len(word) < 4:
                continue
            negated = any(w in _NEGATION or w.endswith("n't") for w in words[max(0, at - NEAR) : at])
            out[stem] = out.get(stem, False) or negated
    return out


def _rest(body: str, thing: str) -> str:
    """The instruction's parts that are not about the thing, joined ("…, e sem emojis" goes, "responde-me sempre em
    português" stays). When the thing is in the first part, the one holding the instruction's verb ("never suggest
    bananas, potatoes unless double-boiled, or tomato-heavy stuff"), the rest is that verb's list and what still
    holds of it is unknown (the user lifted a reason: "potassium isn't restricted any more"): nothing is kept."""
    parts = [p for p in _PARTS.split(body) if p and p.strip()]
    about = [thing in {light_stem(fold(w)) for w in _WORD.findall(p)} for p in parts]
    if not parts or about[0]:
        return ""
    kept = [p.strip(" ,.") for p, said in zip(parts, about, strict=True) if not said]
    kept = [p for p in kept if len(_WORD.findall(p)) >= 2]
    return ", ".join(kept)


def flips(sentence: str, known: Sequence[str]) -> list[Flip]:
    """The older standing instructions the sentence says the other way round (module docstring)."""
    said = _polarity(sentence)
    if not said:
        return []
    allows = bool(_ALLOWS.search(sentence))
    forbids = bool(_FORBIDS.search(sentence))
    out: list[Flip] = []
    for index, text in enumerate(known):
        prefix = next((p for p in _PREFIXES if text.startswith(p)), None)
        if prefix is None:
            continue
        body = text[len(prefix) :].rstrip(" .")
        held = _polarity(body)
        for thing, negated in held.items():
            if thing not in said:
                continue
            now_negated = said[thing]
            if (negated and not now_negated and allows) or (not negated and now_negated and forbids):
                rest = _rest(body, thing)
                out.append(Flip(index, f"{prefix}{rest}." if rest else ""))
                break
    return out


__all__ = ["NEAR", "Flip", "flips"]
