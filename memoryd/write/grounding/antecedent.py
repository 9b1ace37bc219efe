"""What a pronoun in a decision or task stands for: the user's words just before it, kept with the fact.

"Yeray lo está haciendo genial; he decidido ofrecerle contrato" decides about Yeray, but the rules read only the
clause after the semicolon, so the stored decision would say "offer him a contract" about no one. When a decision,
task or plan holds an object pronoun (English "it", "him", "them"; Spanish and Portuguese clitics "ofrecerle",
"comprá-lo", "dele"; German "ihn", "ihm"; French "lui", "leur"), the clause or sentence of the same turn said just
before it is its antecedent, and the fact keeps it: in its text (in parentheses) and in its evidence, so the
verifier checks those words against the user's turn like any other.
"""

from __future__ import annotations

import re

from memoryd.write.grounding.text import sentences

#: An object pronoun standing for something named before ("replace it", "ofrecerle", "a parte dele").
_PRONOUN = re.compile(
    r"\b(?:it|him|them)\b(?!['’]s)|"
    r"\b\w{3,}(?:ar|er|ir)(?:le|la|lo|les|los|las)\b|\b(?:lo|la|le|les|los|las)\s+(?:he|ha|hemos|han|voy|vamos|"
    r"quiero|queremos|tengo|tenemos|puedo|podemos|compro|vendo|llevo|cambio|dejo)\b|"
    r"\b\w+-(?:lo|la|los|las|lhe)\b|\b(?:dele|dela|deles|delas)\b|"
    r"\b(?:ihn|ihm|ihnen)\b|\b(?:lui|leur)\b|\b(?:je|j'|on|nous|tu)\s*(?:ne\s+)?(?:les|le|la|l')\s*(?!\d)\w+",
    re.IGNORECASE,
)
#: An antecedent worth keeping names something: a capitalised word or a noun-sized word.
_NAMES = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-ZÀ-ÖØ-Þ][\w'’-]+|\b\w{5,}\b")
MAX_CONTEXT_CHARS = 160


def antecedent(value: str, turn_text: str) -> str:
    """The clause or sentence said just before `value` in the user's turn when `value` holds an object pronoun
    (and that clause names something), else ""."""
    if not _PRONOUN.search(value):
        return ""
    said = sentences(turn_text)
    head = value.strip()[:24]
    for index, sentence in enumerate(said):
        at = sentence.find(head)
        if at < 0:
            continue
        before = sentence[:at].rstrip(" ,;:—-")
        if ";" in sentence[:at] or (before and len(before.split()) >= 3):
            context = before.split(";")[-1].strip() if ";" in before else before
        elif index > 0:
            context = said[index - 1].strip().rstrip(".!")
        else:
            return ""
        if len(context) > MAX_CONTEXT_CHARS or not _NAMES.search(context):
            return ""
        return context
    return ""


__all__ = ["antecedent"]
