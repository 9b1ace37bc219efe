"""A newer fact said as a change retires the one older fact of its slot with another value.

The general rule (session 16, distill43): a newer fact **said as a change** supersedes an older active fact when
both hold a value of one kind, the newer one's value differs, and they share the slot:

- *Said as a change*: a change marker or verb in the fact — "now", "these days", "instead", "moved", "pushed back",
  "postponed", "finally", "in the end", "switched", "not 40" (the old value negated); "maintenant", "désormais", "à
  la place", "passe au", "décalé", "reporté", "finalement", "pas 40"; "ahora", "ya no", "en cambio", "se retrasa",
  "aplazado", "al final", "no 40"; "jetzt", "nun", "inzwischen", "stattdessen", "verschoben", "verlegt",
  "schließlich", "nicht 40"; "agora", "hoje em dia", "em vez", "adiado", "passou para", "afinal", "no fim", "não 40".
- *A value of one kind*: a date (the ISO day the extractor appends), a number said with a noun ("48 barriques", "la
  séance … 65 euros"), or a name (a person, a place or a holder: "Ifor Pughe", "in Kemp Town").
- *The same slot*: the two facts share a content word by word family (`grounding/word_family.py` `same_family`: "livraison" /
  "livrer", "vet" / "vets"), apart from names, numbers, words of time and the stored templates' words; an acronym
  of the newer fact stands for the older one's words it abbreviates ("LOM" / "local operations manager"). A date
  said with no such word ("It's been moved to 26 March", "c'est le 3 mars maintenant") belongs to the one older
  dated fact the fact's own turn or the turn before it names; a date said beside the older fact's day named as the
  one that was ("tinha 17 de abril, certo?", "Sie hatten den 3. April notiert", "plus le 12 février", "no el 28 de
  marzo", "you've got it down as the 22nd of April") belongs to the one older fact of that day.

A holder replaced: a newer fact that names the one person an older fact holds (not a place it is in), beside a new
person, with the holder gone or replaced ("left", "off to", "retired", "replaces", "takes over"; "est partie",
"remplace", "reprend"; "se fue", "se jubiló", "reemplaza", "sustituye"; "ist weg", "im Ruhestand", "ersetzt",
"übernimmt"; "saiu", "foi para", "substitui", "assumiu") or a change marker, retires that older fact, whatever
noun or verb says the role ("Poppy's off to uni, so it's Daisy helping the user" / "The user's assistant is Poppy
Leadbetter"). Not a fact of what someone is called, nor a newer fact whose only new name is a place.

Widened, when nothing above matched (distill48, `_widened`): a schedule's value is a day of the week or a part of the
day, read in the clauses of the change ("Out-apiary inspections have gone to Wednesday mornings" / "on Sundays";
"the user wants them at lunchtime now, the evenings have gone mad" / "the evening before"; `when_values.py`), never
against an older fact whose days each hold their own thing ("the home apiary on Saturdays and the out-apiaries on
Sundays"); a new name said with its date of effect ("me voy a una nave en el polígono Torrehierro, a partir del 15
de julio") replaces an older undated one; the slot may be named by a name's head ("Ashville Vets" / "vet"), a
compound's head ("Werkstattbesprechung" / "Besprechung") or a synonym class (`synonyms.py`); the user's own move
("wir sind umgezogen", "we've moved", "nos mudamos") gives a new place to the older fact of where they live or
work. The change is also said by "gone to", "got pushed", the verbs of change of the other four languages
("changé", "cambiado", "gewechselt", "umgestellt", "mudei", "trocámos"), "ab sofort", "dorénavant",
"since / depuis / desde / seit" a month, and a decision to move or switch ("decided to move the dogs to…"). The form
of address is one slot with two values (tutoyer / vouvoyer, duzen / siezen, tutear / de usted, tratar por tu / por
senhora): the newer says which, marker or not.

Guards: a question or a hypothetical changes nothing (the words the extractor appends in parentheses, often the
assistant's question the fact answers, are no question of the user's; "not any more" / "isn't any more" is a
marker); a one-off day gives no new day to a weekly schedule, nor a schedule to a one-off day; a value added, not
replaced ("also", "aussi", "también", "auch", "também", "as well") retires nothing; someone else's change (a third
person before the marker: "my sister moved her wedding to June") retires nothing of the user's; and two older facts
that fit the slot (two events, two prices) are ambiguous, so none is retired.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from typing import Any

from memoryd.write.grounding.dates import MONTHS
from memoryd.write.grounding.event import plan_dates
from memoryd.write.grounding.lexicon import HYPOTHETICAL, NAME
from memoryd.write.grounding.model import SourceTurn
from memoryd.write.grounding.recurring import keeps_one_off
from memoryd.write.grounding.rules import is_name
from memoryd.write.grounding.synonyms import canonical
from memoryd.write.grounding.templates import TEMPLATE_WORDS
from memoryd.write.grounding.text import NUMBER_WORDS, STOP_WORDS, fold, light_stem, tokens
from memoryd.write.grounding.when_values import changed_clause, day_parts, weekdays
from memoryd.write.grounding.word_family import same_family

_I = re.IGNORECASE
#: Change markers and verbs of the five languages, matched on folded text (see the module docstring).
_MARKER = re.compile(
    r"\b(?:now|these days|nowadays|instead|moved|pushed back|put back|brought forward|postponed|delayed|"
    r"rescheduled|switched|swapped|changed|finally|in the end|no longer|(?:not|[a-z]+n['’]t) any ?more|"
    r"maintenant|desormais|a la place|passe (?:a|au|aux)|passee (?:a|au)|decalee?s?|reportee?s?|repoussee?s?|"
    r"avancee?s?|finalement|au final|plus maintenant|"
    r"ahora|hoy en dia|ya no|en cambio|en vez|se retrasa|se adelanta|retrasad[oa]s?|aplazad[oa]s?|"
    r"pospuest[oa]s?|adelantad[oa]s?|pasa (?:a|al)|al final|finalmente|"
    r"jetzt|nun|inzwischen|mittlerweile|stattdessen|verschoben|verlegt|vorgezogen|schliesslich|letztendlich|"
    r"nicht mehr|"
    r"agora|hoje em dia|em vez|adiad[oa]s?|antecipad[oa]s?|passou para|passa para|afinal|no fim|ja nao)\b"
    # Gone to another value ("Out-apiary inspections have gone to Wednesday mornings", "That's gone to Thursday"),
    # or pushed ("So NIPE got pushed").
    r"|\b(?:has|have|'s|’s|is|are) gone (?:to|up|down|back)\b|\b(?:got|been|was|were) pushed\b"
    # Changed, said by its verb in the other four languages as "changed" / "switched" are in English: "j'ai
    # changé"; "he cambiado", "me lo cambio"; "gewechselt", "umgestellt"; "mudei", "trocámos". Moving house is no
    # marker ("nos mudamos en septiembre" is a plan; the user's move is read for places only, `_RELOCATED`).
    r"|\b(?:change|changee?s?|changeons|"
    r"cambiad[oa]s?|cambio|cambiamos|cambie|"
    r"gewechselt|geandert|umgestellt|ab sofort|"
    r"mudei|mudou|mudaram|trocad[oa]s?|troquei|trocamos|trocou|dorenavant)\b"
    # Since a time: a state said as begun then ("seit Februar dienstags", "since March", "depuis janvier", "desde
    # julio", "desde março"): the value before is gone.
    r"|\b(?:since|depuis|desde|seit)\s+(?:(?:the|le|la|l'|el|o|a|dem|den|last|dernier|pasado|passado|letzte[nm]?)\s+)?"
    r"(?:" + "|".join(sorted((m for m in MONTHS if len(m) > 3), key=len, reverse=True)) + r")\b"
    # A decision to change ("The user decided to move the dogs to Ashville Vets", "décidé de passer à", "decidí
    # cambiar", "beschlossen … zu wechseln", "decidi mudar").
    r"|\bdecided to (?:move|switch|change|swap)\b|\bdecide\w* de (?:passer|changer)\b|"
    r"\bdecidi\w* (?:cambiar|pasar|mudar|trocar|passar)\b|\bbeschlossen\b[^.]{0,40}\bzu wechseln\b"
    # A change verb with its new value: "je passe la séance à 65 euros", "pasamos la cena a las 9", "passou a
    # reunião para dia 3".
    r"|\bpass(?:e|ent|er|ons|a|amos|an|ou|amos)\b[^.;]{0,30}?\b(?:a|au|aux|al|para|pra)\s+(?:\d|l[ea]s?\b|el\b)"
    # The old value negated after the new one: "48 barriques, pas 40", "not 40", "no 40", "nicht 40", "não 40".
    r"|,\s*(?:not|pas|no|nicht|nao)\s+\d",
    _I,
)
#: Spanish "el" folded: the article, or "él" (he) when the fact writes the accent (`_HE_ES`).
_EL = re.compile(r"\bel\b")
_HE_ES = re.compile(r"(?<!\w)él(?!\w)", _I)
_HE_PERFECT_ES = re.compile(r"\bhe\s+(?=\w+(?:ado|ido)\b)")
#: A value added beside the old one, not in its place.
_ADDED = re.compile(r"\b(?:also|as well|too|aussi|egalement|tambien|ademas|auch|zusatzlich|tambem)\b", _I)
#: Someone else's change: a third person before the marker ("my sister moved her wedding", "ma sœur a décalé").
_OTHER = re.compile(
    r"\b(?:he|she|they|his|her|their|il|elle|ils|elles|son|sa|ses|leur|ella|ellos|su|sus|er|sie|sein|seine|"
    r"ihr|ihre|ele|ela|eles|seu|sua|dele|dela)\b|"
    r"\b(?:my|our|ma|mon|mes|notre|mi|mis|nuestra|nuestro|mein|meine|unser|unsere|meu|minha|nosso|nossa)\s+"
    r"(?:sister|brother|wife|husband|partner|friend|son|daughter|mother|father|mum|mom|dad|neighbour|neighbor|"
    r"soeur|frere|femme|mari|ami|amie|fils|fille|mere|pere|hermana|hermano|esposa|marido|amigo|amiga|hijo|hija|"
    r"madre|padre|schwester|bruder|frau|mann|freund|freundin|sohn|tochter|mutter|vater|irma|irmao|esposa|"
    r"amigo|amiga|filho|filha|mae|pai)\b",
    _I,
)
_NAMES = re.compile(NAME)
#: A count or amount: not an ordinal or a number glued to a unit or a letter ("13th", "9h30", "10-inch").
_NUMBER = re.compile(r"(?<![\w-])\d+(?:[.,]\d+)?(?![\w-])")
_ISO = re.compile(r"\(\d{4}-\d{2}(?:-\d{2})?\)")
_MONTH_WORDS = frozenset(fold(m) for m in MONTHS)
#: Words that name no slot: time words, the markers' own words, copulas and light verbs of the five languages.
_NO_SLOT = frozenset(
    light_stem(w)
    for w in (  # noqa: SIM905
        "now days these nowadays instead moved move pushed back put brought forward postponed delayed rescheduled "
        "switched swapped changed change finally end longer date day week month year time next last first weekend "
        "morning evening night today maintenant desormais place passe passee decale decalee reporte repousse "
        "avance finalement final jour semaine mois annee ahora dia hoy vez cambio retrasa adelanta pasa semana mes "
        "ano jetzt nun inzwischen mittlerweile stattdessen verschoben verlegt tag woche monat jahr agora hoje "
        "adiado passou semana mes ano fim afinal been got going went said says told know think will would "
        "new nouveau nouvelle nuevo nueva neu neue novo nova old ancien viejo alt antigo "
        "not no non nao nicht kein keine pas ne nunca never jamais nie nunca ja ya plus mehr more "
        "cost costs coute coutent cuesta cuestan vale kostet kosten custa custam price prix precio preis preco "
        "il est sont ete fait va vont hay esta estan sido ist sind war wird hat haben esta estao foi vai"
    ).split()
)


#: Words in parentheses other than a day: the antecedent the extractor appended (often the assistant's question the
#: fact answers, "(So the practical - you've got it down as the 22nd, right?)"), not the user's own statement.
_APPENDED = re.compile(r"\((?!\d{4}-\d{2})[^()]*\)")


_POLITE_SIE = re.compile(r"(?<=[\w,] )(?:Sie|Ihnen|Ihr|Ihre)\b")


def _said_as_change(text: str) -> bool:
    """Whether a fact says its value as a change, and as the user's own, not added, not asked or imagined (the
    words the extractor appended in parentheses are read for the slot and the guards, never as the user's
    question)."""
    # German "Sie" capitalised inside a sentence is the polite "you" (the assistant), no third person.
    folded = fold(_POLITE_SIE.sub("", _ISO.sub("", text)))
    marker = _MARKER.search(folded)
    asked = "?" in _APPENDED.sub("", text)
    if marker is None or asked or HYPOTHETICAL.search(folded) or _ADDED.search(folded):
        return False
    # Spanish "he" before a participle is "I have" ("he cambiado"), no English "he".
    before = _HE_PERFECT_ES.sub(lambda m: " " * len(m.group()), folded)[: marker.start()]
    if _OTHER.search(before):
        return False
    # Folded, Spanish "él" (he) is the article "el": a third person only where the fact writes the accent.
    return not (_EL.search(before) and _HE_ES.search(text))


def _names(text: str) -> frozenset[str]:
    """Capitalised names of a fact (not its first word's capital alone, nor a month or a day)."""
    out = set()
    for match in _NAMES.finditer(_ISO.sub("", text)):
        value = match.group("v")
        first = match.start("v") == 0 or text[: match.start("v")].rstrip().endswith((":", ".", ";"))
        if first and " " not in value:
            continue
        if is_name(value) and not (frozenset(tokens(value)) & _MONTH_WORDS):
            out.add(fold(value))
    return frozenset(out)


#: A name said as where something is: after "in", "at", "à", "au", "en", "em", "no", "na", "im", "am", "bei".
_AT_PLACE = re.compile(
    r"\b(?:in|at|a|au|aux|en|em|no|na|nos|nas|im|am|bei)\s+(?:(?:the|le|la|les|el|los|las|o|a|os|as|der|dem|den)\s+)?"
    + NAME
)


def _places(text: str) -> frozenset[str]:
    """Names a fact says something is in or at (folded)."""
    return frozenset(fold(m.group("v")) for m in _AT_PLACE.finditer(_a_grave(text)))


def _a_grave(text: str) -> str:
    """The text with "à" read as "a" and nothing else changed, so a name keeps its capital."""
    return text.replace("à", "a").replace("À", "A")


def _numbers(text: str) -> frozenset[str]:
    """Numbers said in a fact, outside its dates (ISO days, day-of-month numbers before a month)."""
    bare = _ISO.sub("", text)
    folded = fold(bare)
    out = set()
    for match in _NUMBER.finditer(folded):
        after = re.findall(r"[^\W\d_]+", folded[match.end() : match.end() + 16])
        before = re.findall(r"[^\W\d_]+", folded[max(0, match.start() - 12) : match.start()])
        near = {*after[:2], *before[-1:]}
        if near & _MONTH_WORDS:  # "3 de noviembre", "12 février", "March 9"
            continue
        if before and before[-1] in ("not", "pas", "no", "nicht", "nao"):
            continue  # the old value named as gone: "48 barriques, pas 40"
        if (after and after[0].startswith(("h", ":"))) or re.match(r"\d+h", folded[match.start() :]):
            continue  # a time of day is a schedule's, not a count's
        out.add(match.group().replace(",", "."))
    return frozenset(out)


#: Where the user lives is one slot whatever verb says it: live, rent, be based, habiter, louer, vivir, alquilar,
#: wohnen, mieten, morar, arrendar (stems); they read as one word, `_HOME`.
_HOME_STEMS = (
    "live",
    "living",
    "rent",
    "based",
    "habit",
    "lou",
    "viv",
    "alquil",
    "wohn",
    "miet",
    "mor",
    "arrend",
)
_HOME = "@home"


def _slot_word(token: str) -> str:
    stem = light_stem(token)
    return _HOME if token.startswith(_HOME_STEMS) and len(token) <= 9 else stem


def _slot_words(text: str) -> frozenset[str]:
    """Stemmed content words that may name a slot: no stop, template, time or marker words, numbers or names."""
    names = {t for name in _names(text) for t in tokens(name)}
    return frozenset(
        _slot_word(t)
        for t in tokens(_ISO.sub("", text))
        if len(t) > 2
        and not t.isdigit()
        and t not in STOP_WORDS
        and t not in TEMPLATE_WORDS
        and t not in NUMBER_WORDS
        and t not in _MONTH_WORDS
        and t not in names
        and light_stem(t) not in _NO_SLOT
    )


def _acronym_of(new: str, old: str) -> bool:
    """Whether an acronym of the newer fact abbreviates consecutive words of the older one ("LOM" / "local
    operations manager", "GP" / "general practitioner")."""
    words = [t for t in tokens(old) if t not in STOP_WORDS or len(t) > 3]
    initials = "".join(w[0] for w in words)
    for acronym in re.findall(r"\b[A-Z]{2,5}\b", new):
        if acronym.lower() in initials and not re.search(rf"\b{acronym}\b", old):
            return True
    return False


def _shares_slot(new: str, old: str, new_words: frozenset[str]) -> bool:
    old_words = _slot_words(old)
    return any(same_family(a, b) for a in new_words for b in old_words) or _acronym_of(new, old)


#: A date of effect: "from 1 July", "starting", "as of", "à partir du", "dès le", "a partir del", "desde el", "ab dem",
#: "ab 1. Juli", "a partir de".
_EFFECT = re.compile(
    r"\b(?:from|starting|as of|a partir d\w*|des le|desde el|ab (?:dem|den|\d))\b[^.;]{0,12}?\d"
)


def _kind_changed(new: str, old: str, *, date_of_effect: bool = False) -> str:
    """The kind of value the newer fact gives the older one's slot anew: "date", "number", "name" or "". With
    `date_of_effect`, a newer name said with a date is still a new name when the older fact holds no date ("me voy a
    una nave en el polígono Torrehierro, a partir del 15 de julio" / "un taller en la calle Carnicerías")."""
    new_dates, old_dates = plan_dates(new), plan_dates(old)
    # A weekly schedule gives no new day to a one-off event ("classes on Wednesday evenings" / "the exam on 9
    # March"; grounding/recurring.py), nor a one-off day to a weekly schedule ("the practical is the 29th of
    # April now" / "we do Thursdays now").
    if (
        new_dates
        and old_dates
        and not new_dates <= old_dates
        and not keeps_one_off(old, new)
        and not keeps_one_off(new, old)
    ):
        return "date"
    new_numbers, old_numbers = _numbers(new), _numbers(old)
    if new_numbers and old_numbers and new_numbers - old_numbers and old_numbers - new_numbers:
        return "number"
    new_names, old_names = _names(new), _names(old)
    fresh = new_names - old_names
    # The new name is not merely the old one said longer ("Rao" / "Dr Priyamvada Rao").
    if (
        fresh
        and old_names
        and not new_numbers - old_numbers
        and (not new_dates or (date_of_effect and not old_dates and _EFFECT.search(fold(new)) is not None))
        and all(not any(a in b or b in a for b in old_names) for a in fresh)
    ):
        # A place for a place ("the stall's in Kemp Town now" / "a stall in the North Laine"), a holder for a
        # holder: "lists everything on Depop" names no place the stall was in.
        new_places, old_places = _places(new), _places(old)
        if fresh & new_places:
            return "place" if old_places - new_places else ""
        return "name" if old_names - old_places else ""
    return ""


def _named_words(text: str) -> frozenset[str]:
    """Slot words and names (an event is often named by who it is for: "la date Delamain")."""
    return _slot_words(text) | frozenset(t for name in _names(text) for t in tokens(name))


def _context_words(fact_turns: Sequence[int], turns: Sequence[SourceTurn]) -> frozenset[str]:
    """Slot words and names of the fact's own turns and the exchange before the first of them."""
    if not fact_turns or not turns:
        return frozenset()
    by_index = {t.index: i for i, t in enumerate(turns)}
    out: set[str] = set()
    for index in fact_turns:
        at = by_index.get(index)
        if at is None:
            continue
        for turn in turns[max(0, at - 1) : at + 1]:
            out |= _named_words(turn.user) | _named_words(turn.assistant)
    return frozenset(out)


def changed_slot(
    text: str,
    fact_turns: Sequence[int],
    older: Sequence[tuple[str, str]],
    turns: Sequence[SourceTurn] = (),
) -> tuple[str, ...]:
    """Ids of `older` facts ((id, content), the agent's active ones) the newer fact `text`, said as a change,
    gives a new value in their slot (module docstring); none when two fit, or the fact says no change."""
    form = address_form(text)
    if form:
        # The form of address is one slot with two values: the newer one said replaces the other, marker or not.
        other = [fact_id for fact_id, content in older if address_form(content) not in ("", form)]
        if len(other) == 1:
            return (other[0],)
    if not _said_as_change(text):
        holders = _holder_replaced(text, older)
        return tuple(holders) if len(holders) == 1 else ()
    new_words = _slot_words(text)
    found = []
    for fact_id, content in older:
        if fold(content) == fold(text):
            continue
        kind = _kind_changed(text, content)
        if kind and _shares_slot(text, content, new_words):
            found.append((fact_id, kind))
    if not found and plan_dates(text) and not _names(text):
        # A date said with no noun or name of its own: the one older dated fact the turns around it name.
        context = _context_words(fact_turns, turns)
        found = [
            (fact_id, "date")
            for fact_id, content in older
            if _kind_changed(text, content) == "date" and _named_words(content) & context
        ]
    if not found:
        # The old day named beside the new one ("tinha 17 de abril", "Sie hatten den 3. April notiert"): the one
        # older dated fact of that day.
        found = [
            (fact_id, "date")
            for fact_id, content in older
            if _kind_changed(text, content) == "date"
            and any(_names_day(text, day) for day in plan_dates(content))
        ]
    if not found:
        found = _widened(text, older)
    if not found:
        found = [(fact_id, "holder") for fact_id in _holder_replaced(text, older)]
    return (found[0][0],) if len(found) == 1 else ()


#: The familiar and the polite form of address (distill48): "tutoyer" / "vouvoyer", "tutear" / "de usted", "duzen" /
#: "siezen", "tratar por tu" / "tratar por senhor(a)"; a negated one says nothing sure ("ne me tutoyez pas").
_FAMILIAR = re.compile(r"\b(?:tutoi\w*|tutoy\w*|tute[aeo]\w*|duzen|duz\w*|trat\w*(?:-me)? por tu)\b")
_POLITE = re.compile(
    r"\b(?:vouvoi\w*|vouvoy\w*|siezen|siez\w*|(?:habl|trat)\w*\s+de usted|"
    r"trat\w*(?:-me)? (?:por|de) (?:o |a )?(?:senhor|senhora|dona))\b"
)
_NEGATED = re.compile(r"\b(?:ne|pas|no|nicht|nie|nao|never|jamais|nunca)\b")


def address_form(text: str) -> str:
    """The form of address a fact asks for: "familiar", "polite", or "" (none said, both, or negated)."""
    folded = fold(text)
    familiar, polite = _FAMILIAR.search(folded), _POLITE.search(folded)
    if bool(familiar) == bool(polite) or _NEGATED.search(folded):
        return ""
    return "familiar" if familiar else "polite"


def _when_changed(new: str, old: str) -> str:
    """ "day" or "part" when the newer fact's change clause names another day of the week or part of the day than
    the older fact ("have gone to Wednesday mornings" / "on Sundays"; "at lunchtime now" / "the evening before"),
    neither fact naming a day of the year the other lacks; else ""."""
    if plan_dates(old) and not plan_dates(new):
        return ""
    clause = changed_clause(_ISO.sub("", _APPENDED.sub("", new)), _MARKER)
    for kind, read in (("day", weekdays), ("part", day_parts)):
        said, held = read(clause), read(old)
        if said and held and said - held and held - said and not _each_its_own(old, read):
            return kind
    return ""


def _each_its_own(old: str, read: Callable[[str], frozenset[Any]]) -> bool:
    """Whether an older fact names two days (or parts of the day) each for its own thing ("the home apiary on
    Saturdays and the two out-apiaries on Sundays"): a change of one leaves the other true, so it is not retired.
    Days said together ("Mondays and Wednesdays", "lundi et mercredi") are one value."""
    words = re.findall(r"[^\W\d_]+", fold(_ISO.sub("", old)))
    at = [i for i, w in enumerate(words) if read(w)]
    if len(read(old)) < 2 or len(at) < 2:
        return False
    joins = {
        "and",
        "or",
        "et",
        "ou",
        "y",
        "o",
        "und",
        "oder",
        "e",
        "the",
        "le",
        "la",
        "les",
        "el",
        "los",
        "las",
    }
    return any(set(words[a + 1 : b]) - joins for a, b in itertools.pairwise(at))


def _name_heads(text: str) -> frozenset[str]:
    """The last word of each name of two words or more, stemmed: the kind of thing it names ("Ashville Vets",
    "Harlow Forge Supplies", "Bristol Games Hub")."""
    return frozenset(light_stem(tokens(name)[-1]) for name in _names(text) if len(tokens(name)) > 1)


def _compound_of(a: str, b: str) -> bool:
    """Whether one stem is a compound ending in the other, as German nouns are ("werkstattbesprech" /
    "besprech"): six letters at least for the head."""
    short, long_ = sorted((a, b), key=len)
    return len(short) >= 6 and len(long_) > len(short) and long_.endswith(short)


def _widened(text: str, older: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The older facts a change said with the slot's holder or head noun, or a value of the kinds of a schedule,
    retires when nothing matched by the stricter tests (see `changed_slot`): a day of the week or a part of the
    day changed, a name given a date of effect; the slot shared by a name's head ("Ashville Vets" / "vet") or by
    a compound's head ("Werkstattbesprechung" / "Besprechung")."""
    new_words = _slot_words(text) | _name_heads(text)
    found = []
    for fact_id, content in older:
        if fold(content) == fold(text):
            continue
        kind = _kind_changed(text, content, date_of_effect=True) or _when_changed(text, content)
        if not kind:
            continue
        old_words = _slot_words(content)
        if any(
            same_family(a, b) or _compound_of(a, b) or canonical(a) == canonical(b) != a
            for a in new_words
            for b in old_words
        ) or (kind == "place" and _relocated(text) and _PLACE_OF_USER.search(fold(content))):
            found.append((fact_id, kind))
    return found


#: The user's own move of home or business: "we've moved", "wir sind umgezogen", "on a déménagé", "nos mudamos",
#: "mudámo-nos", "I moved".
_RELOCATED = re.compile(
    r"\b(?:we(?:'ve| have)? moved|I(?:'ve| have)? moved|we relocated|wir sind umgezogen|ich bin umgezogen|"
    r"on a demenage|nous avons demenage|j'ai demenage|nos (?:hemos )?mudado|nos mudamos|me (?:he )?mudado|me mude|"
    r"mudamo-nos|mudei-me|mudamos)\b"
)
#: An older fact that places the user: where they live or work ("Der Nutzer arbeitet in Leipzig-Gohlis", "The user
#: lives in Leeds", "L'utilisateur travaille à Rennes").
_PLACE_OF_USER = re.compile(
    r"\b(?:user|utilisateur|utilisatrice|usuario|usuaria|nutzer|nutzerin|utilizador|utilizadora)\s+(?:now\s+|still\s+)?"
    r"(?:lives?|works?|is based|habite|vit|travaille|vive|trabaja|wohnt|arbeitet|mora|vive|trabalha)\b"
)


def _relocated(text: str) -> bool:
    """Whether a fact says the user (or their business, "we") moved."""
    return _RELOCATED.search(fold(text)) is not None


#: A holder replaced or gone: "replaces", "takes over", "covering for", "remplace", "reprend", "reemplaza",
#: "sustituye", "ersetzt", "übernimmt", "vertritt", "substitui", "assume"; "left", "off to", "gone to", "retired",
#: "est parti(e)", "a quitté", "se fue", "se jubiló", "ist weg", "aufgehört", "in Rente", "saiu", "foi para",
#: "reformou-se".
_REPLACED = re.compile(
    r"\b(?:replac(?:es|ed|ing)|tak(?:es|ing)\s+over|took\s+over|covering\s+for|remplacee?s?|remplacant|"
    r"reprend|reemplaza(?:do|da)?|sustituye|ersetzt|ubernimmt|ubernommen|vertritt|substitui|substituiu|"
    r"assumiu)\b"
)
_LEFT = re.compile(
    r"\b(?:left|off\s+to|gone\s+to|retired|est\s+partie?|a\s+quitte|se\s+(?:fue|ha\s+ido|jubilo|marcho)|"
    r"ist\s+weg|aufgehort|in\s+rente|im\s+ruhestand|saiu|foi\s+para|reformou)\b"
)
#: A fact of what someone is called names no role held ("The user's name is Bao", "s'appelle", "se llama").
_CALLED = re.compile(r"\b(?:name|called|nom|appelle|nombre|llama|heisst|heisse|nome|chama)\b")


#: Where someone goes: "to", "à", "a", "nach", "para", "pra" before a name ("moved to Nantes", "foi para o Porto").
_GOES_TO = re.compile(r"\b(?:to|a|au|nach|zu|para|pra)\s+(?:(?:the|le|la|el|o|a|den|die|das)\s+)?" + NAME)


def _goes_to(text: str) -> frozenset[str]:
    """Names a fact says someone goes to (folded)."""
    return frozenset(fold(m.group("v")) for m in _GOES_TO.finditer(_a_grave(text)))


#: Kin, in the five languages: no one replaces a sister.
_KIN = re.compile(
    r"\b(?:sister|brother|wife|husband|partner|son|daughter|mother|father|mum|mom|dad|grand\w*|aunt|uncle|"
    r"cousin|niece|nephew|boyfriend|girlfriend|soeur|sœur|frere|femme|mari|fils|fille|mere|pere|tante|oncle|cousine?|"
    r"hermana|hermano|esposa|esposo|marido|hij[oa]|madre|padre|abuel[oa]|ti[oa]|prim[oa]|novi[oa]|schwester|"
    r"bruder|ehemann|ehefrau|sohn|tochter|mutter|vater|oma|opa|tante|onkel|irma|irmao|filh[oa]|mae|"
    r"pai|avo|namorad[oa])\b"
)


def _holder_replaced(text: str, older: Sequence[tuple[str, str]]) -> list[str]:
    """Ids of older facts whose one named holder the newer fact names with a new person in the role: the holder
    gone or replaced, or a change marker ("Anouk est partie à Nantes, c'est Inès Daoudi qui la remplace" /
    "Ma salariée, c'est Anouk Le Goff"; "Poppy's off to uni, so it's Daisy helping the user" / "The user's
    assistant is Poppy Leadbetter"). Not for a question or a hypothetical, a fact of what someone is called, nor
    a newer fact that names no one new outside a place ("Anouk moved to Nantes")."""
    own = _APPENDED.sub("", text)
    folded = fold(own)
    if "?" in own or HYPOTHETICAL.search(folded):
        return []
    # The holder's own change is no one else's: the third person guard of `_said_as_change` is not read here.
    marked = _MARKER.search(fold(_ISO.sub("", own))) is not None and not _ADDED.search(folded)
    gone = _REPLACED.search(folded) is not None or _LEFT.search(folded) is not None
    if not (gone or marked):
        return []
    said = set(tokens(own))
    placed = {t for place in _places(own) | _goes_to(own) for t in tokens(place)}
    # A name opening the fact or its template ("Ständige Anweisung des Nutzers: …") is no one new.
    opening = fold(re.split(r"[:,]", own, maxsplit=1)[0]) if ":" in own[:40] else ""
    new_names = frozenset(
        n for n in _names(own) if not fold(own).startswith(n) and not (opening and n in opening)
    )
    # With a change marker alone (no holder gone or replaced), the new person is said in full ("Gwenaëlle Tanguy").
    new_names = new_names if gone else frozenset(n for n in new_names if " " in n)
    out = []
    for fact_id, content in older:
        # A fact of what someone is called, or of kin (a sister stays a sister), holds no role to hand on.
        if _CALLED.search(fold(content)) or _KIN.search(fold(content)):
            continue
        # The one name of the older fact the newer one says (German nouns are capitalised too), a holder, not a
        # place either fact says something is in ("a teacher in Bristol" / "at the Bristol Games Hub now").
        named = [
            n
            for n in _names(content) - _places(content)
            if {t for t in tokens(n) if len(t) > 2} & (said - placed)
        ]
        if len(named) != 1:
            continue
        held = {t for t in tokens(named[0]) if len(t) > 2}
        fresh = {n for n in new_names - _places(own) - _goes_to(own) if not set(tokens(n)) & held}
        if fresh:
            out.append(fact_id)
    return out


def _names_day(text: str, iso: str) -> bool:
    """Whether a text names the day `iso` (YYYY-MM-DD): the ISO day, or its day of the month beside its month's
    name in any of the five languages ("17 de abril", "the 22nd of April", "3. April", "April 3")."""
    if f"({iso})" in text or len(iso) != 10:
        return f"({iso})" in text
    month, day = int(iso[5:7]), int(iso[8:10])
    names = "|".join(sorted((re.escape(n) for n, m in MONTHS.items() if m == month), key=len, reverse=True))
    folded = fold(_ISO.sub("", text))
    ordinal = r"(?:st|nd|rd|th|er|º|o|\.)?"
    return bool(
        re.search(rf"(?<![\d.,]){day}{ordinal}\s+(?:of\s+|de\s+|d')?(?:{names})\b", folded)
        or re.search(rf"\b(?:{names})\.?\s+(?:the\s+)?{day}{ordinal}(?![\d])", folded)
    )


__all__ = ["address_form", "changed_slot"]
