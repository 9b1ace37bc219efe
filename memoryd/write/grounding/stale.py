"""What a user says is no longer current: the old value a correction names ("we're off Jira", "Dr. Harris retired").

A correction often names the old value without repeating the slot it was stored in: "YNAB got too expensive, so
we've moved the budget to Actual" (the old fact said "use YNAB for the budget"), "von Jira weg, die Tickets laufen
jetzt über Linear", "I've switched to coffee, I can't face tea any more". The extractor attaches these old values
to the facts of the same turn (`GroundedFact.replaces`), and supersede.py retires the agent's active facts that
state them. Two scopes keep it narrow:

- `person`: someone who left a role ("Dr. Harris retired", "Tomás moved to the platform team", "ce n'est plus le
  Dr Martin"): only a single-valued relation of the user (manager, vet, doctor…) or their employer is retired, never
  a friend or a sibling who moved house.
- `activity`: an activity given up, named by a name ("je ne fais plus le marché de Lons"): retires like a thing.
- `thing`: a tool, service or habit dropped ("switched away from Notion", "instead of Postgres", "no more sugar",
  "ya no usamos Trello"): facts without a slot, and choices, tools, preferences and plans.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memoryd.write.grounding.lexicon import HYPOTHETICAL
from memoryd.write.grounding.text import fold, light_stem, sentences, tokens

PERSON = "person"
THING = "thing"
#: A taste said as changed ("I prefer coffee now", "ahora prefiero el té"): the value is the new object, and an
#: older liking said with the same verb about the same kind of thing is retired.
TASTE = "taste"
#: A job change (grounding/moves.py): the value is the new employer or role, and the agent's older role and
#: employer facts are retired, whichever of the two slots each was stored in.
JOB = "job"
#: A date said as changed (grounding/changes.py): the value is the words of the turn around it ("the haul-out kept
#: slipping. Kittiwake now comes out on May 2nd"), and an older dated plan about one of them, with another date, is
#: retired (write/supersede.py).
EVENT = "event"
#: An activity of the user's given up ("je ne fais plus le marché de Lons"): the value is the name it is said with;
#: facts naming it are retired as for a `thing`, but what the user does instead is no tool chosen in its place.
ACTIVITY = "activity"
#: The user no longer working for someone ("I no longer work for Custódia", "já não trabalho para a Custódia"): the
#: value is who they worked for; the older employer and workplace facts are retired whatever they name (the place
#: of work went with the job), and the person, said as `person` too, leaves a role they held for the user.
LEFT_JOB = "left_job"

#: A place, district or holder the user is no longer with, said after a preposition ("responsible for Radolfzell
#: now, no longer for Petershausen", "ya no en Mercabarna", "nicht mehr für Petershausen"): the value is the name,
#: and only an older fact that stored it as where the user lives or works, their employer, or a role's holder that
#: is no person of their family (a supplier, a district) is retired, never a plan or a friend that names it.
HELD = "held"

_I = re.IGNORECASE
#: The old value when it is a name: "Dr. Harris", "YNAB", "Actual Budget", "Frau Wolf".
_X = (
    r"(?-i:(?P<x>(?:(?:(?:Dr|Dra|Mr|Mrs|Ms|Prof|Herr|Frau|Sr|Sra|Mme|Mlle)\.?|M\.)\s+)?[A-ZÀ-ÖØ-Þ][\w'’-]*"
    r"(?:[ -][A-ZÀ-ÖØ-Þ][\w'’-]*){0,2}))"
)
#: Month names in lower case, as French, Spanish and Portuguese write them: the old value of a date said unfit.
_MONTH_FR = r"(?P<x>janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)"
_MONTH_ES = r"(?P<x>enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre)"
_MONTH_PT = r"(?P<x>janeiro|fevereiro|março|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro)"
#: The old value when it is a common noun ("tea", "sugar", "the gym"), for the few markers that say so plainly.
_NOUN = r"(?:(?:the|my|our) )?(?P<x>[^\W\d_][\w-]{1,30})"
_ART = r"(?:(?:the|our|my|le|la|les|l'|el|los|las|o|a|os|as|den|die|das|der) )?"

_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (scope, re.compile(pattern, _I))
    for scope, pattern in (
        # --- someone who left the role (the name is the subject)
        # "left" ends its clause or leaves a workplace ("Dana left last month", "left the practice"), so "Jon left
        # early" or "left for Paris" is no one leaving a role.
        (PERSON, rf"{_X},? (?:has |had |just |finally )?(?:retired|quit|resigned|moved (?:on|away|to)|"
                 rf"left(?= *(?:[.,;:!]|$|(?:last|this|in|recently|for good|the (?:company|practice|clinic|team|"
                 rf"firm|job|surgery|hospital|school))\b))|"
                 rf"is (?:leaving|retiring|moving (?:away|to))|passed away|stopped (?:working|practi[cs]ing))"),
        # someone who handed the role on: "Philomena has stepped down", "Rhys has sold Coral Cove" (the shop's
        # owner is no longer who serves the user), "a passé la main", "dimitió", "ist zurückgetreten", "demitiu-se"
        (PERSON, rf"{_X},? (?:has |had |just |finally )?(?:stepped down|stood down|sold up|sold (?:the|his|her|their) "
                 rf"(?:business|shop|practice|firm|company)|sold (?-i:[A-ZÀ-ÖØ-Þ]))"),
        (PERSON, rf"{_X} (?:a démissionné|a passé la main|a vendu|dimitió|ha dimitido|ha vendido|vendió|"
                 rf"ist zurückgetreten|hat gekündigt|hat aufgehört|demitiu-se|se demitiu|vendeu)\b"),
        (PERSON, rf"\bce n'est plus {_ART}{_X}"),
        # the user no longer working for someone: "I no longer work for Custódia", "je ne travaille plus pour
        # M. Roux", "ya no trabajo para Ortún", "ich arbeite nicht mehr für Frau Wolf", "já não trabalho para a
        # Custódia" (both scopes: the person's role and the user's job)
        *(
            (scope, pattern)
            for pattern in (
                rf"\b(?:I|we)(?:'m| am)? (?:no longer|don't|do not) work(?:ing)? (?:for|at) {_ART}{_X}",
                rf"\b(?:je|nous) ne travaill(?:e|ons) plus (?:pour|chez|avec) {_ART}{_X}",
                rf"\bya no trabaj(?:o|amos) (?:para|en|con) {_ART}{_X}",
                rf"\b(?:ich|wir) arbeite[n]? nicht mehr (?:für|bei|mit) {_ART}{_X}",
                rf"\bjá não trabalh(?:o|amos) (?:para|na|no|com) {_ART}{_X}",
            )
            for scope in (PERSON, LEFT_JOB)
        ),
        (PERSON, rf"{_X} (?:a pris sa retraite|part à la retraite|est partie?|a quitté|a déménagé|déménage)\b"),
        (PERSON, rf"{_X} se (?:jubiló|ha jubilado|jubila|fue|ha ido|va|marchó)\b"),
        (PERSON, rf"\bya no es {_ART}{_X}"),
        (PERSON, rf"{_X} (?:ist|sind) (?:jetzt )?(?:in Rente(?: gegangen)?|weg|gegangen|nicht mehr da|in Pension)\b"),
        (PERSON, rf"{_X} (?:geht|ging|gehen) in (?:Rente|Pension)\b"),
        (PERSON, rf"{_X} (?:reformou-se|se reformou|saiu|foi embora|foi-se embora|ficou (?:no|na|em))\b"),
        (PERSON, rf"\bjá não é {_ART}{_X}"),
        # --- a tool, service or habit dropped
        (THING, rf"\b(?:switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|port(?:ed|ing)?) (?:[\w-]+ ){{0,3}}?"
                rf"(?:away from|off|out of|from) {_ART}{_X}"),
        (THING, rf"\b(?:instead of|rather than|in place of|replac(?:e|ed|ing)|ditch(?:ed|ing)?|dropp(?:ed|ing)|"
                rf"dump(?:ed|ing)|abandon(?:ed|ing)|got rid of|cancel(?:led|ed|ling|ing)?|stopped using|"
                rf"(?:no longer|don't|do not|never) use) {_ART}{_X}"),
        (THING, rf"{_X} (?:got|is|was|became|has become) (?:too|way too|far too) (?:expensive|slow|buggy|pricey)\b"),
        # an activity of the user's given up, named by a name within a few words ("I no longer do the Lons market",
        # "je ne fais plus le marché de Lons", "ya no voy a la feria de Trujillo", "ich gehe nicht mehr auf den
        # Markt in Lons", "já não faço a feira de Barcelos"): facts naming it are retired
        (ACTIVITY, rf"\b(?:I|we)(?:'ve| have)? (?:(?:no longer|given up|gave up) (?:doing |going to |attending |running |"
                rf"selling at |working at )?|stopped (?:doing|going to|attending|running|selling at) )"
                rf"(?:[\w'-]+ ){{0,3}}?{_X}"),
        (ACTIVITY, rf"\b(?:je|on|nous) ne (?:fais|faisons|fait|vais|allons|va|participe|participons|travaille|vends|"
                rf"vendons|tiens) plus (?:à |au |aux )?(?:[\w'-]+ ){{0,3}}?{_X}"),
        (ACTIVITY, rf"\bya no (?:hago|hacemos|voy|vamos|participo|vendo|vendemos|trabajo) (?:a |al |en )?(?:[\w-]+ ){{0,3}}?"
                rf"{_X}"),
        (ACTIVITY, rf"\b(?:ich|wir) (?:mache|machen|gehe|gehen|verkaufe|verkaufen|arbeite|arbeiten) nicht mehr "
                rf"(?:auf|zum|zur|in|im|bei|am) (?:(?:den|dem|der|die|das) )?(?:[\w-]+ ){{0,2}}?{_X}"),
        (ACTIVITY, rf"\bjá não (?:faço|fazemos|vou|vamos|vendo|vendemos|trabalho) (?:a |ao |à |no |na |em )?"
                rf"(?:[\w-]+ ){{0,3}}?{_X}"),
        (THING, rf"\bcan(?:'t|not) (?:face|stand|stomach|do) {_NOUN} any ?more\b"),
        (THING, rf"\b(?:don't|do not|never) (?:drink|eat|use|take|buy|order) {_NOUN} any ?more\b"),
        (THING, rf"\bno longer (?:drink|eat|use|take|buy|order) {_NOUN}"),
        (THING, rf"\b(?:no more|not drinking|not eating|stopped drinking|stopped eating) {_NOUN}"),
        (THING, rf"\b{_NOUN} (?:is|'s) off the (?:list|menu|table)\b"),
        (THING, rf"\b(?:on a quitté|j'ai quitté|on a abandonné|j'ai abandonné|on a laissé tomber|au lieu de|"
                rf"plutôt que|on n'utilise plus|je n'utilise plus|(?:on passe|on est passés?|je suis passée?) "
                rf"(?:de|du|d')) ?{_ART}{_X}"),
        (THING, rf"\b(?:dejamos|dejé|hemos dejado|abandonamos|en lugar de|en vez de|ya no (?:uso|usamos|utilizo|"
                rf"utilizamos)|(?:pasamos|nos pasamos|hemos pasado|vamos a pasar) (?:de|del)) {_ART}{_X}"),
        (THING, rf"\b(?:von|weg von) {_ART}{_X} (?:weg|zu|auf|abgekommen|umgestiegen)\b"),
        # a decision to give a thing up: "I decided to drop YNAB", "j'ai décidé d'arrêter Etsy" (not "drop Tom off")
        (THING, rf"\b(?:decided|deciding|going|want|wanted|planning|plan) to (?:drop|ditch|cancel|quit|stop using|"
                rf"get rid of) {_ART}{_X}\b(?! (?:off|at|by)\b)"),
        (THING, rf"\b(?:décidé|décide|vais|allons|veux) (?:d'|de )?(?:arrêter|abandonner|lâcher|laisser tomber) "
                rf"{_ART}{_X}"),
        (THING, rf"\b(?:statt|anstatt|anstelle von|nicht mehr mit|nicht mehr über|benutzen kein(?:e|en)?) {_ART}{_X}"),
        # --- a place, district or holder no longer the user's, after a preposition: "no longer for Petershausen",
        # "not at Zest any more", "…, plus pour Petershausen", "ya no para Ortún", "nicht mehr für Petershausen",
        # "já não para a Tejo Sul"
        (HELD, rf"\b(?:no longer|not any ?more|no more) (?:for|in|at|with|from|on) {_ART}{_X}"),
        (HELD, rf"\bnot (?:for|in|at|with|from|on) {_ART}{_X},? any ?more\b"),
        (HELD, rf"(?<=, )plus (?:pour|chez|avec|à|au|aux|dans) {_ART}{_X}"),
        (HELD, rf"\bn(?:e |')[\w']+ plus (?:pour|chez|avec|à|au|aux|dans) {_ART}{_X}"),
        (HELD, rf"\bya no (?:para|en|con|de|del|al) {_ART}{_X}"),
        (HELD, rf"\bnicht mehr (?:für|in|im|bei|beim|mit|von|vom|aus|am|an) {_ART}{_X}"),
        (HELD, rf"\b(?:já não|não mais) (?:para|em|no|na|com|de|do|da|ao|à) {_ART}{_X}"),
        (THING, rf"\b(?:deixámos|deixamos|deixei|em vez (?:de|do|da)|já não (?:uso|usamos|utilizo)|"
                rf"(?:vamos passar|passámos|passamos|mudámos|mudamos) (?:da|do|de)) {_ART}{_X}"),
    )
)  # fmt: skip


#: A clause saying its taste is new: "now", "these days", "instead", "any more" and their kin in five languages.
CHANGE_MARKER = re.compile(
    r"\b(?:now|these days|nowadays|instead|any ?more|no longer|switched|lately|ahora|ya no|en cambio|maintenant|"
    r"désormais|plutôt|jetzt|inzwischen|mittlerweile|lieber|agora|já não|hoje em dia)\b",
    _I,
)
#: Kinds of thing a taste is about: a new liking replaces an older one of the same kind ("tea" → "coffee").
_KINDS: tuple[frozenset[str], ...] = tuple(
    frozenset(fold(w) for w in words.split())
    for words in (
        "tea coffee espresso latte cappuccino decaf matcha water juice beer wine soda cola milk chai thé café cafe "
        "té kaffee tee bier wein cerveza vino cerveja vinho leite leche lait chá",
        "train car bike bicycle bus plane flight flights metro subway tube taxi uber scooter tren coche avion avión "
        "vélo voiture zug auto fahrrad flugzeug comboio carro avião bicicleta",
        "aisle window couloir hublot pasillo ventanilla gang fenster corredor janela",
        "morning mornings evening evenings night nights afternoon afternoons matin soir mañana mañanas tarde "
        "noche morgens abends manhã noite",
        "email emails phone call calls text texts whatsapp sms slack telegram signal courriel correo",
        "running cycling swimming yoga pilates gym climbing boxing crossfit course natation vélo correr nadar "
        "laufen schwimmen radfahren corrida natação",
    )
)


def same_kind(a: str, b: str) -> bool:
    """Whether two objects of a liking are the same kind of thing ("tea" and "coffee" are drinks)."""
    left, right = set(tokens(a)), set(tokens(b))
    return any(left & kind and right & kind for kind in _KINDS)


@dataclass(frozen=True)
class StaleMention:
    """An old value the user says no longer holds, and which kind of fact it may retire."""

    scope: str
    value: str


#: Words a marker may capture that name nothing ("switched from it", "instead of that").
_EMPTY = frozenset(
    fold(w)
    for w in [
        "it",
        "this",
        "that",
        "them",
        "these",
        "those",
        "one",
        "ones",
        "something",
        "anything",
        "what",
        "which",
        "here",
        "there",
        "I",
        "we",
        "you",
        "he",
        "she",
        "they",
        "my",
        "our",
        "the",
        "a",
        "an",
        "ça",
        "cela",
        "ce",
        "eso",
        "esto",
        "das",
        "dies",
        "isso",
        "isto",
    ]
)


#: Capitalised openers a name pattern may take in front of the name ("Also Harris retired", "News: Tomás left").
_OPENERS = frozenset(
    fold(w)
    for w in [
        "also",
        "and",
        "so",
        "but",
        "now",
        "yes",
        "well",
        "actually",
        "anyway",
        "oh",
        "ok",
        "okay",
        "news",
        "update",
        "then",
        "sadly",
        "apparently",
        "et",
        "alors",
        "aussi",
        "y",
        "también",
        "entonces",
        "und",
        "auch",
        "jetzt",
        "e",
        "também",
        "então",
        # An article before a name ("A Jussara saiu", "Der Herr Baumgärtner ist weg"): the name is what follows.
        "a",
        "o",
        "the",
        "la",
        "le",
        "el",
        "der",
        "die",
    ]
)


def _trimmed(value: str) -> str:
    words = value.split()
    while words and fold(words[0]) in _OPENERS:
        words = words[1:]
    return " ".join(words)


#: Where a clause starts: what comes before a marker in its clause is its subject.
_CLAUSE_START = re.compile(r"[,.;:!?—]|\b(?:and|but|so|because|et|mais|donc|y|pero|und|aber|e|mas)\b", _I)
#: Someone else as the subject: "my sister ditched Netflix" says nothing about the user's tools.
_OTHER_SUBJECT = re.compile(
    r"\b(?:my|our|his|her|their|he|she|they|mon|ma|mes|son|sa|mi|mis|su|sus|mein|meine|sein|seine|ihr|ihre|er|sie|"
    r"meu|minha|seu|sua|ele|ela)\b",
    _I,
)
#: A capitalised word before the marker may be a name as subject ("Anna dropped Netflix"), unless it is the user
#: ("We", "Wir", "Nous") or a sentence opener ("Also", "Honestly").
_CAPITALISED = re.compile(r"(?-i:\b[A-ZÀ-ÖØ-Þ][\w'-]*)")
_FIRST_PERSON = frozenset(
    fold(w)
    for w in [
        "i",
        "i've",
        "i'm",
        "we",
        "we've",
        "we're",
        "wir",
        "ich",
        "je",
        "j'ai",
        "on",
        "nous",
        "yo",
        "nosotros",
        "eu",
        "nós",
    ]
)


def _someone_else(said: str, start: int) -> bool:
    """Whether the clause before a thing-marker has another subject than the user."""
    starts = list(_CLAUSE_START.finditer(said, 0, start))
    before = said[starts[-1].end() if starts else 0 : start]
    if _OTHER_SUBJECT.search(before):
        return True
    return any(
        fold(word) not in _FIRST_PERSON and fold(word) not in _OPENERS and not fold(word).endswith("ly")
        for word in _CAPITALISED.findall(before)
    )


#: A month or a named date said to be unfit for a plan: "N4 in July is too soon" (then "I've switched to the December
#: sitting"), "juillet, c'est trop tôt", "julio es demasiado pronto", "Juli ist zu früh", "julho é cedo demais". The
#: turn's new dated fact carries it (a `thing`), and the older plan naming it is retired. The date is the subject, so
#: only a person said before it in the clause ("For Tom, July is too late", "ma sœur trouve que…") makes it
#: someone else's.
_UNFIT_DATE = tuple(
    re.compile(pattern, _I)
    for pattern in (
        rf"{_X},? (?:is|'s|was|would be) (?:too|way too|far too|much too) (?:soon|early|late)\b",
        rf"\b(?:en |pour )?{_MONTH_FR},? (?:c'est|c'était|ce serait) (?:trop|bien trop|beaucoup trop) (?:tôt|tard)\b",
        rf"\b(?:en |para )?{_MONTH_ES},? (?:es|era|sería) (?:demasiado|muy) (?:pronto|temprano|tarde)\b",
        rf"{_X},? (?:ist|war|wäre) (?:zu|viel zu|etwas zu) (?:früh|spät)\b",
        rf"\b(?:em |para )?{_MONTH_PT},? (?:é|era|seria) (?:cedo|tarde) demais\b",
    )
)
_FOR_SOMEONE = re.compile(r"\b(?:for|pour|para|für)\s+(?-i:[A-ZÀ-Þ])", _I)


@lru_cache(maxsize=4096)
def stale_mentions(text: str) -> tuple[StaleMention, ...]:
    """Old values a user turn says are no longer current, in order, each once.

    A hypothetical or a question says nothing is over ("if we ever moved off Postgres", "should I drop Jira?"),
    and a tool someone else dropped is theirs ("my sister ditched Netflix")."""
    found: list[StaleMention] = []
    for sentence in sentences(text.replace("’", "'")):
        if HYPOTHETICAL.search(sentence) or sentence.rstrip().endswith("?"):
            continue
        for mention in _sentence_mentions(sentence):
            if mention not in found:
                found.append(mention)
    return tuple(found)


def _sentence_mentions(said: str) -> list[StaleMention]:
    found: list[StaleMention] = []
    for scope, pattern in _MARKERS:
        for match in pattern.finditer(said):
            if scope in (THING, ACTIVITY, HELD) and _someone_else(said, match.start()):
                continue
            value = _trimmed((match.groupdict().get("x") or "").strip(" '\""))
            if not value or fold(value.split()[0]) in _EMPTY:
                continue
            if scope == PERSON and fold(value.split()[0]) in _FIRST_PERSON:
                continue  # "We've moved to a new vet", "On a déménagé": the user moving, no one leaving a role
            mention = StaleMention(scope, value)
            if mention not in found:
                found.append(mention)
    for pattern in _UNFIT_DATE:
        for match in pattern.finditer(said):
            starts = list(_CLAUSE_START.finditer(said, 0, match.start()))
            before = said[starts[-1].end() if starts else 0 : match.start()]
            if _OTHER_SUBJECT.search(before) or _FOR_SOMEONE.search(said[: match.start()]):
                continue
            mention = StaleMention(THING, match.group("x"))
            if mention not in found:
                found.append(mention)
    return found


_TITLES = frozenset("dr dra mr mrs ms mx prof herr frau sr sra me".split())  # noqa: SIM905


def names_value(content: str, value: str) -> bool:
    """Whether a stored fact's text names the value: its words in a row, folded, titles aside ("Dr. Li" is named by
    "Dr Li", "tea" is not named by "team")."""
    # Stems, so a plural or an inflection names the same value ("Wednesdays" names "Wednesday", "mittwochs" names
    # "Mittwoch"); "tea" is still not named by "team".
    wanted = [light_stem(t) for t in tokens(value) if t not in _TITLES]
    have = [light_stem(t) for t in tokens(content)]
    size = len(wanted)
    return bool(wanted) and any(have[i : i + size] == wanted for i in range(len(have) - size + 1))


__all__ = [
    "ACTIVITY",
    "CHANGE_MARKER",
    "EVENT",
    "HELD",
    "JOB",
    "LEFT_JOB",
    "PERSON",
    "TASTE",
    "THING",
    "StaleMention",
    "names_value",
    "same_kind",
    "stale_mentions",
]
