"""Answers to the assistant's question: the question supplies the slot, the user's short reply the value.

"— What kit are you brewing on? — A Grainfather G30." states a fact no first-person clause holds: the reply is a
bare noun phrase, a name or a date. The question is read only for what it asks (who, when, how often, where, what
or which thing) and for its slot words ("kit", "teacher"); the stored value is the user's reply, word for word, and
the fact's evidence is the user's sentence alone, so nothing the assistant said (a guess, a name it offered) becomes
the user's fact. A reply that declines, hedges, imagines, names no value of the kind asked, or already yielded a fact
through the clause readers yields nothing here.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from memoryd.write.grounding.dates import WEEKDAYS, find_dates, with_resolved_dates
from memoryd.write.grounding.lexicon import HEDGE, HYPOTHETICAL, NAME, RELATIONS
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.rules import is_name
from memoryd.write.grounding.secrets import asks_for_credential, contains_secret
from memoryd.write.grounding.text import (
    NEGATIONS,
    NUMBER_WORDS,
    STOP_WORDS,
    detect_language,
    fold,
    sentences,
    tokens,
    word_set,
)
from memoryd.write.grounding.unfit import unfit_reason

#: A reply longer than this is a statement of its own: the clause readers read it.
MAX_ANSWER_WORDS = 12
#: Slot words taken from the question (its content words, in order).
MAX_SLOT_WORDS = 3
SALIENCE = 0.6


class Asks(StrEnum):
    """What a question asks for, which decides the value a reply must hold."""

    WHO = "who"
    WHEN = "when"
    OFTEN = "often"
    WHERE = "where"
    HOW_MANY = "how_many"
    WHAT = "what"
    #: A yes/no question ("Are you selling them at 3 euro?"): only a reply that corrects or adds a value counts.
    CONFIRM = "confirm"


_ASKS: tuple[tuple[Asks, re.Pattern[str]], ...] = (
    (
        Asks.OFTEN,
        re.compile(
            r"\b(?:how often|how many times|which days?|what days?|à quelle fréquence|quels jours|quel jour|"
            r"cada cuánto|con qué frecuencia|qué días?|wie oft|an welchen tagen|welcher tag|com que frequência|"
            r"que dias?|quais dias)\b",
            re.IGNORECASE,
        ),
    ),
    (
        Asks.WHEN,
        re.compile(
            r"\b(?:when|what date|which date|what time|quand|quelle date|à quelle heure|cuándo|qué fecha|a qué hora|"
            r"wann|an welchem|um wie viel uhr|quando|que data|a que horas)\b",
            re.IGNORECASE,
        ),
    ),
    (
        Asks.HOW_MANY,
        re.compile(
            r"\b(?:how many|how much|how long|combien|cuántos|cuántas|cuánto|wie viele|wie viel|wie lange|quantos|"
            r"quantas|quanto)\b",
            re.IGNORECASE,
        ),
    ),
    (Asks.WHO, re.compile(r"\b(?:who|whom|qui|quién|quiénes|wer|wen|wem|quem)\b", re.IGNORECASE)),
    (Asks.WHERE, re.compile(r"\b(?:where|où|dónde|adónde|wo|wohin|onde|aonde)\b", re.IGNORECASE)),
    (
        Asks.WHAT,
        re.compile(
            r"\b(?:what|which|quel|quelle|quels|quelles|qué|cuál|cuáles|welche|welcher|welches|welchen|was für|"
            r"qual|quais)\b",
            re.IGNORECASE,
        ),
    ),
)
#: "Do you have a teacher?", "Tienes veterinario?": a yes/no question about someone in the user's life asks who.
_HAVE_A = re.compile(
    r"\b(?:do you have|have you got|got|are you with|tu as|vous avez|as-tu|avez-vous|tienes|tiene usted|hast du|"
    r"haben sie|tens|você tem)\s+(?:a|an|any|un|une|des|un|una|einen|eine|ein|um|uma)?\s*(?P<n>\w+)",
    re.IGNORECASE,
)
#: Replies that decline or do not know ("No.", "Not yet", "No idea", "Pas encore", "Noch nicht", "Ainda não").
_DECLINES = re.compile(
    r"^\W*(?:no\b|nope|not yet|not really|none|nobody|no one|never|i don't|i do not|i haven't|don't know|no idea|"
    r"non\b|pas encore|personne|aucun|je ne sais|je sais pas|nadie|ninguno|todavía no|aún no|no sé|nein|noch nicht|"
    r"keine|niemand|weiß nicht|weiss nicht|não|ainda não|ninguém|nenhum|não sei)",
    re.IGNORECASE,
)
#: Leading acknowledgements before the value ("Yes, Mrs Wolska", "Oui, le Dr Roux", "Well, Audacity").
_LEAD = re.compile(
    r"^\W*(?:(?:yes|yeah|yep|sure|well|oh|hmm|so|right|ok|okay|oui|ben|bah|alors|sí|si|pues|bueno|ja|also|naja|"
    r"sim|bom|então|ah)\b[\s,!.:-]*)+",
    re.IGNORECASE,
)
_NAME = re.compile(NAME)
_DIGIT = re.compile(r"\d")
#: A name's mark wherever it stands: an inner capital or a digit ("iOS", "G30").
_CAPITAL_WORD = re.compile(r"(?<![\w'’-])[A-ZÀ-ÖØ-Þ][\w'’-]*")
_MARKED = re.compile(r"\w[A-Z]|\d")
_EVERY = re.compile(
    r"\b(?:every|each|daily|weekly|monthly|weekends?|weekdays?|mornings?|evenings?|nights?|tous les|toutes les|"
    r"chaque|le matin|le soir|cada|todos los|todas las|por la mañana|por la tarde|jeden|jede|jedes|täglich|"
    r"wöchentlich|morgens|abends|toda|todo|todos os|todas as|de manhã|à noite)\b",
    re.IGNORECASE,
)
#: The question words themselves and the auxiliaries around them: never a slot word.
_NOT_SLOT = frozenset(
    tokens(
        "what which who whom when where how often many much long kind type sort time date day days "
        "quel quelle quels quelles qui quand où combien genre sorte type qué cuál cuáles quién cuándo dónde cuánto "
        "tipo clase welche welcher welches welchen was wer wann wo wie viele oft art sorte qual quais quem quando "
        "onde quanto que tipo espécie do does did are is was were you your yours have has got going gonna usually "
        "currently now right so and then planning plan"
    )
)
_TEMPLATE = {
    "en": "The user's answer about {slot}: {v}",
    "fr": "Réponse de l'utilisateur sur {slot} : {v}",
    "es": "Respuesta del usuario sobre {slot}: {v}",
    "de": "Antwort des Nutzers zu {slot}: {v}",
    "pt": "Resposta do usuário sobre {slot}: {v}",
}
_KIND = {
    Asks.WHO: FactKind.RELATION,
    Asks.WHEN: FactKind.PLAN,
    Asks.OFTEN: FactKind.PLAN,
    Asks.WHERE: FactKind.IDENTITY,
    Asks.HOW_MANY: FactKind.IDENTITY,
    Asks.WHAT: FactKind.IDENTITY,
    Asks.CONFIRM: FactKind.IDENTITY,
}
#: The yes or no a reply to a yes/no question opens with ("No, 3.50 already", "Yes, at 14 euro an hour").
_YES_NO = re.compile(
    r"^\W*(?:(?:yes|yeah|yep|yup|no|nope|nah|not quite|actually|oui|non|sí|si|ja|nein|doch|sim|não|please|"
    r"s'il te plaît|por favor|bitte)\b[\s,!.:-]*)+",
    re.IGNORECASE,
)


#: A correction marker ("Libre 2 actually", "en fait, le 12", "eigentlich Dienstag").
_CORRECTS = re.compile(
    r"[\s,]*\b(?:actually|in fact|en fait|en réalité|en realidad|de hecho|eigentlich|na verdade|na realidade)\b[\s,]*",
    re.IGNORECASE,
)
#: A reply that turns to another matter or person after its yes or no ("No, but my wife Ana is").
_OTHER_MATTER = re.compile(r"^(?:but|though|although|mais|pero|aber|mas|only|just)\b", re.IGNORECASE)
#: A reply about someone else: its subject is a third person ("he's still 17", "elle part en mai").
_THIRD_SUBJECT = re.compile(
    r"^(?:he|she|they|he's|she's|they're|it's|il|elle|ils|elles|él|ella|ellos|ellas|er|sie|es|ele|ela|eles|elas)\b",
    re.IGNORECASE,
)


#: Verbs a question's slot may hold when its object is a pronoun ("How often do you see her?", "Were you able to
#: find another?"): a slot of these alone names nothing the reply could be a value of.
_BARE_VERBS = word_set(
    "see find able get got make made do does did go went take took come came tell told say said know think "
    "want need feel keep manage hear meet met visit call check try use start started finish finished "
    "voir trouver faire aller venir dire savoir penser vouloir ver encontrar hacer ir venir decir saber "
    "sehen finden machen gehen kommen sagen wissen denken ver encontrar fazer ir vir dizer saber achar"
)
#: A formula of relief or thanks ("thank God", "Dieu merci", "gracias a Dios", "Gott sei Dank", "graças a Deus"):
#: it names no value, whatever its capital says.
_FORMULA = re.compile(
    r"^(?:thank (?:god|goodness|heavens)|thank the lord|god knows|dieu merci|grâce à dieu|mon dieu|gracias a dios|"
    r"dios mío|ojalá|gott sei dank|mein gott|graças a deus|meu deus|oxalá)\b",
    re.IGNORECASE,
)


def _names_a_slot(question: Question) -> bool:
    """Whether the question's slot has a word other than a bare verb (its object named, not a pronoun)."""
    return any(fold(word) not in _BARE_VERBS for word in question.slot.split())


