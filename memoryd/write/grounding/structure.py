"""First-person clause structure the sentence rules miss: named roles, self-introductions, businesses and new partners.

The rules in patterns.py read fixed phrasings around a lexicon of relation nouns and roles. This module reads the
structure of a first-person clause instead, over any noun:

- a **named role**: a first-person possessive + any lower-case noun phrase + a copula + a capitalised name ("our new
  supervising social worker is Owain Rees", "Mi nueva gestora es Marisa Ortún", "Meine neue Patin im Verein ist
  Frau Yildiz", "Mon nouvel œnologue, c'est M. Karim Benali", "A nova barista-chefe é a Raíssa"), the same noun
  phrase as an apposition ("my bridesmaid Ottilie is …", "A minha mulher, Filipa, é …") or after "has taken over
  as my"; or the name first and the role closing the clause ("…, so Maureen Threlfall is our skip for now", "Paul
  Girard est notre chef d'équipe", "Ana Ruiz es nuestra gestora", "Frau Roth ist unsere Patin", "A Rita é a nossa
  contabilista"; not "Tom is my brother's friend", not "Friday is our deadline");
- a **self-introduction** continued by appositions after the name: "I'm Ruth, 52, a retired nurse in Norwich",
  "soy Inés, dentista", "ich bin Jana, 47, Lehrerin in Kassel", "Bonjour, Gaspard, vigneron à Meursault";
- a **business or study of the user's**: "I run a micro-bakery … in Galway", "Tengo un taller mecánico en Zaragoza",
  "tenho uma cafeteria pequena em Curitiba", "I study mechanical engineering at Loughborough";
- a **partner of the user's business, now**: a first-person verb with a capitalised organisation and "now"
  ("I'm with Ballyhale Mills now", "ahora compro a Autopiezas Moncayo", "agora vendemos para a Ölmühle Berger").

Each reading yields a fact only when its value is a capitalised name (or, for the introduction, a short noun
phrase): the structure, not a word list, carries it. The extractor adds a reading only where the sentence rules
found nothing over the same value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.lexicon import DIET_WORDS, HEDGE, NAME, NOT_ROLES, RELATIONS
from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.roles import masculine, role_key
from memoryd.write.grounding.rules import is_name, to_third_person_en
from memoryd.write.grounding.templates import TOWN_OF_WORK, render
from memoryd.write.grounding.text import STOP_WORDS, content_tokens, fold, tokens
from memoryd.write.grounding.unfit import unfit_reason

_I = re.IGNORECASE
_WHO = NAME.replace("(?P<v>", "(?P<name>")
#: A name right after a copula may carry an article in Romance languages ("c'est le Dr Roux", "é a Raíssa").
_ARTICLE = r"(?:(?:le|la|l'|el|o|a|der|die|den)\s+)?"

#: Modifiers that keep the role's slot ("my new dentist" replaces "my dentist").
_NEW = (
    r"(?:new|current|nouvel|nouvelle|nouveau|nuevo|nueva|neue|neuer|neues|neuen|novo|nova|actual|atual|actuel|"
    r"actuelle|aktuelle|aktueller)"
)
#: The words of _NEW, folded: an adjective of the role, never its head noun.
_NEW_WORDS = frozenset(fold(w) for w in _NEW[3:-1].split("|"))
#: A role noun phrase: one to three lower-case words, joined by a preposition of the role ("assistant à la mise en
#: scène", "Patin im Verein" in German, where nouns are capitalised).
_ROLE_WORD = r"(?-i:[^\W\d_A-ZÀ-ÖØ-Þ][\w'-]*)"
_ROLE_WORD_DE = r"(?-i:[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿß][\w-]*)"
_ROLE_PREP = r"(?:à la|à l'|au|de la|de l'|du|des|de|en|im|in der|beim|vom|da|do|no|na|del|of the|at the)"
_ROLE = (
    rf"(?P<rel>{_ROLE_WORD}(?:\s+{_ROLE_WORD}){{0,2}}(?:\s+{_ROLE_PREP}\s*{_ROLE_WORD}(?:\s+{_ROLE_WORD})?)?)"
)
_ROLE_DE = rf"(?P<rel>{_ROLE_WORD_DE}(?:\s+(?:im|in der|beim|vom|für)\s+{_ROLE_WORD_DE})?)"

_POSSESSIVE = {
    "en": r"(?:my|our)",
    "fr": r"(?:mon|ma|notre)",
    "es": r"(?:mi|nuestro|nuestra)",
    "pt": r"(?:o meu|a minha|o nosso|a nossa|meu|minha|nosso|nossa)",
    "de": r"(?:mein|meine|meiner|unser|unsere|unserer)",
}
#: A definite article counts as the user's only with "new": "la nueva higienista es Nuria", "the new GP is …".
_DEFINITE_NEW = {
    "en": rf"the\s+{_NEW}",
    "fr": rf"(?:le|la)\s+{_NEW}",
    "es": rf"(?:el|la)\s+{_NEW}",
    "pt": rf"(?:o|a)\s+{_NEW}",
    "de": rf"(?:der|die|das)\s+{_NEW}",
}
_COPULA = {
    "en": r"(?:is|'s|is now|will be)",
    "fr": r"(?:c'est|est|s'appelle|ce sera)",
    "es": r"(?:es|se llama|será|ahora es)",
    "pt": r"(?:é|se chama|chama-se|será|agora é)",
    "de": r"(?:ist|heißt|wird)",
}


#: Where a clause of its own starts after a joining word ("…, so Maureen Threlfall is our skip").
_AFTER_JOIN = (
    "(?:" + "|".join(rf"(?<=\b{w} )" for w in ("so", "and", "et", "y", "und", "e", "donc", "also")) + ")"
)
#: A role said after its holder: up to three lower-case words, never a word of time ("our skip for now").
_TIME_WORD = r"(?!(?:now|for|these|since|from|maintenant|pour|ahora|por|jetzt|agora)\b)"
_INVERSE_ROLE = rf"(?P<rel>{_TIME_WORD}{_ROLE_WORD}(?:\s+{_TIME_WORD}{_ROLE_WORD}){{0,2}})"
#: The copulas of a role said after its holder's name ("Maureen Threlfall is our skip").
_INVERSE_COPULA = {
    "en": r"(?:is|'s|will be)",
    "fr": r"(?:est|sera)",
    "es": r"(?:es|será)",
    "pt": r"(?:é|será)",
    "de": r"(?:ist|wird)",
}


#: A person introduced by what they are before their name ("a lad called Piran Trewin", "une dame qui s'appelle
#: Odile", "una chica que se llama Nuria", "ein Mann namens Jörg", "um rapaz chamado Rui"): the name is the value.
_CALLED = (
    r"(?:(?:an?|une?|una?|um|uma|ein|eine|einen)\s+(?:[^\W\d_][\w-]*\s+){1,2}?"
    r"(?:called|named|qui s'appelle|appelée?|nommée?|llamad[oa]|que se llama|chamad[oa]|que se chama|namens)\s+)"
)
#: Where the role is held, said between it and the copula ("New supervisor there is Calum Reid").
_THERE_WORDS = r"(?:there|now|là-bas|allí|allá|dort|lá)"
_THERE = rf"(?:{_THERE_WORDS}\s+)?"
#: The copulas of a role said without its possessive at the start of a sentence ("Supervisor is Shona Grant").
_BARE_COPULA = r"(?:is|est|c'est|es|ist|é)"


def _named_role_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    out = []
    for lang, own in _POSSESSIVE.items():
        role = _ROLE_DE if lang == "de" else _ROLE
        lead = rf"(?:{own}\s+(?:{_NEW}\s+)?|{_DEFINITE_NEW[lang]}\s+)"
        out.append(
            (
                lang,
                re.compile(
                    rf"(?<![\w'])(?:{lead}){role}\s*,?\s+{_COPULA[lang]}\s+(?:now\s+)?(?:{_CALLED}|{_ARTICLE}){_WHO}",
                    _I,
                ),
            )
        )
        # "my bridesmaid Ottilie is organising", "A minha mulher, Filipa, é enfermeira": the name in apposition.
        out.append(
            (
                lang,
                re.compile(
                    rf"(?<![\w'])(?:{own}\s+(?:{_NEW}\s+)?){role}\s*,?\s+{_WHO}(?=\s*(?:,|\s(?:is|was|will|has|had|est|va|es|ha|ist|hat|wird|é|vai|tem)\b))",
                    _I,
                ),
            )
        )
        # "Maureen Threlfall is our skip for now", "Paul est notre chef d'équipe", "Ana es nuestra gestora", "Frau
        # Roth ist unsere Patin", "A Rita é a nossa contabilista": the name first, the role after the copula, ending
        # the clause (or followed by "now"/"for now"/"since …"): not "Tom is my brother's friend".
        out.append(
            (
                lang,
                re.compile(
                    rf"(?:^|(?<=[,;:]\s)|{_AFTER_JOIN})(?:{_ARTICLE}){_WHO}\s+"
                    rf"{_INVERSE_COPULA[lang]}\s+(?:now\s+)?{own}\s+(?:{_NEW}\s+)?"
                    rf"{_ROLE_DE if lang == 'de' else _INVERSE_ROLE}"
                    rf"(?=\s*(?:[.;!]|,|$)|\s+(?:now|for now|these days|since|from|maintenant|désormais|pour l'instant|"
                    rf"ahora|por ahora|jetzt|vorerst|agora|por agora)\b)",
                    _I,
                ),
            )
        )
    # "Dr. Funmilayo Adeyemi has taken over as my PI", "X est devenu mon …".
    out.append(
        (
            "en",
            re.compile(
                rf"{_WHO}\s+(?:has taken over|took over|is taking over|has stepped in|stepped in)\s+as\s+(?:my|our)\s+(?:new\s+)?(?P<rel>[\w-]+(?:\s+[\w-]+)?)",
                _I,
            ),
        )
    )
    return tuple(out)


_NAMED_ROLES = _named_role_patterns()
#: The patterns of a role said after its holder (`_INVERSE_COPULA`; German reads capitalised role nouns instead).
_INVERSE_PATTERNS = frozenset(p.pattern for _lang, p in _NAMED_ROLES if "(?P<rel>(?!(?:now" in p.pattern)
#: A role noun of the lexicon opening the sentence with no possessive (the user's own, said in passing:
#: "Supervisor is Shona Grant", "New supervisor there is Calum Reid", "Nuevo gestor es Ramón Díaz"), or after
#: "the" when the name is introduced as a person ("The volunteer coordinator is a woman called Philomena Pell").
_UNOWNED_ROLE = re.compile(
    rf"^(?:(?P<the>the|le|la|el|o|a|der|die)\s+)?(?:{_NEW}\s+)?(?P<rel>[^\W\d_][\w-]*(?:\s+(?!{_THERE_WORDS}\b){_ROLE_WORD})?)\s+{_THERE}"
    rf"{_BARE_COPULA}\s+(?P<called>{_CALLED})?{_WHO}",
    _I,
)
#: Nouns that name no person or organisation: "my favourite is Paris", "my goal is V5", "my name is Zara".
_NOT_ROLES = frozenset(
    fold(w)
    for w in [
        "favourite",
        "favorite",
        "goal",
        "target",
        "plan",
        "idea",
        "problem",
        "question",
        "point",
        "answer",
        "choice",
        "name",
        "names",
        "guess",
        "bet",
        "priority",
        "dream",
        "worry",
        "concern",
        "fear",
        "hope",
        "issue",
        "excuse",
        "answer",
        "reason",
        "budget",
        "deadline",
        "number",
        "rating",
        "score",
        "address",
        "email",
        "phone",
        "password",
        "login",
        "code",
        "birthday",
        "day",
        "date",
        "time",
        "week",
        "month",
        "year",
        "favorito",
        "favorita",
        "préféré",
        "préférée",
        "objectif",
        "objetivo",
        "ziel",
        "meta",
        "nom",
        "nombre",
        "nome",
        "name",
        "lieblings",
        "plat",
        "fave",
        "pick",
        "top",
        "first",
        "last",
        "only",
        "best",
        "worst",
        "question",
        "pregunta",
        "frage",
        "pergunta",
        "problème",
        "problema",
    ]
)


#: Verbs that end a noun phrase ("my wife thinks", "mon frère trouve"): what follows is no name of the role.
_VERBS = frozenset(
    fold(w)
    for w in [
        "thinks",
        "says",
        "reckons",
        "wants",
        "loves",
        "likes",
        "hates",
        "prefers",
        "believes",
        "feels",
        "is",
        "was",
        "has",
        "had",
        "does",
        "will",
        "would",
        "can",
        "trouve",
        "pense",
        "dit",
        "veut",
        "aime",
        "adore",
        "préfère",
        "croit",
        "piensa",
        "dice",
        "quiere",
        "ama",
        "prefiere",
        "cree",
        "meint",
        "findet",
        "sagt",
        "will",
        "mag",
        "liebt",
        "glaubt",
        "acha",
        "diz",
        "quer",
        "gosta",
        "ama",
        "prefere",
    ]
)


def _role_key(rel: str) -> str:
    """The slot key of a role: the lexicon's when it knows the head noun, else the noun phrase's content words."""
    words = [w for w in tokens(rel) if w not in STOP_WORDS]
    for word in (*reversed(words), *words):
        known = RELATIONS.get(word)
        if known is not None:
            return known[0]
    # roles.py's open lexicon: the same role in another language or gender is one slot ("gestor" / "gestora")
    # outside both: the words, a feminine role noun in its masculine form ("Pfarrerin" and "Pfarrer": one slot)
    return role_key(rel) or "_".join(masculine(word) for word in words[:3])


def _unowned_role(clause: str, lang: str) -> GroundedFact | None:
    """A role held for the user said without "my" at the start of a clause ("Supervisor is Shona Grant"): only a role
    noun the lexicon knows, capitalised as a sentence opens; with "the" only when the name is introduced as a
    person ("a woman called …"): "The winner is Tom" names no one of the user's."""
    bare = _GREETING.sub("", clause.strip())
    match = _UNOWNED_ROLE.match(bare)
    if match is None or (match.group("the") and not match.group("called")):
        return None
    rel = " ".join(match.group("rel").split())
    words = [fold(w) for w in rel.split()]
    name = match.group("name").strip(" ,.")
    known = RELATIONS.get(words[-1]) or RELATIONS.get(rel.split()[-1].lower())
    if any(w in _NOT_ROLES or w in STOP_WORDS or w in _NEW_WORDS or "'" in w for w in words):
        return None  # "Ana's manager is Tom": someone else's role
    if not (known or role_key(words[-1]) or match.group("called")) or not is_name(name):
        return None
    if fold(name.split()[0]) in STOP_WORDS or "'" in name.split()[0]:
        return None
    key = _role_key(rel)
    if not key:
        return None
    if known and len(words) == 2:
        # "Primary supervisor is Prof. Varga": a qualifier names another holder of the role, as with "my"
        # (rules.py: "my primary supervisor" → relation.primary_manager), so a line manager does not replace her.
        key = f"{re.sub(r'[^a-z0-9]+', '_', words[0])}_{known[0]}"
    rel = rel[0].lower() + rel[1:] if lang != "de" else rel
    text = render("relation", lang, name, rel=rel)
    return _fact(FactKind.RELATION, text, f"relation.{key}", name, lang, identity=False)


