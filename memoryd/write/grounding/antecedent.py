"""What a pronoun in a decision or task stands for: the user's words just before it, kept with the fact.

"Yeray lo está haciendo genial; he decidido ofrecerle contrato" decides about Yeray, but the rules read only the
clause after the semicolon, so the stored decision would say "offer him a contract" about no one. When a decision,
task or plan holds an object pronoun (English "it", "him", "them"; Spanish and Portuguese clitics "ofrecerle",
"comprá-lo", "dele"; German "ihn", "ihm"; French "lui", "leur"), the clause or sentence of the same turn said just
before it is its antecedent, and the fact keeps it: in its text (in parentheses) and in its evidence, so the
verifier checks those words against the user's turn like any other.

What precedes the value in its own sentence is its antecedent only when it names something; when it is just the
value's own subject and verb ("I have to book it before 10 April", "Je dois le rendre", "Tengo que entregarlo"), the
sentence said just before stands for the pronoun ("She needs a bloodborne pathogens course."), in every language.

Two elisions take the clause said just before in the same sentence the same way, with no pronoun to show them:

- an object left unsaid: a dated task or plan that is one verb and its time ("…, tenho de entregar até 20 de
  março", "…, I have to submit by Friday", "…, je dois rendre avant lundi", "…, tengo que entregar antes del 5",
  "…, ich muss bis Freitag abgeben") does what the clause before it names ("Estou a restaurar a fachada de uma
  casa em Miragaia");
- a date said only before it: a dated fact whose own words name no date, after a clause that does ("La commission
  menus se réunit le 9 avril, je dois présenter le plan bio", "Der TÜV ist am 10. Februar, erinner mich eine Woche
  vorher", "The audit is on 3 May, I need to prepare the ledgers") keeps that clause, which says what the date is.
"""

from __future__ import annotations

import re

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.text import fold, sentences

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
#: The words of a time phrase, five languages: prepositions of time, articles, "the", ordinal suffixes.
_TIME_WORDS = frozenset(
    fold(word)
    for language in (
        "by before until till on the of in at from to st nd rd th",
        "avant le la les au du de d jusqu jusqu'au d'ici en à",
        "antes del de el la hasta para en a",
        "bis zum zur am vor dem den der im ab",
        "até antes do da de o a no na em para",
    )
    for word in language.split()
)
_CLAUSE_BREAK = re.compile(r"[,;:]")
_DATE_DIGIT = re.compile(r"\d")


def _names_a_date(text: str) -> bool:
    """A digit or a month or weekday name (five languages) in `text`."""
    words = re.findall(r"[^\W\d_]+", fold(text))
    return bool(_DATE_DIGIT.search(text)) or any(w in MONTHS or w in WEEKDAYS for w in words)


def _object_left_unsaid(value: str) -> bool:
    """One verb and its time, nothing it acts on: "entregar até 20 de março", "submit by Friday"."""
    words = [w for w in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", fold(value)) if w not in _TIME_WORDS]
    rest = [w for w in words if w not in MONTHS and w not in WEEKDAYS]
    return _names_a_date(value) and len(rest) == 1


def _clause_before(value: str, turn_text: str) -> str:
    """The clause said just before `value` in its own sentence (past the value's own subject and modal)."""
    head = value.strip()[:24]
    for sentence in sentences(turn_text):
        at = sentence.find(head)
        if at < 0:
            continue
        parts = _CLAUSE_BREAK.split(sentence[:at])
        if len(parts) < 2 or len(parts[-1].split()) > 3:
            return ""  # no clause of its own before it, or the value's lead is a clause itself
        return parts[-2].strip()
    return ""


def elided_context(value: str, turn_text: str, *, dated: bool) -> str:
    """The clause before a dated fact whose object is left unsaid or whose date was said only there, else ""."""
    if not dated:
        return ""
    context = _clause_before(value, turn_text)
    if not context or len(context) > MAX_CONTEXT_CHARS or not _NAMES.search(context):
        return ""
    if _object_left_unsaid(value) or (_names_a_date(context) and not _names_a_date(value)):
        return context
    return ""


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
        lead = before.split(";")[-1].strip() if ";" in before else before
        if (";" in sentence[:at] or len(before.split()) >= 3) and _NAMES.search(lead):
            context = lead
        elif index > 0:  # the lead is the value's own subject and verb: the sentence before is the antecedent
            context = said[index - 1].strip().rstrip(".!")
        else:
            return ""
        if len(context) > MAX_CONTEXT_CHARS or not _NAMES.search(context):
            return ""
        return context
    return ""


__all__ = ["antecedent", "elided_context"]