def _new_value(question: str, value: str, *, lang: str = "en") -> bool:
    """A number or a name in the reply that the question did not say: what a yes/no reply corrects or adds (in
    German, where every noun has a capital, a number only)."""
    asked = set(tokens(question))
    names = [] if lang == "de" or detect_language(value, default="") == "de" else list(_NAME.finditer(value))
    said = [t for t in tokens(value) if any(ch.isdigit() for ch in t)] + [
        t for m in names if m.start() > 0 for t in tokens(m.group("v"))
    ]
    return any(t not in asked for t in said)


@dataclass(frozen=True)
class Question:
    """The assistant's last question before a user turn: what it asks and its slot words."""

    asks: Asks
    slot: str
    text: str = ""
    #: The question's candidate slot words in order (the slot is the first MAX_SLOT_WORDS of them).
    words: tuple[str, ...] = ()


def last_question(assistant: str) -> Question | None:
    """What the assistant's turn ends by asking, or None when it ends without a question a value answers."""
    said = [s for s in sentences(assistant) if s.strip()]
    if not said or not said[-1].rstrip().endswith("?"):
        return None
    question = said[-1]
    asks = next((kind for kind, pattern in _ASKS if pattern.search(question)), None)
    have = _HAVE_A.search(question)
    if asks is None and have is not None:
        asks = Asks.WHO
    asks = asks or Asks.CONFIRM
    found = [
        (m.start(), m.group())
        for m in re.finditer(r"[^\W\d_][\w'’-]*", question)
        if fold(m.group()) not in STOP_WORDS and fold(m.group()) not in _NOT_SLOT
    ]
    # Names in the question are the assistant's, never a slot; German writes its nouns with a capital too.
    german = detect_language(question, default="") == "de" and asks is not Asks.CONFIRM
    lowered = [w for at, w in found if w[:1].islower() or (german and at > 0)]
    if not lowered and asks is Asks.CONFIRM:
        return None  # "Sounds good?" asks nothing a value answers
    slot = " ".join(lowered[:MAX_SLOT_WORDS]) or asks.value.replace("_", " ").replace("often", "how often")
    return Question(asks, slot, question, tuple(lowered))


