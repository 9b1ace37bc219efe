"""What the user runs: a shop, a business, a guesthouse, a game in the making, read from one clause in five languages.

"I run Quayside Books, a second-hand and new bookshop in Whitby", "je tiens une fromagerie à Besançon", "llevo una
casa rural en Cangas de Onís", "ich betreibe eine kleine Imkerei", "gerencio uma pousada em Paraty": the thing run
with its apposition (what it is, where it is) is one identity fact of the user's. Running as exercise ("I run 10k
every morning") and a running tally are not: English needs a name or a business noun after the verb.
"""

from __future__ import annotations

import re

from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import STOP_WORDS, fold, tokens

_I = re.IGNORECASE
SLOT = "identity.business"
SALIENCE = 0.85

#: Kinds of business an English "I run / own / manage a …" names.
_BUSINESS = (
    r"(?:shop|store|business|company|firm|agency|studio|practice|clinic|caf[eé]|bakery|bookshop|bookstore|"
    r"restaurant|pub|bar|farm|b&b|guesthouse|guest house|hostel|hotel|startup|start-up|charity|salon|garage|"
    r"workshop|nursery|school|gallery|brewery|vineyard|stall|food truck|consultancy|label|podcast|channel|"
    r"newsletter|blog|club|kennels?|cattery|dairy|fromagerie|deli|boutique|atelier|market stall|team|squad|choir|"
    r"band|troop)"
)
#: The same kinds in the other four languages, for their "have" ("j'ai une boutique", "tengo una clínica",
#: "ich habe eine Imkerei", "tenho uma padaria").
_BUSINESS_OTHER = (
    r"(?:boutique|magasin|entreprise|société|agence|cabinet|clinique|café|boulangerie|librairie|restaurant|ferme|"
    r"gîte|chambres d'hôtes|atelier|fromagerie|épicerie|salon|garage|"
    r"tienda|empresa|agencia|consulta|clínica|cafetería|panadería|librería|restaurante|granja|casa rural|hostal|"
    r"taller|bar|peluquería|"
    r"laden|firma|agentur|praxis|klinik|café|bäckerei|buchhandlung|restaurant|hof|pension|werkstatt|imkerei|"
    r"brauerei|weingut|"
    r"loja|empresa|agência|consultório|clínica|café|padaria|livraria|restaurante|quinta|pousada|oficina|"
    r"cafeteria|salão)"
)
_OBJECT = (
    r"(?P<v>[^,.;!?]+?(?:,\s*(?:a|an|un|une|una|um|uma|ein|eine|einen)\s+[^,.;!?]+)?)(?=\s*(?:[,.;!?]|$))"
)
_VERB = {
    "en": re.compile(
        r"\b(?:I|we)\s+(?:now\s+|also\s+)?(?:run|own|co-own|co-run|manage|have|co-host|host|coach)\s+"
        rf"(?=(?-i:[A-Z])|(?:a|an|the|my|our)\s+(?:[\w'-]+\s+){{0,3}}?{_BUSINESS}\b)" + _OBJECT,
        _I,
    ),
    "fr": re.compile(
        r"\b(?:je|j'|on|nous)\s*(?:(?:tiens|tient|tenons|gère|gérons|dirige|dirigeons|possède|possédons)\s+"
        r"(?=(?:une?|la|le|l'|notre|ma|mon)\s*)|(?:ai|a|avons)\s+(?=(?:une?|ma|mon|notre)\s+(?:petite?\s+)?"
        rf"{_BUSINESS_OTHER}\b))" + _OBJECT,
        _I,
    ),
    "es": re.compile(
        r"(?:^|\b(?:yo|y|que|e)\s+|,\s*)(?:(?:llevo|llevamos|regento|regentamos|dirijo|dirigimos|gestiono|"
        r"gestionamos)\s+(?=(?:una?|la|el|mi|nuestra|nuestro)\s)|(?:tengo|tenemos)\s+(?=(?:una?|mi|nuestra|nuestro)\s+"
        rf"{_BUSINESS_OTHER}\b))" + _OBJECT,
        _I,
    ),
    "de": re.compile(
        r"\b(?:ich|wir)\s+(?:(?:führe|führen|betreibe|betreiben|leite|leiten)\s+"
        r"(?=(?:einen|eine|ein|den|die|das|meinen|meine|mein|unseren|unsere|unser)\s)|(?:habe|haben)\s+"
        rf"(?=(?:einen|eine|ein|meinen|meine|mein)\s+(?:kleinen?\s+)?{_BUSINESS_OTHER}\b))" + _OBJECT,
        _I,
    ),
    "pt": re.compile(
        r"(?:^|\b(?:eu|nós|e)\s+|,\s*)(?:(?:gerencio|gerenciamos|administro|administramos|toco|tocamos|dirijo|"
        r"dirigimos)\s+(?=(?:uma?|o|a|minha|meu|nossa|nosso)\s)|(?:tenho|temos)\s+(?=(?:uma?|minha|meu|nossa|nosso)\s+"
        rf"(?:pequen[oa]\s+)?{_BUSINESS_OTHER}\b))" + _OBJECT,
        _I,
    ),
}
_KIND = re.compile(rf"\b(?:{_BUSINESS}|{_BUSINESS_OTHER})\b", _I)
#: Running as exercise or a count: "I run 10k", "we run three times a week", "I run the numbers".
_NOT_BUSINESS = re.compile(
    r"^\W*\d|\b\d+\s?(?:k|km|miles?|x)\b|\b(?:marathon|race|km|miles?|times|laps?|numbers|errands|risk|late|out|tests?|every|daily|the show)\b",
    _I,
)
#: A trailing company kept out of the fact ("…, with my partner Ottilie" is a relation of its own).
_WITH = re.compile(r"\s+(?:with|avec|con|mit|com)\s+(?:my|mon|ma|mi|meinem|meiner|meu|minha)\b.*$", _I)


def business_facts(clause: str, lang: str, turn_index: int) -> list[GroundedFact]:
    """The identity fact of what the user runs, when the clause says it, else []."""
    pattern = _VERB.get(lang)
    found = pattern.search(clause) if pattern is not None else None
    if found is None:
        return []
    value = _WITH.sub("", found.group("v")).strip()
    if not value or _NOT_BUSINESS.search(value.split(",")[0]) or len(value) > 120:
        return []
    text = render("runs", lang, value)
    # A user may run more than one thing: the slot names the kind of thing run ("team", "bakery"), so a second
    # business never replaces a first, and the same kind said anew ("an under-12s team now") replaces the old one.
    kind = _KIND.search(value)
    key = (
        fold(kind.group(0)).replace(" ", "_")
        if kind is not None
        else "_".join([t for t in tokens(value.split(",")[0]) if t not in STOP_WORDS][:2])
    )
    return [
        GroundedFact(
            FactKind.IDENTITY, text, f"{SLOT}.{key}", value, (turn_index,), SALIENCE, True, "extractor", lang
        )
    ]


__all__ = ["SLOT", "business_facts"]
