"""Which parts of a user's sentence state something: clauses, not whole turns.

A greeting said on its own joins the next sentence (so "Hi! I'm Marta" reads as an introduction); a question keeps
only its leading statement clauses, except a request for a reminder or for a standing way of answering; a
consequence with its own subject (", so I need to …") is a clause of its own; a label before a colon ("Quick
intro:"), a reply word ("Nope,", "It does,"), words taken back ("ignore what I said about Tuesday,") and a greeting
are no part of the fact the clause states.
"""

from __future__ import annotations

import re

from memoryd.write.grounding.lexicon import (
    ABOUT_ASSISTANT,
    ASSISTANT_SAID,
    CHIT_CHAT,
    FIRST_PERSON,
    HYPOTHETICAL,
    INSTRUCTION_MARKER,
    PAST,
    QUESTION_START,
    STYLE_NOUN,
)

_QUESTION_SPLIT = re.compile(
    r",\s*(?=(?:so|and|but|what|how|can|could|any|do|alors|donc|et|mais|que|quoi|comment|así que|y|pero|qué|cómo|"
    r"also|und|aber|was|wie|então|e|mas|o que|como)\b)",
    re.IGNORECASE,
)
_GREETING_ONLY = re.compile(
    r"^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|bonjour|salut|coucou|hola|buenas|hallo|servus|moin|"
    r"guten tag|olá|ola|oi|bom dia|boa tarde)(?: there| all| à tous| a todos)?\s*[!.,]*$",
    re.IGNORECASE,
)


def _joined_greetings(parts: list[str]) -> list[str]:
    """A greeting said as its own sentence ("Hi! I'm Marta, …") joined to the next, so introductions read as such."""
    joined: list[str] = []
    for part in parts:
        if joined and _GREETING_ONLY.match(joined[-1]):
            joined[-1] = f"{joined[-1]} {part}"
        else:
            joined.append(part)
    return joined


#: A greeting opening a clause ("Hi! We're flying…", "Hey, the user is meeting…").
_GREETING_LEAD = re.compile(
    r"^(?:hi|hello|hey|hiya|morning|evening|good (?:morning|afternoon|evening)|bonjour|bonsoir|salut|coucou|hola|"
    r"buenas(?: tardes| noches)?|buenos días|hallo|servus|moin|guten (?:tag|morgen|abend)|olá|ola|oi|bom dia|boa tarde|"
    r"boa noite)(?:[\s,!.]+(?:there|dear|all|everyone|again|à tous|a todos))?[\s,!.]+(?=\S)",
    re.IGNORECASE,
)


#: "Ignore what I said about Tuesday, …": the words taken back open the clause and name no fact.
_RETRACTION = re.compile(
    r"^(?:(?:please )?(?:ignore|forget|disregard) (?:what I (?:said|wrote|told you)|my last message|that)"
    r"(?: (?:about|re) [^,;:]+)?|oublie ce que (?:je t'ai|j'ai) dit(?: (?:sur|pour) [^,;:]+)?|"
    r"olvida lo que (?:te )?dije(?: (?:sobre|de) [^,;:]+)?|vergiss,? was ich (?:gesagt|geschrieben) habe|"
    r"esquece o que (?:eu )?(?:disse|falei)(?: sobre [^,;:]+)?)\s*[,;:—-]\s*",
    re.IGNORECASE,
)


#: "Can you remind me to buy a crate before May?": a question that asks for a reminder states a task.
_ASK_STANDING = re.compile(
    r"^¿?(?:(?:can|could|would|will) you|peux-tu|pourrais-tu|pouvez-vous|pourriez-vous|puedes|podrías|podría|"
    r"kannst du|könntest du|können sie|podes|podias|pode|poderia)\s+(?:please\s+|stp\s+|por favor\s+|bitte\s+)?"
    r"(?P<rest>.+)$",
    re.IGNORECASE,
)
_REMIND_THAT = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?|please )?(?:(?:remind me|don't let me forget) that|"
    r"(?:don't|do not) forget(?: that)?|n'oublie pas que|no olvides que|no te olvides de que|vergiss nicht,? dass|"
    r"não te esqueças (?:de )?que|não esqueças que)\s+(?=\S)",
    re.IGNORECASE,
)
_REMIND_REQUEST = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?|please )(?=remind me (?:to|about)\b)", re.IGNORECASE
)