#: A reply that denies a yes/no question ("No, mostly residential", "Non, …", "Nein, …", "Não, …").
_DENIES = re.compile(r"^\W*(?:no|nope|nah|not quite|non|nein|não|nao)\b", re.IGNORECASE)


def denied_words(question: str, reply: str) -> frozenset[str]:
    """The question's words a denying reply puts another word in place of: after a word both share, the
    question's next word when the reply says a different one there ("I suppose you mostly do commercial work?" —
    "No, mostly residential lockouts" → {"commercial"}). The assistant's guess, denied, is no slot of the user's
    answer."""
    if not _DENIES.match(reply):
        return frozenset()
    asked = tokens(question)
    said = tokens(next((x for x in sentences(reply) if x.strip()), ""))
    denied: set[str] = set()
    for i, word in enumerate(asked[:-1]):
        if word not in said or word.isdigit():
            continue  # a number is a value, never the anchor of one ("at 3 euro" — "No, 3.50")
        j = said.index(word)
        guess = next((t for t in asked[i + 1 :] if t not in STOP_WORDS), "")
        answer = next((t for t in said[j + 1 :] if t not in STOP_WORDS), "")
        if guess and answer and guess != answer and guess not in said and not guess.isdigit():
            denied.add(guess)
    return frozenset(denied)


