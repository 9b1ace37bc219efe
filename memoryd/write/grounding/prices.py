"""A price the user states: what a thing of theirs costs, as a value with its noun ("Dilston full sets are £105 from
this month", "Hourly's £120 since I moved", "Stundensatz ab Juli 72 Euro", "O bilhete agora é 20 euros", "I charge
£45 an hour for lettering", "Le reblochon, je le vends 16 euros le kilo", "El plato grande lo he subido a 50").

Rule: a clause of a user turn (a sentence cut at commas) that holds a money amount — a number with a currency sign
or word (£ € $, pounds, quid, euros, Euro, dollars, reais) — is a price fact, kept in the user's words, when it has
one of three structures:

- **a priced noun with a copula and a time anchor**: a noun phrase, a copula ("is", "'s", "are", "est", "es",
  "está a", "ist", "é", "fica") or none (German "Stundensatz ab Juli 72 Euro"), the amount, and in the clause a word
  saying when the price holds: now, from / since / as of a time, "going to be", "will be" (maintenant, désormais, à
  partir de, depuis; ahora, ya, desde, a partir de; jetzt, ab, seit; agora, desde, a partir de);
- **the user's price verb**: the user charges, sells or asks the amount ("I charge", "we sell … for", "je vends",
  "je facture", "cobro", "vendo", "ich verlange", "ich nehme", "cobro", "vendo");
- **a fronted object with a clitic** (French, Spanish, Portuguese, the languages that double a fronted object with
  a clitic): the thing priced opens the sentence and a clitic pronoun takes it up before a first-person verb of
  putting or raising the price, "a / à / para" and the number ("El plato grande lo he subido a 50", "Le pot, je le
  passe à 9 euros", "O frasco grande o passo a 9 euros"); the currency may be left unsaid here, the structure says
  it, but a number followed by another noun is no price ("lo he pasado a 3 días").

The slot is `price.<noun>`: the stem of the priced noun's head (the last word of an English noun phrase, the first
noun after the article elsewhere, the compound in German), so a later price of the same thing is a correction.

Not read: a question, a hypothetical or hedge, a past one-off expense ("the hotel was £90", "I paid £300"), a price
said of someone else ("my sister charges £40", "she sells them for €5"), a clause whose only words are the amount
and time words ("It's £20 now"), an amount a fact of the turn already holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.dates import find_dates, with_resolved_dates
from memoryd.write.grounding.lexicon import HEDGE, HYPOTHETICAL
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.owner import someone_elses
from memoryd.write.grounding.summary import third_person
from memoryd.write.grounding.text import STOP_WORDS, detect_language, fold, light_stem, sentences

_I = re.IGNORECASE
#: Salience of a stated price (a standing fact of the user's business).
PRICE_SALIENCE = 0.6
_CURRENCY_WORD = r"(?:pounds?|quid|euros?|dollars?|reais|francs?|EUR|GBP|USD)"
#: A money amount: "£105", "€ 70", "$12.50", "8,50 €", "72 Euro", "20 euros".
#: An amount's number: digits with thousands grouped by a space, a no-break space, a dot or a comma ("4 200",
#: "1.250", "4,200": a group is exactly three digits) or not, and up to two decimals ("8,50", "12.50"). Read whole:
#: "4 200 euros" is never the amount 4.
_NUMBER = r"(?:\d{1,3}(?:[ \u00a0\u202f.,]\d{3})+(?![\d])(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)(?![\d])"
_MONEY = re.compile(
    rf"(?:[£€$]\s?(?P<a>{_NUMBER})|(?P<b>{_NUMBER})\s?(?:[£€$]|{_CURRENCY_WORD}\b))",
    _I,
)
#: A word saying when the price holds (a change or a start).
_ANCHOR = re.compile(
    r"\b(?:now|from (?:this|next|the|\w+)|since|as of|going to be|will be|these days|"
    r"maintenant|désormais|à partir d[eu]|depuis|sera|"
    r"ahora|ya|desde|a partir de|va a ser|será|"
    r"jetzt|nun|ab|seit|wird|"
    r"agora|a partir de|vai ser|passa a)\b",
    _I,
)
#: A priced noun with a copula (or, in German, none) before the amount.
_COPULA = re.compile(
    r"^(?P<np>(?:(?:the|our|my|le|la|les|l'|notre|mon|ma|mes|el|los|las|nuestro|nuestra|mi|mis|der|die|das|unser|"
    r"unsere|mein|meine|o|a|os|as|o nosso|a nossa|o meu|a minha)\s+)?[\w'’-]+(?:\s+[\w'’-]+){0,3}?)"
    r"(?:'s|’s|\s+(?:is|are|'re|will be|is going to be|are going to be|est|sont|sera|passe à|es|son|está a|están a|"
    r"será|pasa a|ist|sind|wird|liegt bei|kostet|kosten|é|são|fica|ficam|está a|passa a|vai ser))?"
    r"(?:\s+(?:now|maintenant|désormais|ahora|ya|jetzt|nun|agora|(?:ab|seit|from|since|desde|depuis) [\w.]+))?"
    r"\s+(?:at\s+|à\s+|a\s+|bei\s+|auf\s+)?(?=[£€$\d])",
    _I,
)
#: The user's own price verb before the amount.
_PRICE_VERB = re.compile(
    r"\b(?:I|we)(?:'m|'re| am| are)? (?:now |still )?(?:charge|charging|sell|selling|ask|asking|bill|billing)\b|"
    # A raise or a cut of the user's own price: "I've put my rate up", "we raised the pitch fee to", "j'ai augmenté
    # mon tarif à", "he subido la tarifa a", "ich habe meinen Stundensatz auf", "aumentei o preço para".
    r"\b(?:I|we)(?:'ve| have)? (?:just )?(?:put|raised|increased|lowered|dropped|bumped|upped|cut) (?:my|our|the) "
    r"(?P<np>[\w' -]{2,30}?)(?: up| down)?(?: to| by)?:?\s*$|"
    r"\b(?:j'ai|on a|nous avons) (?:augmenté|baissé|monté|passé) (?:mon|ma|mes|notre|nos|le|la|les) (?P<np_fr>[\w' -]{2,30}?)(?: à| a)?:?\s*$|"
    r"\b(?:he|hemos) (?:subido|bajado|aumentado|puesto) (?:mi|mis|nuestro|nuestra|el|la|los|las) (?P<np_es>[\w' -]{2,30}?)(?: a)?:?\s*$|"
    r"\b(?:ich habe|ich hab|wir haben) (?:meinen|meine|mein|unseren|unsere|unser|den|die|das) (?P<np_de>[\w' -]{2,30}?)(?: auf)?:?\s*$|"
    r"\b(?:aumentei|baixei|subi|aumentámos|baixámos|subimos) (?:o meu|a minha|o nosso|a nossa|o|a|os|as) (?P<np_pt>[\w' -]{2,30}?)(?: para| a)?:?\s*$|"
    r"\b(?:je|on|nous) (?:l'|le |la |les |les leur |leur )?(?:vends|vend|vendons|facture|facturons|prends|fais payer)\b|"
    r"(?:^|\b(?:yo|nosotros)\s+|,\s*)(?:lo |la |los |las |les |le )?(?:cobro|cobramos|vendo|vendemos|pongo|ponemos)\b|"
    r"\b(?:ich|wir) (?:verlange|verlangen|nehme|nehmen|verkaufe|verkaufen|berechne|berechnen)\b|"
    r"(?:^|\b(?:eu|nós)\s+|,\s*)(?:o |a |os |as )?(?:cobro|cobramos|vendo|vendemos)\b",
    _I,
)
#: A fronted object taken up by a clitic before a verb of setting or raising a price and its number.
_FRONTED = re.compile(
    r"^(?P<np>(?:el|la|los|las|le|les|l'|o|a|os|as)\s+[\w'’-]+(?:\s+[\w'’-]+){0,2}?),?\s+"
    r"(?:(?:je|yo|eu)\s+)?(?P<clitic>lo|la|los|las|le|les|l'|o|a|os|as)\s*"
    r"(?:(?:he|hemos|ai|avons|tenho|temos)\s+)?"
    r"(?P<verb>sub\w*|pong\w*|pues\w*|pas\w*|mont\w*|aument\w*|pus\w*|meti\w*)\s+"
    rf"(?:a|à|al|au|para)\s+(?P<n>{_NUMBER})(?:\s?(?:[£€$]|{_CURRENCY_WORD}\b)|(?!\s*[^\W\d_]))",
    _I,
)
#: A past one-off expense: no standing price.
_PAST = re.compile(
    r"\b(?:was|were|paid|spent|cost me|bought|coûtait|était|ai payé|j'ai payé|costó|pagué|era|kostete|war|"
    r"habe bezahlt|hab bezahlt|custou|paguei|foi)\b",
    _I,
)
_TIME_WORDS = frozenset(
    fold(w)
    for w in re.findall(
        r"\S+",
        "now from since start month week year today this next last july june may april march february january "
        "august september october november december maintenant désormais depuis mois ahora desde mes jetzt ab seit "
        "monat agora mês hour an per each a la le el der die das o os as de du des del do da dos",
    )
)
#: A connective opening the clause ("And I've put my rate up …"): no part of the price.
_OPENER = re.compile(r"^(?:and|also|so|oh|plus|et|aussi|y|también|und|auch|e|também)[,\s]+", _I)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def _content(words: Sequence[str]) -> list[str]:
    return [w for w in words if fold(w) not in STOP_WORDS and fold(w) not in _TIME_WORDS and len(w) > 2]


#: A rate per unit of time is one slot whatever is sold ("£45 an hour for lettering", "Hourly's £120", "Stundensatz
#: ab Juli 72 Euro", "80 € la journée"): the unit's words, per language, and the compounds that name the rate.
_TIME_UNITS = {
    "hour": "hour hours hourly heure heures horaire hora horas stunde stunden stundensatz stundenlohn",
    "day": "day days daily jour jours journée journee día dia días dias diária diaria tag tage tagessatz",
    "week": "week weekly semaine semana woche wochen",
    "month": "month monthly mois mes mês monat monate",
    "night": "night nightly nuit nuitée noche noite nacht",
}
_UNIT_OF = {fold(w): unit for unit, words in _TIME_UNITS.items() for w in words.split()}
#: The unit a price is per, after the amount: "£85 a tuning", "£45 an hour", "16 euros le kilo", "72 € die Stunde".
_PER = re.compile(
    r"^\s*(?:a|an|per|each|the|le|la|l'|par|el|por|cada|pro|je|die|der|das|den|o|a|por|cada)\s+(?P<unit>[^\W\d_][\w-]*)",
    _I,
)


def _head(np: str, lang: str) -> str:
    """The priced noun's head: the last content word in English, the first elsewhere."""
    words = _content([re.sub(r"['’]s$", "", w) for w in _WORD.findall(np)])
    if not words:
        return ""
    return fold(words[-1] if lang == "en" else words[0])


