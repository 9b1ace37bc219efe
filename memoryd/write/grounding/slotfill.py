"""The slot-filling reader: updates and corrections read from a clause's structure, in five languages.

A correction only supersedes when it lands in the slot of the fact it corrects, so this reader names the slot from
the clause's parts rather than from a whole-sentence pattern:

- the **subject**: the user (a first-person pronoun or possessive, "we", or "me" as the object of someone else's
  change: "they're putting me on days");
- the **slot**, from the head noun that carries it: a relation noun ("GP", "médica", "Chef") with its qualifiers
  ("médecin traitant", "médica de família") and a change adjective ("a different GP", "mon nouveau médecin"); a
  goal noun with a measured quantity ("the weight goal … 78 kg", "la meta de ahorro … 3500 euros"); a work-shift
  noun ("on days", "Spätschicht", "turno de noche"); a tool after a verb of use ("we track our bugs in Jira") or of
  switching ("we've gone over to Evri for shipping");
- or from the **verb class** when no noun names it: "is supervising me" (a supervisor), "does our books" (an
  accountant), "sou seguida pela Dra. Pires" (a doctor), "who I report to" (a manager);
- the **value**: the name, quantity or shift the head noun or verb governs.

Each lexicon below is a small closed class of words (nouns, verbs, adjectives), never a sentence. `contrast` cuts a
corrected alternative out of a clause ("on Thursdays, not Tuesdays") so the rules read only what now holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS, weekday_span
from memoryd.write.grounding.lexicon import NAME, PETS, RELATIONS
from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.moves import job_change, moved_home
from memoryd.write.grounding.quantities import quantity
from memoryd.write.grounding.rules import canonical_purpose, is_name, target_measure
from memoryd.write.grounding.schedule import moved_schedule
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import fold, light_stem, word_set

_I = re.IGNORECASE

#: The user as subject or object of the clause, in five languages.
_USER = re.compile(
    r"\b(?:I|I'm|I've|I'll|I'd|me|my|we|we're|we've|our|us|je|j'|me|m'|moi|mon|ma|mes|on|nous|notre|nos|yo|mi|mis|"
    r"me|nosotros|nuestro|nuestra|ich|mich|mir|mein|meine|meinen|meinem|wir|uns|unser|unsere|eu|me|meu|minha|nós|"
    r"nosso|nossa)\b|\bj'|\bm'",
    _I,
)

# --- relations: possessive/indefinite + change adjective + relation noun + qualifiers + link + name
_DET = (
    r"(?:my|our|a|an|the|mon|ma|notre|un|une|le|la|l'|mi|nuestro|nuestra|el|mein|meine|meinen|meinem|meiner|unser|"
    r"unsere|unseren|einen|eine|ein|o meu|a minha|meu|minha|o nosso|a nossa|um|uma)"
)
_CHANGE_ADJ = (
    r"(?:new|different|another|nouveau|nouvelle|nouvel|autre|nuevo|nueva|otro|otra|neuer|neue|neuen|neues|anderen|"
    r"andere|anderer|novo|nova|outro|outra)"
)
#: Single-valued relations a person holds for the user (pets are named by other rules).
_SINGLE_RELATION_WORDS = sorted(
    (w for w, (key, single) in RELATIONS.items() if single and key not in PETS), key=len, reverse=True
)
_REL_WORD = "|".join(re.escape(w) for w in _SINGLE_RELATION_WORDS)
#: Lower-case qualifiers after the relation noun ("médecin traitant", "médica de família", "family doctor").
#: A qualifier is never a verb or a conjunction: "my dentist is great, Dr. Ruiz retired" names no dentist.
_NOT_QUALIFIER = (
    r"(?!(?:is|was|are|were|will|has|had|and|but|so|too|also|who|est|était|sera|et|mais|qui|es|era|será|y|pero|que|"
    r"ist|war|wird|und|aber|der|die|é|era|será|e|mas)\b)"
)
_QUALIFIER = rf"(?:\s+(?-i:(?:de |da |do |du |del |des |der |di )?{_NOT_QUALIFIER}[a-zà-öø-ÿ][\w-]*)){{0,2}}?"
#: What may follow the name: the clause ends or goes on with a preposition or a conjunction ("Dr. Haddad at the
#: Meadow Lane practice", "Dr. Okonjo, she has…"), not a verb of its own ("a new GP, Dr. Amin is always late").
_AFTER_NAME = (
    r"(?=\s*(?:[.,;:!?)—–-]|$)|\s+(?:at|from|in|of|on|near|who|whom|since|because|and|but|now|à|de|du|des|en|qui|"
    r"depuis|et|mais|maintenant|désormais|del|que|desde|y|pero|ahora|bei|aus|von|vom|der|die|seit|und|aber|"
    r"jetzt|em|na|no|da|do|e|mas|agora)\b)"
)
_LINK = (
    # "eine neue Chefin, sie heißt Frau Schulz", "a new GP, she's called Dr. Amin"
    r"(?:\s*,\s*(?:she|he|sie|er|elle|il|ela|ele|ella|él)(?:'s| is)?\s+(?:called|named|heißt|heisst|s'appelle|"
    r"se llama|se chama)\s+|\s*[,:—–-]\s*|\s+(?:is|'s|is now|now is|will be|est|c'est|est maintenant|sera|es|es ahora|ahora es|será|"
    r"ist|ist jetzt|ist nun|heißt|wird|é|é agora|agora é|será|called|named|s'appelle|se llama|chama-se)\s+)"
)
_ARTICLE = (
    r"(?:(?:the|le|la|l'|el|der|die|o|a)\s*)?"
    # "my new landlord is a company called Brightlet", "mon comptable est un certain M. Roy"
    r"(?:(?:a|an|un|une|una|uno|ein|eine|um|uma) (?:company|firm|agency|practice|clinic|guy|man|woman|lady|chap|"
    r"bloke|société|agence|cabinet|empresa|agencia|clínica|firma|praxis|agentur|empresa|clínica) (?:called|named|"
    r"appelée?|nommée?|llamad[oa]|namens|chamad[oa]) )?"
)
_RELATION = re.compile(
    rf"\b(?:{_DET}\s+(?:{_CHANGE_ADJ}\s+)?|another\s+)(?P<rel>{_REL_WORD}){_QUALIFIER}{_LINK}{_ARTICLE}{NAME}"
    rf"{_AFTER_NAME}",
    _I,
)

#: Where the person of a verb class works, said between the name and the verb ("Alastair Bain at Cowal Accounts
#: does my books"): the person is the holder, not the firm.
_AT_ORG = r"(?:,? (?:at|from|of) (?-i:[A-ZÀ-ÖØ-Þ])[\w&'’-]*(?: (?-i:[A-ZÀ-ÖØ-Þ&])[\w&'’-]*){0,3},?)?"
#: Verb classes that name a relation without its noun: the person is the subject, the user the object. Each names
#: the relation's key; the fact says it with that language's noun (_REL_NOUN).
_VERB_RELATIONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (key, re.compile(pattern, _I))
    for key, pattern in (
        ("manager", rf"{NAME}{_AT_ORG}(?:'s| is| has been| will be)? (?:now |currently )?(?:supervising|"
         r"supervises|supervise|advising|advises) (?:me|my|us|our)\b"),
        ("accountant", rf"{NAME}{_AT_ORG}(?:'s| is)? (?:now )?(?:does|do|doing|keeps|handles|prepares|files) (?:our|my) "
         r"(?:books|accounts|taxes|bookkeeping|tax returns?)\b"),
        ("doctor", rf"\b(?:sou|estou a ser|estou sendo) (?:seguid[oa]|acompanhad[oa]|tratad[oa]) (?:agora )?"
         rf"(?:pela|pelo|por) {NAME}"),
        ("doctor", rf"\bje (?:suis|serai) (?:maintenant )?(?:suivie?|soignée?) par (?:le |la )?{NAME}"),
        ("doctor", rf"\bme (?:atiende|trata|lleva|ve) (?:ahora )?(?:el |la )?{NAME}"),
        ("doctor", rf"\bich (?:werde|bin) (?:jetzt |nun )?(?:von|bei) (?:der |dem )?{NAME} (?:behandelt|betreut)"),
        ("doctor", rf"{NAME}(?:'s| is)? (?:now )?(?:treating|treats|seeing) me\b"),
    )
)  # fmt: skip
#: The noun each language says a relation key with, for a fact read from a verb ("supervising me" → supervisor).
_REL_NOUN: dict[str, dict[str, str]] = {
    "manager": {"en": "supervisor", "fr": "chef", "es": "jefe", "de": "Chef", "pt": "chefe"},
    "accountant": {
        "en": "accountant",
        "fr": "comptable",
        "es": "contable",
        "de": "Steuerberater",
        "pt": "contabilista",
    },
    "doctor": {"en": "doctor", "fr": "médecin", "es": "médico", "de": "Arzt", "pt": "médico"},
}
#: "…, so he's who I report to": the manager is the last person named before the pronoun.
_REPORT_TO_PRONOUN = re.compile(
    r"\b(?:he|she|they)(?:'s| is| are) (?:the one |the person )?(?:who|whom|that) I (?:now )?report to\b", _I
)

# --- work shifts
_SHIFT = re.compile(
    r"\b(?:on|to|onto|work|working|do|doing)\s+(?P<v>(?:the\s+)?(?:night|day|early|late|evening|morning|weekend|"
    r"graveyard|swing|back)s?(?:\s+shifts?)?|nights|days|earlies|lates)\b(?!\s+(?:ago|off|later|before|after|a week))|"
    r"\b(?P<v2>(?:früh|spät|nacht|tag|wechsel|mittags?)schicht)\b|"
    r"\b(?P<v3>turno (?:de|da|del) (?:noche|mañana|tarde|día|noite|manhã|dia))\b|"
    r"\b(?:je (?:suis|travaille|passe|serai)|on m'a mise?|ils m'ont mise?|en poste) (?:maintenant |désormais )?"
    r"(?:en |à |au )?(?P<v4>(?:équipe |poste )?de (?:nuit|jour|matin|soir))\b|"
    r"\b(?:l'|en )(?P<v5>(?:équipe|poste) de (?:nuit|jour|matin|soir))\b",
    _I,
)

#: A modal before the shift ("I need to work nights"); "may" only in lower case: "from May I'm on days" is a month.
_MODAL = re.compile(
    r"\b(?:need|needs|have|has|had|might|(?-i:may)|could|would|should|must|want|wants)\s+to\b|\b(?:might|"
    r"(?-i:may)|could|would|should)\b|\b(?:dois|doit|devrais|pourrais|tengo que|debo|podría|muss|müsste|könnte|tenho de|tenho que|"
    r"devo|poderia)\b",
    _I,
)
_PRO_DROP = frozenset({"es", "pt"})
#: Another person as the clause's subject: a relation ("my sister", "mi hermana", "mon frère") or, in the clause's
#: language, a third-person pronoun (Spanish "he" is "I have", German "sie" may be "they" or "you").
_ANY_REL_WORD = "|".join(sorted((re.escape(w) for w in RELATIONS), key=len, reverse=True))
_OTHER_RELATION = re.compile(
    rf"\b(?:{_DET}|his|her|their|sa|son|su|sein|seine|ihr|ihre|seu|sua)\s+(?:{_ANY_REL_WORD})\b"
    rf"(?!\s+(?:moved|put|switched|changed)\s+me\b)",
    _I,
)
_THIRD_PRONOUN = {
    "en": re.compile(r"\b(?:he|she)\b", _I),
    "fr": re.compile(r"\b(?:il|elle)\b", _I),
    "es": re.compile(r"\b(?:él|ella)\b", _I),
    "de": re.compile(r"\ber\b", _I),
    "pt": re.compile(r"\b(?:ele|ela)\b", _I),
}


def someone_else(text: str, lang: str = "") -> bool:
    """Whether another person is the subject in `text` ("my sister", "mon frère"; "he" in English)."""
    pronoun = _THIRD_PRONOUN.get(lang)
    return _OTHER_RELATION.search(text) is not None or (
        pronoun is not None and pronoun.search(text) is not None
    )


_SHIFT_PLURAL = re.compile(r"^(night|day|late)s$|^(earl)ies$", _I)

# --- goals with a measured value
_GOAL = re.compile(
    r"\b(?:goal|target|aim|objective|objectif|but|meta|objetivo|ziel|zielzeit|zielgewicht|budget|presupuesto|"
    r"orçamento|orcamento)\b",
    _I,
)
_QUANTITY = re.compile(
    r"(?:[£$€]\s?)?\d[\d.,:]*\s?(?:h\d{2}|%|[a-zà-ÿ]+\b)?(?:\s+(?:nos|nas|in|en|em|im|pour|para|for|on)\s+(?:the\s+)?"
    r"(?:\d[\d.,]*\s?[a-z]+|[a-zà-ÿ]+))?",
    _I,
)
_TRAILING_NOW = re.compile(r"[\s,]+(?:now|instead|then|maintenant|désormais|ahora|jetzt|nun|agora)\s*$", _I)

# --- tools used and tools switched to
_USE_VERB = (
    r"(?:track|tracks|manage|manages|write|writes|log|logs|store|stores|host|hosts|ship|ships|deploy|deploys|"
    r"edit|edits|design|designs|organise|organize|organises|organizes|handle|handles|draft|drafts|code|record|"
    r"records|bank|invoice|invoices|sell|sells|book|books)"
)
#: An object that is no thing acted on: "we plan to stay in Rome", "I track down the team in Leeds".
_NOT_OBJECT = r"(?!\s+(?:to|down|up|out|over|back|around)\b)"
_TOOL_USE = re.compile(
    rf"\b(?:I|we)\s+(?:(?:currently|still|usually|always|mostly|now)\s+)?(?P<verb>{_USE_VERB}){_NOT_OBJECT}"
    rf"(?P<obj>(?:\s+(?!in\b|on\b|with\b|using\b|via\b|through\b)[\w'-]+){{0,4}}?)\s+"
    rf"(?:in|on|with|using|via|through)\s+{NAME}"
    rf"(?=\s*(?:[.,;!]|$|\s+(?:at the moment|for now|now|these days|at work|for)\b))",
    _I,
)
#: The same in the other languages, with their verbs of managing a kind of work (not "planning" or "doing",
#: which a place follows as often as a tool: "wir planen unseren Urlaub in Spanien").
_TOOL_USE_OTHER = re.compile(
    rf"\b(?:(?:on|nous|je) (?P<fr>gère|gérons|gérer|suit|suivons|suis|tient|tenons|tiens|stocke|stockons|héberge|"
    rf"hébergeons|facture|facturons|organise|organisons)|"
    rf"(?P<es>gestionamos|gestiono|llevamos|llevo|guardamos|guardo|alojamos|facturamos|facturo|organizamos|"
    rf"organizo)|"
    rf"(?:wir|ich) (?P<de>verwalten|verwalte|tracken|tracke|organisieren|organisiere|hosten|hoste|speichern|"
    rf"speichere|führen|führe)|"
    rf"(?P<pt>gerimos|giro|guardamos|guardo|alojamos|faturamos|faturo|organizamos|organizo))"
    # Only prepositions of means: "in", "en", "dans", "no" are followed by a place as often as by a tool.
    rf"(?P<obj>(?:\s+(?!avec\b|sur\b|via\b|con\b|mit\b|über\b|com\b|pelo\b|pela\b)"
    rf"[\w'-]+){{1,4}}?)\s+(?:avec|sur|via|con|mit|über|com|pelo|pela)\s+(?:(?:o|a|le|la|el|der|die|das|dem|den)\s+)?"
    rf"{NAME}"
    rf"(?=\s*(?:[.,;!]|$))",
    _I,
)
#: A German common noun (every noun is capitalised): no tool's name.
_GERMAN_NOUN = re.compile(r"(?:ung|heit|keit|schaft|ion|tät|chen|lein|nis|tum|ei|ik|ur)$", _I)

_SWITCH = re.compile(
    r"\b(?:"
    rf"(?:we|I)(?:'ve| have|'re| are)?\s+(?:just |now |finally )?(?:gone over|went over|moved over|switched|"
    rf"changed|migrated|swapped)\s+(?:[\w-]+\s+){{0,3}}?(?:to|for)|"
    # "I've moved the thesis over to LaTeX", "we ported the site over to Astro"
    rf"(?:we|I)(?:'ve| have)?\s+(?:just |now |finally )?(?:moved|ported|brought|taken|took)\s+(?:[\w-]+\s+){{1,3}}?"
    rf"over\s+to|"
    rf"on (?:est|s'est) (?:passée?s? |mise?s? )?(?:à|sur)|nous sommes passée?s à|je suis passée? à|"
    rf"(?:nos |me )?(?:pasamos|cambiamos|cambié|pasé) (?:a|al)|(?:hemos|he) (?:cambiado|pasado|migrado) (?:a|al)|"
    rf"(?:nos hemos|me he) (?:pasado|cambiado) (?:a|al)|(?:on a|j'ai|nous avons) (?:changé|migré) (?:pour|vers)|"
    rf"(?:trocámos|trocamos|troquei) (?:para|pel[oa])|"
    rf"(?:mudámos|mudamos|passámos|passamos|mudei|passei) para)\s+(?:the |o |a |le |la |el )?{NAME}"
    rf"(?:\s+(?:for|pour|para|für)\s+(?:the |our |my |le |la |les |el |los |las |o |a |os |as |die |das |den )?"
    rf"(?P<what>[\w-]+(?: (?!(?:last|next|this|now|today|yesterday|again|too|as|because|since|instead|after|"
    rf"before|from|on|in|at)\b)[\w-]+)?))?",
    _I,
)
#: German puts the verb last: "wir sind jetzt auf Linear umgestiegen", "ich bin zu Evri gewechselt".
_SWITCH_DE = re.compile(
    rf"\b(?:wir sind|ich bin|wir haben|ich habe) (?:jetzt |nun |inzwischen |endlich )?(?:auf|zu) (?:der |die |das |den )?"
    rf"{NAME} (?:umgestiegen|gewechselt|umgestellt)",
    _I,
)
_SWITCH_STOP = frozenset(fold(w) for w in "the a an our my it them this that".split())  # noqa: SIM905


def _calendar_word(word: str) -> bool:
    """A weekday (singular or plural) or a month, in any of the five languages: what a schedule moves to ("I've
    swapped my courses to Thursdays and Fridays", "on est passés au jeudi"), never a tool or a provider chosen."""
    folded = fold(word.strip(",.;:"))
    return any(w in WEEKDAYS or w in MONTHS for w in (folded, folded.removesuffix("s")))


# --- a corrected alternative said alongside the new value
#: What a corrected alternative can be: a name, a number or day of the month, a weekday or a month ("Tuesdays",
#: "the 24th", "Osaka"); "grams, not cups" or "casual, no corporate speak" are part of what the user asks for.
_VALUE = (
    r"(?:(?-i:[A-ZÀ-ÖØ-Þ][\w'’-]*(?: [A-ZÀ-ÖØ-Þ][\w'’-]*){0,2})|\d{1,4}(?:st|nd|rd|th|er|e|º|ª|\.)?|"
    rf"(?:{'|'.join(sorted({*MONTHS, *WEEKDAYS}, key=len, reverse=True))})s?)"
)
_ALT_ARTICLE = r"(?:(?:on|the|le|la|el|am|o|a|em|en|in|au|al|für)\s+)?"
_CONTRAST = re.compile(
    # "…, not Tuesdays", "…, pas le 16", "…, no el martes", "…, nicht am Dienstag", "…, não na terça"
    rf",\s*(?:and |but |et |y |und |e )?(?:not|pas|non|no|nicht|não)\s+{_ALT_ARTICLE}(?P<old>{_VALUE})"
    rf"(?=\s*(?:[,;.!]|$))|"
    # "… in Kyoto instead of Osaka", "… au lieu du 16", "… statt Dienstag"
    rf"\s+(?:instead of|rather than|au lieu d[eu]|au lieu de la|plutôt que|en vez de|en lugar de|statt|anstatt|"
    rf"em vez de|ao invés de)\s+{_ALT_ARTICLE}(?P<old2>{_VALUE})(?=\s*(?:[,;.!]|$))",
    _I,
)


_BARE_CONTRAST = re.compile(
    rf"\s+(?:not|pas|nicht|não)\s+{_ALT_ARTICLE}(?P<old>{_VALUE})(?=\s*(?:[,;.!]|$))", _I
)
_ENDS_WITH_VALUE = re.compile(rf"(?:{_VALUE})\s*$", _I)


def contrast(clause: str) -> tuple[str, str]:
    """(the clause without a corrected alternative, that alternative or ""): "Sprint reviews are on Thursdays, not
    Tuesdays, I got that wrong" → ("Sprint reviews are on Thursdays", "Tuesdays"). The alternative is a value (a
    name, a number, a day or a month) after a statement of at least three words; an aside after "…, not X," is no
    part of the new fact."""
    bare = _BARE_CONTRAST.search(clause)
    if bare is not None and _ENDS_WITH_VALUE.search(clause[: bare.start()]):
        # "Actually it's Thursday not Tuesday": a value, then the one it replaces, without a comma.
        return f"{clause[: bare.start()]}{clause[bare.end() :]}", _singular(bare.group("old"))
    for match in _CONTRAST.finditer(clause):
        before = clause[: match.start()].rstrip(" ,")
        if len(before.split()) < 3:
            continue
        if match.group("old"):
            return before, _singular(match.group("old"))
        return f"{before}{clause[match.end() :]}", _singular(match.group("old2"))
    return clause, ""


def _singular(value: str) -> str:
    """ "Tuesdays" → "Tuesday": a weekday said of a habit names the same day."""
    return value[:-1] if value.endswith("s") and fold(value[:-1]) in WEEKDAYS else value


def _fact(
    kind: FactKind, text: str, slot: str, value: str, turn: int, salience: float, lang: str, *, identity: bool
) -> GroundedFact:
    return GroundedFact(kind, text, slot, value, (turn,), salience, identity, "extractor", lang)


def _rel_key(word: str) -> str:
    entry = RELATIONS.get(word.lower()) or RELATIONS.get(fold(word))
    return entry[0] if entry and entry[1] and entry[0] not in PETS else ""


def _relation(rel: str, name: str, turn: int, lang: str) -> GroundedFact | None:
    key = _rel_key(rel)
    if not key or not is_name(name) or _rel_key(name) or _TITLE.fullmatch(name.rstrip(".")):
        return None  # "Dr." alone is a title cut from its name, no one
    text = render("relation", lang, name, rel=rel.lower() if lang == "en" else rel)
    return _fact(FactKind.RELATION, text, f"relation.{key}", name, turn, 0.7, lang, identity=False)


def relations(clause: str, turn: int, lang: str, earlier_names: Sequence[str] = ()) -> list[GroundedFact]:
    """A single-valued relation named by its noun (with qualifiers or a change adjective) or by a verb class."""
    out: list[GroundedFact] = []
    if _USER.search(clause):
        for match in _RELATION.finditer(clause):
            fact = _relation(match.group("rel"), match.group("v"), turn, lang)
            if fact is not None:
                out.append(fact)
    # A verb class carries the user itself ("supervising me", "sou seguida pela", "does our books").
    for key, pattern in _VERB_RELATIONS:
        for match in pattern.finditer(clause):
            fact = _relation(_REL_NOUN[key].get(lang, _REL_NOUN[key]["en"]), match.group("v"), turn, lang)
            if fact is not None:
                out.append(fact)
    said = _REPORT_TO_PRONOUN.search(clause)
    if said is not None and earlier_names:
        fact = _relation(_REL_NOUN["manager"].get(lang, "manager"), earlier_names[-1], turn, lang)
        if fact is not None:
            out.append(fact)
    return out


def shift(clause: str, turn: int, lang: str) -> GroundedFact | None:
    """The user's work shift ("they're putting me on days", "ich bin in der Spätschicht"), when the user is in the
    clause."""
    if someone_else(clause, lang) or (not _USER.search(clause) and lang not in _PRO_DROP):
        return None  # Spanish and Portuguese drop the pronoun ("Passei para o turno da manhã")
    found = list(_SHIFT.finditer(clause))
    if not found or _MODAL.search(clause[: found[-1].start()]):
        return None  # "I need to work nights to finish the report": for now, not the user's shift
    match = found[
        -1
    ]  # "from nights to days", "de l'équipe de nuit à l'équipe de jour": the last is the new one
    value = next(v for v in match.groups() if v)
    value = re.sub(r"^the\s+", "", value, flags=_I)
    # "on days", "on nights", "on earlies": the English plural names the shift ("the day shift").
    plural = _SHIFT_PLURAL.match(value)
    days = _days_of(clause, match.end())
    if plural is not None and lang == "en":
        value = (plural.group(1) or "early").lower()
        text = _with_days(render("on_shift", lang, value), days)
        return _fact(FactKind.IDENTITY, text, "identity.shift", value, turn, 0.9, lang, identity=True)
    text = _with_days(render("shift", lang, value), days)
    return _fact(FactKind.IDENTITY, text, "identity.shift", value, turn, 0.9, lang, identity=True)


def _days_of(clause: str, end: int) -> str:
    """The span of the week said right after a shift ("on nights Sunday to Wednesday", "de nuit du lundi au
    jeudi"): the days the shift is worked, kept with it. A span said further on belongs to something else."""
    rest = clause[end:]
    span = weekday_span(rest)
    if span is None or rest[: span[0]].strip(" ,") not in ("", "du", "de", "von", "from", "da"):
        return ""
    return rest[: span[1]].strip(" ,")


def _with_days(text: str, days: str) -> str:
    return f"{text[:-1]}, {days}{text[-1]}" if days else text


def goal(clause: str, turn: int, lang: str) -> GroundedFact | None:
    """A goal restated with a measured value ("I've revised the weight goal too: 78 kg now", "subí la meta de
    ahorro a 3500 euros"): the quantity after the goal noun, in the slot of what it measures."""
    noun = _GOAL.search(clause)
    if noun is None or someone_else(clause[: noun.start()], lang):
        return None  # "my sister's goal is 60 kg" is hers
    rest = clause[noun.end() :]
    quantity = next((q for q in _QUANTITY.finditer(rest) if target_measure(q.group(0))), None)
    if quantity is None:
        return None
    value = _TRAILING_NOW.sub("", rest[quantity.start() :].strip(" .!;")).strip()
    value = re.split(r"\s*(?:,(?!\d)|[;(])|\s+(?:by|before|avant|antes|bis|até|since|depuis|desde|seit|because|"
                     r"parce que|porque|weil|pois)\b", value, maxsplit=1, flags=_I)[0]  # fmt: skip
    measure = target_measure(value)
    if not value or not measure:
        return None
    # A budget is said as one ("The user's budget is 25k pounds maximum"), not as a goal.
    text = (
        render("relation", lang, value, rel=noun.group(0).lower())
        if _BUDGET.fullmatch(noun.group(0))
        else render("target", lang, value)
    )
    return _fact(FactKind.PLAN, text, f"target.{measure}", value, turn, 0.6, lang, identity=False)


_BUDGET = re.compile(r"budget|presupuesto|orçamento|orcamento", _I)


#: Verbs that name their purpose themselves ("we invoice our clients with FreeAgent" is invoicing); with any
#: other verb of use the object names it ("we track all our bugs in Jira" is about bugs).
_PURPOSE_VERBS = frozenset(
    word_set("invoice invoices ship ships bank book books sell sells deploy deploys host hosts")
)


def _purpose(verb: str, obj: str) -> str:
    words = [w for w in re.findall(r"[\w-]+", obj.lower()) if fold(w) not in _VAGUE]
    if not words and not verb:
        return "work"
    head = verb.lower() if verb.lower() in _PURPOSE_VERBS or not words else words[-1]
    return canonical_purpose(light_stem(fold(head)))


_VAGUE = frozenset(
    fold(w)
    for w in word_set(
        "all our my the a an everything anything stuff things it them every each of "
        "nos notre les la le l' des tout toutes nuestros nuestras nuestra nuestro los las el la todo todos unsere "
        "unseren unser die der das den alle alles nossos nossas nosso nossa os as o a tudo todos"
    )
)


def tool_use(clause: str, turn: int, lang: str) -> GroundedFact | None:
    """A tool the user works with, said with a verb of use and what it is used for ("we track all our bugs in Jira"
    → tool.bug, "I write everything in Word" → tool.write)."""
    match = _TOOL_USE.search(clause) or _TOOL_USE_OTHER.search(clause)
    if match is None or not is_name(match.group("v")) or _rel_key(match.group("v")):
        return None
    name = match.group("v")
    if match.re is _TOOL_USE_OTHER and match.group("de") and (" " not in name and _GERMAN_NOUN.search(name)):
        return None
    verb = match.group("verb") if match.re is _TOOL_USE else ""
    purpose = _purpose(verb, match.group("obj"))
    what = f" to {verb.lower()}{match.group('obj')}" if match.re is _TOOL_USE and lang == "en" else ""
    text = render("tool", lang, name, what=what)
    return _fact(FactKind.PREFERENCE, text, f"tool.{purpose}", name, turn, 0.75, lang, identity=False)


#: "We're with Barclays now", "I'm now with Octopus for electricity": a provider the user has changed to.
_NOW_WITH = re.compile(
    rf"\b(?:I'm|I am|we're|we are)\s+(?:now\s+)?with\s+{NAME}(?=(?:\s+now)?\s*(?:[.,;!]|$|\s+for\b))"
    rf"(?:\s+now)?(?:\s+for\s+(?:the |our |my )?(?P<what>[\w-]+))?",
    _I,
)
_NOW = re.compile(r"\b(?:now|these days|since|from now on)\b", _I)
#: "I stopped working at Google; I'm at Atlassian now": the employer, when the sentence speaks of work.
_NOW_AT = re.compile(rf"\bI(?:'m| am)\s+(?:now\s+)?(?:at|with)\s+{NAME}", _I)
_WORK_TALK = re.compile(
    r"\b(?:work|working|worked|job|jobs|company|employer|hired|joined|left|quit|resigned|role|position|offer)\b",
    _I,
)


def employer_now(clause: str, sentence: str, turn: int, lang: str) -> GroundedFact | None:
    """A new employer said as where the user is now ("…; I'm at Atlassian now"), when its sentence speaks of work."""
    match = _NOW_AT.search(clause)
    if match is None or lang != "en" or not _NOW.search(clause) or not _WORK_TALK.search(sentence):
        return None
    name = match.group("v")
    if not is_name(name) or _rel_key(name):
        return None
    return _fact(FactKind.IDENTITY, render("employer", lang, name), "identity.employer", name, turn, 0.9, lang,
                 identity=True)  # fmt: skip


def switched(clause: str, turn: int, lang: str, *, corrected: bool = False) -> GroundedFact | None:
    """A tool or service the user switched to ("we've gone over to Evri for shipping", "on est passés à Trello"):
    a decision, in the slot of its purpose when one is said."""
    match = _SWITCH.search(clause) or _SWITCH_DE.search(clause)
    if match is None and _NOW.search(clause):
        # "I'm with Sam now" is about a person; a provider is said with what it is for or what it replaced.
        provider = _NOW_WITH.search(clause)
        if provider is not None and (provider.group("what") or corrected):
            match = provider
    if match is None or not is_name(match.group("v")) or _rel_key(match.group("v")):
        return None
    name = match.group("v")
    if fold(name.split()[0]) in _SWITCH_STOP or _calendar_word(name.split()[0]):
        return None
    what = match.groupdict().get("what") or ""
    slot = f"choice.{canonical_purpose('_'.join(light_stem(fold(w)) for w in what.split()))}" if what else ""
    value = f"{name} for {what}" if what and lang == "en" else name
    return _fact(FactKind.DECISION, render("chose", lang, value), slot, name, turn, 0.8, lang, identity=False)


def other_names(sentence: str, keep: str) -> tuple[str, ...]:
    """Capitalised names of a sentence other than `keep` (a switch's old tool: "Royal Mail got too expensive")."""
    found = []
    for match in re.finditer(NAME, sentence):
        name = match.group("v")
        if match.start() == 0 or not is_name(name) or fold(keep) in fold(name) or fold(name) in fold(keep):
            continue  # a capital opening the sentence is no evidence of a name
        found.append(name)
    return tuple(dict.fromkeys(found))


# --- someone taking over from someone who left the role
#: The slot a successor fact carries until supersede.py finds the role of the person it replaces in the agent's
#: memory ("Gillian retired, so Martin Doyle does our books" before "The user's accountant is Gillian Shaw").
SUCCESSOR = "relation.successor"
_TAKEOVER = (
    r"(?:takes over|is taking over|took over|has taken over|will take over|is covering|covers|is stepping in|"
    r"stepped in|steps in|is replacing|replaced|replaces|reprend|a repris|remplace|a remplacé|prend le relais|"
    # the user passed on to the successor: "I've been handed over to Dr. Anand Mistry"
    r"handed over to|been transferred to|been referred to|passed on to|transféré chez|derivado a|derivada a|"
    r"überwiesen an|encaminhado para|encaminhada para|"
    r"asume|ha asumido|asumió|sustituye|reemplaza|toma el relevo|se encarga|übernimmt|hat übernommen|übernahm|"
    r"vertritt|ersetzt|springt ein|assume|assumiu|substitui|substituiu|fica com|ficou com|"
    # the user filled the role anew: "Matilde foi-se embora, por isso contratei o Kalani", "so we hired Priya"
    r"hired|have hired|took on|have taken on|brought in|contratei|contratámos|contratamos|contraté|he contratado|"
    r"hemos contratado|j'ai embauché|on a embauché|nous avons embauché|"
    # doing the absent person's work: "Carla Nguyen is running the job now", "it's Catriona Bell who runs training"
    r"is running|is now running|runs|is handling|handles|is in charge of|is doing the|"
    # chosen by others for the role the person left: "Riz stepped down as captain. The team voted Tomasz in",
    # "le club a élu Chloé", "el equipo eligió a Marta", "die Mannschaft hat Jana gewählt", "a equipa elegeu a Rita"
    r"voted|have voted|elected|have elected|appointed|have appointed|a élu|ont élu|a nommé|ont nommé|eligió a|"
    r"eligieron a|nombró a|nombraron a|gewählt|wählte|wählten|ernannt|elegeu|elegeram|"
    r"nomeou|nomearam)"
)
_NEW_BEFORE = re.compile(
    # "c'est Bastien qui la remplace", "it's Catriona Bell who runs training"
    rf"{NAME}(?:,? (?:is|has|will|now|jetzt|nun|maintenant|ahora|agora))?(?: (?:who|qui|que|der|die)"
    rf"(?: (?:la|le|l'|lo|sie|ihn|a|o))?)? {_TAKEOVER}\b",
    _I,
)
#: German and Romance inversion: "jetzt übernimmt sein Kollege Herr Yilmaz die Fliesen".
_NEW_AFTER = re.compile(rf"\b{_TAKEOVER} (?:(?!{_TAKEOVER})[\w'-]+ ){{0,3}}?{NAME}", _I)
#: The role said to have a new holder after someone left it: "O Joaquim reformou-se, e para o ano o capataz vai ser
#: o Zé Tavares", "Dana retired, the head gardener will be Sam Okoro", "le chef d'équipe sera Paul Morel", "el
#: encargado va a ser Luis Gil", "der Vorarbeiter wird Jan Roth", "o capataz passa a ser o Rui Sá": the role noun
#: with its article, a copula of the future or of "now", and the name.
_ROLE_WILL_BE = re.compile(
    rf"\b(?:the|le|la|el|der|die|o|a)\s+(?:[\w'-]+\s+){{0,2}}?(?:will be|is now|is going to be|sera|va être|será|"
    rf"va a ser|es ahora|wird|ist jetzt|vai ser|é agora|passa a ser)\s+(?:(?:o|a|el|la|le|der|die)\s+)?{NAME}",
    _I,
)
#: Someone away from the role for now: "Herr Böhm ist krank", "Dana is off sick", "la Dra. Gil está de baja".
_AWAY = re.compile(
    rf"{NAME} (?:is|'s|ist|est|está|esta|anda) (?:off |now |jetzt |leider )?(?:sick|ill|on leave|krank|"
    r"in Elternzeit|im Urlaub|malade|en congé|enferm[oa]|de baja|doente|de licença|de baixa)\b",
    _I,
)
#: Hurt and off the role for now: "Luis broke his wrist", "Maëlle s'est fait une entorse", "se ha roto la pierna".
_HURT: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, _I)
    for pattern in (
        rf"{NAME} (?:broke|has broken|hurt|injured) (?:his|her|their) \w+",
        rf"{NAME} (?:is|got) injured",
        rf"{NAME} s'est (?:fait une entorse|cassé|blessée?)",
        rf"{NAME} se (?:ha roto|rompió|ha lesionado|lesionó)",
        rf"{NAME} hat sich (?:\w+ ){{0,3}}(?:gebrochen|verletzt)",
        rf"{NAME} (?:partiu|fraturou|lesionou-se)",
    )
)