def _slot_without(question: Question, denied: Collection[str]) -> Question:
    """The question with its slot rebuilt from words no denial took back."""
    if not denied:
        return question
    kept = [w for w in question.words if fold(w) not in denied]
    slot = " ".join(kept[:MAX_SLOT_WORDS]) or question.asks.value
    return Question(question.asks, slot, question.text, tuple(kept))


def _value(answer: str) -> str:
    """The reply's first sentence without its acknowledgement ("Yes, Mrs. Wolska, every Saturday" → "Mrs. …")."""
    first = next((s for s in sentences(answer) if s.strip()), "")
    return _LEAD.sub("", first).strip().rstrip(".!")


def _mid_capitals(turns: Sequence[SourceTurn]) -> frozenset[str]:
    """Words the session writes with a capital inside a sentence (names, wherever they also open one)."""
    return frozenset(
        m.group()
        for t in turns
        for text in (t.user, t.assistant)
        for said in sentences(text)
        for m in _CAPITAL_WORD.finditer(said)
        if m.start() > 0
    )


def _holds(asks: Asks, value: str, session_time_ms: int, mid_capitals: Collection[str] = ()) -> bool:
    """Whether the reply holds a value of the kind asked: a name for who / where / what, a date for when, …"""
    # A capitalised run the rules take for a name ("Audacity for now", "Mrs. Wolska", "a coach called Stellan Berg");
    # a capital that only opens the reply ("Endgames, mostly", "Just about") names nothing.
    named = any(
        is_name(m.group("v"))
        and (
            m.start() > 0
            or len(m.group("v").split()) > 1
            or bool(_MARKED.search(m.group("v")))
            or m.group("v") in mid_capitals
        )
        for m in _NAME.finditer(value)
    )
    dated = bool(find_dates(value, session_time_ms)) or any(fold(w) in WEEKDAYS for w in tokens(value))
    if asks in (Asks.WHO, Asks.WHERE):
        return named
    if asks is Asks.WHEN:
        return dated
    if asks is Asks.OFTEN:
        return dated or bool(_EVERY.search(value))
    if asks is Asks.HOW_MANY:
        # "— How many colonies now? — Five.": a count said in words is a count
        return bool(_DIGIT.search(value)) or any(t in NUMBER_WORDS for t in tokens(value))
    return named or bool(_DIGIT.search(value))