def _named_roles(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    bare = _unowned_role(clause, lang)
    if bare is not None:
        out.append(bare)
    for said_in, pattern in _NAMED_ROLES:  # every language: a short clause's language is a guess
        for match in pattern.finditer(clause):
            rel = " ".join(match.group("rel").split())
            name = match.group("name").strip(" ,.")
            rel_words = [fold(w) for w in rel.split()]
            if not rel_words or any(w in _NOT_ROLES for w in rel_words) or rel_words[-1] in STOP_WORDS:
                continue
            if rel_words[-1] in _NEW_WORDS:
                continue  # "our new CTO is Mirela": "new" modifies the role, it is none ("CTO" is no name either)
            if any(w in _VERBS for w in rel_words):
                continue  # "my wife thinks I'm …": a verb inside the noun phrase
            if not is_name(name) or fold(name.split()[0]) in STOP_WORDS or "'" in name.split()[0]:
                continue
            if pattern.pattern in _INVERSE_PATTERNS and ("'" in rel or "’" in rel):
                continue  # "Tom is my brother's friend": someone else's role
            if any(fold(w) in MONTHS or fold(w).rstrip("s") in WEEKDAYS for w in name.split()):
                continue  # "Friday is our deadline": a day, no holder
            key = _role_key(rel)
            if not key:
                continue
            text = render("relation", said_in, name, rel=rel)
            out.append(_fact(FactKind.RELATION, text, f"relation.{key}", name, said_in, identity=False))
    return out


#: "I'm Ruth, 52, a retired nurse in Norwich", "soy Inés, dentista", "ich bin Jana, 47, Lehrerin in Kassel",
#: "Moi c'est Yannick", "Bonjour, Gaspard, vigneron à Meursault": a name followed by appositions about the user.
_INTRO = re.compile(
    rf"(?:^|(?<=[\s,.!]))(?:I'm|I am|my name is|je suis|moi c'est|je m'appelle|soy|me llamo|ich bin|ich heiße|sou o|"
    rf"sou a|sou|chamo-me|me chamo|(?:hi|hello|hey|bonjour|salut|hola|hallo|olá|oi),)\s+{_WHO}\s*,\s*"
    r"(?P<rest>[^.!?;]+)",
    _I,
)
#: "Marcus here, 41, living in Leeds", "Luc Marchand, 67 ans, à la retraite": a name opening the sentence with no
#: verb, introduced as such by an age right after it.
_BARE_INTRO = re.compile(
    rf"^{_WHO}(?:\s+(?:here|ici|aquí|aqui|hier))?\s*,\s*(?P<rest>\d{{1,3}}(?![.,]?\d)(?:\s+(?:ans|años|anos|jahre))?\s*(?:,[^.!?;]*)?)$",
    _I,
)
_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|bonjour|salut|coucou|hola|buenas|hallo|servus|moin|olá|oi)[\s,!.]+", _I
)
_TRAILING_TOWN = re.compile(
    r"\s(?:in|en|à|em|de|aus)\s+(?P<place>(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*(?:[ -](?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*)?)$"
)
_AGE_SEGMENT = re.compile(r"^(?P<age>\d{1,3})(?:\s+(?:ans|años|anos|jahre|years old))?$", _I)
_LIVING = re.compile(
    r"^(?:living in|based in|live in|(?:qui )?(?:vit|habite) à|viviendo en|que vive en|wohnhaft in|a viver em|morando em)\s+"
    r"(?P<place>(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*(?:[ -](?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*)?)$",
    _I,
)
_RETIRED = re.compile(
    r"^(?:retired|semi-retired|à la retraite|retraitée?|jubilad[oa]|aposentad[oa]|reformad[oa]|in rente|"
    r"rentner(?:in)?|pensionär(?:in)?)$",
    _I,
)
_AGE = re.compile(r"^\d{1,3}$")
#: A segment that starts another clause (a pronoun, a verb of its own) ends the appositions.
_CLAUSE_START = re.compile(
    r"^(?:and|but|so|et|mais|donc|y|pero|und|aber|e|mas|i|i'm|i've|i'd|i'll|we|we're|je|j'|on|nous|yo|ich|wir|eu|"
    r"nós|here|again|back|ici|aqui|hier|aquí|here again|from|de|da|aus|von|with|avec|con|com|mit|just|only|"
    r"the|le|la|les|el|los|das|der|die|o|os|as|this|that|ce|cette|ese|esa|dies|isso|from|"
    # first-person verbs of pro-drop languages ("soy Marta, vivo en Bilbao"): a clause, not an apposition
    r"vivo|trabajo|tengo|estoy|llevo|estudio|soy|moro|trabalho|tenho|estou|estudo|sou|vivi|wohne|arbeite|habe|"
    r"lebe|studiere|bin|habite|travaille|suis|ai|vis)\b",
    _I,
)
_ROLE_SEGMENT = re.compile(
    r"^(?:(?:a|an|un|une|una|um|uma|ein|eine)\s+)?(?P<role>[\w'-]+(?:\s+[\w'-]+){0,7}?)"
    r"(?P<where>\s+(?:based in|in|at|à|en|em|no|na|bei|aus)\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’ -]*)?$",
    _I,
)