#: A capitalised conjunction opening the sentence is no part of the name after it ("Mais Maëlle s'est…").
_OPENER = re.compile(r"^(?:Mais|But|And|So|Et|Pero|Y|Aber|Und|Mas|E|Oh|Well|Donc|Also)\s+(?=\S)")


def successors(sentence: str, gone: Sequence[str]) -> list[tuple[str, str]]:
    """(new person, person replaced) when a sentence says someone takes over from a person who left the role
    (`gone`: names the turn says left) or is away from it ("Herr Böhm ist krank")."""
    away = [
        *gone,
        *(
            _OPENER.sub("", m.group("v"))
            for p in (_AWAY, *_HURT)
            for m in p.finditer(sentence)
            if is_name(_OPENER.sub("", m.group("v")))
        ),
    ]
    if not away:
        return []
    out: list[tuple[str, str]] = []
    for pattern in (_NEW_BEFORE, _NEW_AFTER, _ROLE_WILL_BE):
        for match in pattern.finditer(sentence):
            new = match.group("v")
            if (
                not is_name(new)
                or _rel_key(new)
                or any(fold(new) in fold(o) or fold(o) in fold(new) for o in away)
            ):
                continue
            out.append((_from_title(new), away[0]))
    return out[:1]


_TITLE = re.compile(r"(?-i:\b(?:Dr|Dra|Mr|Mrs|Ms|Mx|Prof|Herr|Frau|Sr|Sra|Mme|Mlle)\b\.?|\bM\.)")


