"""Self-introductions without "my name is": a name said alone where a greeting puts it, read as the user's name.

Three shapes, each only at the opening of the session's first turn (nothing but a greeting or a filler word before
it; later turns open with replies such as "Lovely. I've …" or "Figured. I …" that are no names):

- signed: a capitalised name followed by "here" / "hier" / "ici" / "aquí" / "aqui" and a pause ("Corwin here, I run
  …", "Moin! Volker hier."); "Tegan here tomorrow" (no pause after "here") is a place, not a signature; with an
  age after it ("Arjun here, 34, …") the ordinary rules read the sentence as it is;
- alone: a capitalised name as a whole sentence after a greeting or filler sentence, followed by a sentence in the
  first person ("Alright. Fergus. I run …"); "Fergus. He's my brother." is someone else, "Mostly. I …" (no
  greeting before it) a reply;
- apposition: a greeting closed by "." or "!", then a name, a comma, and an age or a job with nothing said about the
  name ("Hi. Desmond, head sommelier at Salt & Vine", "hey! juniper, 29, UX designer"); "Hi. Tegan, my sister, asked
  …" (a possessive or a verb follows) and "Hey Claude, can you …" (the assistant called by name, no pause after the
  greeting) are not the user. A full name ("Hello. Cassius Abernethy, piano tuner and technician, based in Dundee",
  "Bonjour ! Bérénice Lemaréchal, ostéopathe à Nantes, mon cabinet est …") and a name after a greeting said as a
  sentence of its own ("Evening." then "Lysander Quarshie, railway signaller at …") are read only when the
  assistant's reply greets the user by it ("Hello Cassius.": "Morning. Scrapped Bookwhen, too fiddly for
  customers" names a tool); a full name is judged by what its apposition says first, and may be followed by the
  user's own sentence ("Hello! Clementine Ashdown-Roy, I make chocolates …"); a signature may be followed by a job the same way
  ("Hallo, Ottilie Brandhuber hier, Goldschmiedin mit eigener Werkstatt in Pforzheim").

The opening is rewritten into the language's own introduction ("My name is Fergus.", "Ich heiße Volker.", "I'm 29.",
"I'm a UX designer …") so the ordinary rules read name, age and role from it; every value is a word the user said.
"""

from __future__ import annotations

import re

