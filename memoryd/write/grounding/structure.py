"""First-person clause structure the sentence rules miss: named roles, self-introductions, businesses and new partners.

The rules in patterns.py read fixed phrasings around a lexicon of relation nouns and roles. This module reads the
structure of a first-person clause instead, over any noun:

- a **named role**: a first-person possessive + any lower-case noun phrase + a copula + a capitalised name ("our new
  supervising social worker is Owain Rees", "Mi nueva gestora es Marisa Ortún", "Meine neue Patin im Verein ist
  Frau Yildiz", "Mon nouvel œnologue, c'est M. Karim Benali", "A nova barista-chefe é a Raíssa"), the same noun
  phrase as an apposition ("my bridesmaid Ottilie is …", "A minha mulher, Filipa, é …") or after "has taken over
  as my";
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

from memoryd.write.grounding.lexicon import NAME, RELATIONS
from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.rules import is_name, to_third_person_en
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import STOP_WORDS, fold, tokens

_I = re.IGNORECASE
_WHO = NAME.replace("(?P<v>", "(?P<name>")
#: A name right after a copula may carry an article in Romance languages ("c'est le Dr Roux", "é a Raíssa").
_ARTICLE = r"(?:(?:le|la|l'|el|o|a|der|die|den)\s+)?"

#: Modifiers that keep the role's slot ("my new dentist" replaces "my dentist").
_NEW = (
    r"(?:new|current|nouvel|nouvelle|nouveau|nuevo|nueva|neue|neuer|neues|neuen|novo|nova|actual|atual|actuel|"
    r"actuelle|aktuelle|aktueller)"
)
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


def _named_role_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    out = []
    for lang, own in _POSSESSIVE.items():
        role = _ROLE_DE if lang == "de" else _ROLE
        lead = rf"(?:{own}\s+(?:{_NEW}\s+)?|{_DEFINITE_NEW[lang]}\s+)"
        out.append(
            (
                lang,
                re.compile(
                    rf"(?<![\w'])(?:{lead}){role}\s*,?\s+{_COPULA[lang]}\s+(?:now\s+)?{_ARTICLE}{_WHO}", _I
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
    return "_".join(words[:3])


def _named_roles(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    for said_in, pattern in _NAMED_ROLES:
        if said_in not in (lang, "en") and lang != "":
            continue
        for match in pattern.finditer(clause):
            rel = " ".join(match.group("rel").split())
            name = match.group("name").strip(" ,.")
            rel_words = [fold(w) for w in rel.split()]
            if not rel_words or any(w in _NOT_ROLES for w in rel_words) or rel_words[-1] in STOP_WORDS:
                continue
            if any(w in _VERBS for w in rel_words):
                continue  # "my wife thinks I'm …": a verb inside the noun phrase
            if not is_name(name) or fold(name.split()[0]) in STOP_WORDS or "'" in name.split()[0]:
                continue
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
    r"^(?:(?:a|an|un|une|una|um|uma|ein|eine)\s+)?(?P<role>[\w'-]+(?:\s+[\w'-]+){0,4}?)"
    r"(?P<where>\s+(?:based in|in|at|à|en|em|no|na|bei|aus)\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’ -]*)?$",
    _I,
)


def _introduction(clause: str, lang: str) -> list[GroundedFact]:
    found = _INTRO.search(clause)
    if found is None or not is_name(found.group("name")):
        return []
    for segment in (s.strip() for s in found.group("rest").split(",")):
        if not segment or _AGE.match(segment):
            continue
        if _CLAUSE_START.match(segment):
            return []
        role = _ROLE_SEGMENT.match(segment)
        if role is None:
            return []
        words = role.group("role").split()
        first = words[0]
        if lang != "de" and not first[:1].islower():
            return []
        if lang == "de" and not (first[:1].isupper() and len(words) == 1):
            return []
        if any(fold(w) in _NOT_ROLES for w in words) or fold(words[-1]) in STOP_WORDS:
            return []
        if lang == "en" and fold(first) not in ("a", "an"):
            segment = (
                "an " if first[:1].lower() in "aeiou" else "a "
            ) + segment  # "nurse in Leeds" → "a nurse …"
        where = role.group("where") or ""
        town = _TOWN.match(where.strip())
        if town is None:
            text = render("role", lang, segment)
            return [_fact(FactKind.IDENTITY, text, "identity.role", segment, lang, identity=True)]
        # "a retired nurse in Norwich": who the user is, and where they live (the place has a slot of its own,
        # so a later move replaces it without retiring the role).
        bare = segment[: len(segment) - len(where)].strip()
        place = town.group("place").strip()
        return [
            _fact(FactKind.IDENTITY, render("role", lang, bare), "identity.role", bare, lang, identity=True),
            _fact(
                FactKind.IDENTITY, render("home", lang, place), "identity.home", place, lang, identity=True
            ),
        ]
    return []


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


def _partners(clause: str, lang: str) -> list[GroundedFact]:
    out: list[GroundedFact] = []
    for match in (m for pattern in _PARTNER for m in pattern.finditer(clause)):
        org = (match.group("org") or "").strip()
        if not org or not is_name(org) or fold(org.split()[0]) in STOP_WORDS:
            continue
        text = _PARTNER_TEXT.get(lang, _PARTNER_TEXT["en"]).format(v=org)
        out.append(
            _fact(
                FactKind.RELATION,
                text,
                f"relation.partner_org.{'_'.join(tokens(org)[:2])}",
                org,
                lang,
                identity=False,
            )
        )
    return out


_SALIENCE = {FactKind.RELATION: 0.7, FactKind.IDENTITY: 0.85}


def _fact(kind: FactKind, text: str, slot: str, value: str, lang: str, *, identity: bool) -> GroundedFact:
    return GroundedFact(kind, text, slot, value, (), _SALIENCE.get(kind, 0.7), identity, "extractor", lang)


def structural_facts(
    clause: str, lang: str, turn_index: int, held: Sequence[GroundedFact]
) -> list[GroundedFact]:
    """Facts the clause's structure states that `held` (the rules' facts of the same clause) does not already say."""
    said = clause.replace("’", "'")
    have_values = [fold(f.value) for f in held if f.value]
    have_slots = {f.slot for f in held if f.slot}
    out: list[GroundedFact] = []
    for fact in (
        *_named_roles(said, lang),
        *_introduction(said, lang),
        *_business(said, lang),
        *_partners(said, lang),
    ):
        value = fold(fact.value)
        if fact.slot in have_slots:
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