def _from_title(name: str) -> str:
    """ "Kollege Herr Yilmaz" → "Herr Yilmaz": a German noun capitalised before the title is no part of the name."""
    title = _TITLE.search(name)
    return name[title.start() :] if title is not None and title.start() > 0 else name


def successor_fact(new: str, old: str, sentence: str, turn: int, lang: str) -> GroundedFact:
    """A fact naming who now holds the role `old` held; its slot is SUCCESSOR until the role is known."""
    text = sentence.strip()
    return GroundedFact(
        FactKind.RELATION, text, SUCCESSOR, new, (turn,), 0.7, False, "extractor", lang, (("person", old),)
    )


# --- what a standing instruction is about
#: Aspects of how the assistant answers, each a closed class of words in five languages. An instruction about
#: exactly one aspect fills its slot, so a later instruction about it replaces it ("keep answers short" →
#: "give me detailed answers"); one about several keeps no slot (what a later one replaces is unknown). Formats are
#: no such aspect: "no bullet points" and "tables for comparisons" both hold.
_ASPECTS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (aspect, re.compile(pattern, _I))
    for aspect, pattern in (
        ("length", r"\b(?:short|shorter|brief|briefly|concise|succinct|long|longer|detailed|in detail|lengthy|"
                   r"court|courte|courts|brève|bref|concis|concise|détaillée?s?|corto|cortas?|cortos|breve|conciso|"
                   r"detallad[oa]s?|kurz|kürzer|knapp|ausführlich|detailliert|curt[oa]s?|detalhad[oa]s?)\b"),
        ("units", r"\b(?:grams|gram|cups?|ounces|oz|kilos?|metric|imperial|celsius|fahrenheit|miles|kilomet(?:er|re)s?|"
                  r"km|grammes|tasses|gramos|tazas|gramm|tassen|gramas|chávenas)\b"),
        ("currency", r"\b(?:dollars|euros?|usd|eur|gbp|cad|reais|francs|(?:prices|amounts|costs) in pounds|"
                     r"pounds sterling)\b"),
        ("code", r"\b(?:code|snippets?|examples?|exemples?|ejemplos?|beispiele|exemplos?)\b.{0,30}\b(?:python|"
                 r"javascript|typescript|rust|go|java|kotlin|swift|ruby|php|c\+\+|c#|sql|bash)\b"),
        ("tone", r"\b(?:casual|formal|informal|friendly|professional|corporate|blunt|gentle|tone|ton|tono|"
                 r"direct|direkt|directo|direto|sans détour|sin rodeos|sem rodeios)\b"),
        # how sources are cited ("cite everything in APA style" → "use Harvard referencing")
        ("citation", r"\b(?:cite|citing|citation|citations|referencing|reference style|apa|harvard|mla|chicago|"
                     r"vancouver|ieee|bibliograph\w*|citer|citez|référencement|citar|citas|zitier\w*|"
                     r"zitierweise|citação|citações)\b"),
        # the tax put on invoices ("never add VAT" → "add VAT at 20%")
        ("tax", r"\b(?:vat|tva|iva|mwst|mehrwertsteuer|umsatzsteuer|gst|sales tax)\b"),
        # how messages are signed ("sign them 'Bao x'" → "the sign-off is now 'Warmly, Bao'")
        ("signoff", r"\b(?:sign-off|sign off|sign them|sign it|sign my|signature|signer|signez|firma|firmar|"
                    r"grußformel|unterschrift|unterschreib\w*|assinatura|assinar)\b"),
    )
)  # fmt: skip