_GREETING = (
    r"(?i:hi|hello|hey|hiya|howdy|aloha|yo|good (?:morning|afternoon|evening)|morning|evening|bonjour|bonsoir|salut|"
    r"coucou|hola|buenas(?: tardes| noches)?|buenos días|hallo|servus|moin|guten (?:tag|morgen|abend)|olá|ola|oi|"
    r"bom dia|boa tarde|boa noite)"
)
#: Words that open a turn without saying anything ("Alright. Fergus. I run …").
_FILLER = rf"(?:{_GREETING}|(?i:alright|all right|right|ok|okay|so|well|yes|yeah|ja|oui|sí|si|sim))"
_OPENING_ONLY = re.compile(rf"^(?:{_FILLER}[\s,!.]*)+$")
#: One capitalised word of a full name, a double-barrelled one too ("Okafor-Blyth"); no apostrophe ("I'm Tobias",
#: "Name's Ossian" are no names).
_CAP = r"[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]{1,20}(?:-[A-ZÀ-ÖØ-Þa-zà-öø-ÿ][a-zà-öø-ÿ]{1,20})*"
#: A full name of two or three capitalised words ("Cassius Abernethy", "Clementine Ashdown-Roy"), or a first name.
_NAME = rf"(?P<name>{_CAP}(?: {_CAP}){{1,2}}|[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ'’-]{{1,20}})"
#: A lowercase first name, read only where an age follows it ("hey! juniper, 29, …").
_LOWER_NAME = r"(?P<lower>[a-zà-öø-ÿ][a-zà-öø-ÿ'’-]{1,20})"
#: Capitalised words that open a sentence and are no name ("Same here", "Everyone here, …", "Thanks.").
_NOT_NAME_WORDS = (
    "same everyone everybody someone somebody nobody nothing anyone anybody all both me you we they it this that "
    "these those still just only also back new here there now thanks thank cheers sorry great cool nice perfect "
    "okay ok sure yes yeah yep nope no not hmm hm ah oh well right alright so morning evening hello hi hey "
    "moin hallo ciao salut merci gracias danke obrigado obrigada bueno bien bon genau stimmt"
)
_NOT_NAMES = frozenset(_NOT_NAME_WORDS.split())
_HERE = r"(?:here|hier|ici|aquí|aqui|acá)"
_SIGNED = re.compile(rf"^(?:{_FILLER}[\s,!.]+)*{_NAME}\s+{_HERE}\s*(?:[.!;,]\s*|$)")
_ALONE = re.compile(rf"^(?:{_FILLER}[\s,!.]+)*{_NAME}\s*[.!]$")
_FIRST_PERSON = re.compile(
    r"^(?:I|I'm|I've|I'd|I'll|my|je|j'|moi|mon|ma|mes|ich|mein|meine|wir|yo|soy|tengo|trabajo|vivo|mi|eu|sou|"
    r"tenho|trabalho|moro|meu|minha)\b",
    re.IGNORECASE,
)
_APPOSITION = re.compile(
    rf"^{_GREETING}\s*[.!]+\s+(?:{_NAME}|{_LOWER_NAME})\s*,\s*(?:(?P<age>\d{{1,2}})\s*(?:,\s*|$))?(?P<role>.*)$"
)
#: The same after a greeting said as a sentence of its own ("Evening." then "Lysander Quarshie, railway signaller at
#: …"): only where nothing but greetings came before it in the session's first turn.
_APPOSITION_AFTER = re.compile(
    rf"^(?:{_NAME}|{_LOWER_NAME})\s*,\s*(?:(?P<age>\d{{1,2}})\s*(?:,\s*|$))?(?P<role>.*)$"
)
#: A sentence of the user's own about themselves: a first-person subject and its verb (not "my sister, …").
_OWN_SENTENCE = re.compile(
    r"^(?:I|I'm|I've|I'll|je|j'|ich|wir|yo|soy|tengo|trabajo|vivo|hago|eu|sou|tenho|trabalho|moro|faço)\b",
    re.IGNORECASE,
)
#: What says the name is someone else, or that the words after it are a request to the assistant.
_NOT_SELF = re.compile(
    r"\b(?:my|his|her|our|their|your|you|me|mon|ma|mes|mi|mis|meu|minha|mein|meine|is|was|asked|said|told|wants|"
    r"will|can|could|would|has|had|est|es|ist|é|dit|dijo|sagt|disse)\b|\?",
    re.IGNORECASE,
)
_ROLE = re.compile(r"^(?P<v>[\w&'’-]+(?: [\w&'’-]+){0,3}?)(?=\s+(?:at|for|in|with|from|of)\b|\s*[,.;!]|$)")
_NAME_CLAUSE = {
    "en": "My name is {}.",
    "fr": "Je m'appelle {}.",
    "es": "Me llamo {}.",
    "de": "Ich heiße {}.",
    "pt": "Chamo-me {}.",
}
_AGE_CLAUSE = {
    "en": "I'm {}.",
    "fr": "J'ai {} ans.",
    "es": "Tengo {} años.",
    "de": "Ich bin {} Jahre alt.",
    "pt": "Tenho {} anos.",
}
_ROLE_CLAUSE = {"en": "I'm a {}.", "fr": "Je suis {}.", "es": "Soy {}.", "de": "Ich bin {}.", "pt": "Sou {}."}


def _is_name(name: str) -> bool:
    """Every word of it may be a name: none is a word that opens sentences ("Same", "Thanks") or a first-person
    subject or verb ("Soy Maite", "Ich bin")."""
    return all(w.lower() not in _NOT_NAMES and not _FIRST_PERSON.fullmatch(w) for w in name.split())