def _slot_noun(noun: str, after: str) -> str:
    """The slot's noun: a rate per unit of time by its unit ("per_hour"), else the priced noun, else the unit the
    amount is per ("£95 a tuning" → "tuning")."""
    per = _PER.match(after)
    unit = fold(per["unit"]) if per else ""
    if unit in _UNIT_OF:
        return f"per_{_UNIT_OF[unit]}"
    if noun in _UNIT_OF:
        return f"per_{_UNIT_OF[noun]}"
    if noun:
        return noun
    return unit if unit and unit not in STOP_WORDS and len(unit) > 2 else ""


def _price(piece: str, before: str, lang: str) -> tuple[str, str, str, str] | None:
    """(the clause as kept, the slot's noun, the amount, the words whose owner is read) of one comma piece, or None.

    A fronted object is no person ("El plato grande lo …": "el" folded is also "él") and the structure admits only
    the user's auxiliaries ("he subido", "j'ai passé"), so nothing is read for who sets the price there."""
    fronted = _FRONTED.match(piece)
    if fronted is not None:
        noun = _slot_noun(_head(fronted["np"], lang), piece[fronted.end() :])
        return (piece, noun, fronted["n"], "") if noun else None
    money = _MONEY.search(piece)
    if money is None:
        return None
    amount = money["a"] or money["b"]
    after = piece[money.end() :]
    verb = _PRICE_VERB.search(piece[: money.start()])
    if verb is not None:
        # What is priced: "for lettering", the object a raise verb names ("put my rate up"), a fronted object said
        # before the comma ("Le reblochon, je le vends 16 euros le kilo"), or the unit after the amount.
        noun_at = re.search(r"\b(?:for|pour|por|für|para)\s+(?P<np>[^,;]+)$", after, _I)
        np = (
            noun_at["np"]
            if noun_at
            else next((v for k, v in verb.groupdict().items() if k.startswith("np") and v), "")
        )
        whose = piece
        if not np and before and _WORD.search(before) and not _MONEY.search(before):
            np = before
            piece = f"{before}, {piece}"
        noun = _slot_noun(_head(np, lang), after)
        return (piece, noun, amount, whose) if noun else None
    copula = _COPULA.match(piece)
    if copula is None or copula.end() != money.start() or not _ANCHOR.search(piece):
        return None
    noun = _slot_noun(_head(copula["np"], lang), after)
    return (piece, noun, amount, piece) if noun else None


