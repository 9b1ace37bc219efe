"""Whether a candidate fact is a statement about the user's own life, read from the clause it came from.

Two structural checks, each one rule in five languages, applied after every reader has run:

- whose clause: a plan or task whose clause has a third person as its subject and no first person ("She started on
  the 1st and she's very sharp", "il part lundi") is someone else's, not the user's;
- whose wish: a task, plan or decision said as what someone else wants the user to do ("My granddaughter wants me
  to get a smartwatch", "ma femme veut que je …", "mi hija quiere que …", "meine Frau will, dass ich …", "a minha
  mulher quer que eu …", "my friend says I should …") is that person's wish, not the user's plan — the issue's
  rule that other people's preferences are not the user's facts; the person may open the clause by name ("Kirsty
  wants me to stop climbing", "Élodie veut que je …", "Alle meinen, ich sollte …"); a bare "he"/"elle" opening it
  is left alone (a coach's "Elle veut que je roule le mardi" is often the user's own plan);
- whose liking: a fact read from the part of a clause where another person likes, loves or prefers the thing ("A
  Fermín le encanta hacer el turno de noche, a mí me parece horrible", "Rui adora o turno da noite", "Kirsty loves
  night shifts", "Paul adore les gardes de nuit", "Jonas liebt die Nachtschicht") is that person's taste, not the
  user's life, whatever the user says after it;
- a person named: a relation whose "name" is itself followed by a copula and a name ("My lab PI is Dr. Sione
  Taufa" read as the lab "PI"; "Mon chef CE est Paul", "Mi jefa RRHH es Ana", "Meine Chefin QA ist Frau Roth", "O
  meu chefe TI é o Rui") took a word of the relation noun for the person: the person is the name after the copula;
  so did a value in capitals followed by a copula and a number ("My bank PIN is 0415", "Mi banco PIN es 1234",
  "Meine Bank PIN ist 1234", "O meu banco PIN é 1234"): "PIN" is no bank ("My son Leo is 7" is his age);
- a relation's own noun: a relation whose noun is only the first of a compound ("our new clinic manager is
  Padraig" read as the clinic "Padraig", "notre cabinet comptable est Fidal") is the longer noun's, which its own
  fact holds; a family relation said with an indefinite article ("Our new assistant is a mum, Folake
  Adeyemi", "une mère, Awa", "una madre, Rosa", "eine Mutter, Jana", "uma mãe, Rita") describes the person, it names
  no kin of the user's;
- a person, not a title: a relation whose value is a title or an abbreviation alone ("Lá o chefe é o Enf. Vasco"
  cut to "Enf.", "A minha enfermeira-chefe é a Enf.ª Lurdes" cut to "Enf", "Dr.", "Prof", "Herr", "Mme", "Sra.") is
  a title cut from its name, no one;
- a shift named: an English work shift is said with "shift" or in the plural ("on nights", "work weekends"); "on
  the day", "to the back room" and "on the Morning Tern" name none; the value itself is what must be said so ("from
  nights to the day rota" names the day rota, not a shift "day");
- a role said as a noun: a role whose value opens with the user's own subject pronoun ("Torquil, I drive a gritter"
  read as the role "a I drive a gritter"; "je conduis", "yo conduzco", "ich fahre", "eu conduzo") is a clause, not
  a role noun: the clause's own readers say what it states;
- a value said: a fact whose value is only function words ("Je suis maintenant avec Élodie" read as the role
  "avec") states nothing;
- a topic said: a plan, task or decision whose only object is a pronoun pointing back at another sentence ("remind
  me to book that", "de le réserver", "de reservarlo", "das zu buchen", "de reservar isso") names no topic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.lexicon import RELATIONS
from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.text import STOP_WORDS, tokens

_I = re.IGNORECASE

#: The user in a clause, per language: "I", "we" and their forms (Spanish and Portuguese verbs carry their person:
#: "voy", "tengo", "vou", "tenho").
_FIRST_PERSON = {
    "en": re.compile(r"\b(?:I|I'm|I've|I'll|I'd|my|me|mine|myself|we|we're|we've|we'll|our|us|ours)\b", _I),
    "fr": re.compile(r"\b(?:je|moi|mon|ma|mes|me|nous|notre|nos|on)\b|\b[jm]['’]", _I),
    "es": re.compile(
        r"\b(?:yo|mi|mis|me|nosotros|nosotras|nuestro|nuestra|nuestros|nuestras|voy|tengo|estoy|soy)\b", _I
    ),
    "de": re.compile(r"\b(?:ich|mein|meine|meinen|meinem|meiner|mir|mich|wir|unser|unsere|uns)\b", _I),
    "pt": re.compile(r"\b(?:eu|meu|minha|meus|minhas|me|nós|nosso|nossa|vou|tenho|estou|sou)\b", _I),
}
#: A third person in the singular opening a clause, after an optional "and" / "but" / "so" ("they", "ils", "sie"
#: are often nobody in particular: "they rescheduled the exam" is the user's exam; "il y a", "il faut" are no one).
_THIRD_OPENS = {
    "en": re.compile(r"^(?:(?:and|but|so|then|also)\s+)?(?:he|she|he's|she's|he'll|she'll)\b", _I),
    "fr": re.compile(r"^(?:(?:et|mais|donc|puis)\s+)?(?:il|elle)\b(?!\s+(?:y a|faut|paraît|semble)\b)", _I),
    "es": re.compile(r"^(?:(?:y|pero|así que|luego)\s+)?(?:él|ella)\b", _I),
    "de": re.compile(r"^(?:(?:und|aber|also|dann)\s+)?er\b", _I),
    "pt": re.compile(r"^(?:(?:e|mas|então|depois)\s+)?(?:ele|ela)\b", _I),
}
_SHIFT_SAID = re.compile(
    r"\bshifts?\b|\b(?:nights|days|earlies|lates|mornings|evenings|afternoons|weekends|graveyards|swings)\b"
)
_DATED_KINDS = frozenset({FactKind.PLAN, FactKind.ACTION_ITEM})
_WISHED_KINDS = frozenset({FactKind.PLAN, FactKind.ACTION_ITEM, FactKind.DECISION})
#: Someone of the user's ("my wife", "ma fille", "Rosie") wanting the user to do something, or saying they should.
_OTHERS_WISH = re.compile(
    r"(?:\b(?:my|our|mon|ma|mes|notre|mi|mis|nuestro|nuestra|mein|meine|unser|unsere|o meu|a minha|meu|minha)\s+"
    r"[\w-]+(?:\s+[A-ZÀ-Þ][\w-]+)?|\b(?:everyone|everybody|tout le monde|todo el mundo|alle|toda a gente|todos)|"
    r"\b(?-i:(?!(?:Ich|Wir|Je|Nous|On|Yo|Nosotros|Nosotras|Eu|Nós|We|He|She|They|Il|Elle|Ils|Elles|Él|Ella|Er|Sie|"
    r"Ele|Ela)\b)[A-ZÀ-Þ][a-zà-ÿ]+))\s+"
    r"(?:wants? (?:me|us) to|would like (?:me|us) to|keeps? (?:telling|asking) (?:me|us) to|"
    r"(?:says?|said|thinks?|reckons?|suggests?|keeps? saying) (?:that )?(?:I|we) should|"
    r"veut que (?:je|j'|nous|on)|voudrait que (?:je|j'|nous|on)|dit que je devrais|"
    r"quiere que|querría que|dice que debería|will,? dass (?:ich|wir)|möchte,? dass (?:ich|wir)|meint,? ich sollte|"
    r"quer que (?:eu|nós|a gente)|acha que eu devia|diz que eu devia)\b",
    _I,
)


#: Another person liking or wanting something, opening a clause: a name or "my X" (Spanish and Portuguese with
#: their dative or article: "a Fermín le encanta", "o Rui adora"), with each language's verbs of liking (not of
#: wanting: "Helena wants the full draft by 15 January" is the user's deadline).
_LIKING_VERBS = {
    "en": r"likes?|loves?|adores?|enjoys?|prefers?|is (?:obsessed with|mad about|keen on)",
    "fr": r"aime|adore|préfère|raffole de",
    "es": r"(?:le |les )?(?:encanta|gusta|apetece|chifla)|prefiere|adora",
    "de": r"mag|liebt|bevorzugt|steht auf",
    "pt": r"(?:lhe )?agrada|gosta|adora|prefere|é doid[oa] por",
}
_OTHER_OPENS = (
    r"^(?:(?:and|but|so|et|mais|y|pero|und|aber|e|mas)\s+)?(?:a |al |à |ao |o )?"
    r"(?:(?:my|our|mon|ma|mes|notre|mi|mis|nuestro|nuestra|mein|meine|meinem|meiner|unser|unsere|meu|minha)\s+[\w-]+"
    r"|(?-i:(?!(?:I|Ich|Wir|Je|Nous|On|Yo|Nosotros|Nosotras|Eu|Nós|We|Me|Mi|Moi|He|She|It|They|Il|Elle|Ils|Elles|"
    r"Él|Ella|Er|Sie|Es|Ele|Ela)\b)[A-ZÀ-Þ][a-zà-ÿ]+))\s+"
)
_OTHERS_LIKING = {
    lang: re.compile(rf"{_OTHER_OPENS}(?:{verbs})\b", _I) for lang, verbs in _LIKING_VERBS.items()
}
#: Where the other person's part of a clause ends: a comma, a semicolon or a conjunction.
_PART_END = re.compile(r"[,;]|\s(?:and|but|et|mais|y|pero|und|aber|e|mas)\s", _I)


def _others_liking(fact: GroundedFact, clause: str) -> bool:
    """The fact's value said inside a clause part that opens with another person's liking (up to a comma or a
    conjunction: "He wants a late opening on 16 May and I'm down to do the talks" is the user's too)."""
    liking = _OTHERS_LIKING.get(fact.language)
    part = _PART_END.split(clause.strip(), maxsplit=1)[0]
    value = fact.value.strip().lower()
    return liking is not None and bool(value) and value in part.lower() and liking.match(part) is not None


_COPULA_NAMING = r"\s+(?:is|was|'s|est|s'appelle|es|se llama|ist|heißt|é|se chama|chama-se)\s+"
#: A copula or naming verb and a capitalised word just after a relation's value, five languages.
_THEN_NAMED = _COPULA_NAMING + r"(?:(?:the|le|la|el|der|die|o|a)\s+)?(?-i:[A-ZÀ-Þ])"
#: The same before a number, after a value in capitals ("My bank PIN is 0415" read as the bank "PIN": the number is
#: what the compound noun "bank PIN" holds); a name before a number is a person's age ("My son Leo is 7").
_THEN_NUMBER = _COPULA_NAMING + r"\d"


def _value_is_a_noun_of_the_relation(fact: GroundedFact, evidence: Sequence[str]) -> bool:
    if fact.kind is not FactKind.RELATION or not fact.value.strip():
        return False
    value = fact.value.strip()
    after = re.compile(rf"(?<![\w-]){re.escape(value)}{_THEN_NAMED}", _I)
    if value.isupper() and len(value) > 1:
        after = re.compile(rf"(?<![\w-]){re.escape(value)}(?:{_THEN_NAMED}|{_THEN_NUMBER})", _I)
    return any(after.search(clause) for clause in evidence)


#: The copulas a relation is said with ("is", "est", "es", "ist", "é").
_COPULA = r"(?:is|was|'s|est|c'est|es|ist|é)"
#: Family relations: kin of the user only with a possessive, never with "a"/"une"/"una"/"eine"/"uma".
_KIN_KEYS = frozenset(
    {
        "partner",
        "mother",
        "father",
        "child",
        "sibling",
        "cousin",
        "grandparent",
        "aunt_uncle",
        "in_law",
        "nephew_niece",
    }
)
_KIN_WORDS = "|".join(
    sorted((re.escape(w) for w, (key, _) in RELATIONS.items() if key in _KIN_KEYS), key=len, reverse=True)
)
_INDEFINITE = r"(?:a|an|un|une|una|ein|eine|einen|einer|um|uma)"


def _not_the_relation_said(fact: GroundedFact, evidence: Sequence[str]) -> bool:
    """The relation's noun is the head of a longer one ("clinic manager is Padraig"), or a kin noun said with an
    indefinite article before the person ("a mum, Folake Adeyemi")."""
    if fact.kind is not FactKind.RELATION or not fact.slot.startswith("relation.") or not fact.value.strip():
        return False
    key = fact.slot.split(".", 1)[1]
    value = re.escape(fact.value.strip())
    compound = re.compile(rf"\b{re.escape(key)}\s+[^\W\d_][\w-]*\s+{_COPULA}\s+(?:\w+\s+)?{value}", _I)
    described = re.compile(rf"\b{_INDEFINITE}\s+(?:{_KIN_WORDS})\s*,?\s+{value}", _I)
    kin = key in _KIN_KEYS
    return any(compound.search(c) or (kin and described.search(c)) for c in evidence)


#: A title or an abbreviation said alone (a name never ends with a period): "Dr.", "Enf.", "Herr", "Mme".
_TITLE_ALONE = re.compile(
    r"(?-i:[A-ZÀ-Þ][a-zà-ÿ]{0,4}\.|Dr|Dra|Mr|Mrs|Ms|Mx|Prof|Herr|Frau|Sr|Sra|Mme|Mlle|M)", _I
)


def _title_alone(fact: GroundedFact, evidence: Sequence[str]) -> bool:
    """A title alone, or a short word the evidence says as an abbreviation before the name ("Enf.ª Lurdes")."""
    value = fact.value.strip()
    if fact.kind is not FactKind.RELATION or not value:
        return False
    if _TITLE_ALONE.fullmatch(value):
        return True
    cut = re.compile(rf"(?<![\w-]){re.escape(value)}\.[ªº]?\s+(?-i:[A-ZÀ-Þ])")
    return len(value) <= 5 and " " not in value and any(cut.search(clause) for clause in evidence)


def _someone_elses_clause(fact: GroundedFact, clause: str) -> bool:
    lang = fact.language if fact.language in _THIRD_OPENS else "en"
    return bool(_THIRD_OPENS[lang].match(clause.strip())) and not _FIRST_PERSON[lang].search(clause)


def _names_no_shift(fact: GroundedFact, evidence: Sequence[str]) -> bool:
    if fact.slot != "identity.shift" or fact.language != "en":
        return False
    if not any(_SHIFT_SAID.search(clause) for clause in evidence):
        return True
    plain = fact.value.strip()
    value = re.escape(plain[:-1] if plain.lower().endswith("y") else plain)
    said = re.compile(
        rf"\b{value}\w{{0,3}}s\b|\b{re.escape(plain)}\s+shifts?\b|\b{re.escape(plain)}\b(?=\s*(?:[,.;!?]|$))",
        _I,
    )
    # The value itself said as a shift: "on days", "the night shift", "I work nights"; not "the day rota".
    return bool(value) and " " not in fact.value.strip() and not any(said.search(c) for c in evidence)


#: The user's own subject pronoun inside a value, five languages ("I" only upper-case: a Roman numeral is rare).
_OWN_SUBJECT = re.compile(r"(?-i:\bI\b)|\b(?:je|j'|yo|ich|eu)\b|\bj['’]", _I)


def _role_is_a_clause(fact: GroundedFact) -> bool:
    opening = " ".join(
        fact.value.split()[:2]
    )  # "a I drive …"; a tail ("… in Hereford and I keep bees") is no clause
    return fact.slot == "identity.role" and _OWN_SUBJECT.search(opening) is not None


def _no_value(fact: GroundedFact) -> bool:
    """A value made only of lower-case function words ("avec", "the"): the reader took a preposition for it."""
    said = tokens(fact.value)
    if not said or any(ch.isupper() or ch.isdigit() for ch in fact.value):
        return False  # a name ("Ella", "Will") or a number is a value whatever else the word means
    return all(t in STOP_WORDS for t in said)


#: The user as a speaker in any of the five languages (French "on" left out: English has it as a preposition).
_SPEAKER = re.compile(
    r"\b(?:I|I'm|I've|I'll|I'd|my|me|mine|we|we're|we've|we'll|our|us|je|moi|mon|ma|mes|nous|notre|nos|yo|mi|mis|"
    r"nosotros|nosotras|nuestro|nuestra|nuestros|nuestras|ich|mein|meine|meinen|meinem|meiner|mir|mich|wir|unser|"
    r"unsere|uns|eu|meu|minha|meus|minhas|nós|nosso|nossa)\b|\b[jm]['’]",
    _I,
)


def speaks_of_user(sentence: str) -> bool:
    """Whether a sentence has the user (or the user's "we") in it."""
    return _SPEAKER.search(sentence) is not None


#: A task or plan whose only object is a pronoun pointing back at another sentence ("remind me to book that",
#: "de le réserver", "de reservarlo", "das zu buchen", "de reservar isso" / "reservá-lo"): its topic is elsewhere,
#: so it names none.
_POINTS_BACK = {
    "en": re.compile(r"\bto\s+[a-z]+\s+(?:that|it|this|them)\s*[.?!]*$", _I),
    # an infinitive after the pronoun ("de le réserver", "de l'appeler"), not a noun ("de la réunion")
    "fr": re.compile(r"\bde\s+(?:(?:le|la|les)\s+|l['’])[a-zà-ÿ]+(?:er|ir|re)\s*[.?!]*$", _I),
    "es": re.compile(r"\b(?:de|que|a|para)\s+[a-zá-úñ]+(?:ar|er|ir)(?:lo|la|los|las)\s*[.?!]*$", _I),
    "de": re.compile(r"\b(?:das|es|dies)\s+zu\s+[a-zäöüß]+\s*[.?!]*$", _I),
    "pt": re.compile(
        r"(?:\b(?:de|para)\s+[a-zá-ú]+(?:ar|er|ir)\s+(?:isso|isto|aquilo)|\b[a-zá-ú]+[áêí]-(?:lo|la|los|las))\s*[.?!]*$",
        _I,
    ),
}
_TOPIC_KINDS = frozenset({FactKind.PLAN, FactKind.ACTION_ITEM, FactKind.DECISION})


def _names_no_topic(fact: GroundedFact, evidence: Sequence[str]) -> bool:
    """A plan, task or decision with a pronoun pointing back for its only object: no topic."""
    if fact.kind not in _TOPIC_KINDS or not evidence:
        return False
    first = evidence[0].strip()
    pattern = _POINTS_BACK.get(fact.language, _POINTS_BACK["en"])
    return bool(pattern.search(first))


def unfit_fact(fact: GroundedFact, evidence: Sequence[str]) -> str:
    """Why a candidate is not a fact about the user's life ("someone_else", "no_shift"), or ""
    when it is. `evidence` is the clause (or clauses) the fact was read from; a fact without one is kept."""
    first = evidence[0] if evidence else ""
    if fact.kind in _DATED_KINDS and first and _someone_elses_clause(fact, first):
        return "someone_else"
    if fact.kind in _WISHED_KINDS and first and _OTHERS_WISH.search(first):
        return "someone_elses_wish"
    if fact.kind is not FactKind.PREFERENCE and first and _others_liking(fact, first):
        return "someone_elses_liking"
    if _value_is_a_noun_of_the_relation(fact, evidence):
        return "relation_noun_as_name"
    if _not_the_relation_said(fact, evidence):
        return "not_the_relation_said"
    if _title_alone(fact, evidence):
        return "title_alone"
    if _names_no_shift(fact, evidence):
        return "no_shift"
    if _role_is_a_clause(fact):
        return "role_is_a_clause"
    if _no_value(fact):
        return "no_value"
    if _names_no_topic(fact, evidence):
        return "no_topic"
    return ""


__all__ = ["speaks_of_user", "unfit_fact"]