def _signed(sentence: str, lang: str) -> str | None:
    found = _SIGNED.match(sentence)
    if found is None or not _is_name(found.group("name")):
        return None
    rest = sentence[found.end() :].strip()
    if re.match(r"\d{1,2}\b", rest):
        return None  # "Arjun here, 34, quantity surveyor at …": the rules read name, age and job as said
    said = _NAME_CLAUSE.get(lang, _NAME_CLAUSE["en"]).format(found.group("name"))
    first = rest.split(",", 1)[0]
    if rest and not _FIRST_PERSON.match(rest) and _ROLE.match(rest) and not _NOT_SELF.search(first):
        # "Ottilie Brandhuber hier, Goldschmiedin mit eigener Werkstatt in Pforzheim": a job said after the
        # signature, as an apposition is ("Desmond, head sommelier at …").
        role = _ROLE_CLAUSE.get(lang, _ROLE_CLAUSE["en"]).format(rest.rstrip(".!"))
        return f"{said} {role}"
    return f"{said} {rest[:1].upper()}{rest[1:]}".strip()


def _greeted_back(name: str, reply: str) -> bool:
    """The assistant's reply to the turn calls the user by a word of the name ("Hello Cassius.", "Evening,
    Lysander.", "Hallo Frau Brandhuber."): the opening was an introduction, not a thing named ("Morning. Scrapped
    Bookwhen, too fiddly for customers")."""
    return any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", reply) for w in name.split())


def _apposition(sentence: str, lang: str, *, greeted: bool = False, reply: str = "") -> str | None:
    found = _APPOSITION.match(sentence)
    full = found is not None and " " in (found.group("name") or "")
    if full and found is not None and not _greeted_back(found.group("name"), reply):
        return None  # a full name needs the reply's greeting to be read as the user's
    if found is None and greeted:
        found = _APPOSITION_AFTER.match(sentence)
        if found is not None and not _greeted_back(found.group("name") or found.group("lower") or "", reply):
            return None  # after a greeting said as its own sentence: the reply's greeting too
    if found is None:
        return None
    name = found.group("name") or found.group("lower")
    age, role = found.group("age"), found.group("role").strip()
    if found.group("lower") and not age:
        return None  # "hey! tegan, …": a lowercase word is a name only with an age after it
    if not _is_name(name) or (" " in name and re.match(r"\d", role)):
        return (
            None  # "Luc Marchand, 67 ans, à la retraite": the ordinary rules read a full name's age as said
        )
    parts = [_NAME_CLAUSE.get(lang, _NAME_CLAUSE["en"]).format(name[:1].upper() + name[1:])]
    if " " in name and not age and _OWN_SENTENCE.match(role):
        # "Hello! Clementine Ashdown-Roy, I make chocolates in a little shop in Bath": a full name, then the
        # user's own sentence about themselves.
        return f"{parts[0]} {role[:1].upper()}{role[1:]}"
    # What the name's apposition says first decides whose it is ("Tegan, my sister, asked …"); a full name may go
    # on with more about the user after it ("Bérénice Lemaréchal, ostéopathe à Nantes, mon cabinet est …").
    first = role.split(",", 1)[0] if " " in name else role
    if _NOT_SELF.search(first):
        return None
    if age:
        parts.append(_AGE_CLAUSE.get(lang, _AGE_CLAUSE["en"]).format(age))
    if role and _ROLE.match(role):
        parts.append(_ROLE_CLAUSE.get(lang, _ROLE_CLAUSE["en"]).format(role.rstrip(".!")))
    elif role:
        return None  # "Hi. Desmond, …" followed by something no job: not an introduction this rule reads
    return " ".join(parts)


def introduced(parts: list[str], lang: str, *, first_turn: bool, reply: str = "") -> list[str]:
    """The turn's sentences with an opening self-introduction (module docstring) said as "My name is X."; only the
    session's first turn is read. `reply`: the assistant's answer to the turn (a full name, or a name after a
    greeting said on its own, counts only when the reply greets the user by it)."""
    out = list(parts)
    if not first_turn:
        return out
    for i, sentence in enumerate(parts):
        if not all(_OPENING_ONLY.match(p) for p in parts[:i]):
            break
        text = sentence.strip()
        said = _signed(text, lang) or _apposition(text, lang, greeted=i > 0, reply=reply)
        alone = _ALONE.match(text)
        if (
            said is None
            and alone is not None
            and i > 0
            and _is_name(alone.group("name"))
            and i + 1 < len(parts)
            and _FIRST_PERSON.match(parts[i + 1].strip())
        ):
            said = _NAME_CLAUSE.get(lang, _NAME_CLAUSE["en"]).format(alone.group("name"))
        if said is not None:
            out[i] = said
            break
    return out


__all__ = ["introduced"]