#: "Quick intro: I'm Ravi", "Petite correction : on a changé de vétérinaire": a short label before a colon opens
#: a first-person statement; the statement is what the rules read (a greeting before the label stays).
_LABEL = re.compile(
    r"^(?P<greeting>(?:hi|hello|hey|hiya|morning|good (?:morning|afternoon|evening)|bonjour|bonsoir|salut|hola|"
    r"buenas(?: tardes| noches)?|buenos días|hallo|guten (?:tag|morgen|abend)|moin|servus|olá|oi|bom dia|boa tarde|"
    r"boa noite)[\s,!.]+)?"
    # A label that says what kind of statement follows ("decision:", "todo:") is part of it, not an opener.
    r"(?!(?:[\w'-]+ ){0,2}(?:decision|décision|decisión|entscheidung|decisão|decided|decidido|final|plan|todo|"
    r"to-do|task|reminder|note|rappel|recordatorio|erinnerung|lembrete)\b)[\w'-]+(?: [\w'-]+){0,2}\s*:\s+"
    r"(?=(?:I|I'm|I've|I'd|I'll|we|we're|we've|my|our|je|j'|on|mon|ma|mes|nous|yo|mi|mis|soy|ich|wir|mein|meine|"
    r"unser|unsere|eu|sou|o meu|a minha)\b)",
    re.IGNORECASE,
)
#: A reply word opening a statement ("Nope, I work at a bakery", "It does, he gave us until June 5", "Ja, leider
#: verschoben auf …"): it answers the assistant and says nothing itself.
_REPLY_OPENER = re.compile(
    r"^(?:yes|yeah|yep|yup|no|nope|nah|not yet|sure|right|exactly|indeed|correct|it does|it did|it is|it will|"
    r"that's right|pas encore|todavía no|aún no|noch nicht|ainda não|"
    r"ja|nein|genau|doch|oui|non|exactement|effectivement|sí|si|claro|exacto|efectivamente|sim|não|exato|isso)"
    r"(?:,?\s+(?:leider|malheureusement|lamentablemente|desgraciadamente|infelizmente|unfortunately|sadly|"
    r"thankfully|luckily|zum glück|heureusement|por suerte|felizmente))?\s*[,!]\s+(?=\S)",
    re.IGNORECASE,
)
#: ", so I need to …", ", así que necesito …", ", alors je dois …": a consequence with its own subject or modal is a
#: clause of its own (a task), and the clause before it keeps its own date.
_SO_CLAUSE = re.compile(
    r",\s*(?:so|and so|which means|así que|por lo que|alors|donc|du coup|also|deshalb|daher|darum|então|por isso|"
    r"portanto)\s+(?=(?:I|I'll|I'm|I've|we|we'll|we're|je|j'|il faut|nous|on|yo|necesito|tengo|debo|tenemos|"
    r"voy|vamos|ich|wir|muss|müssen|eu|preciso|tenho|temos|vou|vamos)\b)",
    re.IGNORECASE,
)


#: "When you explain road rules, use UK examples": a subordinate "when" clause before a main one, no question.
_WHEN_CLAUSE = re.compile(
    r"^(?:when|whenever)\s+(?:you|I|we|he|she|they|it|the|my|our)\b[^?]{2,80}?,\s*\S", re.IGNORECASE
)
#: "we ditched Jira last week; everything lives in Linear now": a semicolon joins two statements.
_SEMICOLON = re.compile(r"\s*;\s*")


def _clauses(text: str) -> list[str]:
    """A statement cut where a consequence with its own subject starts, or at a semicolon; each part needs three
    words to stand."""
    halves = [p.strip() for p in _SEMICOLON.split(text) if p.strip()]
    if len(halves) > 1 and all(len(p.split()) >= 3 for p in halves):
        return [part for half in halves for part in _clauses(half)]
    parts = [p.strip() for p in _SO_CLAUSE.split(text)]
    if len(parts) < 2 or any(len(p.split()) < 3 for p in parts):
        return [text]
    if any(PAST.search(p) for p in parts[:-1]):
        return [text]  # "they were interested, so I hosted a class on Friday": told of the past, read whole
    return parts


def _statement_clauses(sentence: str) -> list[str]:
    """The parts of a sentence that state something: a question keeps only its leading statement clauses."""
    return [
        piece
        for clause in _whole_statement_clauses(sentence)
        for part in _clauses(clause)
        for piece in _coordinated(part)
    ]


#: Two predicate nouns of one copula ("I'm a retired librarian and an independent town councillor in Frome",
#: "je suis infirmière et une maman solo"): each is a statement of its own.
_COORDINATED = re.compile(
    r"^(?P<head>.*?\b(?P<cop>I'm|I am|je suis|soy|ich bin|sou)\s+)"
    r"(?P<a>(?:an?|une?|una?|um|uma|ein|eine)\s+[^,;]+?)\s+(?:and|et|y|und|e)\s+"
    r"(?P<b>(?:an?|une?|una?|um|uma|ein|eine)\s+.+)$",
    re.IGNORECASE,
)


