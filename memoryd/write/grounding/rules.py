"""Sentence rules of the extractor: grammar patterns per language that turn one user sentence into fact hits.

Each rule is a first-person pattern ("I live in", "j'habite à", "vivo en", "ich wohne in", "moro em") around a
captured value (a capitalised name, a number, or the rest of the clause). The extractor (extract.py) decides which
sentences are statements at all (no questions, hypotheticals, reported speech); this module only reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.lexicon import (
    CHOICE_CATEGORIES,
    DIET_WORDS,
    EN_REL_RE,
    FOR_TARGET,
    HEDGE,
    NAME,
    NEGATION_NEAR,
    NOT_ROLES,
    NOT_TASKS,
    PETS,
    PLACE,
    RELATIONS,
    REPORTED,
    ROLE_SUFFIX,
)
from memoryd.write.grounding.model import FactKind
from memoryd.write.grounding.patterns import RELATION_RULES, RULES, Rule
from memoryd.write.grounding.reasons import without_reason
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import NEGATIONS, STOP_WORDS, content_tokens, fold, tokens, word_set

_I = re.IGNORECASE


@dataclass(frozen=True)
class Hit:
    """A fact read from one sentence, before provenance is attached."""

    kind: FactKind
    slot: str
    value: str
    text: str
    is_identity: bool
    start: int
    end: int
    lang: str = "en"


_EN_PREF_VERBS = {
    "prefer": "The user prefers", "love": "The user loves", "adore": "The user loves", "like": "The user likes",
    "enjoy": "The user enjoys", "hate": "The user hates", "dislike": "The user dislikes", "detest": "The user hates",
    "don't like": "The user doesn't like", "do not like": "The user doesn't like",
    "don't enjoy": "The user doesn't enjoy", "do not enjoy": "The user doesn't enjoy",
    "can't stand": "The user can't stand", "cannot stand": "The user can't stand",
    "can not stand": "The user can't stand", "can't tolerate": "The user can't tolerate",
    "can't handle": "The user can't handle", "cannot handle": "The user can't handle",
    "like to": "The user would like to", "want to": "The user wants to",
    "rather have": "The user would rather have",
}  # fmt: skip
_DE_VERBS = {"esse": "Der Nutzer isst", "trinke": "Der Nutzer trinkt"}
_VAGUE_OBJECTS = word_set(
    "it that this them those these one ones some both either you your yours how what when where if which everything "
    "anything something not "
    "ça cela ce c lo eso esto es das dies isso isto algo quelque etwas alles tout todo tudo nada rien nichts"
)
_POINTERS = word_set(
    "the this that these those first second third last other former latter le la les ce cet cette ces premier "
    "deuxième dernier el los las este esta ese esa primero segundo último der die das diese dieser erste zweite "
    "letzte o os as este esta esse essa primeiro segundo último"
)
#: Words that point back into the conversation ("I like the second option"): not a durable preference.
_DISCOURSE_NOUNS = word_set(
    "option options one idea answer answers version approach suggestion suggestions solution example response "
    "draft proposal choice alternative explanation point list summary réponse idée proposition exemple "
    "respuesta opción propuesta solución ejemplo antwort idee vorschlag lösung beispiel resposta ideia opção "
    "proposta solução exemplo"
)
#: Second-person words: "your idea", "ta réponse", "deine Antwort" are about the assistant's words, not the user.
_SECOND_PERSON = word_set(
    "you your yours ta ton tes votre vos tu tus deine dein deinen deiner deinem sua seu suas seus"
)
_UNDECIDED = word_set(
    "not yet later tbd pending undecided none nothing no pas encore plus tard todavía aún noch nicht ainda"
)
#: Things one asks the assistant for: "I'd love a recipe / some tips / a list" is a request, not a liking.
_REQUESTED_THINGS = word_set(
    "recipe recipes idea ideas suggestion suggestions tip tips advice help list plan example examples summary draft "
    "hand overview explanation breakdown"
)
_SWITCH_FORMS = re.compile(r"^(switching|switched|migrating|migrated|moving|moved)\b", re.IGNORECASE)
_SWITCH_BASE = {
    "switching": "switch",
    "switched": "switch",
    "migrating": "migrate",
    "migrated": "migrate",
    "moving": "move",
    "moved": "move",
}
_SWITCHED_THING = re.compile(
    # "move the budget to …" names the thing moved; "move off Jira to …" names the old tool, not a purpose.
    r"^(?:switch|migrate|move) (?!(?:off|away|from|out)\b)(?:the |our |my )?(?P<x>[\w -]{2,40}?) (?:over )?to\b",
    re.IGNORECASE,
)
_CALENDAR_WORDS = (
    frozenset(MONTHS) | frozenset(WEEKDAYS) | {"today", "tomorrow", "tonight", "yesterday", "weekend"}
)
_NOT_NAMES = frozenset(
    ["i", "the", "a", "an", "my", "our", "we", "you", "he", "she", "they", "it", "this", "that"]
) | frozenset(
    # Sentence adverbs open a sentence capitalised ("Maybe my neighbour …"): never a name.
    fold(w)
    for w in [
        "maybe",
        "perhaps",
        "probably",
        "hopefully",
        "luckily",
        "sadly",
        "apparently",
        "actually",
        "also",
        "anyway",
        "yes",
        "no",
        "ok",
        "okay",
        "well",
        "peut-être",
        "heureusement",
        "aussi",
        "oui",
        "non",
        "quizás",
        "quizá",
        "también",
        "sí",
        "vielleicht",
        "auch",
        "ja",
        "nein",
        "talvez",
        "também",
        "sim",
        "não",
        "ainda",
        # Connectives and time adverbs open a clause capitalised ("Since our last chat", "Thankfully, my son's
        # ok", "Now my boss …"): a function word is never who someone is.
        "since",
        "then",
        "now",
        "still",
        "though",
        "although",
        "because",
        "after",
        "before",
        "when",
        "while",
        "once",
        "until",
        "besides",
        "however",
        "meanwhile",
        "otherwise",
        "plus",
        "btw",
        "lol",
        "haha",
        "wow",
        "yeah",
        "yep",
        "nope",
        "oh",
        "hey",
        "hi",
        "hello",
        "sorry",
        "please",
        "thanks",
        "depuis",
        "alors",
        "ensuite",
        "desde",
        "luego",
        "entonces",
        "seit",
        "dann",
        "jetzt",
        "desde",
        "depois",
        "agora",
    ]
)
#: Endings of sentence adverbs ("Thankfully", "Unfortunately", "Obviously", "Recently", "Basically"): no name ends so.
_ADVERB_ENDINGS = ("fully", "ately", "ously", "ently", "antly", "ically", "ually", "edly", "ingly", "ssly")
#: "I'm a nurse at …": the word before at/for is the role the employer rests on.
_ROLE_BEFORE_AT = re.compile(r"(?:\bI'm|\bI am|,) an? (?:[\w-]+ )*?([\w-]+) (?:at|for) ", re.IGNORECASE)
#: Similes of working hard ("como un loco", "comme un fou", "wie ein Pferd"): never a job.
_LIKE_A = word_set(
    "loco loca fou folle louco louca doido doida burro burra mula esclavo esclava negro chien cheval bete "
    "pferd tier sklave verruckter wahnsinniger condenado condenada animal crazy dog horse mad maniac"
)
_UNNAMED_OBJECT = word_set("something anything stuff things quelque chose algo alguma coisa etwas")
_DEMONYMS = word_set(
    "italian spanish french german english british american canadian irish scottish welsh portuguese brazilian "
    "mexican argentinian chilean colombian peruvian chinese japanese korean indian pakistani dutch belgian swiss "
    "swedish norwegian danish finnish polish greek turkish russian ukrainian australian african european asian "
    "latino latina catholic muslim jewish christian hindu buddhist"
)
#: Encouragement and phrasal verbs in a decision's words: "keep going / keep spreading positivity / keep in touch /
#: keep it up" and "(picked) up a book" choose no option.
_NOT_A_CHOICE = re.compile(
    r"^(?:to )?(?:keep (?:[\w']+ing\b|[\w]+in'(?!\w)|up\b|it up\b|at it\b|on\b|in touch\b|each other\b|"
    r"(?:the |our )?[\w ]{1,30}? (?:rolling|going|coming|flowing)\b)|up\b)",
    re.IGNORECASE,
)
_MOVED_TO = re.compile(r"^(?:moved|moving|move)\b.*?\bto (\w+)", re.IGNORECASE)
_LEAVING = re.compile(
    r"^(?:go|run|leave|head (?:off|out)|get going|dash|bounce)\b(?!\s+(?:to|and)\b)", re.IGNORECASE
)
#: What one goes somewhere with that is company, not a choice ("going with my sister", "go with the flow").
_COMPANY = re.compile(
    r"^(?:(?:my|our|his|her|their) (?:[\w-]+ )?(?:sister|brother|mum|mom|dad|mother|father|parents|wife|husband|"
    r"partner|friend|friends|kids|children|son|daughter|family|colleague|colleagues|team|boss|girlfriend|"
    r"boyfriend)|the flow|him|her|them|you)\b",
    re.IGNORECASE,
)
_NOT_ROLES_ROMANCE = frozenset(
    [
        "mayor",
        "menor",
        "mejor",
        "peor",
        "sincero",
        "sincera",
        "soltero",
        "soltera",
        "primero",
        "primera",
        "único",
        "única",
        "rico",
        "rica",
        "maior",
        "melhor",
        "pior",
        "solteiro",
        "solteira",
        "certain",
        "certaine",
        "malin",
        "plein",
        "pleine",
        "voisin",
        "voisine",
        "premier",
        "première",
        "dernier",
        "dernière",
        "fier",
        "fière",
        "entier",
        "entière",
        "meilleur",
        "majeur",
        "mineur",
        "ancien",
        "ancienne",
        "bien",
        "rien",
        "chien",
        "triste",
        "optimiste",
        "pessimiste",
        "réaliste",
        "idéaliste",
        "perfectionniste",
        "feliz",
        "capaz",
        "pronto",
        "pronta",
        "claro",
        "clara",
        "seguro",
        "segura",
        "serio",
        "seria",
        "cansado",
        "cansada",
        "dueño",
        "dueña",
        "lento",
        "lenta",
        "tranquilo",
        "tranquila",
        "vero",
        # First-person verbs after a name ("soy Pablo, vivo en Valencia"): what the user does, not a job title.
        "vivo",
        "trabajo",
        "estudio",
        "resido",
        "moro",
        "trabalho",
        "estudo",
        "tengo",
        "tenho",
        "estoy",
        "estou",
    ]
)
_NOT_ROLES_ROMANCE_FOLDED = frozenset(fold(word) for word in _NOT_ROLES_ROMANCE)
_EN_PERSON = (
    (re.compile(r"\bmyself\b", _I), "themselves"),
    (re.compile(r"\bmy\b", _I), "their"),
    (re.compile(r"\bmine\b", _I), "theirs"),
    (re.compile(r"\bme\b", _I), "them"),
    (re.compile(r"\bI(?:'m| am)\b"), "they are"),
    (re.compile(r"\bI(?:'ve| have)\b"), "they have"),
    (re.compile(r"\bI(?:'ll| will)\b"), "they will"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\bour\b", _I), "their"),
)
_LEAD_CLITIC = re.compile(r"^(?:lhe|lhes|me|te|se|nos|vos|le|les|lui|leur|la|lo|los|las)\s+", _I)
_INFINITIVE = re.compile(r"^\w+(?:ar|er|ir|or|re|ôr)(?:lo|la|le|los|las|les|me|te|se|nos)?\b", _I)


#: Words that put a sentence about work: "joined X" or "je suis chez X" there names the employer.
_WORK_CONTEXT = re.compile(
    r"\b(?:work(?:ing)? (?:at|for)|job|company|employer|quit|left|hired|position|"
    r"ne travaille plus|quitté|rejoint|nouveau (?:poste|boulot|job)|nouvel emploi|ya no trabajo|já não trabalho|"
    r"nicht mehr bei|trabajo|trabalho|empresa|firma|arbeite)\b",
    re.IGNORECASE,
)


def to_third_person_en(text: str) -> str:
    """First-person words of an English clause moved to the third person ("my report" → "their report")."""
    for pattern, replacement in _EN_PERSON:
        text = pattern.sub(replacement, text)
    return text


def _clean(value: str) -> str:
    return " ".join(value.strip(" \t\"'“”«»").split()).rstrip(".,;:!?")


def _slug(text: str, max_words: int = 3) -> str:
    found = [t for t in tokens(text) if t not in STOP_WORDS]
    return "_".join(found[:max_words])


def _is_name(value: str) -> bool:
    first = fold(value.split()[0]) if value.split() else ""
    return (
        bool(first)
        and first not in _NOT_NAMES
        and first not in STOP_WORDS
        and first not in _CALENDAR_WORDS
        and first not in _DEMONYMS  # "my boss is Italian": a capitalised adjective, not who the boss is
        and not (len(first) > 6 and first.endswith(_ADVERB_ENDINGS))
        # "my daughter Sara's school": a possessor, not who the daughter is
        and not value.rstrip().endswith(("'s", "’s"))
    )


def is_name(value: str) -> bool:
    """Whether a captured capitalised value can be a name (not a pronoun, function word, date or adverb)."""
    return _is_name(value)


def _for_target(text: str) -> str:
    """The slug of what a choice is for ("for the billing service", "for issue tracking"), or ""."""
    target = FOR_TARGET.search(text)
    return _slug(target.group(1) or target.group(2), 2) if target else ""


#: Names of one purpose said differently ("the DB", "our database", "la base de données"): one slot.
_PURPOSE_ALIASES = {
    "db": "database",
    "databases": "database",
    "base_donnees": "database",
    "base_datos": "database",
    "datenbank": "database",
    "banco_dados": "database",
    "main_database": "database",
    "tickets": "issue_tracking",
    "issues": "issue_tracking",
    "ticketing": "issue_tracking",
    "task_management": "tasks",
    "todos": "tasks",
    "note": "notes",
    "note_taking": "notes",
    "notetaking": "notes",
    "budgeting": "budget",
    "hosting": "host",
}


def canonical_purpose(slug: str) -> str:
    """One slot name per purpose: "db" and "main_database" are "database", "note_taking" is "notes"."""
    if slug in _PURPOSE_ALIASES:
        return _PURPOSE_ALIASES[slug]
    last = slug.rsplit("_", 1)[-1]
    return _PURPOSE_ALIASES.get(last, last if last in _PURPOSE_ALIASES.values() else slug)


def _purpose_slot(what: str) -> str:
    """The purpose a tool is used for ("for notes", "as our database", "para las facturas"), as a slot name."""
    target = _for_target(what)
    if not target:
        bare = re.sub(r"^\s*(?:for|as|pour|comme|para|como|für|als)\s+", "", what, flags=re.IGNORECASE)
        target = _slug(bare, 2) if bare.strip() != what.strip() else ""
    return canonical_purpose(target) if target else ""


_BARE_FOR = re.compile(r"\b(?:for|pour|para|für) ([\w-]+(?: [\w-]+){0,2})\s*$", re.IGNORECASE)


def _choice_slot(value: str, sentence: str = "") -> str:
    switched = _SWITCHED_THING.match(value)
    if switched:
        return f"choice.{canonical_purpose(_slug(switched.group('x'), 2))}"
    target = _for_target(value)
    if target:
        return f"choice.{canonical_purpose(target)}"
    category = CHOICE_CATEGORIES.search(value)
    if category:
        return f"choice.{canonical_purpose(_slug(category.group(0), 2))}"
    bare = _BARE_FOR.search(value)  # "switch to Linear for project management"
    if bare and not set(tokens(bare.group(1))) & _CALENDAR_WORDS:
        return f"choice.{canonical_purpose(_slug(bare.group(1), 2))}"
    target = _for_target(sentence)  # "For the billing service we'll go with …"
    if target:
        return f"choice.{canonical_purpose(target)}"
    category = CHOICE_CATEGORIES.search(sentence)
    if category:
        return f"choice.{canonical_purpose(_slug(category.group(0), 2))}"
    return ""


_TIME_TARGET = re.compile(
    r"\b\d{1,2}:\d{2}\b|\b\d+(?:[.,]\d+)?\s*(?:h|hrs?|hours?|horas?|heures?|stunden?|min|mins|minutes?|minutos?|"
    r"minuten|secs?|seconds?|segundos?)\b|\b\d+h\d{2}\b",
    re.IGNORECASE,
)
_AMOUNT_TARGET = re.compile(
    r"[£$€]\s?\d|\b\d[\d,. ]*\s?(?:k|euros?|pounds?|dollars?|reais|francs?)\b", re.IGNORECASE
)
_WEIGHT_TARGET = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:kg|kgs|kilos?|lbs?|stone)\b", re.IGNORECASE)


def _target_measure(value: str) -> str:
    """What a target measures, when it says ("under 3:30" a time, "£20,000" an amount, "70 kg" a weight), or ""."""
    if _WEIGHT_TARGET.search(value):
        return "weight"
    if _TIME_TARGET.search(value):
        return "time"
    if _AMOUNT_TARGET.search(value):
        return "amount"
    return ""


def target_measure(value: str) -> str:
    """See _target_measure (the slot-filling reader names a goal's slot by it)."""
    return _target_measure(value)


def _vague(value: str) -> bool:
    """An object that names nothing durable: a pronoun, "you", or a pointer back into the conversation."""
    found = tokens(value)
    if not found or found[0] in _VAGUE_OBJECTS or not [t for t in found if t not in STOP_WORDS]:
        return True
    if _SECOND_PERSON & set(tokens(value)):
        return True
    # "the second option", "that idea": a discourse noun after a pointing word refers back into the chat.
    return any(
        word in _DISCOURSE_NOUNS and any(w in _POINTERS for w in found[:position])
        for position, word in enumerate(found)
    )


_CONJUNCTION = re.compile(
    r"\b(?:but|and|so|mais|et|donc|pero|y|así que|aber|und|also|mas|e|então)\b", re.IGNORECASE
)
_CLAUSE_BREAK = re.compile(
    r"[,;:]|\b(?:but|and|so|mais|et|donc|pero|y|así que|aber|und|also|mas|e|então)\b", re.IGNORECASE
)


def _accepts_prefix(sentence: str, start: int, *, hedges: bool = True) -> bool:
    """No hedge or reported speech before the match since the last conjunction ("my wife thinks I'm", "ich glaube,
    ich bin" — a comma does not end the hedge's reach, "but" does), and no negation within its clause."""
    prefix = sentence[:start]
    joins = list(_CONJUNCTION.finditer(prefix))
    hedged = prefix[joins[-1].end() :] if joins else prefix
    breaks = list(_CLAUSE_BREAK.finditer(prefix))
    clause = prefix[breaks[-1].end() :] if breaks else prefix
    return not (hedges and REPORTED.search(hedged)) and not NEGATION_NEAR.search(clause)


_PLACE_TEXTS = {
    "here_in": {"en": "The user is here in {v}."},
    "now_in": {"en": "The user is now in {v}."},
    "moving": {"en": "The user is moving to {v}.", "fr": "L'utilisateur s'installe à {v}.",
               "es": "El usuario se muda a {v}.", "pt": "O usuário vai mudar-se para {v}."},
}  # fmt: skip


#: A value cut at a title's dot ("book the check-up with Dr" of "… with Dr. Evans in May"): it goes on.
_TITLE_END = re.compile(r"\b(?:Dr|Dra|Mr|Mrs|Ms|Mx|Prof|Sr|Sra|St)$")
_AFTER_TITLE = re.compile(r"\.(\s*[^.;!?]+)")


def _hit(rule: Rule, match: re.Match[str], sentence: str) -> Hit | None:
    groups = dict(match.groupdict())
    raw = groups.get("v") or ""
    if raw and _TITLE_END.search(raw.rstrip()) and match.end("v") == match.end():
        more = _AFTER_TITLE.match(sentence, match.end())
        if more:
            groups["v"] = raw.rstrip() + "." + more.group(1)
    value = _clean(groups.get("v") or "")
    if rule.kind is FactKind.DECISION:
        value = without_reason(value)  # "…, a cal não seca bem": why it was decided is no part of it
    if not value:
        return None
    lang, key = rule.lang, rule.key
    slot = rule.slot
    if key == "pronouns":
        text = render(key, lang, value)
    elif key == "tool":
        if not _is_name(value):
            return None
        what = groups.get("what") or ""
        purpose = _purpose_slot(what)
        # "I use Obsidian for notes": the slot is the purpose, so it replaces "I use Evernote for notes" (and a choice
        # made for notes: supersede.py reads tool.X and choice.X as one slot); a tool said without one is its own.
        slot = f"tool.{purpose}" if purpose else f"tool.{_slug(value, 2)}"
        text = render(key, lang, value, what=to_third_person_en(what) if lang == "en" else what)
    elif key == "joined":
        if not _is_name(value) or not _WORK_CONTEXT.search(sentence):
            return None  # "I joined Strava" is a service signed up to; a company joined is said with work
        text = render("employer", lang, value)
    elif key in ("name", "address_as", "home", "moved", "origin", "employer"):
        if not _is_name(value):
            return None
        said_role = _ROLE_BEFORE_AT.search(match.group(0)) if key == "employer" and lang == "en" else None
        if said_role and (
            not ROLE_SUFFIX.search(said_role.group(1)) or fold(said_role.group(1)) in NOT_ROLES
        ):
            return None  # "I'm a regular at Joe's": a customer of the place, not its employee
        text = render(key, lang, value)
    elif key == "stated":
        # A statement whose template is the rule's verb; the slot names the value (or the thing it is about).
        what = _clean(groups.get("what") or "")
        shown = to_third_person_en(value) if lang == "en" else value
        if groups.get("rest"):
            shown = f"{shown}{to_third_person_en(groups['rest']) if lang == 'en' else groups['rest']}"
        slot = slot.format(v=_slug(value, 2), what=_slug(what, 2))
        if slot.endswith(".") or ".." in slot:
            return None
        text = rule.verb.format(v=shown, what=what.lower() if lang == "en" else what)
    elif key == "shift":
        text = render("shift", lang, value)
    elif key == "age":
        if not 1 <= int(value) <= 120:
            return None
        text = render(key, lang, value)
    elif key in ("works_in", "leads"):
        if content_tokens(value)[-1:] and content_tokens(value)[-1] in _CALENDAR_WORDS:
            return None  # "I work for the weekend": when, not where
        text = render(key, lang, to_third_person_en(value) if lang == "en" else value)
    elif key in ("role", "works_as"):
        last = fold(value.split()[-1])
        words_folded = [fold(w) for w in value.split()]
        if last in STOP_WORDS or last in NEGATIONS or last in _LIKE_A:
            return None  # "trabajo como nunca", "je travaille comme un fou": how hard, not as what
        if DIET_WORDS.match(value.split()[-1]) or any(w in NOT_ROLES for w in words_folded):
            return None
        if lang == "en" and key == "role" and not ROLE_SUFFIX.search(last):
            return None
        if lang in ("fr", "es", "pt") and key == "role" and last in _NOT_ROLES_ROMANCE_FOLDED:
            return None
        text = render(key, lang, value)
    elif key in _PLACE_TEXTS:
        # Said in passing ("here in Leeds", "we're in Cardiff now", "je m'installe à Rennes"): the fact keeps the
        # user's own verb, so the verifier finds every word of it in the sentence.
        if not _is_name(value):
            return None
        text = _PLACE_TEXTS[key].get(lang, _PLACE_TEXTS[key]["en"]).format(v=value)
    elif key == "eats":
        slot = slot.format(v=_slug(value))
        text = f"The user eats {value}."
    elif key in ("diet", "allergy"):
        if key == "allergy" and _vague(value):
            return None
        slot = slot.format(v=_slug(value))
        shown = value if lang != "en" else to_third_person_en(value)
        text = render(key, lang, shown)
    elif key == "pref":
        if _vague(value) or NOT_TASKS.search(re.sub(r"^(?:to|de|d'|zu)\s+", "", value)):
            return None  # "I like to think so": a verb of thought, not a liking
        if (groups.get("w") or "").lower() == "love" and _REQUESTED_THINGS & set(tokens(value)):
            return None  # "I'd love a recipe for tonight": a request to the assistant, not a liking
        spoken = groups.get("w") or ""
        if rule.verb:
            verb = rule.verb.format(w=spoken.lower())
            if lang == "de" and spoken:
                verb = _DE_VERBS.get(spoken.lower(), verb)
        elif lang == "de" and spoken.lower() in _DE_VERBS:
            verb = _DE_VERBS[
                spoken.lower()
            ]  # "Ich trinke keinen Alkohol" → "Der Nutzer trinkt keinen Alkohol."
        else:
            verb = _EN_PREF_VERBS.get(" ".join(spoken.lower().split()), f"The user is {spoken.lower()}")
        shown = to_third_person_en(value) if lang == "en" else value
        text = render(key, lang, shown, verb=verb)
    elif key == "favorite":
        what = _clean(groups.get("what") or "")
        if not what or _vague(value):
            return None
        slot = slot.format(what=_slug(what, 2))
        text = render(key, lang, value, what=what)
    elif key in ("decision", "chose"):
        obj = re.sub(r"^(?:to |on |that )?(?:\w+ (?:with |to |on )?)?", "", value)
        if re.match(r"(?:keep|make) it [a-z]+$|do (?!the |that |this )", value):
            return (
                None  # "let's keep it short" is how to answer, "let's do a recap" a request: no choice made
            )
        if re.match(r"(?:keep|make) it \w", value, re.IGNORECASE):
            obj = obj[3:]  # "keep it Japan only": "it" is a placeholder, the complement is what was chosen
        moved_to = _MOVED_TO.match(value)
        if moved_to and (fold(moved_to.group(1)) in _CALENDAR_WORDS or moved_to.group(1)[:1].isdigit()):
            return None  # "we moved the kickoff meeting to Tuesday": a date changed (a plan), no tool chosen
        if _NOT_A_CHOICE.match(value):
            return None  # "let's keep going", "let's keep in touch", "I picked up a book": no option chosen
        if _COMPANY.match(obj) or _COMPANY.match(value):
            return None  # "I'm going with my sister": company kept, not a choice made
        if HEDGE.search(sentence) or _vague(obj) or set(tokens(value)) <= _UNDECIDED:
            return None  # "Decision: not yet." decides nothing
        if lang == "en":
            value = _SWITCH_FORMS.sub(lambda m: _SWITCH_BASE[m.group(1).lower()], value, count=1)
        shown = rule.verb + (to_third_person_en(value) if lang == "en" else value)
        slot = _choice_slot(value, sentence)
        text = (
            render(key, lang, shown).replace(" : ", ": ") if rule.verb == ": " else render(key, lang, shown)
        )
    elif key in ("action", "remind"):
        subjunctive = lang == "fr" and "faut que" in match.group(0).lower()  # "il faut que je refasse …"
        bare = _LEAD_CLITIC.sub("", value)  # "tenho de lhe enviar …": the verb is after the pronoun
        # "Remind me to ask Precious about MTD" is a task asked for, even with a verb that alone names none ("I
        # need to ask you something"); a reminder too vague to act on is caught by the content check below.
        if (key == "action" and NOT_TASKS.search(value)) or (
            lang in ("es", "pt", "fr") and key == "action" and not subjunctive and not _INFINITIVE.match(bare)
        ):
            return None
        if len(content_tokens(value)) < 2 or _LEAVING.match(value):
            return None  # "I have to go", "I need to go, bye": a task names what and whom
        if len(tokens(value)) > 1 and tokens(value)[1] in _UNNAMED_OBJECT:
            return None  # "I need to correct something": the task names nothing one could do
        shown = to_third_person_en(value) if lang == "en" else value
        text = render(key, lang, shown)
    elif key == "target":
        if re.search(r":\s", value) and not groups.get("what"):
            value = re.split(r":\s", value, maxsplit=1)[
                1
            ].strip()  # "más modesto: bajar de 3h45": after the colon
        what = groups.get("what") or value
        head = _slug(what, 2 if groups.get("what") else 1)
        head = head[5:] if head.startswith("time_") else head  # "target time for the 10k" is the 10k's
        measure = _target_measure(value)
        if groups.get("what") and head:
            # "my goal for the 10k is 47 minutes": the event names it, and what it measures (supersede.py lets a
            # later target of the same measure replace one said without its event: "finish under 2 hours").
            slot = f"target.{head}.{measure}" if measure and not head.endswith(measure) else f"target.{head}"
        elif measure:
            slot = (
                f"target.{measure}"  # "bajar de 42 minutos", "sub-3:30", "£20,000": what is measured names it
            )
        else:
            slot = f"target.{head}" if head and not head.isdigit() else "target"
        shown = to_third_person_en(value) if lang == "en" else value
        if lang == "en" and groups.get("what"):
            text = f"The user's {groups['noun'].lower()} {_clean(groups['what'])} is {shown}."
        else:
            text = render(key, lang, shown)
    else:  # pragma: no cover - every key of the table is handled above
        return None
    end = match.end()
    if (key in ("role", "employer", "works_as") or slot == "identity.role") and lang in _WORK_PLACE:
        where = _WORK_PLACE[lang].match(sentence, end)
        if where and where.group(0).strip() and (where.group("v") is None or _is_name(where.group("v"))):
            text = f"{text.rstrip('.')} {where.group(0).strip().rstrip('.')}."  # "a nurse in Cardiff": where they work
            end = where.end()
    return Hit(rule.kind, slot, value, text, rule.kind is FactKind.IDENTITY, match.start(), end, lang)


#: A place right after a role or employer ("I'm a nurse in Cardiff", "Projektleiterin bei Siemens in München").
_WORK_PLACE = {
    lang: re.compile(
        rf"(?:\s+{field})?(?:\s+{where})?(?:\s+{prep} {PLACE})?"
        r"(?=\s*(?:[.,;!]|$)|\s+(?:and|et|y|und|e)\b)"
    )
    for lang, field, where, prep in (
        # "a master's student in marine biology at Plymouth": the field, then the place.
        (
            "en",
            r"(?!)",
            r"(?:(?:at|in) (?:an?|the) [\w-]+(?: [\w-]+)?|in (?!(?:my|our|his|her|their|your|this|that)\b)[a-z][\w-]*"
            r"(?: [a-z][\w-]*){0,2}(?= (?:at|in) (?-i:[A-Z])))",
            "(?:in|at)",
        ),
        ("de", r"(?!)", r"(?:in|bei|an) (?:einer|einem|der|dem) [\w-]+", "in"),
        # "prof de maths dans un lycée à Nantes", "infirmière à l'hôpital de Nantes"
        (
            "fr",
            r"(?:de|d'|en) ?[\w-]+",
            r"(?:dans|chez|à) (?:un|une|le|la|l'|l’) ?[\w-]+(?: (?:de|du|des) [\w-]+)?",
            "à",
        ),
        # "profesora de inglés en un instituto", "médico de familia en Bilbao"
        ("es", r"de [\w-]+", r"en (?:un|una|el|la) [\w-]+(?: (?:de|del) [\w-]+)?", "en"),
        # "enfermeira no Hospital de Santa Maria"
        (
            "pt",
            r"de [\w-]+",
            r"(?:num|numa|em um|em uma|no|na) [\w-]+(?: (?:de|da|do) [\w-]+(?: [\w-]+)?)?",
            "em",
        ),
    )
}


def apply_rules(sentence: str, languages: frozenset[str] | None = None) -> list[Hit]:
    """Every fact hit of one (already filtered) user sentence, relations included; overlapping weaker hits dropped.

    `languages` limits the rules tried (the sentence's and the session's language: 5x fewer regex scans)."""
    hits: list[Hit] = []
    normal = sentence.replace("’", "'")
    for rule in RULES:
        if languages is not None and rule.lang not in languages:
            continue
        for match in rule.pattern.finditer(normal):
            if not _accepts_prefix(normal, match.start()):
                continue
            hit = _hit(rule, match, normal)
            if hit is not None:
                hits.append(hit)
    for lang, pattern in RELATION_RULES:
        if languages is not None and lang not in languages:
            continue
        for match in pattern.finditer(normal):
            # "Maybe my neighbour Ana can help": a hedge doubts the clause, not who the neighbour is; a negation
            # ("not my manager Tom") still counts.
            if not _accepts_prefix(normal, match.start(), hedges=False):
                continue
            hit = _relation_hit(lang, match)
            if hit is not None:
                hits.append(hit)
    hits.extend(_household_allergies(normal))
    hits.extend(_named_children(normal, languages))
    hits.extend(_reports_to(normal, languages))
    if languages is None or "en" in languages:
        hits.extend(_their_relations(normal))
    taken = [h for h in hits if h.slot.startswith("health.takes_")]
    # "Ich nehme jeden Morgen Blutdrucktabletten": a medicine taken at a rhythm, not an option chosen.
    hits = [
        h
        for h in hits
        if h.kind is not FactKind.DECISION or not any(h.start < t.end and t.start < h.end for t in taken)
    ]
    return _without_overlaps(hits)


#: One capitalised name (a title allowed), case-sensitive inside case-insensitive patterns.
_BARE_NAME = r"(?-i:(?:(?:Dr|Mr|Mrs|Ms)\.?\s+)?[A-ZÀ-ÖØ-Þ][\w'’-]*)"
#: "two kids, Tom and Ella", "deux enfants, Léo et Inès", "dos hijos, Pablo y Marta", "zwei Kinder, Ben und Mia",
#: "dois filhos, o Rui e a Rita": the user's children named in a list after their number.
_CHILD_LIST = (
    ("en", re.compile(rf"\b(?:I have|I've got|we have|we've got|with|my) (?:two|three|four|2|3|4) (?P<rel>kids|children|sons|daughters),? (?P<names>{_BARE_NAME}(?:, {_BARE_NAME})*,? and {_BARE_NAME})", re.IGNORECASE)),
    ("fr", re.compile(rf"\b(?:j'ai|on a|nous avons|avec|mes) (?:deux|trois|quatre|2|3|4) (?P<rel>enfants|fils|filles),? (?P<names>{_BARE_NAME}(?:, {_BARE_NAME})*,? et {_BARE_NAME})", re.IGNORECASE)),
    ("es", re.compile(rf"\b(?:tengo|tenemos|con|mis) (?:dos|tres|cuatro|2|3|4) (?P<rel>hijos|hijas|niños),? (?P<names>{_BARE_NAME}(?:, {_BARE_NAME})*,? y {_BARE_NAME})", re.IGNORECASE)),
    ("de", re.compile(rf"\b(?:ich habe|wir haben|mit|meine) (?:zwei|drei|vier|2|3|4) (?P<rel>Kinder|Söhne|Töchter),? (?P<names>{_BARE_NAME}(?:, {_BARE_NAME})*,? und {_BARE_NAME})", re.IGNORECASE)),
    ("pt", re.compile(rf"\b(?:tenho|temos|com|os meus) (?:dois|duas|três|quatro|2|3|4) (?P<rel>filhos|filhas|miúdos),? (?P<names>(?:o |a )?{_BARE_NAME}(?:, (?:o |a )?{_BARE_NAME})*,? e (?:o |a )?{_BARE_NAME})", re.IGNORECASE)),
)  # fmt: skip
#: The same after a number of pets: "two cats, Miso and Tofu", "deux chats, Pixel et Crumble".
_PET_PLURALS = {
    "cats": ("en", "cat"), "dogs": ("en", "dog"), "kittens": ("en", "kitten"), "puppies": ("en", "puppy"),
    "chats": ("fr", "chat"), "chiens": ("fr", "chien"), "chatons": ("fr", "chaton"),
    "gatos": ("es", "gato"), "perros": ("es", "perro"), "gatas": ("es", "gata"), "perras": ("es", "perra"),
    "katzen": ("de", "Katze"), "hunde": ("de", "Hund"),
    "cães": ("pt", "cão"), "cadelas": ("pt", "cadela"),
}  # fmt: skip
_PET_LIST = re.compile(
    rf"\b(?:two|three|four|deux|trois|quatre|dos|tres|cuatro|zwei|drei|vier|dois|duas|três|quatro|2|3|4) "
    rf"(?P<rel>{'|'.join(_PET_PLURALS)}),? (?P<names>(?:o |a )?{_BARE_NAME}(?:, (?:o |a )?{_BARE_NAME})*,? "
    rf"(?:and|et|y|und|e) (?:o |a )?{_BARE_NAME})",
    re.IGNORECASE,
)
_LIST_JOIN = re.compile(r",\s*|\s+(?:and|et|y|und|e)\s+|^(?:o|a)\s+", re.IGNORECASE)
_CHILD_WORD = {"en": "child", "fr": "enfant", "es": "hijo/a", "de": "Kind", "pt": "filho/a"}


def _named_children(sentence: str, languages: frozenset[str] | None) -> list[Hit]:
    found: list[Hit] = []
    for lang, pattern in _CHILD_LIST:
        if languages is not None and lang not in languages:
            continue
        for match in pattern.finditer(sentence):
            names = [n.strip() for n in _LIST_JOIN.split(match.group("names")) if n and n.strip()]
            names = [re.sub(r"^(?:o|a)\s+", "", n) for n in names]
            for name in names:
                # A list of names after "two kids" is names even where one is a function word elsewhere ("Ella").
                if fold(name) in _NOT_NAMES or fold(name) in _CALENDAR_WORDS:
                    continue
                text = render("relation", lang, name, rel=_CHILD_WORD[lang])
                slot = f"relation.child.{fold(name).replace(' ', '_')}"
                found.append(
                    Hit(FactKind.RELATION, slot, name, text, False, match.start("names"), match.end(), lang)
                )
    for match in _PET_LIST.finditer(sentence):
        lang, singular = _PET_PLURALS[match.group("rel").lower()]
        if languages is not None and lang not in languages:
            continue
        for said in (n.strip() for n in _LIST_JOIN.split(match.group("names")) if n and n.strip()):
            name = re.sub(r"^(?:o|a)\s+", "", said)
            if fold(name) in _NOT_NAMES or fold(name) in _CALENDAR_WORDS:
                continue
            text = render("pet", lang, name, rel=singular)
            slot = f"pet.{fold(name).replace(' ', '_')}"
            found.append(
                Hit(FactKind.RELATION, slot, name, text, False, match.start("names"), match.end(), lang)
            )
    return found


#: Someone of the user's household with an allergy ("Noor has a sesame allergy", "Léo est allergique aux noix"):
#: what the assistant must avoid in anything it suggests, so it is kept, in the user's words.
_OTHER_ALLERGY = re.compile(
    r"(?-i:(?P<who>[A-ZÀ-ÖØ-Þ][\w'-]+)),? (?:(?:also |still )?(?:has|have) an? (?:severe |mild |bad |serious )?"
    r"(?P<what>[\w-]+(?: [\w-]+)?) allergy|(?:is|'s) (?:severely |very |also )?allergic to (?P<what_en>[^.,;:!?()]{2,40})|"
    r"(?:est|es|é|ist) (?:aussi |también |também |auch )?(?:allergique|alérgic[oa]|allergisch) "
    r"(?P<what_rom>(?:à|aux|au|a|al|ao|aos|gegen) [^.,;:!?()]{2,40}))",
    re.IGNORECASE,
)


#: "Wei's sister Mei": someone related to a person the user knows, said with an English possessive.
_THEIR_RELATION = re.compile(
    rf"(?-i:(?P<owner>[A-ZÀ-ÖØ-Þ][\w-]+))(?:'s|s') (?P<rel>{EN_REL_RE}) {NAME}", re.IGNORECASE
)


def _their_relations(sentence: str) -> list[Hit]:
    found: list[Hit] = []
    for match in _THEIR_RELATION.finditer(sentence):
        owner, rel, name = match.group("owner"), match.group("rel").lower(), _clean(match.group("v"))
        entry = RELATIONS.get(rel) or RELATIONS.get(fold(rel))
        if entry is None or not _is_name(name) or not _is_name(owner) or entry[0] in PETS:
            continue
        slot = f"relation.of_{_slug(owner, 1)}.{entry[0]}.{_slug(name, 2)}"
        text = f"{owner}'s {rel} is {name}."
        found.append(Hit(FactKind.RELATION, slot, name, text, False, match.start(), match.end()))
    return found


#: "I report to Priya now": whom the user reports to is their manager (same slot as "my manager is …").
_REPORTS_TO = (
    ("en", re.compile(rf"\bI (?:now |currently |still )?report (?:directly )?to {NAME}", _I), "The user reports to {v}."),
    ("fr", re.compile(rf"\bje (?:reporte|rapporte) (?:maintenant |directement )?à {NAME}", _I), "L'utilisateur reporte à {v}."),
    ("es", re.compile(rf"\b(?:reporto|respondo) (?:ahora |directamente )?a {NAME}", _I), "El usuario reporta a {v}."),
    ("de", re.compile(rf"\bich berichte (?:jetzt |direkt |nun )?an {NAME}", _I), "Der Nutzer berichtet an {v}."),
    ("pt", re.compile(rf"\b(?:reporto|respondo) (?:agora |diretamente )?(?:a|à|ao) {NAME}", _I), "O usuário reporta a {v}."),
)  # fmt: skip


def _reports_to(sentence: str, languages: frozenset[str] | None) -> list[Hit]:
    found: list[Hit] = []
    for lang, pattern, template in _REPORTS_TO:
        if languages is not None and lang not in languages:
            continue
        for match in pattern.finditer(sentence):
            name = _clean(match.group("v"))
            if not _is_name(name) or not _accepts_prefix(sentence, match.start()):
                continue
            text = template.format(v=name)
            found.append(
                Hit(
                    FactKind.RELATION, "relation.manager", name, text, False, match.start(), match.end(), lang
                )
            )
    return found


def _household_allergies(sentence: str) -> list[Hit]:
    found: list[Hit] = []
    for match in _OTHER_ALLERGY.finditer(sentence):
        who = match.group("who")
        if fold(who) in STOP_WORDS or fold(who) in _NOT_NAMES or fold(who) in _CALENDAR_WORDS:
            continue
        what = match.group("what") or match.group("what_en") or match.group("what_rom") or ""
        if _vague(what):
            continue
        said = " ".join(match.group(0).replace(",", " ").split())
        text = said[:1].upper() + said[1:] + "."
        slot = f"allergy.{_slug(who, 1)}.{_slug(what, 2)}"
        found.append(Hit(FactKind.PREFERENCE, slot, what, text, False, match.start(), match.end()))
    return found


#: Modifiers of a relation noun: a past relation is not the current one; a new one fills the same slot.
_PAST_MODIFIERS = frozenset(
    [
        "old",
        "former",
        "ex",
        "ex-",
        "previous",
        "late",
        "ancien",
        "ancienne",
        "antiguo",
        "antigua",
        "ehemaliger",
        "ehemalige",
        "alter",
        "alte",
        "antigo",
        "antiga",
    ]
)
_SAME_MODIFIERS = frozenset(
    [
        "new",
        "current",
        "nouvelle",
        "nouveau",
        "nouvel",
        "nuevo",
        "nueva",
        "neuer",
        "neue",
        "neuen",
        "neuem",
        "neues",
        "novo",
        "nova",
        "actual",
        "aktuelle",
        "aktueller",
        "aktuellen",
        "actuel",
        "actuelle",
        "atual",
    ]
)


def _relation_hit(lang: str, match: re.Match[str]) -> Hit | None:
    name = _clean(match.group("v"))
    rel = match.group("rel")
    modifier = (match.groupdict().get("mod") or "").lower()
    if not _is_name(name) or modifier in _PAST_MODIFIERS:
        return None
    key, is_single = RELATIONS.get(rel.lower()) or RELATIONS.get(fold(rel)) or ("", False)
    if not key:
        return None
    if modifier and modifier not in _SAME_MODIFIERS:
        if fold(modifier) in STOP_WORDS or fold(modifier) in RELATIONS:
            return None
        key = f"{_slug(modifier, 1)}_{key}"
        rel = f"{modifier} {rel}"
    if key in PETS:
        slot = f"pet.{_slug(name, 2)}"
        text = render("pet", lang, name, rel=rel.lower() if lang == "en" else rel)
    else:
        slot = f"relation.{key}" if is_single else f"relation.{key}.{_slug(name, 2)}"
        text = render("relation", lang, name, rel=rel.lower() if lang == "en" else rel)
    return Hit(FactKind.RELATION, slot, name, text, False, match.start(), match.end(), lang)


_PRIORITY = {FactKind.IDENTITY: 0, FactKind.RELATION: 1, FactKind.DECISION: 2, FactKind.PREFERENCE: 3,
             FactKind.ACTION_ITEM: 4, FactKind.INSTRUCTION: 5, FactKind.PLAN: 6}  # fmt: skip


def _without_overlaps(hits: list[Hit]) -> list[Hit]:
    """Among hits over the same words keep one: identity before relation before the rest, longer spans first.

    An employer hit ("I'm an engineer at Acme") and a role hit share words but say different things, so hits
    whose slots differ in family (identity.role vs identity.employer) are both kept."""
    ordered = sorted(hits, key=lambda h: (_PRIORITY[h.kind], -(h.end - h.start), h.start))
    kept: list[Hit] = []
    for hit in ordered:
        clash = any(
            hit.start < other.end
            and other.start < hit.end
            and hit.kind is other.kind
            and hit.slot == other.slot
            for other in kept
        )
        if not clash:
            kept.append(hit)
    return sorted(kept, key=lambda h: h.start)


__all__ = [
    "RELATION_RULES",
    "RULES",
    "Hit",
    "Rule",
    "apply_rules",
    "is_name",
    "target_measure",
    "to_third_person_en",
]
