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

A subject left unsaid stands for the same: a dated plan opening with an event verb ("Starts 9 March, online modules
plus two practical days") or pointing at a place with "there" ("Empiezo a dar clases ahí el 5 de octubre", "j'y
commence lundi", "ich fange dort am 3. an", "começo lá a 9"), the same thing again ("Same date, 28 March", "Même
date", "Misma fecha"), or a bare "the <noun> is <date>" ("L'examen est le mardi 12 mai" after "Je passe le permis
poids lourd"; "The exam is on 12 May", "El examen es el 12", "Die Prüfung ist am 12.", "O exame é a 12") takes the
sentence said just before it.

A standing instruction about people named before ("I'll just call them the boys. I'd rather you never use their
names", "ne cite jamais leurs noms", "no uses los nombres de ellos", "nunca uses os nomes deles") takes the sentence
that names them: only a third-person possessive counts ("keep it short" has no antecedent).

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
#: The subject left unsaid: a dated plan opening with an event verb ("Starts 9 March, online modules …" after "It's
#: an anaesthesia certificate"; "Commence le 3 mai", "Empieza el 5", "Beginnt am 3. Mai", "Começa a 9 de março"), or
#: a place said as "there" ("Empiezo a dar clases ahí el 5 de octubre" after "Estudio Arrabal, en barrio Güemes";
#: "j'y commence", "dort", "lá"; English "there" only as a place, never "there is").
_UNSAID_SUBJECT = re.compile(
    r"^(?:starts|begins|ends|finishes|opens|closes|runs|kicks off|commence|débute|démarre|finit|se termine|ouvre|"
    r"empieza|comienza|termina|acaba|abre|beginnt|startet|endet|läuft|fängt|começa|termina|acaba|abre|arranca)\b|"
    # the same with "we" as the subject and the work left unsaid: "We start on 6 April", "On démarre le 6 avril",
    # "Empezamos el 6 de abril", "Wir starten am 6. April", "Começamos a 6 de abril" (after "Big job this year: the
    # chapel roof")
    r"^(?:we(?:'re| are| will|'ll)? (?:start|starting|begin|beginning|kick off)|on (?:démarre|commence|débute|attaque)|"
    r"nous (?:démarrons|commençons|débutons)|empezamos|comenzamos|arrancamos|wir (?:starten|beginnen|fangen)|"
    r"começamos|arrancamos|iniciamos)\b|"
    r"\b(?:ahí|allí|allá|là-bas|dort|dorthin|lá|ali)\b|\b(?:j'y|on y|nous y)\b|"
    r"\bthere\b(?!\s*(?:is|are|was|were|will|'s|’s|has|have|had|might|may|must|should|could|would)\b)|"
    # "Same date, 28 March", "Même date", "Misma fecha", "Gleiches Datum", "Mesma data": the thing is the one before
    r"^(?:same|même|mismo|misma|gleiche[sn]?|selbe[sn]?|mesmo|mesma)\b|"
    # "New date is the 5th of March", "Nouvelle date : le 3 mai", "Nueva fecha, el 10", "Neuer Termin ist der 3.",
    # "Nova data é 9 de março": the date of the thing the sentence before names (distill48)
    r"^(?:the\s+|la\s+|el\s+|der\s+|a\s+)?(?:new|nouvelle|nouveau|nueva|nuevo|neuer?|neues|nova|novo)\s+"
    r"(?:date|time|day|heure|jour|fecha|hora|d[ií]a|termin|datum|tag|data)\b|"
    # "Now it's the 2nd of June", "C'est le 3 mars maintenant", "Ahora es el 10", "Jetzt ist es der 17. April",
    # "Agora é dia 10": a date said of "it" opening the sentence, the thing the sentence before names
    r"^(?:now it(?:'s|’s| is)|it(?:'s|’s| is) now|c'est (?:maintenant |désormais )?le|ahora es el|"
    r"(?:jetzt|nun) ist es (?:der|am)|agora (?:é|e) (?:dia|o|a))\s+(?:the\s+)?\d|"
    # "The exam is on Tuesday 12 May", "L'examen est le 12 mai": a bare "the <noun> is" names it by the sentence before
    r"^(?:the|l'|le|la|el|die|der|das|o|a)\s*[^\W\d_]+\s+(?:is|est|es|ist|é)\s+(?:on|le|el|am|a|no|em)?\s*(?:\w+\s+)?\d",
    re.IGNORECASE,
)
#: Whose: a third-person possessive in an instruction ("their names", "leurs prénoms", "de ellos", "deles").
_POSSESSIVE = re.compile(
    r"\b(?:their|his|her|leurs?|de ellos|de ellas|deles|delas|dele|dela|deren)\b", re.IGNORECASE
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


def whose(value: str, turn_text: str) -> str:
    """The sentence said just before an instruction that speaks of people by a possessive ("their names"), else ""."""
    if not _POSSESSIVE.search(value):
        return ""
    said = sentences(turn_text)
    head = value.strip()[:24].lower()
    at = next((i for i, sentence in enumerate(said) if head in sentence.lower()), -1)
    if at <= 0:
        return ""
    context = said[at - 1].strip().rstrip(".!")
    return context if len(context) <= MAX_CONTEXT_CHARS and _NAMES.search(context) else ""


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
    if not _PRONOUN.search(value) and not _UNSAID_SUBJECT.search(value.strip()):
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


__all__ = ["antecedent", "elided_context", "whose"]