#: A short all-capitals word ("PE", "IT", "HR", "UX"): an acronym, not a name, when it opens a role.
_ACRONYM = re.compile(r"[A-Z]{2,4}")
#: An apposition that repeats the copula ("I'm Dolores Finch, I'm 71 and a retired nurse"): the copula says
#: nothing more than the introduction did.
_REPEATED_COPULA = re.compile(
    r"^(?:I'm|I am|je suis|soy|ich bin|sou)\s+(?=\d|(?:an?|une?|una?|um|uma|ein|eine)\b)", _I
)
#: Appositions joined by "and" ("71 and a retired district nurse"): two segments.
_AND_SEGMENT = re.compile(r"\s+(?:and|et|y|und|e)\s+(?=(?:an?|une?|una?|um|uma|ein|eine)\s|\d)", _I)


#: A label before a colon opening the introduction ("Quick intro: Sam, 34, …", "Je me présente : Bastien, 29 ans").
_INTRO_LABEL = re.compile(r"^[^\W\d][\w' -]{0,30}?\s?:\s+", _I)


def _segments(rest: str) -> list[str]:
    """The appositions after an introduced name: comma-separated, a repeated copula dropped, "and" splitting two."""
    out: list[str] = []
    for part in rest.split(","):
        part = _REPEATED_COPULA.sub("", part.strip())
        out.extend(piece.strip() for piece in _AND_SEGMENT.split(part) if piece.strip())
    return out