def _slug(name: str) -> str:
    """A name as a slot key, the way the relation rules key it ("Dr Okafor" → "dr_okafor")."""
    return "_".join([t for t in tokens(name) if t not in STOP_WORDS][:2])


def _relation_slot(question: Question, value: str) -> tuple[str, str]:
    """The slot and value of a reply naming someone in a role the question names ("Who's your vet now?" — "Dr
    Okafor"): the role's slot, as a statement of it would fill, so a newer vet replaces the older one."""
    if question.asks is not Asks.WHO:
        return "", value
    role = next((RELATIONS[fold(w)] for w in question.slot.split() if fold(w) in RELATIONS), None)
    name = next((m.group("v") for m in _NAME.finditer(value) if is_name(m.group("v"))), "")
    if role is None or not name:
        return "", value
    key, single = role
    return (f"relation.{key}" if single else f"relation.{key}.{_slug(name)}"), name


def answered_facts(
    turns: Sequence[SourceTurn], session_lang: str, session_time_ms: int, read: Collection[str] = ()
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Facts from short replies to the assistant's question, with the user's sentence as their only evidence;
    `read` holds the clauses other readers already took a fact from (their reply yields nothing more)."""
    found: list[tuple[GroundedFact, tuple[str, ...]]] = []
    taken = {fold(c).strip(" .!") for c in read}
    mid_capitals = _mid_capitals(turns)
    for before, turn in itertools.pairwise(turns):
        question = last_question(before.assistant)
        if question is None or not turn.user.strip() or asks_for_credential(before.assistant):
            continue
        first = next((s for s in sentences(turn.user) if s.strip()), "")
        value = _value(turn.user)
        if question.asks is Asks.CONFIRM:
            # "— Are you selling them at 3 euro? — No, 3.50 already": the reply's value, after its yes or no.
            opened = _YES_NO.match(first)
            if opened:
                value = first[opened.end() :].strip().rstrip(".!")
            elif _CORRECTS.search(first):
                # "— You're on the Libre 3, I assume? — Libre 2 actually.": a guess corrected, the value the user's.
                value = _CORRECTS.sub("", first).strip(" ,.!")
            else:
                value = ""
            if (
                not value
                or _OTHER_MATTER.match(value)
                or _THIRD_SUBJECT.match(value)
                or any(t in NEGATIONS for t in tokens(value))
                or not _new_value(question.text, value, lang=session_lang)
            ):
                continue  # "No, but my wife is", "No, he's still 17", "Nein, ich verkaufe gar nichts"
            value = _LEAD.sub("", value).strip()
            question = _slot_without(question, denied_words(question.text, first))
        if (
            not value
            or _FORMULA.match(value)
            or not _names_a_slot(question)
            or first.rstrip().endswith("?")
            or len(tokens(value)) > MAX_ANSWER_WORDS
            or (_DECLINES.search(value) and question.asks is not Asks.CONFIRM)
            or HEDGE.search(value)
            or HYPOTHETICAL.search(value)
            or unfit_reason(first)
            or contains_secret(first)
            or not _holds(question.asks, value, session_time_ms, mid_capitals)
            or any(fold(value) in t or t in fold(first) for t in taken if t)
        ):
            continue
        lang = detect_language(value, default="") or session_lang
        dated = with_resolved_dates(value, find_dates(value, session_time_ms))
        text = _TEMPLATE.get(lang, _TEMPLATE["en"]).format(slot=question.slot, v=dated) + "."
        kind = _KIND[question.asks]
        slot, said = _relation_slot(question, value)
        fact = GroundedFact(kind, text, slot, said, (turn.index,), SALIENCE, False, "extractor", lang)
        found.append((fact, (first,)))
    return found


__all__ = ["Asks", "Question", "answered_facts", "last_question"]