def instruction_aspect(value: str) -> str:
    """The slot of a standing instruction about exactly one aspect of answering, else ""."""
    found = [aspect for aspect, pattern in _ASPECTS if pattern.search(value)]
    return f"instruction.{found[0]}" if len(found) == 1 else ""


def read_clause(
    clause: str,
    turn: int,
    lang: str,
    earlier_names: Sequence[str] = (),
    sentence: str = "",
    corrected: str = "",
) -> list[GroundedFact]:
    """Every slot the reader fills from one clause of a user turn (`sentence`: the whole sentence it is part of;
    `corrected`: the alternative already cut out of it)."""
    kept, old = contrast(clause)
    old = old or corrected
    out = relations(kept, turn, lang, earlier_names)
    for reader in (shift, goal, tool_use):
        fact = reader(kept, turn, lang)
        if fact is not None:
            out.append(fact)
    choice = switched(kept, turn, lang, corrected=bool(old))
    if choice is not None:
        out.append(choice)
    employer = employer_now(kept, sentence or clause, turn, lang)
    if employer is not None:
        out.append(employer)
    schedule = moved_schedule(kept, turn, lang)
    if schedule is not None:
        out.append(schedule)
    home = moved_home(kept, turn, lang)
    if home is not None:
        out.append(home)
    out.extend(job_change(sentence or clause, turn, lang))
    counted = quantity(kept, turn, lang)
    if counted is not None:
        out.append(counted)
    return out


__all__ = [
    "SUCCESSOR",
    "contrast",
    "goal",
    "instruction_aspect",
    "other_names",
    "read_clause",
    "relations",
    "shift",
    "someone_else",
    "successor_fact",
    "successors",
    "switched",
    "tool_use",
]