def _introduction(clause: str, lang: str) -> list[GroundedFact]:
    bare = _INTRO_LABEL.sub("", _GREETING.sub("", clause.strip())).rstrip(".!")
    found = _INTRO.search(clause) or _BARE_INTRO.match(bare)
    if found is None or not is_name(found.group("name")):
        return []
    name = found.group("name").strip()
    if DIET_WORDS.match(name) or fold(name) in NOT_ROLES:
        return []  # "ich bin Veganer, …": a capitalised German noun, no name
    out = [_identity("name", "identity.name", name, lang)]
    for segment in _segments(found.group("rest")):
        if not segment:
            continue
        age = _AGE_SEGMENT.match(segment)
        if age is not None:
            value = age.group("age")
            if 5 <= int(value) <= 110:
                out.append(_identity("age", "identity.age", value, lang))
            continue
        living = _LIVING.match(segment)
        if living is not None:
            place = living.group("place")
            out.append(_identity("home", "identity.home", place, lang))
            continue
        if _RETIRED.match(segment):
            out.append(_identity("role", "identity.role", segment, lang))
            continue
        if _CLAUSE_START.match(segment):
            break
        role = _ROLE_SEGMENT.match(segment)
        if role is None:
            break
        words = role.group("role").split()
        first = words[0]
        if lang != "de" and not first[:1].islower() and not _ACRONYM.fullmatch(first):
            break  # "PE teacher", "IT consultant": an acronym opens a role
        if lang == "de" and not first[:1].isupper():
            break
        if any(fold(w) in _NOT_ROLES for w in words) or fold(words[-1]) in STOP_WORDS:
            break
        if lang == "en" and fold(segment.split()[0]) not in ("a", "an"):
            segment = (
                "an " if first[:1].lower() in "aeiou" else "a "
            ) + segment  # "nurse in Leeds" → "a nurse …"
        where = role.group("where") or ""
        town = _TOWN.match(where.strip())
        if town is None:
            # "pediatra en un centro de salud de Valencia": the town ends the workplace named with the role.
            town = _TRAILING_TOWN.search(segment)
            where = ""
        if town is not None and _AT_WORKPLACE.search(segment[: len(segment) - len(where)]):
            # "senior archivist at the Lincolnshire Archives in Lincoln": the town is where the workplace is, not
            # where the user lives; the role keeps it in its words, no home is stated.
            town = None
        if town is None:
            out.append(_identity("role", "identity.role", segment, lang))
            break
        # "a retired nurse in Norwich": who the user is, and where they live (the place has a slot of its own,
        # so a later move replaces it without retiring the role). A town named only as the place of a job held
        # ("Gemeindereferentin in Fulda", "pediatra en un centro de salud de Valencia") is where the user works:
        # that they live there is a guess.
        bare = segment[: len(segment) - len(where)].strip()
        place = town.group("place").strip()
        out.append(_identity("role", "identity.role", bare, lang))
        if _RETIRED_ROLE.search(bare):
            out.append(_identity("home", "identity.home", place, lang))
        else:
            # Said with the role ("Der Nutzer arbeitet als Gemeindereferentin in Fulda."): the job and its town
            # are one statement of the user's; the slot and value stay the town's, so a move retires it alone.
            at = f"{TOWN_OF_WORK.get(lang, 'in')} {place}"
            works = render("works_as", lang, f"{bare} {at}" if where else bare)
            out.append(_fact(FactKind.IDENTITY, works, "identity.workplace", at, lang, identity=True))
        break
    return out


#: A role no longer held ("a retired nurse", "infirmière à la retraite", "enfermera jubilada", "Lehrerin in Rente",
#: "enfermeira aposentada"): its town is where the user lives, not where they work.
_RETIRED_ROLE = re.compile(
    r"\b(?:retired|semi-retired|former|ex|retraitée?|ancienne?|jubilad[oa]|retirad[oa]|antig[uo]a?|"
    r"aposentad[oa]|reformad[oa]|rente|pension|pensioniert|ehemalige[rn]?|rentner(?:in)?)\b|\bà la retraite\b",
    _I,
)


#: The town of an apposition ("in Norwich", "based in Cardiff", "à Meursault", "en Valencia"); "at the Royal
#: Infirmary" names a workplace and stays with the role.
_TOWN = re.compile(
    r"^(?:based in|in|à|en|em|aus)\s+(?P<place>(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*(?:[ -](?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*)?)$",
    _I,
)


