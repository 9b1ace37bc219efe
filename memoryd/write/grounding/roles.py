"""Roles a person or a firm holds for the user, read from a sentence's head noun, in five languages.

`slotfill.py` reads the single-valued relations of the closed lexicon (manager, vet, doctor…). Many corrections name
a role outside it: "our new supervising social worker is Owain Rees", "Ma nouvelle assistante, c'est Nolwenn
Guillou", "la nueva higienista es Nuria Ferrando", "Meine neue Patin im Verein ist Frau Yildiz", "Funmilayo Adeyemi
has taken over as my PI", "He cambiado de proveedor: ahora compro a Autopiezas Moncayo". This reader names the slot
from the role noun, so the older fact ("Mi higienista es Marisol") and the correction land in one slot:

- a **role lexicon** (`ROLE_WORDS`): role nouns in five languages, both genders, each mapped to one key, so the same
  role said in another language or gender is one slot ("gestor" / "gestora" / "bookkeeper" → accountant);
- **morphology** for specialists ("endocrinologist", "endocrinóloga", "Kardiologe" → the stem before -olog-);
- an **open class** after a change adjective: "my new <noun> is <Name>" names a role whatever the noun;
- **verb classes**: buying from a firm names the user's supplier ("compro café da Fazenda Santa Inês");
- **a role said with its verb**: "Ben Ortiz heads the department now", "Élodie dirige maintenant notre atelier",
  "Marta lleva ahora la tienda", "Jetzt leitet Jana die Abteilung", "A Rita chefia agora o serviço" (the slot is
  what is run);
- **changing the role's holder**: "switched suppliers / cambiar de proveedor / troquei de fornecedor" with the new
  holder named after it in the sentence.

Every reader needs the user in the sentence (a possessive or first person) or a fragment that answers with a role
("An instructor called Carol from Pass First Time"); "my sister's new tutor is Ana" is the sister's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.lexicon import HEDGE, HYPOTHETICAL, NAME, RELATIONS
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.rules import is_name
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import detect_language, fold, light_stem, sentences

_I = re.IGNORECASE

#: Role nouns outside the relation lexicon (lexicon.RELATIONS), each with its key. Several words and languages share
#: one key: the same role said again in another way is the same slot.
ROLE_WORDS: dict[str, str] = {}
for _key, _words in (
    ("tutor", "tutor tutora tuteur tutrice nachhilfelehrer nachhilfelehrerin explicador explicadora"),
    ("teacher", "teacher professeur professeure profe profesor profesora lehrer lehrerin professor professora "
                "prof"),
    ("instructor", "instructor instructora instructeur instructrice moniteur monitrice monitor monitora fahrlehrer "
                   "fahrlehrerin ausbilder ausbilderin instrutor instrutora"),
    ("mentor", "mentor mentora mentore mentorin pate patin padrino madrina padrinho madrinha parrain marraine "
               "sponsor"),
    ("assistant", "assistant assistante asistente assistent assistentin assistente"),
    ("hygienist", "hygienist hygiéniste higienista dentalhygieniker dentalhygienikerin"),
    ("receptionist", "receptionist réceptionniste recepcionista rezeptionist rezeptionistin"),
    ("accountant", "bookkeeper gestor gestora contador"),
    ("adviser", "pi asesor asesora conseiller conseillère berater beraterin conselheiro conselheira"),
    ("supplier", "supplier suppliers fournisseur fournisseuse proveedor proveedora lieferant lieferantin "
                 "fornecedor fornecedora"),
    ("importer", "importer importateur importatrice importador importadora importeur"),
    ("social_worker", "social worker|assistante sociale|assistant social|trabajadora social|trabajador social|"
                      "sozialarbeiter|sozialarbeiterin|assistente social"),
    ("nurse", "nurse infirmier infirmière enfermero enfermera krankenschwester pfleger pflegerin enfermeiro "
              "enfermeira"),
    ("oenologist", "oenologist œnologue oenologue enólogo enóloga önologe önologin"),
    ("officer", "officer"),
    ("shooter", "shooter"),
    ("barista", "barista"),
    ("consultant", "consultant consultante specialist spécialiste especialista facharzt fachärztin"),
    ("captain", "captain skipper capitaine capitán capitana kapitän kapitänin kapitan capitão capitã"),
    ("care_service", "pflegedienst|diakoniestation|sozialstation|pflegestation|care agency|home care|"
                     "service de soins|servicio de ayuda|serviço de apoio"),
):  # fmt: skip
    for _word in _words.split("|") if "|" in _words else _words.split():
        ROLE_WORDS[fold(_word)] = _key

#: Every role key this module names (supersede.py treats them as single-valued roles).
ROLE_KEYS = frozenset(ROLE_WORDS.values())
#: A specialist said by its field ("endocrinologist", "endocrinóloga", "Kardiologin", "endocrinologue").
_SPECIALIST = re.compile(r"^(?P<field>[a-zà-ÿ]{3,})(?:olog(?:ist|ue|o|a|e|in|ista)|ólog[oa])$", _I)

_DET = (
    r"(?:my|our|mon|ma|mes|notre|nos|mi|mis|nuestro|nuestra|mein|meine|meinen|meinem|meiner|unser|unsere|"
    r"unseren|o meu|a minha|meu|minha|o nosso|a nossa|nosso|nossa)"
)
_CHANGE = (
    r"(?:new|different|nouveau|nouvelle|nouvel|nuevo|nueva|neuer|neue|neuen|neues|novo|nova|outro|outra|otro|otra|"
    r"autre)"
)
#: The article before a change adjective ("la nueva higienista", "A nova barista-chefe", "the new PI").
_ART = r"(?:the|le|la|l'|el|der|die|das|o|a)"
_ROLE_ALT = "|".join(sorted((re.escape(w).replace(r"\ ", r"\s+") for w in ROLE_WORDS), key=len, reverse=True))
#: The role's noun phrase: English qualifiers before the role noun ("supervising social worker", "training
#: officer"), Romance and German qualifiers after it ("assistant à la mise en scène", "Patin im Verein").
_PRE = r"(?:(?-i:[a-z][a-z-]+)\s+){0,2}?"
_POST = (
    r"(?:\s+(?:(?:im|in der|beim|bei der|bei)\s+[\w-]+|(?-i:(?:à la|à|de la|de|del|da|do|du|des|em|en|na|no|para|of|"
    r"for|at)\s+)?(?!(?:is|est|es|ist|é|c'est|heißt|called|named)\b)(?-i:[a-zà-ÿ][\w-]*))){0,3}?"
)
_LINK = (
    r"(?:\s+is\s+(?:a|an)\s+[\w-]+\s*,\s*|\s*,\s*(?:c'est|es|ist|é|is)\s+|\s*[:—–]\s*|\s*,\s*(?=(?-i:[A-ZÀ-Þ])|(?:el|la|le|o|a|der|die|the)\s)|\s+(?:is|is now|'s|will be|est|c'est|"
    r"sera|es|será|ist|heißt|wird|é|será|se llama|s'appelle|chama-se|called|named)\s+)"
)
_NAME_ART = r"(?:(?:la|le|el|a|o|der|die|the|doctora|doctor|docteure?|professeure?|profesora?|el profe)\s+)*"
_AFTER = r"(?=\s*(?:[.,;:!?)]|$)|\s+(?:at|from|in|of|on|who|du|de|del|da|do|des|à|en|em|na|no|bei|aus|von|vom|qui|que|and|et|y|und|e|now|maintenant|ahora|jetzt|agora)\b)"
#: "our new supervising social worker is Owain Rees", "Mi higienista es Marisol", "Ma nouvelle assistante, c'est
#: Nolwenn Guillou", "la nueva higienista es Nuria Ferrando".
_POSSESSED = re.compile(
    rf"\b(?:{_DET}\s+(?P<chg>{_CHANGE}\s+)?|{_ART}\s+(?P<chg2>{_CHANGE})\s+)(?P<role>{_PRE}(?:{_ROLE_ALT}|"
    rf"[a-zà-ÿ]+olog(?:ist|ue|o|a|e|in|ista)|[a-zà-ÿ]+ólog[oa])(?:-[\w]+)?){_POST}{_LINK}{_NAME_ART}{NAME}{_AFTER}",
    _I,
)
#: The open class: any noun after a possessive and a change adjective ("my new landscaper is Tom Hale").
_OPEN = re.compile(
    rf"\b{_DET}\s+{_CHANGE}\s+(?P<role>(?-i:[a-zà-ÿ][\w-]{{2,}}))(?:\s+(?-i:[a-zà-ÿ][\w-]{{2,}}))?"
    rf"(?:\s+(?:is|est|c'est|es|ist|é|heißt)\s+|\s*,\s*(?:c'est|es|ist|é)\s+){_NAME_ART}{NAME}{_AFTER}",
    _I,
)
#: A role said with an indefinite article and then its holder: "An instructor called Carol", "I'm with a new
#: instructor now, Desmond", "Moving to a bookkeeper, Precious Mensah".
_INDEFINITE = re.compile(
    rf"(?:^|\b(?:with|to|got|have|hired|found|moving to|switched to|moved to|temos|tenho|tenemos|tengo|avons|"
    rf"j'ai|haben|habe)\s+)(?:a|an|un|une|una|um|uma|ein|eine|einen)\s+(?:(?P<chg>{_CHANGE})\s+)?"
    rf"(?P<role>{_ROLE_ALT})(?:\s+(?:in|na|no|en|em|à|au|aux|in der|im)\s+(?-i:[A-ZÀ-Þ][\w-]*))?(?:\s+now)?"
    rf"(?:\s+(?:called|named|qui s'appelle|llamad[oa]|namens|chamad[oa])\s+|\s*,\s*){_NAME_ART}{NAME}{_AFTER}",
    _I,
)
#: A service that comes to the user, named after its role noun: "Jetzt kommt der Pflegedienst Lebensbaum", "Die
#: Diakoniestation Baunatal kommt morgens und abends", "now the home care agency Bright Hands comes".
_COMES = re.compile(
    rf"\b(?:(?:now|jetzt|maintenant|ahora|agora)\s+)?(?:comes|kommt|vient|viene|vem)\s+(?:the|der|die|das|le|la|el|o|a)\s+"
    rf"(?P<role>{_ROLE_ALT})\s+{NAME}|^(?:the|der|die|das|le|la|el|o|a)\s+(?P<role2>{_ROLE_ALT})\s+{NAME.replace('(?P<v>', '(?P<v2>')}"
    rf"\s+(?:comes|kommt|vient|viene|vem)\b",
    _I,
)
#: "Funmilayo Adeyemi has taken over as my PI", "Karim est maintenant mon œnologue".
_TAKEN_OVER = re.compile(
    rf"{NAME}\s+(?:has taken over as|took over as|is taking over as|is now|is my new|est maintenant|est désormais|"
    rf"es ahora|ahora es|ist jetzt|ist nun|é agora|agora é)\s+{_DET}\s+(?:{_CHANGE}\s+)?(?P<role>{_ROLE_ALT})\b",
    _I,
)
#: The single-valued role nouns of the relation lexicon (lexicon.RELATIONS: manager, vet, accountant…) and of this
#: module: a holder said with "now" may be named with either.
_HELD_ALT = "|".join(
    sorted(
        {re.escape(w) for w, (_, single) in RELATIONS.items() if single}
        | set(_ROLE_ALT.split("|"))
        | {re.escape(w) for w in ["capitán", "kapitän", "kapitänin", "capitão", "capitã"]},
        key=len,
        reverse=True,
    )
)
_NOW_ALT = r"(?:now|maintenant|désormais|ahora|jetzt|nun|agora)"
#: "Aoife Brennan is captain now", "Gethin is now our accountant", "Karim est maintenant le comptable", "Ahora Marta
#: es la capitana", "Jetzt ist Jana unsere Kapitänin", "A Rita é agora a capitã": a person named, a copula, a role
#: noun (bare, the user's, or with the definite article) and a "now" word before or after the role. Nothing may
#: stand between the copula and the role but "now", the determiner and "new": "Aoife is also captain now" is a
#: second holder, "Tom is a captain now" a profession, "Tom is now Ana's manager" someone else's, "co-captain" a
#: shared role. The role ends its phrase ("captain of her college team now" is someone else's team).
_HOLDER_NOW = re.compile(
    rf"(?:^|(?<=[\s,;:(—–-]))(?:(?P<now1>{_NOW_ALT})\s+)?(?:(?:o|a|le|la|el|der|die)\s+)?{NAME}\s+"
    rf"(?:is|'s|est|es|ist|é|será|sera|will be)\s+(?:(?P<now2>{_NOW_ALT})\s+)?"
    rf"(?:(?P<det>{_DET}|the|le|la|l'|el|der|die|o|a)\s+)?(?:(?P<chg>{_CHANGE})\s+)?(?P<role>{_HELD_ALT})"
    rf"(?:\s+(?P<now3>{_NOW_ALT}))?(?=\s*(?:[.,;:!?)—–]|$)|\s+(?:and|but|so|since|because|et|mais|y|pero|und|aber|"
    rf"e|mas)\b)",
    _I,
)


#: Verb-second order, the copula before the name after "now": "Jetzt ist Jana unsere Kapitänin", "Nun ist Herr Öz
#: mein Steuerberater" (German), read like "Jana is our captain now".
_HOLDER_NOW_V2 = re.compile(
    rf"(?:^|(?<=[\s,;:(—–-]))(?P<now1>jetzt|nun|now|maintenant|ahora|agora)\s+(?:ist|is|est|es|é)\s+"
    rf"(?:(?:o|a|le|la|el|der|die)\s+)?{NAME}\s+(?:(?P<det>{_DET}|the|le|la|l'|el|der|die|o|a)\s+)?"
    rf"(?:(?P<chg>{_CHANGE})\s+)?(?P<role>{_HELD_ALT})(?=\s*(?:[.,;:!?)—–]|$)|\s+(?:and|but|so|und|aber|et|mais|y|"
    rf"pero|e|mas)\b)",
    _I,
)


#: A role said with its verb rather than its noun: "Ben Ortiz heads the department now", "Lizzie is running the
#: brewhouse now", "Élodie dirige maintenant notre atelier", "Marta lleva ahora la tienda", "Jetzt leitet Jana die
#: Abteilung" / "Jana leitet jetzt unsere Abteilung", "A Rita chefia agora o serviço": a name, a verb of running or
#: heading, a definite or first-person determiner and one to three words naming what is run, ending its phrase.
_RUN_VERB = (
    r"(?:heads|runs|manages|leads|is (?:now )?(?:heading|running|managing|leading|in charge of)|"
    r"dirige|gère|pilote|est (?:maintenant )?(?:à la tête|responsable) (?:de|du|des)|"
    r"lleva|gestiona|está (?:ahora )?al frente de|"
    r"leitet|führt|"
    r"chefia|gere|gerencia|lidera|está (?:agora )?à frente d[oa])"
)
_RUN_DET = (
    r"(?:the|our|my|le|la|l'|notre|mon|ma|el|nuestro|nuestra|mi|die|den|das|unsere|unseren|unser|meine|meinen|mein|"
    r"o|a|os|as|nosso|nossa|meu|minha)"
)
_RUNS = re.compile(
    rf"(?:^|(?<=[\s,;:(—–-]))(?:(?P<now1>{_NOW_ALT})\s+)?(?:(?:o|a|le|la|el|der|die)\s+)?{NAME}\s+"
    rf"(?:(?P<now2>{_NOW_ALT})\s+)?(?P<verb>{_RUN_VERB})\s+(?:(?P<now3>{_NOW_ALT})\s+)?"
    rf"(?P<det>{_RUN_DET})\s*(?P<thing>[\w-]+(?:\s+[\w-]+){{0,2}}?)(?:\s+(?P<now4>{_NOW_ALT}))?"
    rf"(?=\s*(?:[.,;:!?)—–]|$))",
    _I,
)
#: German verb-second order after "now": "Jetzt leitet Jana die Abteilung", "Agora chefia a Rita o serviço".
_RUNS_V2 = re.compile(
    rf"(?:^|(?<=[\s,;:(—–-]))(?P<now1>jetzt|nun|agora|ahora|maintenant)\s+(?P<verb>leitet|führt|chefia|dirige|lleva)\s+"
    rf"(?:(?:o|a|le|la|el|der|die)\s+)?{NAME}\s+(?P<det>{_RUN_DET})\s*(?P<thing>[\w-]+(?:\s+[\w-]+){{0,2}}?)"
    rf"(?=\s*(?:[.,;:!?)—–]|$))",
    _I,
)
_FIRST_PERSON_DET = re.compile(
    r"^(?:our|my|notre|mon|ma|nuestro|nuestra|mi|unsere|unseren|unser|meine|meinen|mein|nosso|nossa|meu|minha)$",
    _I,
)


def _runs(sentence: str, turn: int, lang: str) -> list[GroundedFact | None]:
    """Who runs something of the user's, said with the verb ("Ben Ortiz heads the department now").

    The holder is named by a capitalised name; what is run is a definite or first-person noun phrase that ends its
    phrase. The user must own it ("our shop", "mi tienda") or the sentence says "now" (a change of who runs it:
    "Karen retired last week, Ben Ortiz heads the department now"). The slot is what is run, so a later holder of
    the same thing is a correction. Not read: a question, a name that is a pronoun or a possessive ("Ben's"), an
    indefinite article ("runs a pub": a job, not a role of the user's life)."""
    if sentence.rstrip().endswith("?"):
        return []
    out: list[GroundedFact | None] = []
    for match in [*_RUNS.finditer(sentence), *_RUNS_V2.finditer(sentence)]:
        said_now = any(match.groupdict().get(g) for g in ("now1", "now2", "now3", "now4"))
        owned = _FIRST_PERSON_DET.match(match.group("det")) is not None
        if not (said_now or owned):
            continue
        name = match.group("v")
        if fold(name.split()[0]) in _NOT_HOLDER or name.endswith(("'s", "’s")) or not is_name(name):
            continue
        thing = match.group("thing").strip()
        if not thing or thing.lower() in _NOT_RUN:
            continue
        text = " ".join(f"{name} {match.group('verb')} {match.group('det')} {thing}".split()) + "."
        key = "_".join(fold(thing).split())
        out.append(
            GroundedFact(
                FactKind.RELATION, text, f"relation.runs.{key}", name, (turn,), 0.7, False, "extractor", lang
            )
        )
    return out


#: Words after a determiner that name nothing run ("runs the risk", "leads the way").
_NOT_RUN = frozenset(["risk", "way", "show", "same", "other", "rest", "most", "best"])


def _holder_now(sentence: str, turn: int, lang: str) -> list[GroundedFact | None]:
    """A person said to hold a role now: the role's new holder, whatever verb said the change.

    "Aoife Brennan is captain now", "Karim est maintenant notre comptable", "Ahora Marta es la capitana", "Jana ist
    jetzt unsere Kapitänin", "A Rita é agora a capitã": the name, a copula, a single-valued role noun of the lexicon
    and "now" (or "new") in that phrase name the role's holder, with no "my" needed. A question, a hypothetical or a
    hedge names no one (read_roles), nor a role held with "also", an indefinite article, a co- prefix, another
    person's possessive, or a qualifier after the noun ("captain of her team")."""
    out: list[GroundedFact | None] = []
    matches = [*_HOLDER_NOW.finditer(sentence), *_HOLDER_NOW_V2.finditer(sentence)]
    for match in matches:
        said_now = [match.groupdict().get(g) for g in ("now1", "now2", "now3", "chg")]
        if not any(said_now):
            continue
        if lang == "en" and (match.group("det") or "").lower() == "a":
            continue  # "Tom is a captain now": a profession, English "a" is no Portuguese article
        name = match.group("v")
        if fold(name.split()[0]) in _NOT_HOLDER or name.endswith(("'s", "’s")):
            continue
        if sentence.rstrip().endswith("?"):
            continue
        role = match.group("role")
        out.append(_fact(role, role_key(role), name, turn, lang))
    return out


#: Capitalised words that open a sentence and name no one ("Now is …", "This is …").
_NOT_HOLDER = frozenset(
    fold(w)
    for w in [
        "now",
        "this",
        "that",
        "it",
        "there",
        "here",
        "he",
        "she",
        "they",
        "who",
        "what",
        "which",
        "everyone",
        "nobody",
        "someone",
        "everybody",
        "maintenant",
        "ahora",
        "jetzt",
        "agora",
        "ce",
        "cela",
        "ça",
        "esto",
        "eso",
        "das",
        "dies",
        "isso",
        "isto",
        "il",
        "elle",
        "ella",
        "er",
        "sie",
        "ele",
        "ela",
    ]
)


#: Buying from a firm names the user's supplier: "I buy my flour from Oakmill", "compro café da Fazenda Santa Inês",
#: "Los recambios los compro casi todos a Recambios Ebro", "ich beziehe das Futter bei Heu-Müller".
_BUY_FROM = re.compile(
    rf"\b(?:(?:I|we)\s+(?:now\s+)?(?:buy|order|get|source)\s+(?P<obj>(?:[\w'-]+\s+){{0,4}}?)from|"
    rf"(?:my|our)\s+(?P<obj2>[\w-]+)\s+(?:now\s+)?comes?\s+from|"
    rf"(?:j'achète|nous achetons|on achète)\s+(?P<obj3>(?:[\w'-]+\s+){{0,4}}?)(?:chez|à|auprès de)|"
    # "a/de/da/do" say whom from; "en/na/no" say where ("compro uma casa no Algarve")
    rf"(?:compro|compramos)\s+(?P<obj4>(?:[\w'-]+\s+){{0,4}}?)(?:a|al|de|del|da|do)|"
    rf"(?:ich kaufe|wir kaufen|ich beziehe|wir beziehen)\s+(?P<obj5>(?:[\w'-]+\s+){{0,4}}?)(?:bei|von|vom))\s+"
    rf"(?:(?:la|el|los|las|le|the|a|o|der|die|dem|den)\s+)?{NAME}",
    _I,
)
#: The role whose holder changed: "I switched flour suppliers", "He cambiado de proveedor", "Troquei de fornecedor",
#: "on a changé de fournisseur", "wir haben den Lieferanten gewechselt".
_CHANGED_ROLE = re.compile(
    rf"\b(?:(?:I|we)(?:'ve| have)?\s+(?:just\s+)?(?:switched|changed)\s+(?:(?P<what>[\w-]+)\s+)?(?P<en>{_ROLE_ALT})|"
    rf"(?:j'ai|on a|nous avons)\s+changé\s+d[e']\s*(?P<fr>{_ROLE_ALT})|"
    rf"(?:he|hemos)\s+cambiado\s+de\s+(?P<es>{_ROLE_ALT})|(?:cambié|cambiamos)\s+de\s+(?P<es2>{_ROLE_ALT})|"
    rf"(?:troquei|trocámos|trocamos|mudei|mudámos|mudamos)\s+de\s+(?P<pt>{_ROLE_ALT})|"
    rf"(?:ich habe|wir haben)\s+(?:den|die|unseren|meinen)\s+(?P<de>{_ROLE_ALT})\s+gewechselt|"
    # the role said as changed: "o importador alemão mudou", "our supplier changed", "le fournisseur a changé"
    rf"(?:the|our|my|o|a|o nosso|a nossa|le|la|notre|mon|ma|el|la|nuestro|mi|der|die|unser|unsere|mein|meine)\s+"
    rf"(?P<any>{_ROLE_ALT})(?:\s+[\w-]+)?\s+(?:changed|has changed|mudou|a changé|cambió|ha cambiado|hat gewechselt|"
    rf"ist neu))\b",
    _I,
)
_NOW_WORD = re.compile(r"\b(?:now|maintenant|désormais|ahora|jetzt|nun|agora)\b", _I)
#: Someone else as the role's owner: "my sister's new tutor", "su nueva asesora", "his PI".
_OTHERS = re.compile(
    r"(?:'s|’s)\s+(?:new\s+)?[\w-]+\s*$|\b(?:his|her|their|su|sus|son|sa|sein|seine|ihr|ihre|seu|sua)\s+$", _I
)
_USER = re.compile(
    r"\b(?:I|I'm|I've|me|my|we|we're|we've|our|us|je|j'|moi|mon|ma|mes|nous|notre|nos|on|yo|mi|mis|me|nuestro|"
    r"nuestra|he|hemos|ich|mich|mir|mein|meine|wir|uns|unser|unsere|eu|meu|minha|nós|nosso|nossa|troquei|mudei|"
    r"compro|compramos)\b",
    _I,
)


def role_key(noun: str) -> str:
    """The slot key of a role noun ("gestora" → accountant, "endocrinóloga" → endocrin), else ""."""
    words = fold(noun).split()
    words += [part for word in words if "-" in word for part in word.split("-")]
    for size in (3, 2, 1):
        for start in range(len(words) - size + 1):
            phrase = " ".join(words[start : start + size])
            key = ROLE_WORDS.get(phrase) or _lexicon_key(phrase)
            if key:
                return key
    for word in words:
        specialist = _SPECIALIST.match(word)
        if specialist is not None:
            return light_stem(specialist.group("field"))
    return ""


#: Feminine endings of role nouns outside the lexicon and their masculine forms (folded, no accents): "Pfarrerin" /
#: "Pfarrer", "directrice" / "directeur", "coiffeuse" / "coiffeur", "infirmière" / "infirmier", "entrenadora" /
#: "entrenador", "abogada" / "abogado". English role nouns have no gender.
_FEMININE_ENDINGS = (
    ("erin", "er"), ("rice", "eur"), ("euse", "eur"), ("iere", "ier"), ("ienne", "ien"), ("ora", "or"), ("ada", "ado"),
)  # fmt: skip


def masculine(word: str) -> str:
    """The folded masculine form of a role noun said in the feminine, so both genders name one slot; else the folded
    word. Only a word at least three letters longer than the ending is changed ("nada" stays)."""
    folded = fold(word)
    for ending, male in _FEMININE_ENDINGS:
        if folded.endswith(ending) and len(folded) >= len(ending) + 3:
            return folded[: -len(ending)] + male
    return folded


def _lexicon_key(word: str) -> str:
    entry = RELATIONS.get(word)
    return entry[0] if entry is not None and entry[1] else ""


def _head(phrase: str, lang: str) -> str:
    """The head noun of an open-class role phrase: the last word in English, the first elsewhere."""
    words = fold(phrase).split()
    return light_stem(words[-1] if lang == "en" else words[0]) if words else ""


def _fact(role: str, key: str, name: str, turn: int, lang: str) -> GroundedFact | None:
    if not key or not is_name(name) or fold(name) in ROLE_WORDS or _lexicon_key(fold(name)):
        return None
    shown = " ".join(role.split())
    text = render("relation", lang, name, rel=shown.lower() if lang == "en" else shown)
    return GroundedFact(
        FactKind.RELATION, text, f"relation.{key}", name, (turn,), 0.7, False, "extractor", lang
    )


def _owned_by_user(sentence: str, start: int) -> bool:
    return not _OTHERS.search(sentence[:start])


def read_roles(sentence: str, turn: int, lang: str) -> list[GroundedFact]:
    """Role facts of one sentence of a user turn (the correction's new holder or a role said plainly)."""
    out: list[GroundedFact | None] = []
    if HYPOTHETICAL.search(sentence) or HEDGE.search(sentence):
        return []  # "Se eu ganhar a lotaria, compro…", "maybe my new coach will be Ana"
    fragment = len(sentence.split()) <= 14 and _INDEFINITE.match(sentence.strip()) is not None
    user = _USER.search(sentence) is not None
    for match in _POSSESSED.finditer(sentence):
        role = match.group("role")
        # "la nueva higienista es Nuria Ferrando": a new holder of a role with the article is the user's own.
        if (user or match.group("chg2")) and _owned_by_user(sentence, match.start()):
            out.append(_fact(role, role_key(role), match.group("v"), turn, lang))
    # A service that comes and a role said as changed name the user's household without a pronoun ("Jetzt kommt der
    # Pflegedienst Lebensbaum", "o importador alemão mudou: … agora vendemos para a Ölmühle Berger").
    for match in _COMES.finditer(sentence.strip()):
        role = match.group("role") or match.group("role2")
        out.append(_fact(role, role_key(role), match.group("v") or match.group("v2"), turn, lang))
    out.extend(_changed_holder(sentence, turn, lang))
    out.extend(_holder_now(sentence, turn, lang))
    out.extend(_runs(sentence, turn, lang))
    if not user and not fragment:
        return [f for f in out if f is not None]
    if not out:
        for match in _OPEN.finditer(sentence):
            role = match.group("role")
            key = role_key(role) or (_lexicon_key(fold(role)) and "") or _head(role, lang)
            if _lexicon_key(fold(role)) or not _owned_by_user(sentence, match.start()):
                continue  # a lexicon relation is slotfill's
            if fold(role) in _NOT_A_ROLE:
                continue  # "my new favourite is Radiohead", "my new phone is Pixel": no one holding a role
            out.append(_fact(role, key, match.group("v"), turn, lang))
    for pattern in (_INDEFINITE, _TAKEN_OVER):
        for match in pattern.finditer(sentence):
            role = match.group("role")
            out.append(_fact(role, role_key(role), match.group("v"), turn, lang))
    if not any(f is not None and f.slot == "relation.supplier" for f in out):
        for match in _BUY_FROM.finditer(sentence):
            if _owned_by_user(sentence, match.start()):
                # What is bought qualifies the supplier ("my flour comes from…" → flour_supplier): the supplier of
                # the coffee is not replaced by a new supplier of the milk.
                bought = [
                    w for g in ("obj", "obj2", "obj3", "obj4", "obj5") for w in (match.group(g) or "").split()
                ]
                things = [w for w in bought if fold(w) not in _NOT_OBJECT]
                key = f"{light_stem(fold(things[0]))}_supplier" if things else "supplier"
                out.append(_fact(_supplier_word(lang), key, match.group("v"), turn, lang))
    return [f for f in out if f is not None]


#: Nouns after "my new" that name a thing or a liking, not someone who holds a role for the user.
_NOT_A_ROLE = frozenset(
    fold(w)
    for w in [
        "favourite",
        "favorite",
        "favourites",
        "goal",
        "target",
        "plan",
        "plans",
        "idea",
        "project",
        "book",
        "song",
        "album",
        "film",
        "movie",
        "show",
        "car",
        "bike",
        "phone",
        "laptop",
        "computer",
        "address",
        "number",
        "email",
        "password",
        "name",
        "nickname",
        "username",
        "hobby",
        "obsession",
        "home",
        "flat",
        "house",
        "job",
        "role",
        "title",
        "record",
        "best",
        "personal",
        "pb",
        "time",
        "favori",
        "favorita",
        "favorito",
        "lieblings",
    ]
)
#: Words around what is bought that are not the thing ("almost all of them", "especial" stays: it qualifies).
_NOT_OBJECT = frozenset(
    fold(w)
    for w in [
        "my",
        "our",
        "the",
        "a",
        "an",
        "all",
        "most",
        "of",
        "them",
        "it",
        "everything",
        "casi",
        "todos",
        "todas",
        "los",
        "las",
        "la",
        "el",
        "o",
        "a",
        "os",
        "as",
        "mon",
        "ma",
        "mes",
        "nos",
        "le",
        "la",
        "les",
        "un",
        "une",
        "unos",
        "unas",
        "uma",
        "um",
        "meine",
        "unsere",
        "das",
        "die",
        "den",
        "der",
        "alle",
        "fast",
        "almost",
        "mostly",
        "usually",
    ]
)
_SUPPLIER = {"en": "supplier", "fr": "fournisseur", "es": "proveedor", "de": "Lieferant", "pt": "fornecedor"}


def _supplier_word(lang: str) -> str:
    return _SUPPLIER.get(lang, "supplier")


def _changed_holder(sentence: str, turn: int, lang: str) -> list[GroundedFact | None]:
    """ "He cambiado de proveedor: ahora compro a Autopiezas Moncayo": the role changed and its new holder, the
    first name after "now" (else after the change) — "Alpes Hélico a eu une panne, désormais c'est Mont-Blanc"."""
    match = _CHANGED_ROLE.search(sentence)
    if match is None:
        return []
    role = next(g for g in (match.group(n) for n in ("en", "fr", "es", "es2", "pt", "de", "any")) if g)
    rest = sentence[match.end() :]
    names = [m for m in re.finditer(NAME, rest) if is_name(m.group("v")) and not role_key(m.group("v"))]
    if not names:
        return []
    # The holder is the name said with "now" ("I'm with Ballyhale Mills now", "désormais c'est Mont-Blanc"),
    # else the first one after the change.
    near_now = [
        m for m in names
        if _NOW_WORD.search(rest[max(0, m.start() - 30) : m.start()]) or _NOW_WORD.match(rest[m.end() :].strip())
    ]  # fmt: skip
    chosen = (near_now or names)[0]
    shown = role[:-1] if lang == "en" and role.endswith("s") else role
    key = role_key(role)
    what = match.group("what")
    if what and key == "supplier" and fold(what) not in _NOT_OBJECT:
        key = f"{light_stem(fold(what))}_supplier"  # "I switched flour suppliers"
    return [_fact(shown, key, chosen.group("v"), turn, lang)]


def role_facts(turns: Sequence[SourceTurn], session_lang: str) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Every role fact of the session's user turns, with the sentence each was read from."""
    out: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for turn in turns:
        for sentence in sentences(turn.user.replace("’", "'")):
            lang = detect_language(sentence, default="") or session_lang
            out.extend((fact, (sentence,)) for fact in read_roles(sentence, turn.index, lang))
    return out


__all__ = ["ROLE_KEYS", "ROLE_WORDS", "read_roles", "role_facts", "role_key"]
