"""A reminder asked for as a question: "Remind me to send Delyth my reflective log by Friday?", "Tu peux me rappeler
de facturer l'acompte avant vendredi ?", "¿Me puedes recordar que pague el alquiler el día 5?", "Kannst du mich
erinnern, die Miete bis Freitag zu zahlen?", "Podes lembrar-me de pagar a renda até sexta?".

Rule: a user sentence that ends in "?" and is a request for a reminder — the bare "remind me to …?" or "can you /
tu peux / me puedes / kannst du / podes" + the reminding verb with the user as its object — followed by what to do,
is the user's action item, phrased with the "remind" template and the dates it names resolved.

Not read: a reminder of information ("Can you remind me what the dose was?", "tu peux me rappeler quand …"), someone
else reminded ("Can you remind Tom to …?", "Should I remind her to …?"), a hypothetical ("If I forget, can you remind
me to …?"), a reminder the statement rules already read (the same action item is not stored twice).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.lexicon import HYPOTHETICAL
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.task_facts import repeats, task_fact, task_words
from memoryd.write.grounding.text import sentences

_I = re.IGNORECASE
_LEAD = r"^(?:[¿\s]*)(?:(?:and|also|so|oh|ok|okay|right|et|y|und|e|aussi|también|auch|também)[,\s]+)*"
_ASKED = {
    "en": re.compile(
        rf"{_LEAD}(?:(?:can|could|would|will) you (?:please )?)?(?:please )?remind me (?:to|about) "
        r"(?P<v>[^?]+?)[,\s]*(?:please)?\s*\?$",
        _I,
    ),
    "fr": re.compile(
        rf"{_LEAD}(?:tu peux|tu pourrais|peux-tu|pourrais-tu|vous pouvez|pouvez-vous|pourriez-vous) me rappeler "
        r"(?P<v>(?:de |d')[^?]+?)\s*\?$",
        _I,
    ),
    "es": re.compile(
        rf"{_LEAD}(?:me (?:puedes|podrías|puede|podría) recordar|(?:puedes|podrías|puede|podría) recordarme|"
        r"me recuerdas) (?:que |de )?(?P<v>[^?]+?)\s*\?$",
        _I,
    ),
    "de": re.compile(
        rf"{_LEAD}(?:kannst du|könntest du|können sie|könnten sie|würdest du) mich (?:bitte )?(?:daran )?"
        r"erinnern,? (?:dass )?(?P<v>[^?]+?)\s*\?$",
        _I,
    ),
    "pt": re.compile(
        rf"{_LEAD}(?:podes|pode|podias|poderia|consegues|você pode) (?:me lembrar|lembrar-me) (?:de |que )"
        r"(?P<v>[^?]+?)\s*\?$",
        _I,
    ),
}
#: What is asked back, not what to do: "remind me what / when / quel / qué / was / o que …".
_INFORMATION = re.compile(
    r"^(?:de |d')?(?:what|when|where|who|how|which|why|quoi|quand|où|qui|comment|quel|quelle|qué|cuándo|dónde|"
    r"quién|cómo|cuál|was|wann|wo|wer|wie|welche|o que|quando|onde|quem|como|qual)\b",
    _I,
)


def asked_reminders(
    turns: Sequence[SourceTurn], session_lang: str, session_time_ms: int, read: Sequence[GroundedFact]
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Action items asked for as a reminder question, skipping those `read` already holds."""
    found: list[tuple[GroundedFact, tuple[str, ...]]] = []
    pattern = _ASKED.get(session_lang)
    if pattern is None:
        return found
    for turn in turns:
        held = [task_words(f.value) for f in read if f.kind is FactKind.ACTION_ITEM and turn.index in f.turns]
        for sentence in sentences(turn.user):
            match = pattern.search(sentence.strip())
            if match is None or HYPOTHETICAL.search(sentence) or _INFORMATION.match(match["v"]):
                continue
            value = re.sub(r"^(?:de |d')", "", match["v"].strip(" ,"), flags=_I)
            words = task_words(value)
            if not words or repeats(words, held):
                continue
            held.append(words)
            fact = task_fact(value, "remind", turn.index, session_lang, session_time_ms)
            found.append((fact, (sentence,)))
    return found


__all__ = ["asked_reminders"]