#: First-person verbs that say what the user runs, owns or studies, with the object and where it is.
_BUSINESS = re.compile(
    r"(?:^|(?<=[\s,;:]))(?P<verb>I (?:run|own|co-own|co-host|coach|manage|study|teach)|"
    r"je (?:dirige|gère|tiens)|j'ai|tengo|dirijo|llevo|estudio|ich (?:habe|leite|führe|studiere)|tenho|"
    r"estudo|gerencio)\s+"
    r"(?P<obj>(?:(?:a|an|un|une|una|um|uma|einen|eine|ein|my|our)\s+)?[^,.;!?]{2,60}?)"
    r"\s+(?:(?:out of|in|at|à|en|em|no|na|in der|bei)\s+)(?:(?:my|our|mon|ma|mi|meu|minha|meiner)\s+[\w-]+\s+"
    r"(?:in|à|en|em)\s+)?(?P<place>(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*){0,2})",
    _I,
)
#: What a business is (for "I have a … in <place>", which may as well be a cousin): its head noun.
_BUSINESS_NOUN = re.compile(
    r"\b(?:bakery|micro-bakery|shop|caf[eé]|cafeteria|café|restaurant|bar|clinic|clínica|clinique|klinik|practice|"
    r"studio|atelier|workshop|taller|werkstatt|oficina|farm|ferme|granja|hof|quinta|herdade|salon|garage|company|"
    r"business|firm|agency|entreprise|empresa|firma|boutique|tienda|laden|loja|cabinet|consultorio|praxis|"
    r"consultório|bistro|brewery|vineyard|domaine|bodega|team|club|podcast|flat|flats|pizzeria|padaria|panadería|"
    r"boulangerie|bäckerei|escola|school|école|escuela)\b",
    _I,
)
_OWN_VERB_3P = {
    "i run": "runs", "i own": "owns", "i co-own": "co-owns", "i co-host": "co-hosts", "i coach": "coaches",
    "i manage": "manages", "i study": "studies", "i teach": "teaches",
    "je dirige": "dirige", "je gère": "gère", "je tiens": "tient", "j'ai": "a", "tengo": "tiene", "dirijo": "dirige",
    "llevo": "lleva", "estudio": "estudia", "ich habe": "hat", "ich leite": "leitet", "ich führe": "führt",
    "ich studiere": "studiert", "tenho": "tem", "estudo": "estuda", "gerencio": "gerencia",
}  # fmt: skip
_SUBJECT = {
    "en": "The user",
    "fr": "L'utilisateur",
    "es": "El usuario",
    "de": "Der Nutzer",
    "pt": "O usuário",
}
_VERB_LANG = {"j'ai": "fr", "tengo": "es", "dirijo": "es", "llevo": "es", "estudio": "es", "tenho": "pt", "estudo": "pt",
              "gerencio": "pt"}  # fmt: skip