def _coordinated(clause: str) -> list[str]:
    """A clause with two predicate nouns as two clauses, each with the copula; any other clause as it is."""
    found = _COORDINATED.match(clause)
    if found is None:
        return [clause]
    return [found.group("head") + found.group("a"), f"{found.group('cop')} {found.group('b')}"]


#: Where the user's answer to a reported assistant's word starts: a break, then a contrast or the user speaking
#: ("You said I'm a band 6, I'm band 7 actually", "me dijiste que era en el Luna Park, pero no, es en la Usina").
_ANSWER_START = re.compile(
    r"(?:[,;:—–]|\s-)\s*(?:(?:but|actually|though|mais|en fait|pero|en realidad|aber|eigentlich|mas|na verdade)\b[\s,]*"
    r"(?:(?:no|non|nein|não|not)\b[\s,!]*)?|(?=(?:I|I'm|I've|I'd|I'll|we|we're|je|j'|moi|nous|yo|soy|estoy|ich|wir|"
    r"eu|sou|estou|it's|it is|c'est|es|ist|é)\b))",
    re.IGNORECASE,
)
#: Words that may open a sentence before a report of the assistant's words ("Oh, and you said …").
_REPORT_LEAD = 4


def _without_report(text: str) -> str | None:
    """A sentence opening by reporting what the assistant said: the user's answer after it, "" when there is none,
    None when the sentence reports nothing. What the assistant said is its guess, never the user's fact."""
    said = ASSISTANT_SAID.search(text)
    if said is None or len(text[: said.start()].split()) > _REPORT_LEAD:
        return None
    answer = _ANSWER_START.search(text, said.end())
    if answer is None:
        return ""
    rest = text[answer.end() :].strip()
    return rest if len(rest.split()) >= 2 else ""


def reports_assistant(sentence: str) -> bool:
    """Whether a sentence opens by reporting what the assistant said ("You said I'm a band 6, …")."""
    return _without_report(sentence.strip()) is not None


def _whole_statement_clauses(sentence: str) -> list[str]:
    text = sentence.strip()
    if len(text) < 3 or HYPOTHETICAL.search(text) or CHIT_CHAT.search(text):
        return []
    answer = _without_report(text)
    if answer is not None:
        text = answer
        if len(text) < 3:
            return []
    if ABOUT_ASSISTANT.search(text) and not FIRST_PERSON.search(text):
        return []
    asked = _ASK_STANDING.match(text)
    if asked is not None and (
        INSTRUCTION_MARKER.search(asked.group("rest")) or STYLE_NOUN.search(asked.group("rest"))
    ):
        # "Can you keep the answers short from now on?": a question that asks for a standing way of answering.
        return [asked.group("rest").rstrip("?").strip()]
    told = _REMIND_THAT.match(text)
    if (
        told is not None
    ):  # "Could you remind me that the chiropodist comes on Wednesday?": the event is the fact
        return [text[told.end() :].rstrip("?").strip()]
    request = _REMIND_REQUEST.match(text)
    if request is not None:
        return [text[request.end() :].rstrip("?").strip()]  # "Can you remind me to …?" asks for a reminder
    if not text.endswith("?") and _WHEN_CLAUSE.match(text):
        return [text]  # "When you give me vocab, always include the kana": a condition, then a statement
    if text.endswith("?") or QUESTION_START.match(text):
        parts = _QUESTION_SPLIT.split(text)
        if len(parts) < 2 or QUESTION_START.match(parts[0]):
            return []
        return [p for p in parts[:-1] if p.strip() and not p.strip().endswith("?")]
    return [text]


def statement_clauses(sentence: str) -> list[str]:
    """The parts of a sentence that state something (see the module's docstring)."""
    return _statement_clauses(sentence)


def joined_greetings(parts: list[str]) -> list[str]:
    """Sentences of a turn with a greeting said on its own joined to the sentence after it."""
    return _joined_greetings(parts)


def without_openers(clause: str) -> str:
    """The clause without words taken back, a label before a colon (a greeting before it stays) or a reply word."""
    clause = _RETRACTION.sub("", clause)
    clause = _LABEL.sub(lambda m: m.group("greeting") or "", clause)
    return _REPLY_OPENER.sub("", clause)


def without_greeting(clause: str) -> str:
    """The clause without the greeting that opens it ("Bonjour ! Je prépare …" → "Je prépare …")."""
    return _GREETING_LEAD.sub("", clause)


__all__ = [
    "joined_greetings",
    "reports_assistant",
    "statement_clauses",
    "without_greeting",
    "without_openers",
]
