"""The transcript check of the distillation benchmark: is an unlabelled stored fact literally what the user said?

Issue 22 defines fact precision as "stored items that are true to the transcript". The labelled sets list what a
good distillation must or may yield, but their authors did not list every true fact: the user's own name is
labelled in some sets and not in others, and a friend or colleague named in passing ("My friend Rosie says …") is
rarely labelled. Counting such an item false measures the labels, not the memory. This module checks an item
that matches no label against the user's turns of the session it came from, for the two shapes whose truth a
transcript settles without judgement:

- **the user's name**: an item "The user's name is X" (or "wants to be called X", in the five languages of the
  extractor's templates) is true when a user turn introduces the user as X: "I'm X", "my name is X", "Name's X",
  "call me X", "X here", "je m'appelle X", "soy X", "ich bin X", "chamo-me X" … ("I'm tired" names no one: X must
  be the name the item states, written with a capital in the turn), or a turn opens with the name and an age
  ("Hello. Callum, 41, PE teacher …"), or a greeting, the name and a lower-case role ("Bonjour, Gaspard,
  vigneron à Meursault");
- **a named relation**: an item "The user's friend is Rosie" ("Collègue de l'utilisateur : Yanis", …) is true when
  a user turn says the possessive, the relation word and the name together: "my friend Rosie", "my friend is
  Rosie", "Rosie, my friend", "mon collègue Yanis", "mi hermana Ana", "meine Chefin Frau Roth". An old or former
  one ("my old friend", "mon ancien collègue") is not the current relation.

Nothing else is checked: a plan, a preference or an instruction may be said in the user's words and still be a
fragment, a question or someone else's wish, which only a label can settle. An item the check does not pass keeps
its strict verdict. The rule reads only the transcript, never the labels, and is applied identically to every set.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_NAME_ITEM = (
    re.compile(r"(?i)^the user's name is (?P<v>.+?)\.?$"),
    re.compile(r"(?i)^the user wants to be called (?P<v>.+?)\.?$"),
    re.compile(r"(?i)^l'utilisateur s'appelle (?P<v>.+?)\.?$"),
    re.compile(r"(?i)^l'utilisateur veut etre appele (?P<v>.+?)\.?$"),
    re.compile(r"(?i)^el usuario se llama (?P<v>.+?)\.?$"),
    re.compile(r"(?i)^el usuario quiere que lo llamen (?P<v>.+?)\.?$"),
    re.compile(r"(?i)^der nutzer heisst (?P<v>.+?)\.?$"),
    re.compile(r"(?i)^der nutzer mochte (?P<v>.+?) genannt werden\.?$"),
    re.compile(r"(?i)^o usuario se chama (?P<v>.+?)\.?$"),
    re.compile(r"(?i)^o usuario quer ser chamado de (?P<v>.+?)\.?$"),
)
_RELATION_ITEM = (
    re.compile(r"(?i)^the user's (?P<rel>[\w' -]+?) is (?P<v>.+?)\.?$"),
    re.compile(
        r"(?i)^(?P<rel>[\w' -]+?) (?:de l'utilisateur|del usuario|des nutzers|do usuario) ?: (?P<v>.+?)\.?$"
    ),
)
#: How a user introduces themselves, before the name (accents removed, any case).
_INTRO_BEFORE = (
    r"(?:i'm|i am|im|my name is|my name's|name's|names|call me|this is|it's|je suis|je m'appelle|moi c'est|"
    r"appelez-moi|appelle-moi|soy|me llamo|mi nombre es|llamame|ich bin|ich heisse|mein name ist|nennt mich|"
    r"nenn mich|hier ist|sou|eu sou|chamo-me|me chamo|o meu nome e|meu nome e|pode me chamar de|aqui e)"
)
#: "Otis here", "Hattie here again": a name before "here" opening a turn or sentence.
_INTRO_AFTER = r"(?:here|ici|aqui|hier)"
_POSSESSIVE = (
    r"(?:my|our|mon|ma|mes|notre|nos|mi|mis|nuestro|nuestra|nuestros|nuestras|mein|meine|meinem|meinen|meiner|"
    r"unser|unsere|unserem|unseren|meu|minha|meus|minhas|o meu|a minha|nosso|nossa)"
)
_FORMER = r"(?:old|former|ex|previous|ancien|ancienne|antiguo|antigua|ex-|ehemaliger|ehemalige|alter|alte|antigo|antiga)"
_ARTICLE = r"(?:(?:le|la|l'|el|o|a|der|die|the)\s*)?"
#: A person's name as the templates store it: one to four capitalised words, a title first ("Dr. Okafor", "Rosie",
#: "Frau Roth"); an acronym or a phrase ("CTO", "a nurse in Mayo") is no name.
_PERSON = re.compile(
    r"^(?:(?:Dr|Dra|Mr|Mrs|Ms|Prof|Herr|Frau|Sr|Sra|Me|Mme)\.?\s+)?[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+){0,3}$"
)


def plain(text: str) -> str:
    """Combining marks removed ("Amélie" → "Amelie", case kept), curly apostrophes straightened, "ß" as "ss"."""
    decomposed = unicodedata.normalize("NFKD", text.replace("\u2019", "'").replace("ß", "ss"))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _said_capitalised(value: str, turns: Iterable[str]) -> bool:
    """The value occurs in a user turn with its first letter a capital (a name, not "tired" or "fine")."""
    pattern = re.compile(r"(?<!\w)" + re.escape(value) + r"(?!\w)", re.IGNORECASE)
    return any(m.group()[:1].isupper() for turn in turns for m in pattern.finditer(turn))


def name_is_introduced(value: str, user_turns: Iterable[str]) -> bool:
    """Whether a user turn introduces the user as `value` ("I'm Otis", "Name's Otis", "Otis here")."""
    turns = [plain(turn) for turn in user_turns]
    value = plain(value).strip()
    if not value or not _said_capitalised(value, turns):
        return False
    name = re.escape(value)
    before = re.compile(rf"(?:^|[^\w']){_INTRO_BEFORE}[\s,:]+{_ARTICLE}{name}(?!\w)", re.IGNORECASE)
    after = re.compile(
        rf"(?:^|[.!?,;]\s*|^\W*(?:hi|hello|hey|bonjour|hola|hallo|ola|oi)[\s,!]+){name}\s+{_INTRO_AFTER}\b",
        re.IGNORECASE,
    )
    # "Hello. Callum, 41, PE teacher …": a turn opening with the name and the age.
    aged = re.compile(
        rf"^\W*(?:(?:hi|hello|hey|morning|evening|bonjour|salut|hola|buenas|hallo|ola|oi)\W+)?{name},\s*\d{{1,3}}\b",
        re.IGNORECASE,
    )
    # "Bonjour, Gaspard, vigneron à Meursault": after a greeting, the name and then a lower-case role.
    titled = re.compile(
        rf"^\W*(?i:hi|hello|hey|morning|evening|bonjour|salut|hola|buenas|hallo|ola|oi)\W+{name},\s*[a-z]"
    )
    return any(
        before.search(turn) or after.search(turn) or aged.search(turn) or titled.search(turn)
        for turn in turns
    )


def relation_is_said(rel: str, value: str, user_turns: Iterable[str]) -> bool:
    """Whether a user turn says the relation and the name together with a possessive ("my friend Rosie",
    "my friend is Rosie", "Rosie, my friend"), not as an old or former one."""
    turns = [plain(turn) for turn in user_turns]
    rel, value = plain(rel).strip(), plain(value).strip()
    if not rel or not _PERSON.match(value) or not _said_capitalised(value, turns):
        return False
    r, v = re.escape(rel), re.escape(value)
    copula = r"(?:is|'s|est|c'est|es|se llama|ist|heisst|e|chama-se|se chama|s'appelle)"
    forms = (
        rf"{_POSSESSIVE}\s+(?!{_FORMER}\b){r}\s*,?\s*(?:{copula}\s+)?{_ARTICLE}{v}(?!\w)",
        rf"(?<!\w){v}\s*,\s*{_POSSESSIVE}\s+{r}(?!\w)",
    )
    patterns = [re.compile(form, re.IGNORECASE) for form in forms]
    return any(p.search(turn) for p in patterns for turn in turns)


def true_to_transcript(text: str, user_turns: Iterable[str]) -> bool:
    """Whether an item the labels do not cover is the user's own name or a named relation, as the user said it."""
    turns = list(user_turns)
    said = plain(text.strip())
    for pattern in _NAME_ITEM:
        match = pattern.match(said)
        if match:
            return name_is_introduced(match.group("v"), turns)
    for pattern in _RELATION_ITEM:
        match = pattern.match(said)
        if match:
            return relation_is_said(match.group("rel"), match.group("v"), turns)
    return False


__all__ = ["name_is_introduced", "relation_is_said", "true_to_transcript"]