def _business(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    for match in _BUSINESS.finditer(clause):
        verb = " ".join(match.group("verb").split()).lower()
        said_in = "en" if verb.startswith("i ") else _VERB_LANG.get(verb, lang)
        if verb.startswith(("je ", "j'")):
            said_in = "fr"
        elif verb.startswith("ich "):
            said_in = "de"
        has_verb = verb in ("j'ai", "tengo", "ich habe", "tenho", "llevo")
        if has_verb and not _BUSINESS_NOUN.search(match.group("obj")):
            continue  # "j'ai un rendez-vous à Lyon", "tengo un primo en Madrid"
        said = clause[match.start("verb") : match.end()].strip()
        rest = said[len(match.group("verb")) :].strip()
        rest = to_third_person_en(rest) if said_in == "en" else rest
        text = f"{_SUBJECT.get(said_in, 'The user')} {_OWN_VERB_3P[verb]} {rest}."
        slot = "identity.study" if "stud" in verb else "identity.business"
        out.append(_fact(FactKind.IDENTITY, text, slot, match.group("place"), said_in, identity=True))
    return out


#: "I'm with Ballyhale Mills now", "ahora trabajo con Suministros Turia", "agora vendemos para a Ölmühle Berger",
#: "Jetzt kommt der Pflegedienst Lebensbaum": who the user's business deals with, now.
_NOW = r"(?:now|ahora|agora|jetzt|nun|maintenant|désormais|dorénavant|from now on)"
_ORG = r"(?P<org>(?-i:[A-ZÀ-ÖØ-Þ][\w'’&-]*)(?:\s+(?:&\s+|de\s+|do\s+|da\s+|del\s+)?(?-i:[A-ZÀ-ÖØ-Þ][\w'’-]*)){0,3})"
_PARTNER = tuple(
    re.compile(p, _I)
    for p in (
        rf"\b{_NOW}\s*,?\s+(?:(?:I|we)(?:'re|'m| am| are)?\s+(?:\w+\s+)?(?:with|from|to|through)|"
        rf"(?:trabajo|trabajamos|compro|compramos|vendo|vendemos|pedimos|trabalho|trabalhamos|"
        rf"moemos|molemos|je travaille|nous travaillons|on travaille|on achète|ich arbeite|wir arbeiten|kommt|liefert)"
        rf"(?:\s+(?:con|a|al|para|com|no|na|do|da|avec|chez|mit|bei|von))?)\s+{_ARTICLE}{_ORG}",
        rf"\b(?:I'm|I am|we're|we are)\s+(?:with|buying from|selling to|going with)\s+{_ORG}\s+{_NOW}\b",
        rf"\b{_NOW}\s+(?:c'est|es|é|ist)\s+{_ARTICLE}{_ORG}\s+(?:qui|que|quien|quem|der|die)\b",
    )
)
_PARTNER_TEXT = {
    "en": "The user now works with {v}.", "fr": "L'utilisateur travaille maintenant avec {v}.",
    "es": "El usuario trabaja ahora con {v}.", "de": "Der Nutzer arbeitet jetzt mit {v}.",
    "pt": "O usuário trabalha agora com {v}.",
}  # fmt: skip


#: The language a partner statement is in, from its "now" or its verb (a short clause's detected language is a guess).
_PARTNER_LANG = {"now": "en", "ahora": "es", "agora": "pt", "jetzt": "de", "nun": "de", "maintenant": "fr",
                 "desormais": "fr", "dorenavant": "fr"}  # fmt: skip
_PARTNER_VERB_LANG = {"trabajo": "es", "trabajamos": "es", "compro": "es", "vendo": "es", "pedimos": "es",
                      "trabalho": "pt", "trabalhamos": "pt", "moemos": "pt", "molemos": "es"}  # fmt: skip


def _partners(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    for match in (m for pattern in _PARTNER for m in pattern.finditer(clause)):
        org = (match.group("org") or "").strip()
        if not org or not is_name(org) or fold(org.split()[0]) in STOP_WORDS:
            continue
        said_in = _PARTNER_LANG.get(fold(match.group(0).split()[0]), lang)
        verb = next((fold(w) for w in match.group(0).split() if fold(w) in _PARTNER_VERB_LANG), "")
        said_in = _PARTNER_VERB_LANG.get(verb, said_in)
        text = _PARTNER_TEXT.get(said_in, _PARTNER_TEXT["en"]).format(v=org)
        out.append(
            _fact(
                FactKind.RELATION,
                text,
                f"relation.partner_org.{'_'.join(tokens(org)[:2])}",
                org,
                said_in,
                identity=False,
            )
        )
    return out


# ------------------------------------------------------------------------------------------ things acquired
#: "I bought a Brewzilla 65", "I've ordered an electric one, an ePropulsion Spirit", "E comprei uma máquina nova, uma
#: La Marzocco Linea Mini", "j'ai acheté un four Nabertherm", "ich habe mir eine Kamera von Sony gekauft": a named
#: thing the user now owns (a capitalised product name in the object).
_ACQUIRED = re.compile(
    r"(?:^|(?<=[\s,;:]))(?P<verb>I(?:'ve| have)? (?:just |finally |also )?(?:bought|ordered|purchased|picked up|"
    r"taken on|took on|upgraded to|treated myself to)|(?<=\band )(?:bought|ordered|purchased)|j'ai (?:acheté|commandé|pris)|(?:he )?(?:compré|comprado|"
    r"pedido|pedí)|comprei|encomendei|comprámos|compramos)\s+(?P<obj>[^.;!?]{2,90}?)"
    r"(?=\s*(?:[.;!?]|$|,? so\b|,? because\b|,? for (?:him|her|them)\b|,? which\b|,? best\b|, \d))",
    _I,
)
_ACQUIRED_DE = re.compile(
    r"\bich habe (?:mir |uns )?(?P<obj>[^.;!?]{2,80}?) (?P<verb>gekauft|bestellt|angeschafft)\b", _I
)
_PRODUCT = re.compile(r"(?<![\w])(?:[A-ZÀ-ÖØ-Þ][\w-]*|[a-z]+[A-Z][\w-]*)(?:\s+(?:[A-ZÀ-ÖØ-Þ][\w-]*|\d+\w*))*")
_EN_PAST = {"taken on": "took on", "upgraded to": "upgraded to", "picked up": "picked up"}


def _without_article(name: str) -> str:
    """ "La Marzocco Linea Mini" → "Marzocco Linea Mini" (an article capitalised inside a brand)."""
    words = name.split()
    return " ".join(words[1:]) if len(words) > 1 and fold(words[0]) in STOP_WORDS else name


def _acquired(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    for match in (*_ACQUIRED.finditer(clause), *_ACQUIRED_DE.finditer(clause)):
        obj = match.group("obj").strip(" ,")
        products = [
            p.group(0)
            for p in _PRODUCT.finditer(obj)
            if is_name(p.group(0)) or is_name(_without_article(p.group(0)))
        ]
        if not products:
            continue  # "I bought some flour": nothing named to remember
        verb = " ".join(match.group("verb").split())
        if verb in ("bought", "ordered", "purchased"):
            if not re.search(r"\bI\b", clause[: match.start()]):
                continue  # "… and bought a …" shares its subject: the user's only after an "I"
            verb = f"I {verb}"
        if verb.lower().startswith("i"):
            said = verb.split(maxsplit=1)[1] if " " in verb else verb
            said = re.sub(r"^(?:'ve|have)\s+|^(?:just|finally|also)\s+", "", said.replace("I've ", ""))
            said = re.sub(r"^(?:just|finally|also)\s+", "", said)
            said = _EN_PAST.get(said, said)
            text = f"The user {said} {to_third_person_en(obj)}."
            said_in = "en"
        else:
            said_in = "de" if match.re is _ACQUIRED_DE else lang
            text = render("decision", said_in, clause[match.start() : match.end()].strip())
        out.append(_fact(FactKind.DECISION, text, "", products[-1], said_in, identity=False))
    return out


# ------------------------------------------------------------------------------------------ people, now
_PEOPLE_NOW = (
    # "I'm with a new instructor now, Desmond": who the user now goes to, named after the role.
    re.compile(
        rf"\b(?:I'm|I am|we're|we are) (?:now )?with (?:a|an|our|my) new (?P<rel>[a-z][\w-]*(?: (?!now\b)[a-z][\w-]*)?)"
        rf"(?: now)?,\s*{_WHO}",
        _I,
    ),
    # "Moving to a bookkeeper, Precious Mensah", "we've got a kit sponsor, Adjoa's Kitchen".
    re.compile(
        rf"\b(?:moving to|switching to|going to|changing to|(?:we|I)(?:'ve| have) got|(?:we|I) (?:hired|took on))"
        rf" (?:a|an) (?:new )?(?P<rel>[a-z][\w-]*(?: [a-z][\w-]*)?),\s*{_WHO}",
        _I,
    ),
)
#: "I study with Mr. Dafydd Rees now", "so now it's Catriona Bell who runs training", "c'est Bastien qui la
#: remplace": the person doing a role for the user now, named with what they do.
_WITH_NOW = re.compile(
    rf"\bI (?:now )?(?P<verb>study|train|work|learn|practise|practice|play|climb|run|ride) with {_WHO} now\b",
    _I,
)
_WHO_DOES = re.compile(
    rf"\b(?:now )?(?:it's|it is|c'est|es|é) {_WHO} (?:who|qui|quien|quem|que) (?P<what>[^.,;!?]{{3,60}})", _I
)


def _people_now(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    for pattern in _PEOPLE_NOW:
        for match in pattern.finditer(clause):
            name, rel = match.group("name").strip(" ,."), match.group("rel")
            if is_name(name) and not any(fold(w) in _NOT_ROLES for w in rel.split()):
                text = render("relation", "en", name, rel=rel)
                out.append(
                    _fact(FactKind.RELATION, text, f"relation.{_role_key(rel)}", name, "en", identity=False)
                )
    for match in _WITH_NOW.finditer(clause):
        name = match.group("name").strip(" ,.")
        if is_name(name):
            verb = match.group("verb").lower()
            verb = verb[:-1] + "ies" if verb.endswith("y") else verb + "s"
            text = f"The user now {verb} with {name}."
            out.append(_fact(FactKind.RELATION, text, f"relation.{verb}_with", name, "en", identity=False))
    for match in _WHO_DOES.finditer(clause):
        name = match.group("name").strip(" ,.")
        if is_name(name) and fold(name.split()[0]) not in STOP_WORDS:
            what = match.group("what").strip()
            verb = fold(what.split()[0]) if what.split() else ""
            text = f"{name} {what}." if lang == "en" else f"{clause[match.start() : match.end()].strip()}."
            text = text[:1].upper() + text[1:]
            out.append(_fact(FactKind.RELATION, text, f"relation.does.{verb}", name, lang, identity=False))
    return out


# ------------------------------------------------------------------------------------------ a new job
_NEW_JOB = (
    # "I got the senior radiographer post at the Queen Elizabeth University Hospital"
    re.compile(
        r"\bI(?:'ve| have)? (?:got|landed|accepted|took|was offered|been offered) the (?P<role>[a-z][\w -]{2,40}?) "
        r"(?:post|job|position|role)\b(?: at (?:the )?(?-i:[A-ZÀ-ÖØ-Þ])[\w'’&-]*(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’&-]*){0,4})?",
        _I,
    ),
    # "I started a lectureship at Bangor University", "I've started a new job as a site manager at Kier"
    re.compile(
        r"\bI(?:'ve| have)? (?:started|begun|began) (?:a|my|the) (?:new )?(?P<role>[a-z][\w-]*ship|job as an? [\w -]{2,30}?|"
        r"post as an? [\w -]{2,30}?|position as an? [\w -]{2,30}?)"
        r"(?: at (?:the )?(?-i:[A-ZÀ-ÖØ-Þ])[\w'’&-]*(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’&-]*){0,4})?(?=[\s.,;!]|$)",
        _I,
    ),
    # "now I work for the Environment Agency as a flood-risk analyst"
    re.compile(
        r"\bI (?:now )?work (?:for|at) (?:the )?(?-i:[A-ZÀ-ÖØ-Þ])[\w'’&-]*(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’&-]*){0,4} "
        r"as an? (?P<role>[\w -]{2,40}?)(?=[.,;!]|$)",
        _I,
    ),
)
#: "je deviens pisteur-secouriste à Val Cenis", "ahora soy jefa de taller", "agora sou gerente", "ich bin jetzt
#: Schichtleiterin": the user's new role.
_BECOME = re.compile(
    r"\b(?P<lead>je deviens|je suis devenue?|je suis maintenant|ahora soy|me he convertido en|agora sou|"
    r"passei a ser|ich bin jetzt|ich werde)\s+(?P<role>[\w-]+(?:\s+(?:de|du|des|da|do|der)\s+[\w-]+)?"
    r"(?:\s+(?:à|en|em|in|chez|bei)\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*)?)?)",
    _I,
)
#: A French/Spanish/Portuguese job noun said without an article: "je suis céramiste", "soy fontanero".
_BARE_ROLE = re.compile(
    r"\b(?:je suis|soy|sou|ich bin)\s+(?P<role>[\w-]+(?:iste|eur|euse|ier|ière|ien|ienne|ologue|aire|ista|ero|"
    r"era|ador|adora|eiro|eira|in|er|ist|eur|óloga|ólogo|ógrafo|ógrafa|ogue|ologe|ologin))\b"
    r"(?:\s+(?:à|en|em|in|chez|bei)\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*)?",
    _I,
)
_NOT_BARE_ROLES = frozenset(
    fold(w)
    for w in [
        "premier",
        "première",
        "dernier",
        "dernière",
        "fier",
        "fière",
        "entier",
        "entière",
        "régulier",
        "régulière",
        "sincero",
        "sincera",
        "verdadero",
        "verdadera",
        "primero",
        "primera",
        "ligero",
        "ligera",
        "entero",
        "entera",
        "certeiro",
        "inteiro",
        "inteira",
        "leer",
        "klar",
        "sicher",
        "müder",
        "fertig",
        "hier",
        "daher",
        "dabei",
        "drin",
        "der",
        "er",
        "ier",
        "in",
    ]
)


_PARTICIPLE = re.compile(r"(?:ado|ada|ados|adas|ido|ida|idos|idas|é|ée|és|ées|iert|ierte)$", _I)


def _new_job(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    for pattern in _NEW_JOB:
        for match in pattern.finditer(clause):
            said = clause[match.start() : match.end()].strip(" ,.")
            said = re.sub(r"^(?:now )?work\b", "works", re.sub(r"^I(?:'ve| have)?\s+", "", said))
            text = "The user " + to_third_person_en(said) + "."
            out.append(
                _fact(FactKind.IDENTITY, text, "identity.role", match.group("role"), "en", identity=True)
            )
    if lang != "en":
        for pattern in (_BECOME, _BARE_ROLE):
            for match in pattern.finditer(clause):
                role = match.group("role")
                if fold(role.split()[0]) in _NOT_BARE_ROLES or not role[:1].isalpha():
                    continue
                if DIET_WORDS.match(role) or fold(role) in NOT_ROLES:
                    continue  # "ich bin Veganer": a diet, not a job
                if _PARTICIPLE.search(role.split()[0]):
                    continue  # "agora sou seguida pela Dra. Pires": a passive, not a job
                if pattern is _BARE_ROLE and lang != "de" and role[:1].isupper():
                    continue  # "soy Marta": a name, not a job
                if pattern is _BARE_ROLE and lang == "de" and not role[:1].isupper():
                    continue
                out.append(
                    _fact(
                        FactKind.IDENTITY,
                        render("role", lang, role),
                        "identity.role",
                        role,
                        lang,
                        identity=True,
                    )
                )
    return out


# ------------------------------------------------------------------------------------------ amounts changed
_AMOUNT = (
    r"(?P<amount>[£$€]?\s?\d[\d.,]*\s?(?:k\b|%|€|£|\$|euros?\b|pounds?\b|dollars?\b|quid\b|grand\b|reais\b)?)"
)
#: "I'm raising my full-day package from £1,800 to £2,100", "I've put the country loaf up to 7 euro from May",
#: "j'augmente le menu à 32 euros", "subo la cuota a 40 euros", "ich erhöhe den Preis auf 12 Euro", "aumentei a
#: mensalidade para 90 reais", "the budget went up to 30k": a value of the user's set to a new amount.
_CHANGED_AMOUNT = (
    (
        "en",
        re.compile(
            r"\b(?:I|we)(?:'m|'re|'ve| am| are| have)? (?:just |finally )?(?:(?:raising|raised|increasing|"
            r"increased|lowering|lowered|cutting|cut|dropping|dropped|bumping|bumped|reducing|reduced|upping|upped)\b"
            rf"[^.;!?]{{0,60}}?\b(?:up |down )?to|(?:putting|put)\b[^.;!?]{{0,60}}?\b(?:up|down) to) {_AMOUNT}"
            r"[^.;!?,]{0,30}",
            _I,
        ),
    ),
    (
        "en",
        re.compile(
            rf"\b(?:the|my|our) [\w -]{{2,30}}? (?:went|goes|has gone|is going|has been put|was put) (?:up|down) to {_AMOUNT}",
            _I,
        ),
    ),
    (
        "fr",
        re.compile(
            rf"\b(?:j'augmente|j'ai augmenté|je baisse|j'ai baissé|je passe|j'ai passé|on passe|on a passé)\b[^.;!?]{{0,60}}?\bà {_AMOUNT}",
            _I,
        ),
    ),
    (
        "es",
        re.compile(
            rf"\b(?:subo|he subido|subimos|bajo|he bajado|aumento|he aumentado|paso|he pasado)\b[^.;!?]{{0,60}}?\ba {_AMOUNT}",
            _I,
        ),
    ),
    (
        "de",
        re.compile(
            rf"\b(?:ich erhöhe|ich senke|wir erhöhen|wir senken|ich habe|wir haben)\b[^.;!?]{{0,60}}?\bauf {_AMOUNT}(?:\s+(?:erhöht|gesenkt))?",
            _I,
        ),
    ),
    (
        "pt",
        re.compile(
            rf"\b(?:aumentei|aumento|aumentamos|baixei|baixamos|subi|subimos|passei|passamos)\b[^.;!?]{{0,60}}?\bpara {_AMOUNT}",
            _I,
        ),
    ),
)


def _changed_amounts(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    for said_in, pattern in _CHANGED_AMOUNT:
        for match in pattern.finditer(clause):
            amount = match.group("amount").strip()
            if not re.search(r"\d", amount):
                continue
            said = clause[match.start() : match.end()].strip(" ,.")
            if said_in == "de" and not re.search(r"erhöh|senk", said, _I):
                continue  # "ich habe … auf 12 …" without a verb of change says nothing changed
            if said_in == "en":
                said = re.sub(r"^(?:I|we)(?:'m|'re| am| are)\s+", "is ", said, flags=_I)
                said = re.sub(r"^(?:I|we)(?:'ve| have)\s+", "has ", said, flags=_I)
                said = re.sub(r"^(?:I|we)\s+", "", said, flags=_I)
                if said[:4].lower() in ("the ", "my ", "our "):
                    text = to_third_person_en(said)
                    text = text[:1].upper() + text[1:] + "."
                else:
                    text = f"The user {to_third_person_en(said)}."
            else:
                text = render("decision", said_in, said)
            out.append(_fact(FactKind.DECISION, text, "", amount, said_in, identity=False))
    return out


# ------------------------------------------------------------------------------------------ commitments
#: When a commitment is due: "this weekend", "tonight", "right away", "cette semaine", "esta noche", "morgen".
_DUE = (
    r"(?P<when>this (?:week|weekend|month|evening|afternoon|morning)|tonight|tomorrow|today|next (?:week|weekend|month)|"
    r"right away|straight away|asap|over the next [\w ]{3,20}|before (?:the end of )?(?:the )?(?:week|weekend|month)|"
    r"cette semaine|ce soir|demain|ce week-end|aujourd'hui|la semaine prochaine|tout de suite|"
    r"esta noche|mañana|esta semana|este fin de semana|hoy|ahora mismo|la semana que viene|"
    r"heute(?: abend)?|morgen|diese woche|am wochenende|nächste woche|sofort|"
    r"hoje(?: à noite)?|amanhã|esta semana|este fim de semana|agora mesmo|já)"
)
#: "I'll export my YNAB history this weekend", "Je vais commander le kit chez Leroy Merlin cette semaine", "La
#: reservo esta noche", "Vou ligar ao contabilista amanhã": a task the user commits to, with when.
_COMMITMENT = (
    (
        "en",
        re.compile(
            r"\bI(?:'ll| will|'m going to| am going to) (?:just |also |probably )?(?!(?:be|have|see|try|think|let|"
            r"ask you|get back|talk|keep|need|let you)\b)(?P<v>[a-z]+\b[^.;!?]{3,80}?)\s+" + _DUE + r"\b",
            _I,
        ),
    ),
    ("fr", re.compile(r"\bje vais (?P<v>\w+(?:er|ir|re)\b[^.;!?]{3,80}?)\s+" + _DUE + r"\b", _I)),
    (
        "es",
        re.compile(
            r"\b(?P<v>(?:voy a \w+(?:ar|er|ir)|(?:la|lo|las|los|le|les) \w+o)\b[^.;!?]{0,80}?)\s*"
            + _DUE
            + r"\b",
            _I,
        ),
    ),
    ("pt", re.compile(r"\b(?P<v>vou \w+(?:ar|er|ir)\b[^.;!?]{3,80}?)\s+" + _DUE + r"\b", _I)),
    ("de", re.compile(r"\bich (?P<v>werde\b[^.;!?]{3,80}?)\s+" + _DUE + r"\b", _I)),
)


_TASK_CONTENT = 2


def _commitments(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    for said_in, pattern in _COMMITMENT:
        for match in pattern.finditer(clause):  # every language: a short clause's language is a guess
            task = match.group("v").strip(" ,")
            if len([t for t in content_tokens(task) if not t.isdigit()]) < _TASK_CONTENT:
                continue  # "I'll do it next week", "la revoco ahora mismo": a task names what, not only when
            when = match.group("when")
            if said_in == "en":
                text = f"The user will {to_third_person_en(task)} {when}."
            else:
                text = render("action", said_in, f"{task} {when}")
            out.append(_fact(FactKind.ACTION_ITEM, text, "", task, said_in, identity=False))
    return out


_SALIENCE = {FactKind.RELATION: 0.7, FactKind.IDENTITY: 0.85, FactKind.ACTION_ITEM: 0.6}


def _fact(kind: FactKind, text: str, slot: str, value: str, lang: str, *, identity: bool) -> GroundedFact:
    return GroundedFact(kind, text, slot, value, (), _SALIENCE.get(kind, 0.7), identity, "extractor", lang)


def _identity(template: str, slot: str, value: str, lang: str) -> GroundedFact:
    """An identity fact from an introduction: `value` said with the language's `template`, in `slot`."""
    return _fact(FactKind.IDENTITY, render(template, lang, value), slot, value, lang, identity=True)


#: The assistant's belief put in words by the user ("Du denkst bestimmt, ich bin Veganer, aber nein").
_YOU_THINK = re.compile(
    r"\b(?:you (?:probably |must )?(?:think|thought|assume)|du denkst|du glaubst|tu (?:dois )?pens\w*|vous pensez|"
    r"piensas|crees|você (?:acha|pensa)|achas|pensas)\b",
    _I,
)


#: A workplace named after the role with "at" ("at the Lincolnshire Archives", "chez Kerhervé", "bei Siemens").
_AT_WORKPLACE = re.compile(r"\b(?:at|chez|bei)\s+\S", re.IGNORECASE)


def structural_facts(
    clause: str, lang: str, turn_index: int, held: Sequence[GroundedFact]
) -> list[GroundedFact]:
    """Facts the clause's structure states that `held` (the rules' facts of the same clause) does not already say."""
    said = clause.replace("’", "'")
    # "Tu dois penser que je suis végétarienne, mais pas du tout", "vielleicht bin ich …": no identity of the user's.
    doubted = bool(HEDGE.search(said) or _YOU_THINK.search(said)) or unfit_reason(said) in (
        "assistant_guess",
        "hypothetical",
    )
    have_values = [fold(f.value) for f in held if f.value]
    have_slots = {f.slot for f in held if f.slot}
    out: list[GroundedFact] = []
    for fact in (
        *_named_roles(said, lang),
        *_introduction(said, lang),
        *_business(said, lang),
        *_acquired(said, lang),
        *_people_now(said, lang),
        *_new_job(said, lang),
        *_changed_amounts(said, lang),
        *_commitments(said, lang),
        *_partners(said, lang),
    ):
        value = fold(fact.value)
        if fact.slot in have_slots or (doubted and fact.is_identity):
            continue
        if fact.kind is not FactKind.IDENTITY and any(
            value in have or have in value for have in have_values if have
        ):
            continue
        if any(value == fold(o.value) for o in out):
            continue
        have_slots.add(fact.slot)
        out.append(
            GroundedFact(
                fact.kind,
                fact.text,
                fact.slot,
                fact.value,
                (turn_index,),
                fact.salience,
                fact.is_identity,
                fact.source,
                fact.language,
            )
        )
    return out


__all__ = ["structural_facts"]
