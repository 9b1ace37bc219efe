"""A person replaced: the older holder of a role said gone and a successor named, without "my X is" ("Callum's gone,
joined the army. I've taken on Niamh Doyle" after "The user's apprentice is Callum Reddy.").

The slot is the older relation fact's: a fact in the relation form of one of the five languages ("The user's
apprentice is Callum Reddy.", "Commis de l'utilisateur : Lilian Bouvard.", "Ayudante del usuario: Rocío Martín.",
"Azubi des Nutzers: Jannik.", "Mestre do usuário: Sr. Albano.") whose value is a person's name and whose relation is
a role, not kin, a friend or a pet (a multi-valued relation of the lexicon is no role either: a new colleague is one
more). A turn hands the role to someone new when:

- a part of one of its sentences names the older holder as gone: leaving, retired, moved on or away, quit, on leave
  ("Callum's gone", "Dr Farooq has retired", "Lilian a arrêté l'apprentissage", "Rocío se ha ido", "Jannik hat
  abgebrochen", "O Albano foi para a Afurada", "A Joana vai de licença"), not negated ("Callum hasn't left") and not
  for a while ("for the day", "this week", "pour l'instant", "por ahora", "vorerst", "por enquanto");
- a later part of that sentence, or the sentence after it, names someone new (a capitalised name that is not the
  older holder, nor a weekday or month, nor a place after "at" / "in" / "à" / "en" / "em" / "bei") with a marker of
  succession: a replacement noun or verb ("replacement", "successor", "replaced by", "taken on", "took on",
  "taking over", "stepped in", "been given", "put us with", "acting", "new"; "remplaçant(e)", "à sa place",
  "j'ai pris", "a repris", "nouveau", "nouvelle"; "sustituto/a", "en su lugar", "ha tomado", "nuevo/a"; "Nachfolger
  (in)", "an seiner/ihrer Stelle", "übernommen", "übernimmt", "neue(r)", "seit"; "substituto/a", "no lugar dele/
  dela", "assumiu", "novo/a", "fica comigo") or "now" said of the new holder ("now", "maintenant", "ahora",
  "jetzt", "agora").

The new fact is the older fact with the holder's name swapped for the successor's ("The user's apprentice is Niamh
Doyle."), in the older fact's table and slot, and the older fact is retired.

Not handed over: an addition ("also", "another", "as well", "aussi", "un autre", "también", "otro", "auch",
"noch ein", "também", "outro"), someone else's staff ("my sister's new boss is Tom": the new part names a
possessor other than the user), a question or a hypothetical (never read: revisions.py keeps statements only), a
holder who is not gone ("Callum's off today, Niamh is covering" is for a while), and a family relation ("my sister
Ana moved to Leeds, now Bea lives with me" leaves "The user's sister is Ana").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.lexicon import RELATIONS
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import fold

_I = re.IGNORECASE
#: The relation form of an older fact, per language: (role, holder).
_RELATION_FORMS = (
    re.compile(r"^The user's (?P<role>[\w' -]{2,30}?) is (?P<name>[^,.;:]+?)\.$"),
    re.compile(
        r"^(?P<role>[\w' -]{2,30}?) (?:de l'utilisateur|del usuario|des Nutzers|do usuário) ?: (?P<name>[^,;]+?)\.$"
    ),
)
#: Relations that are not a role someone holds for the user: kin, friends, pets, colleagues (every multi-valued
#: relation of the lexicon but a teacher, a mentor, a babysitter or a specialist), a partner or a parent.
_ROLE_KEYS = frozenset({"teacher", "mentor", "babysitter", "specialist"})
_NOT_ROLES = frozenset(
    fold(w)
    for w, (key, single) in RELATIONS.items()
    if (not single and key not in _ROLE_KEYS) or key in {"partner", "mother", "father"}
)
#: An honorific before a name ("Dr Farooq", "Sr. Albano", "Frau Berger").
_TITLE = r"(?:Dr|Dra|Mr|Mrs|Ms|Miss|Mme|Mlle|M|Sr|Sra|Herr|Frau|Prof|Dott)\.?"
#: A name: capitalised words (an honorific first allowed), "de", "da", "van", "von" … between.
_NAME_RUN = re.compile(
    rf"(?<![\w'’-])(?:{_TITLE}\s+)?(?-i:[A-ZÀ-ÖØ-Þ][\w’'-]+)(?:\s+(?:(?:de|da|do|dos|van|von|del|di)\s+)?"
    r"(?-i:[A-ZÀ-ÖØ-Þ][\w’'-]+))*"
)
#: Capitalised words that do not name anyone: sentence openers, pronouns, and the words of the markers.
_OPENERS = (
    "I I'm I've I'd I'll Me My We We've Our He She His Her They Their It It's The A An And But So Also Then Now "
    "Yes No Oh Well Right Anyway Actually Je J'ai Il Elle Ils On Le La Les Un Une Et Mais Donc Alors Maintenant "
    "Depuis À Sa Son Yo Él Ella Lo Los Las El Una Y Pero Ahora Desde Ich Er Sie Es Wir Der Die Das Ein Eine Und "
    "Aber Jetzt Seit Eu Ele Ela O Os As Um Uma E Mas Agora Quem HR Dr Sr Sra Mr Mrs Ms Herr Frau Mon Ma Mes Notre "
    "Nos Mi Mis Nuestro Nuestra Su Sus Mein Meine Unser Unsere Meu Minha Nosso Nossa"
)
_NOT_NAMES = frozenset(fold(w) for w in _OPENERS.split()) | frozenset(fold(w) for w in (*MONTHS, *WEEKDAYS))
#: The older holder gone for good: leaving, retired, moved on or away, quit, stopped, on leave.
_GONE = re.compile(
    r"\b(?:left|leaving|has gone|'s gone|is gone|gone to|retired|retiring|moved on|moved away|moving on|quit|quits|"
    r"stepped down|stepping down|resigned|away to|off to|on (?:maternity|paternity|sick|long-term) leave|"
    r"parti|partie|est partie?|a quitté|a arrêté|arrête|à la retraite|pris sa retraite|démissionné|en congé|"
    r"se ha ido|se fue|se va|se jubiló|se ha jubilado|ha dejado|dejó|de baja|renunció|"
    r"ist weg|gegangen|hat aufgehört|aufgehört|abgebrochen|gekündigt|in Rente|im Ruhestand|in Elternzeit|"
    r"foi para|foi-se embora|foi embora|saiu|sai|reformou-se|se reformou|aposentou|deixou|vai de licença|de licença)\b",
    _I,
)
#: A departure denied or not said for good.
_NOT_GONE = re.compile(
    r"\b(?:not|hasn't|hadn't|isn't|wasn't|won't|never|n'est pas|n'a pas|ne \w+ pas|no se|no ha|nunca|nicht|nie|"
    r"kein|não|for the day|for now|this week|today|for a while|temporarily|pour l'instant|aujourd'hui|"
    r"por ahora|de momento|hoy|vorerst|heute|diese Woche|por enquanto|hoje|if|wenn|falls)\b",
    _I,
)
#: A successor named: a replacement noun or verb, or "now" said of the new holder.
_SUCCESSOR = re.compile(
    r"\b(?:replacement|replaced by|successor|taken on|took on|taking on|taken over|took over|taking over|takes over|"
    r"stepped in|stepping in|steps in|been given|given me|put (?:us|me) with|put (?:a|an) [\w ]{0,30}?on|acting|"
    r"interim|new|now|remplaçante?|remplacée? par|à sa place|j'ai pris|a repris|reprend|nouveau|nouvelle|nouvel|"
    r"maintenant|désormais|sustitut[oa]|reemplazo|en su lugar|ha tomado|he cogido|se encarga|nuev[oa]|ahora|"
    r"Nachfolger(?:in)?|Ersatz|an (?:seiner|ihrer) Stelle|übernommen|übernimmt|neue[rn]?|jetzt|seit|"
    r"substitut[oa]|no lugar d[ea]l[ea]|assumiu|assume|nov[oa]|agora|fica comigo)\b",
    _I,
)
#: An addition, not a replacement.
_ADDED = re.compile(
    r"\b(?:also|another|as well|too|aussi|un autre|une autre|también|otro|otra|auch|noch (?:ein|eine)|"
    r"também|outro|outra)\b",
    _I,
)
#: Someone else's staff: a possessor named before the role ("my sister's new boss", "le patron de Marc").
_SOMEONE_ELSES = re.compile(
    r"\b(?:my|mon|ma|mi|mein|meine|minha|meu) (?:\w+)['’]s\b|\b(?:his|her|their)\s+new\b|"
    r"\b(?:de (?:mon|ma)|de mi|von meine[mr]|d[oa] meu|d[oa] minha) \w+\b",
    _I,
)
#: A name after a place preposition is a place ("a year at Hereford college", "de Puente del Arzobispo"), one after
#: "&" or "the" a firm's ("Chauhan & Co", "we're with the Llanidloes Vets now"); "to" names people too ("tax
#: returns go to Leila Chauhan now"), and so do the Romance articles ("é o Rui Tavares que manda").
_PLACE_BEFORE = re.compile(r"(?:\b(?:at|in|from|the|à|au|en|de|em|no|na|bei|aus|im|in der)|&)\s+$", _I)
#: Where a sentence's parts meet: a comma, a semicolon, a colon, a dash, or "so" / "donc" / "así que" / "also".
_PARTS = re.compile(
    r"\s*[,;:]\s+|\s+[—–-]\s+|\s+(?:so|and|donc|alors|et|así que|entonces|y|deshalb|daher|und|então|por isso|e)\s+",
    _I,
)


@dataclass(frozen=True)
class Succession:
    """An older relation fact (its index) whose holder is replaced, and the older fact restated with the
    successor."""

    index: int
    text: str
    new_name: str


def role_holder(text: str) -> tuple[str, str] | None:
    """(the role, the holder's name) of an older fact in the relation form about a role, else None."""
    for form in _RELATION_FORMS:
        found = form.match(text.strip())
        if found is None:
            continue
        role, name = found.group("role").strip(), found.group("name").strip()
        if fold(role) in _NOT_ROLES:
            return None
        run = _NAME_RUN.fullmatch(name)
        if run is None or len(name.split()) > 4:
            return None
        return role, name
    return None


#: A role said inside a longer fact: the answer form ("The user's answer about mechanic: Aoife Brennan, she's …")
#: or the user's own words kept in a plan ("Plan: Mi ayudante es Rocío Martín, viene por las tardes").
_ANSWER_FORM = re.compile(r"^The user's answer about (?P<role>[\w-]{3,30}): ")
_POSSESSED_FORM = re.compile(
    r"\b(?P<pos>my|mon|ma|mi|mein|meine|meu|minha) (?P<role>[\w-]{3,30}) (?:is|est|es|ist|é|heißt) ", _I
)
_POSSESSIVE_LANG = {"my": "en", "mon": "fr", "ma": "fr", "mi": "es", "mein": "de", "meine": "de", "meu": "pt"}
#: Nouns after a possessive that name no one holding a role for the user.
_NOT_A_ROLE_WORDS = (
    "name nom nombre nome favourite favorite favori favorito lieblings address adresse dirección direccion "
    "email number numéro número nummer job travail trabajo trabalho plan goal objectif objetivo ziel"
)
_NOT_A_ROLE = frozenset(fold(w) for w in _NOT_A_ROLE_WORDS.split())


def held_in_words(text: str) -> tuple[str, str, str] | None:
    """(the role, the holder's name, the language) of a role said inside a longer fact, else None."""
    found = _ANSWER_FORM.match(text.strip())
    lang = "en"
    if found is None:
        found = _POSSESSED_FORM.search(text)
        if found is None:
            return None
        lang = _POSSESSIVE_LANG.get(found.group("pos").lower(), "pt")
    role = found.group("role")
    if fold(role) in _NOT_ROLES or fold(role) in _NOT_A_ROLE:
        return None
    run = _NAME_RUN.match(text, found.end())
    if run is None or len(run.group(0).split()) > 4 or fold(run.group(0).split()[0]) in _NOT_NAMES:
        return None
    return role, run.group(0), lang


def _name_words(name: str) -> frozenset[str]:
    return frozenset(
        fold(w).strip(".") for w in name.split() if not re.fullmatch(_TITLE, w) and fold(w) not in _NOT_NAMES
    )


def _gone(part: str, holder: frozenset[str]) -> bool:
    """Whether the part names the holder (by any word of the name) as gone for good."""
    words = {fold(w).removesuffix("'s").removesuffix("’s") for w in re.findall(r"[\w'’-]+", part)}
    return bool(words & holder) and bool(_GONE.search(part)) and not _NOT_GONE.search(part)


#: German capitalises every noun: a capitalised word after an article, a possessive or an adjective of change is
#: a noun ("meine neue Physio ist Frau Ahlers"), not a name.
_GERMAN_DETERMINER = re.compile(
    r"\b(?:der|die|das|den|dem|des|ein|eine|einen|einem|einer|mein|meine|meinen|meinem|meiner|unser|unsere|"
    r"unseren|unserem|neue|neuer|neuen|neues)\s+$",
    _I,
)


def _role_word(word: str, role: str) -> bool:
    """Whether a capitalised word is the role's own noun, in another form ("Physio" / "Physiotherapeut",
    "Teamleiterin" / "Teamleiter"): the first five letters of a word of the role."""
    head = fold(word)[:5]
    return len(head) == 5 and any(fold(w).startswith(head) for w in role.split() if len(w) >= 5)


def _successor(part: str, holder: frozenset[str], role: str = "") -> str:
    """The new holder's name a part states with a marker of succession, else ""."""
    if not _SUCCESSOR.search(part) or _ADDED.search(part) or _SOMEONE_ELSES.search(part):
        return ""
    for run in _NAME_RUN.finditer(part):
        words = run.group(0).split()
        while words and fold(words[0]) in _NOT_NAMES and not re.fullmatch(_TITLE, words[0]):
            words = words[1:]
        if not words or not any(len(w) >= 3 and not re.fullmatch(_TITLE, w) for w in words):
            continue
        name = re.sub(r"['’]s$", "", " ".join(words))  # "Ciarán's taking over the workshop"
        before = part[: run.start()]
        if _name_words(name) & holder or not _name_words(name) or _PLACE_BEFORE.search(before):
            continue
        if not re.match(_TITLE + r"\s", run.group(0)) and (
            _GERMAN_DETERMINER.search(before) or _role_word(words[0], role)
        ):
            continue
        return name
    return ""


def successions(sentences: Sequence[str], known: Sequence[str]) -> list[Succession]:
    """The older role facts a turn's sentences hand to a successor (module docstring)."""
    out: list[Succession] = []
    for index, text in enumerate(known):
        held = role_holder(text)
        inside = held_in_words(text) if held is None else None
        if held is not None:
            role, name = held
        elif inside is not None:
            role, name = inside[0], inside[1]
        else:
            continue
        holder = _name_words(name)
        if not holder:
            continue
        for at, sentence in enumerate(sentences):
            parts = [p for p in _PARTS.split(sentence) if p and p.strip()]
            gone_at = next((i for i, p in enumerate(parts) if _gone(p, holder)), -1)
            if gone_at < 0:
                continue
            later = [*parts[gone_at + 1 :]]
            if at + 1 < len(sentences):
                later.append(sentences[at + 1])
            new = next((n for n in (_successor(p, holder, role) for p in later) if n), "")
            if new:
                said = (
                    render("relation", inside[2], new, rel=role.lower() if inside[2] == "en" else role)
                    if inside is not None
                    else text.strip().replace(name, new)
                )
                out.append(Succession(index, said, new))
            break
    return out


__all__ = ["Succession", "role_holder", "successions"]