def holds_amount(text: str, amount: str) -> bool:
    """Whether a fact's text states the amount (not as part of a longer number)."""
    return re.search(rf"(?<![\d.,]){re.escape(amount)}(?![\d])", text) is not None


def price_facts(
    turns: Sequence[SourceTurn], session_lang: str, session_time_ms: int
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Prices the user states (module docstring), each with the sentence it was read from."""
    found: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for turn in turns:
        for sentence in sentences(turn.user):
            said = sentence.strip()
            if said.endswith("?") or HYPOTHETICAL.search(said) or HEDGE.search(said):
                continue
            # "Le pot, je le passe à 9 euros": a fronted object keeps its comma; the rest is cut at commas.
            fronted = _FRONTED.match(said)
            cut = fronted.end() if fronted else 0
            pieces = [said[:cut]] if cut else []
            pieces += [p.strip() for p in re.split(r"\s*[,;]\s+", said[cut:].rstrip(".!")) if p.strip(" ,.!")]
            for i, piece in enumerate(pieces):
                if _PAST.search(piece):
                    continue
                lang = detect_language(piece, default=session_lang)
                got = _price(piece, pieces[i - 1] if i else "", lang)
                if got is None:
                    continue
                kept, noun, amount, whose = got
                if any(f.turns == (turn.index,) and holds_amount(f.text, amount) for f, _ in found):
                    continue
                if whose and someone_elses(
                    whose, frozenset({light_stem(fold(amount.split(",")[0].split(".")[0]))}), frozenset()
                ):
                    continue
                kept = _OPENER.sub("", kept)
                phrased = third_person(kept) if session_lang == "en" else kept
                text = phrased[:1].upper() + phrased[1:].rstrip(" .") + "."
                text = with_resolved_dates(text, find_dates(text, session_time_ms))
                fact = GroundedFact(
                    FactKind.PREFERENCE,
                    text,
                    f"price.{light_stem(noun)}",
                    amount,
                    (turn.index,),
                    PRICE_SALIENCE,
                    False,
                    "extractor",
                    session_lang,
                )
                found.append((fact, (sentence,)))
    return found


__all__ = ["holds_amount", "price_facts"]
