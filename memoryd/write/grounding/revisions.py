"""Corrections of what memory already holds, read against it: a user sentence that says something changed, compared
by structure with the agent's active facts, yields the new fact and the older facts it retires.

The session's extractor reads each sentence on its own, with rules its authors wrote for the phrasings they met
("we pushed it back a week", "scratch that — Lille", "she's not my manager anymore, Ana is" mostly fall through).
Here a sentence is read against what the agent already knows instead, so the old fact names the slot:

- **A revision sentence** is a user statement (no question, no hypothetical, nothing unfit to store: small talk, a
  secret, someone else's liking; grounding/unfit.py) with a change cue: a word saying a value changed, moved or was
  given up ("now", "instead", "moved", "pushed", "dropped", "left", "new", "from now on", in five languages;
  `REVISION_CUE`), or a change named as a noun ("cambio de horario", "changement", "Änderung", "mudança de"). "Still" is no cue: "Dr Marsh-Kaye is still my consultant" changes nothing.
- **Values and skeletons** are grounding/skeleton.py's: numbers, dates, weekdays, quoted spans and capitalised names
  are values, and so are counting words ("second Saturday", "three days"); the other content words, stemmed, are
  the skeleton. A capital opening the sentence counts as a value when the older fact holds it as one ("Begoña ahora
  viene …" after "He contratado a Begoña …"); a word one side capitalises is the other's skeleton word.
- **Clauses**: the sentence is cut at semicolons and where a second statement starts (", so the deadline is …");
  when no part anchors, it is read whole ("The Kew trip got moved, …, so we went on 4 June instead").
- **Same slot, another value** (`_same_topic`), with a change cue: each holds a value the other does not, a value
  it drops and a value it adds are of one type (a date for a date, a number for a number, a name for a name), and
  they are about one thing: at least `MIN_SHARED` shared skeleton words (time, template and cue words aside); or
  one shared relation noun ("my editor for now is …"; not someone else's: "his business partner"); or a shared
  title ("Our new CTO is …"); or the same named thing with another day or number ("Kasia now comes on Fridays");
  or, both dated, one shared word among the clause's first words ("Potatoes are going in on 11 April instead").
  Without a cue only a slot with one value ("so the deadline is 31 March") is replaced.
- **Another number of one unit** (`_same_quantity`), with a cue of change: "keep it to 200 words" after "never more
  than 300 words".
- **An old value said to be gone** (`_names_gone`): a name the older fact holds next to a departure cue — after an
  object-taking one ("we've dropped Gardners", "instead of APA"), before or after one said of its subject ("Ramón se
  jubiló", "Uwe ist nach Hamburg gezogen"), or the clause's subject with such a cue later and no other name between
  ("Effie got offered a film job and had to drop out"). Only a fact where it is the only name goes ("a nurse at St
  James's in Leeds" is about the job and stays when the user moves out of Leeds; acronyms such as "IVA" name a
  matter, not another holder).

Either way the older fact is retired (it is kept for history, never injected again), unless it already states every
value the sentence adds (it is a restatement of the new state, not the old one). The sentence becomes a new fact
in the user's words, unless a fact the session's extractor read from the same turn already states its new values
(that fact then carries the retirement), and except for the clauses about the old value itself ("Gaëtan a quitté
l'affaire" retires what memory says of Gaëtan; it is not a fact about the user's slot).

**A change said plainly** (`_stated_change`) is stored even when no older fact anchors it — memory may never have
held the old value: "now" (not "for now"), "instead", "from now on", "no longer", "moves to", "pushed back to",
"my new …", "went down to", "Tuesdays, not Thursdays", "from Nailsworth to Stonehouse" and their kin in five
languages, or a sentence right after a bare "we finally moved!". It must name a value that no older fact and no
session fact of its turn already states; a departure alone ("Y hemos dejado Booking") stores nothing, since its only
value is the one that went.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from memoryd.write.grounding import replies
from memoryd.write.grounding.antonyms import excluded
from memoryd.write.grounding.clauses import statement_clauses, without_openers
from memoryd.write.grounding.corrections import repaired
from memoryd.write.grounding.dates import MONTHS, WEEKDAYS, find_dates
from memoryd.write.grounding.event import plan_dates
from memoryd.write.grounding.flips import flips
from memoryd.write.grounding.handover import handovers
from memoryd.write.grounding.kin import names_a_parent
from memoryd.write.grounding.lexicon import HYPOTHETICAL, QUESTION_START, RELATIONS, SERVICE_KEYS
from memoryd.write.grounding.mixed import swapped_thing
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.moved_to import moved_to, said_as_move
from memoryd.write.grounding.negated import (
    negated_states,
    profession_kept,
    returned_to,
    said_stems,
    states_profession,
    trade_of,
)
from memoryd.write.grounding.owner import someone_elses
from memoryd.write.grounding.recurring import keeps_one_off
from memoryd.write.grounding.redated import redated
from memoryd.write.grounding.relocation import relocations, stays
from memoryd.write.grounding.seasonal import seasons_over
from memoryd.write.grounding.skeleton import CHANGE_CUE, Masked, masked, single_valued
from memoryd.write.grounding.slotchange import slot_changes
from memoryd.write.grounding.substitution import swaps
from memoryd.write.grounding.successors import successions
from memoryd.write.grounding.summary import third_person
from memoryd.write.grounding.text import (
    NUMBER_WORDS,
    STOP_WORDS,
    detect_language,
    fold,
    light_stem,
    prose,
    sentences,
    word_set,
)
from memoryd.write.grounding.unfit import unfit_reason

_I = re.IGNORECASE
#: Words saying an old value is gone: left, given up, replaced, retired, sold (five languages).
_DEPARTURE = (
    r"left|quit|dropped|dropped out|drop out|ditched|scrapped|binned|given up|gave up|retired|replaced|sold|cancel+ed|"
    r"(?:moved|moving|move|got|get) out of|^out of|"
    r"no more|not any ?more|no longer|instead of|moved (?:from|out|away|over)|gone|"
    r"quitté|quitte|abandonné|arrêté|arrête|(?:il|elle) (?:re)?part|repart|lâché|vendu|remplacé|plus de|"
    r"au lieu de|à la place|parti|"
    r"dejado|dejé|dejamos|se fue|se va|jubiló|jubilado|jubilada|vendido|vendí|ya no|en vez de|en lugar de|se fue|"
    r"verlassen|aufgehört|aufgegeben|verkauft|gekündigt|gezogen|nicht mehr|kein(?:e|en)? mehr|statt|anstatt|"
    r"foi-se embora|foi embora|saí|saiu|deixei|deixou|deixamos|largou|larguei|vendi|aposentou|já não|não mais|em vez de|em vez do|em vez da"
)
#: Words saying a value was set anew: moved, pushed, changed, switched, new (five languages).
_MOVE = (
    r"now|instead|move|moves|moved|moving|push|pushed|pushing|postponed|delayed|rescheduled|brought forward|"
    r"put back|switch|switched|switching|change|changed|changes|new|from now on|went down to|went up to|raised|"
    r"reduced|take over|took over|taken over|taking over|handed over|back to|earlier|later|"
    r"plus tôt|plus tard|más temprano|más tarde|früher|später|mais cedo|mais tarde|"
    r"maintenant|désormais|repoussé|repoussée|reporté|reportée|décalé|décalée|avancé|avancée|changé|changement|passés? à|"
    r"nouveau|nouvelle|nouvel|"
    r"ahora|cambiado|cambié|cambio de|pospuesto|aplazado|aplazada|retrasado|adelantado|pasado a|nuevo|nueva|"
    r"jetzt|nun|verschoben|verlegt|vorverlegt|gewechselt|umgestellt|neue|neuer|neuen|neues|übernommen|änderung|"
    r"agora|mudei|mudou|mudamos|troquei|trocamos|mudança de|troca de|adiado|adiada|remarcado|remarcada|antecipado|reajustei|"
    r"novo|nova|passei a|passou a"
)
#: A change cue (module docstring); skeleton.py's cues are all in it.
REVISION_CUE = re.compile(rf"\b(?:{_DEPARTURE}|{_MOVE})\b|{CHANGE_CUE.pattern}", _I)
DEPARTURE_CUE = re.compile(rf"\b(?:{_DEPARTURE})\b", _I)
#: Departures said of their subject ("Effie … had to drop out", "Ramón se jubiló"); "sold" or "dropped" take an
#: object ("Vallauris s'est bien passé, j'ai vendu 62 bols" says nothing went).
_LEAVES = re.compile(
    r"\b(?:left|quit|retired|gone|dropped out|drop out|moved away|moved out|quitte|quitté|parti|partie|arrête|"
    r"(?:il|elle) (?:re)?part|repart|jubiló|"
    r"jubilado|jubilada|se fue|se va|gezogen|aufgehört|gekündigt|foi-se embora|foi embora|saiu|aposentou|largou)\b",
    _I,
)
#: A change said done, in the past ("we finally moved!", "on a déménagé"), not meant ("I want to move to …").
_DONE_CHANGE = re.compile(
    r"\b(?:moved|switched|changed|swapped|déménagé|déménagés|changé|nos mudamos|cambiado|umgezogen|gewechselt|"
    r"mudei|mudamos|mudámos|troquei|trocamos)\b",
    _I,
)
MOVE_CUE = re.compile(rf"\b(?:{_MOVE})\b", _I)
#: Shared skeleton words needed for "same topic" when none of them names a single-valued relation.
MIN_SHARED = 2
#: Words that say when, not what: no overlap of theirs makes two facts one topic.
_GENERIC = frozenset(
    light_stem(w)
    for w in word_set(
        "end start day days week weeks month months year years time next last first weekend morning mornings "
        "evening evenings night nights afternoon today tomorrow yesterday ago later soon new old now "
        "remind reminded asked ask need needs want wants going will also really just"
    )
) | frozenset(
    light_stem(fold(w))
    for w in word_set(
        "move moves moved moving change changes changed switch switched new nouveau nouvelle nouvelles nuevo "
        "nueva neue neuer neues novo nova cambio cambiado changement mudança wechsel correction"
    )
)
_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS)
#: A name too short or too common to stand for an old value on its own.
_MIN_NAME_CHARS = 3
#: How many words apart a departure cue and the name it retires may be ("Uwe ist nach Hamburg gezogen").
_NEAR = 4
#: The fewest words a piece of a sentence needs to stand as a clause.
_MIN_CLAUSE_WORDS = 3
#: How far into a clause its subject may stand ("Autre nouvelle, moins drôle : Gaëtan a quitté …").
_SUBJECT_WORDS = 5
#: How many of a clause's first skeleton words may name the thing one shared word is about.
_LEADING = 3
#: A relation of someone else's ("his business partner", "sa femme", "ihr Chef"): not the user's relation.
_THEIR_RELATION = re.compile(
    r"\b(?:his|her|their|son|sa|ses|leur|su|sus|sein|seine|seinen|seiner|ihr|ihre|ihren|ihrer|seu|sua|dele|"
    r"dela)\s+(?:\w+\s+)?(?:"
    + "|".join(sorted((re.escape(w) for w in RELATIONS), key=len, reverse=True))
    + r")\b",
    _I,
)
#: The longest sentence read as one revision (a paragraph says too many things at once).
MAX_CHARS = 320


@dataclass(frozen=True)
class Revision:
    """A correction read against the agent's facts: the fact stating the new value (a new one, or the session's
    own fact that states it) and the indices of the older facts it retires."""

    #: None when the sentence only says the old value is gone ("Ray Dunmore has retired").
    fact: GroundedFact | None
    retired: tuple[int, ...]
    #: Whether `fact` is new here (to insert) or one of the session's facts (which carries the retirement).
    is_new: bool
    #: Whether `fact` is the one older fact it retires with one value swapped (substitution.py, relocation.py):
    #: it then keeps that fact's table and slot (an identity fact stays one).
    keeps_kind: bool = False


def _kind(value: str) -> str:
    """A value's type: "date" (a day or month), "number" (digits or a counting word), or "name"."""
    if value in _CALENDAR or value.removesuffix("s") in _CALENDAR:
        return "date"  # "thursdays", "lundis", "montags" too
    if any(ch.isdigit() for ch in value) or value in _COUNTS:
        return "number"
    return "name"


def _names(values: frozenset[str]) -> frozenset[str]:
    """The values that are names long enough to stand for a thing on their own."""
    return frozenset(v for v in values if _kind(v) == "name" and len(v) >= _MIN_NAME_CHARS)


def _kinds(values: frozenset[str], dated: bool) -> set[str]:
    """The types of a text's values; in a dated text a number is a day ("le 23 juin")."""
    kinds = {_kind(v) for v in values}
    if dated and "number" in kinds:
        kinds = (kinds - {"number"}) | {"date"}
    return kinds


#: Tens said as words (NUMBER_WORDS stops at twenty): "forty percent", "cinquante euros".
_TENS = {
    word: str(10 * (3 + i))
    for words in (
        "thirty forty fifty sixty seventy eighty ninety",
        "trente quarante cinquante soixante soixante-dix quatre-vingts quatre-vingt-dix",
        "treinta cuarenta cincuenta sesenta setenta ochenta noventa",
        "dreissig vierzig funfzig sechzig siebzig achtzig neunzig",
        "trinta quarenta cinquenta sessenta setenta oitenta noventa",
    )
    for i, word in enumerate(words.split())
}
#: Counting and ordinal words (stemmed), values like digits: "the second Saturday", "three days a week".
_COUNTS = frozenset(
    light_stem(w)
    for w in word_set(
        "one two three four five six seven eight nine ten eleven twelve first second third fourth fifth last "
        "un une deux trois quatre cinq six sept huit neuf dix premier première deuxième second seconde troisième "
        "dernier dernière uno una dos tres cuatro cinco seis siete ocho nueve diez primero primera segundo segunda "
        "tercero tercera último última ein eine zwei drei vier fünf sechs sieben acht neun zehn erste zweite "
        "dritte letzte um uma dois duas três quatro cinco seis sete oito nove dez primeiro primeira segundo "
        "segunda terceiro terceira último última every daily todos toutes täglich todos"
    )
) | frozenset(light_stem(w) for w in _TENS)


def _masked(text: str) -> Masked:
    """skeleton.py's reading, with counting words as values and possessives cut ("Joanna's" → "joanna")."""
    said = masked(text)
    counts = said.skeleton & _COUNTS
    values = frozenset(re.sub(r"['’]s$", "", v) for v in said.values) | counts
    return Masked(said.skeleton - counts, values, said.relations, said.dated)


def _values(said: str, said_masked: Masked, old: Masked) -> frozenset[str]:
    """The sentence's values, with a capitalised opening word the older fact holds as a value."""
    opening = re.match(r"\s*[\W_]*([^\W\d_][\w'’-]*)", said)
    extra = set()
    if opening is not None and opening.group(1)[:1].isupper():
        word = re.sub(r"['’]s$", "", fold(opening.group(1)))
        if word in old.values:
            extra.add(word)
    return said_masked.values | extra


def _same_topic(clause: str, new: Masked, values: frozenset[str], old: Masked, old_text: str = "") -> bool:
    """Same slot by structure, another value (module docstring)."""
    if old.relations and new.relations and not (old.relations & new.relations):
        return False
    added, dropped = values - old.values, old.values - values
    if not added or not dropped:
        return False
    if not (_kinds(added, new.dated) & _kinds(dropped, old.dated)):
        return False
    # A title both name ("CTO", "CEO") is the role the values hold; a word one side capitalises ("Planejado:
    # Abrimos …" and "… abrimos mais cedo") is the same word.
    titles = {v for v in values & old.values if v in _acronyms(clause)}
    shared = ((new.skeleton & old.skeleton) - _GENERIC) | titles
    shared |= ({light_stem(v) for v in old.values} & new.skeleton) | (
        {light_stem(v) for v in values} & old.skeleton
    )
    shared -= _GENERIC
    if titles and _kinds(added, new.dated) & _kinds(dropped, old.dated) & {"name"}:
        return True  # "Our new CTO is Mirela Stan" after "Jonah Adeyemi, he's CTO"
    if _names(values & old.values) and (
        not _names(dropped) or _kinds(added, new.dated) & _kinds(dropped, old.dated) & {"date", "number"}
    ):
        return (
            True  # the same named thing with another day or number ("Begoña ahora viene …", "the Kew trip")
        )
    if len(shared) >= MIN_SHARED:
        return True
    # One shared word makes one topic only in a clause about the user: "A Andrés le han ofrecido trabajo en
    # Alicante" is the husband's job, not the user's work schedule.
    if len(shared) == 1 and someone_elses(clause, shared, _names(values - old.values)):
        return False
    if _only_the_slot(shared, new) and not _other_units(clause, old_text):
        return True  # "So 4:30 is the target now" after "The user's goal: under four hours"
    if new.relations & old.relations and not _THEIR_RELATION.search(clause):
        return True  # "my editor for now is Felicity Ngata", not "his business partner Carla"
    # One shared word: two dates of one thing the clause is about ("Potatoes are going in this Saturday, 11 April,
    # instead"), said among its first words; or that thing said to move to another named place ("the concert is
    # moving to Hexham Abbey" after "our spring concert … at St Cuthbert's church").
    if not (shared and shared & _leading(clause, new)):
        return False
    if new.dated and old.dated:
        return True
    return (
        bool(_MOVES_TO.search(clause))
        and bool(_names(values - old.values))
        and bool(_names(old.values - values))
    )


#: The most skeleton words a clause may have besides its one shared slot word and still be about that slot alone.
_SLOT_ONLY_EXTRA = 1


def _other_units(clause: str, old_text: str) -> bool:
    """Whether both say their numbers with unit words and share none ("70 kg" against "4 hours")."""
    said, held = _units(clause) - _GENERIC, _units(old_text) - _GENERIC
    return bool(said) and bool(held) and not (said & held)


def _only_the_slot(shared: frozenset[str], new: Masked) -> bool:
    """Whether the newer clause is about one single-valued slot and nothing else: it shares one slot word with the
    older fact (a goal, a deadline, a date, where one lives; skeleton.py's single-valued words, synonyms folded) and
    says almost nothing besides its value ("So 4:30 is the target now", "Deadline's 31 March now"). A longer clause
    that happens to share the word ("the exam went well, my target grade is 7") is about something else too."""
    return (
        len(shared) == 1
        and single_valued(shared, dated=False)
        and len(new.skeleton - _GENERIC - shared) <= _SLOT_ONLY_EXTRA
    )


#: A thing said to move to another place or holder: "is moving to", "moved over to", "déménage à", "se traslada a",
#: "zieht nach", "muda-se para".
_MOVES_TO = re.compile(
    r"\b(?:moving|moved|moves|relocating|relocated|relocates|switching|switched)(?: over)? to|déménage à|"
    r"déménagé à|déménagée à|passe à|se muda a|se mudó a|se traslada a|se trasladó a|zieht nach|zieht um nach|"
    r"umgezogen nach|verlegt nach|muda-se para|mudou-se para|passa para\b",
    _I,
)


def _acronyms(text: str) -> frozenset[str]:
    """Capitalised abbreviations of a text, folded ("CTO", "NIPE", "IVA")."""
    return frozenset(fold(w) for w in re.findall(r"\b[A-Z]{2,5}\b", text))


def _leading(clause: str, said: Masked) -> frozenset[str]:
    """The first `_LEADING` skeleton words of the clause, in order."""
    stems = [
        light_stem(w) for w in (fold(x) for x in _WORDS.findall(clause)) if light_stem(w) in said.skeleton
    ]
    return frozenset(list(dict.fromkeys(stems))[:_LEADING])


_UNIT = re.compile(
    r"(?:(?P<before>[^\W\d_]+)\W{0,3})?(?P<currency>R\$|[£$€¥])?\s?\d[\d.,]*\s?-?(?P<after>[^\W\d_]+)?"
)


def _units(text: str) -> frozenset[str]:
    """The words a number is said with ("200 words", "300-km", "R$ 145"), stemmed, and its currency sign ("£600")."""
    return frozenset(
        light_stem(fold(word))
        for match in _UNIT.finditer(text)
        for word in (match.group("before"), match.group("after"))
        if word and len(word) > 1 and fold(word) not in STOP_WORDS
    ) | frozenset(m.group("currency") for m in _UNIT.finditer(text) if m.group("currency"))


_NUMBER_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def _numbered(text: str) -> str:
    """The text with counting words as digits ("three days a week" → "3 days a week", "quarenta" → "40"), so a
    quantity said in words compares with one said in digits."""

    def digit(match: re.Match[str]) -> str:
        word = fold(match.group(0))
        return NUMBER_WORDS.get(word) or _TENS.get(word) or match.group(0)

    return _NUMBER_WORD.sub(digit, text)


#: A quantity said as raised or lowered ("went down to three days a week", "drop the deposit to forty percent",
#: "cut my hours to 20", "on a baissé le prix à 12 euros"): a cue of change for another number of one unit.
QUANTITY_CHANGE = re.compile(
    r"\b(?:(?:went|go|goes|going|gone|come|came|is|are|was) (?:down|up) to|down to|"
    r"(?:cut|cutting|drop|dropped|dropping|lower|lowered|lowering|raise|raised|raising|increase|increased|"
    r"increasing|reduce|reduced|reducing|bump|bumped|put|halve|halved|double|doubled|trim|trimmed)"
    r"(?: \w+){0,4}? (?:up |down )?to|"
    r"(?:baissé|baisse|réduit|réduite|augmenté|augmentée|monté|montée|descendu|descendue|passée?s?)(?: \S+){0,4}? à|"
    r"(?:bajado|bajamos|bajé|reducido|reduje|subido|subimos|subí|aumentado|aumenté)(?: \S+){0,4}? a|"
    r"(?:gesenkt|reduziert|erhöht|gekürzt|runter|hoch) auf|auf (?:\S+ ){0,3}(?:gesenkt|reduziert|erhöht|gekürzt)|"
    r"(?:baixei|baixou|baixámos|baixamos|reduzi|reduziu|reduzimos|aumentei|aumentou|aumentamos|subi|subiu)"
    r"(?: \S+){0,4}? para)\b",
    _I,
)


def _same_quantity(clause: str, old: str) -> bool:
    """Another number of one unit: "keep it to 200 words max" after "never more than 300 words", "down to three
    days a week" after "four days a week" (counting words read as digits)."""
    clause, old = _numbered(clause), _numbered(old)
    said, held = masked(clause), masked(old)
    # A date's number is no quantity; the same date on both sides ("the 29th") changes nothing.
    if (said.dated or held.dated) and _date_values(said) != _date_values(held):
        return False
    added = {v for v in said.values if v[:1].isdigit()} - held.values
    dropped = {v for v in held.values if v[:1].isdigit()} - said.values
    units = (_units(clause) & _units(old)) - _COUNTS  # "every 2 weeks": "every" is no unit
    # A time unit is a unit of a rate on both sides only ("3 days a week", "twice a month"), not "in 3 days".
    return bool(added) and bool(dropped) and bool(units - _GENERIC or (units and _rate(clause) & _rate(old)))


def _date_values(said: Masked) -> frozenset[str]:
    """The values of a text that say a date: days and months, and the numbers said as ordinals ("29th")."""
    return frozenset(
        v for v in said.values if _kind(v) == "date" or re.fullmatch(r"\d{1,2}(?:st|nd|rd|th|er|º|ª)", v)
    )


#: A rate's period: "a week", "per month", "par semaine", "por mes", "pro Woche", "por dia".
_RATE = re.compile(
    r"\b(?:a|per|each|every|par|por|al|a la|pro|je|ao|à)\s+(?P<p>day|week|month|year|jour|semaine|mois|an|año|"
    r"dia|día|semana|mes|mês|tag|woche|monat|jahr|ano)\b",
    _I,
)


def _rate(text: str) -> frozenset[str]:
    return frozenset(light_stem(fold(m.group("p"))) for m in _RATE.finditer(text))


def _names_gone(clause: str, values: frozenset[str], old: Masked) -> str:
    """The old fact's name the clause says is gone, or "" (module docstring): a departure cue next to it
    ("we've dropped Gardners", "Ray Dunmore has retired", "Uwe ist nach Hamburg gezogen")."""
    named = sorted(_names(values & old.values))
    if not named:
        return ""
    words = [fold(w) for w in _WORDS.findall(clause)]
    for cue in DEPARTURE_CUE.finditer(clause):
        at = len(_WORDS.findall(clause[: cue.start()]))
        # The object after any cue ("dropped Gardners"); the subject before one said of it ("Ray Dunmore has
        # retired", "Uwe ist nach Hamburg gezogen"), not before "sold" ("Vallauris went well, I sold 62 bowls").
        before = at - _NEAR if _LEAVES.fullmatch(cue.group(0)) else at
        near = words[max(0, before) : at + len(cue.group(0).split()) + _NEAR]
        for name in named:
            if any(w.startswith(name.split()[0]) for w in near):
                return name
    # The clause's subject, with a departure cue after it and no other name between ("Effie got offered a film
    # job and had to drop out"; not "Lewis is back on piano, Harriet has gone").
    for name in named:
        if _opens_with(clause, name):
            first = fold(clause).find(name.split()[0])
            after = _LEAVES.search(clause, first)
            between = clause[first + len(name) : after.start()] if after else ""
            if after and not re.search(r"(?<![.!?:]\s)(?-i:\b[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]+)", between):
                return name
    return ""


def _only_name(text: str, name: str, values: frozenset[str]) -> bool:
    """Whether `name` (with the capitalised words next to it: "Strathearn Sawmill") is the only name the older fact
    holds: "… trainee solicitor at Pembury Lowe in Birmingham" is about the job, not the city, and stays."""
    for run in re.finditer(r"(?:[A-ZÀ-ÖØ-Þ][\w'’&-]*\s?)+", text):
        words = {re.sub(r"['’]s$", "", fold(w)) for w in run.group(0).split()}
        if name in words:
            # An acronym ("IVA", "NIPE") names a matter, not another holder of the slot.
            return not (_names(values) - words - _acronyms(text))
    return False


_WORDS = re.compile(r"[^\W_][\w'’-]*")


#: Where a consequence or a second statement starts in a clause.
_THEN = re.compile(
    r",\s*(?:so|and|but|donc|alors|et|mais|así que|y|pero|also|und|aber|então|e|mas)\s+|\s+(?:so|donc|alors)\s+",
    _I,
)
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|we|we've|we're|je|j'|j’|on|nous|yo|he|hemos|ich|wir|eu|nós)\b", _I
)
#: The user as the object of someone else's change of holder: "they've put me with Dr Ferris instead", "ils m'ont
#: mis avec le Dr Roux maintenant", "me han pasado a la Dra. Gil", "sie haben mich jetzt an Dr. Roth überwiesen",
#: "passaram-me para a Dra. Pires agora". Only `_named_swap` reads it, where the older fact is a service's holder.
_USER_AS_OBJECT = re.compile(
    r"\b(?:(?:put|moved|switched|transferred|passed|sent|assigned|given|referred) me|m'ont|me han|me ha|mich|"
    r"mir|puseram-me|passaram-me|mudaram-me|transferiram-me|me puseram|me passaram)\b",
    _I,
)


def _opens_with(clause: str, value: str) -> bool:
    """Whether the clause is about `value` itself: its subject, among its first `_SUBJECT_WORDS` words with no
    "I"/"we" before it, a change cue after it ("Autre nouvelle : Gaëtan a quitté l'affaire", "New teacher: Mrs.
    Wolska moved back"), not "we've dropped Gardners" nor "start using Harvard instead of APA"."""
    words = [fold(w) for w in _WORDS.findall(clause)]
    first = value.split()[0]
    at = next((i for i, w in enumerate(words[:_SUBJECT_WORDS]) if w.startswith(first)), -1)
    if at < 0 or any(_FIRST_PERSON.fullmatch(w) for w in words[:at]):
        return False
    start = fold(clause).find(first)
    return bool(DEPARTURE_CUE.search(clause, start) or MOVE_CUE.search(clause, start))


def _user_sentences(turn: SourceTurn) -> list[str]:
    """The turn's statements, self-repairs applied ("R$ 140… não, errei, R$ 145" reads as R$ 145)."""
    said = repaired(prose(turn.user))
    out = []
    for sentence in sentences(said):
        if len(sentence) > MAX_CHARS or HYPOTHETICAL.search(sentence) or QUESTION_START.match(sentence):
            continue
        if sentence.rstrip().endswith("?") or unfit_reason(sentence):
            continue
        out.append(sentence)
    return out


def _clauses(sentence: str) -> list[str]:
    """The sentence cut at its consequence clauses and semicolons (grounding/clauses.py), and where a second
    statement starts (", so the deadline is …"), each part of at least three words."""
    out: list[str] = []
    for part in statement_clauses(sentence) or [sentence]:
        pieces = [p.strip() for p in _THEN.split(part)]
        pieces = pieces if all(len(p.split()) >= _MIN_CLAUSE_WORDS for p in pieces) else [part]
        out.extend(c for c in (without_openers(p).strip() for p in pieces) if c)
    return out or [sentence]


def _text(clauses: Sequence[str], lang: str) -> str:
    said = " ".join(c.rstrip(" ,;:") for c in clauses).strip()
    said = said.rstrip(".!…") + "."
    return third_person(said) if lang == "en" else said[:1].upper() + said[1:]


def _covering(fact_values: frozenset[str], turn: int, session: Sequence[GroundedFact]) -> GroundedFact | None:
    """The session fact from the same turn that states every new value already, if any."""
    for fact in session:
        if turn in fact.turns and all(v in fold(fact.text) for v in fact_values):
            return fact
    return None


def _replaces(clause: str, said: Masked, values: frozenset[str], old: Masked, old_text: str) -> bool:
    """Whether the clause gives another value in the older fact's slot: with a change cue, by topic or by quantity;
    without one, only in a slot that holds one value ("so the deadline is 31 March next year")."""
    if REVISION_CUE.search(clause) or QUANTITY_CHANGE.search(clause):
        return _same_topic(clause, said, values, old, old_text) or (
            (MOVE_CUE.search(clause) is not None or QUANTITY_CHANGE.search(clause) is not None)
            and _same_quantity(clause, old_text)
        )
    shared = (said.skeleton & old.skeleton) - _GENERIC
    return single_valued(shared, dated=False) and _same_topic(clause, said, values, old, old_text)


#: Cues that say on their own that a value is the new one ("now", "instead", "from now on", "not X any more",
#: "moved … to"): a sentence with one states a change even when memory holds no older value to compare.
STATED_CHANGE = re.compile(
    r"\b(?:(?:i|we)(?:'ve| have)? (?:quit|left|dropped|ditched|gave up|given up|sold)|j'ai quitté|on a quitté|"
    r"nous avons quitté|he dejado|hemos dejado|dejé|dejamos|ich habe (?:\w+ )?(?:verlassen|gekündigt|aufgegeben)|"
    r"saí|deixei|deixamos|(?:un|una|el|la|mi) \w+ nuev[oa]|(?:un|une|le|la|mon|ma) \w+ nouvel(?:le)?|"
    r"(?:um|uma|o|a|meu|minha) \w+ nov[oa]|"
    r"(?<!for )(?<!right )(?<!just )(?<!until )(?<!by )now|instead|from now on|no longer|any ?more|switched to|"
    r"moved to|moving to|moves to|move to|moved back|pushed back|pushed to|postponed to|brought forward to|"
    r"put back to|repoussée? au|reportée? au|décalée? au|aplazad[oa] al|pospuest[oa] al|verschoben auf|"
    r"verlegt auf|adiad[oa] para|moved (?:\w+ )?from|"
    r"went (?:down|up|back) to|cut to|reduced to|raised to|(?:my|our|the) new|passés? à|pasad[oa]s? a|"
    r"passei a|passamos a|umgestiegen|mon nouveau|ma nouvelle|notre nouveau|notre nouvelle|mi nuevo|mi nueva|"
    r"nuestro nuevo|nuestra nueva|mein neuer|meine neue|unser neuer|unsere neue|meu novo|minha nova|o novo|a nova|"
    r"maintenant|désormais|dorénavant|au lieu|à la place|ahora|en vez|en lugar|ya no|a partir de ahora|"
    r"jetzt|nun|ab sofort|statt|anstatt|nicht mehr|agora|em vez|já não|a partir de agora)\b",
    _I,
)


#: "Tuesdays, not Thursdays", "le mardi, pas le mercredi": the value said against the one it replaces.
_CONTRAST = re.compile(
    r",\s+(?:not|pas|no|nicht|não)\s+(?:the |le |la |l'|el |los |der |die |das |o |a |os |as )?(?:(?-i:[A-Z0-9])|"
    + "|".join(sorted((re.escape(w) for w in _CALENDAR), key=len, reverse=True))
    + r")",
    _I,
)
#: "from Nailsworth to Stonehouse", "de Rennes à Brest", "von Kiel nach Bremen": one named place for another.
_FROM_TO = re.compile(
    r"\b(?:from|de|von|desde)\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+)*\s+"
    r"(?:to|à|a|nach|para|zu)\s+(?-i:[A-ZÀ-ÖØ-Þ])",
    _I,
)


def _near_departure(sentence: str) -> frozenset[str]:
    """The folded words next to the sentence's departure cues ("dropped Gardners", "j'ai quitté Kerhervé")."""
    words = [fold(w) for w in _WORDS.findall(sentence)]
    near: set[str] = set()
    for cue in DEPARTURE_CUE.finditer(sentence):
        at = len(_WORDS.findall(sentence[: cue.start()]))
        near.update(words[at : at + len(cue.group(0).split()) + _NEAR])
    return frozenset(near)


def _departure_only(sentence: str) -> bool:
    """Whether every change cue of the sentence says something went ("I've left Kerhervé")."""
    return all(DEPARTURE_CUE.search(m.group(0)) for m in STATED_CHANGE.finditer(sentence))


def _stated_change(
    sentence: str,
    turn: int,
    lang: str,
    session: Sequence[GroundedFact],
    known: Sequence[str],
    *,
    cued: bool = False,
) -> list[Revision]:
    """A change said plainly that no older fact anchors ("Now ordering from Extra UK", "We moved house, from
    Nailsworth to Stonehouse"), or after a cue said on its own ("We finally moved! Out of Treforest and into
    Llantrisant", `cued`): the sentence is the new fact when it names a value the session's facts from its turn do
    not already state and no older fact holds all of its values (a repeat is no change)."""
    if (
        not STATED_CHANGE.search(sentence)
        and not _CONTRAST.search(sentence)
        and not cued
        and not (MOVE_CUE.search(sentence) and _FROM_TO.search(sentence))
    ):
        return []
    values = _masked(sentence).values
    if not values:
        return []
    if any(all(v in fold(k) for v in values) for k in known):
        return []
    # "We've dropped Gardners; new stock now comes from Northbook": an older fact whose only name the change says
    # is gone, beside a name of its own, held the older value.
    retired = tuple(
        i
        for i, k in enumerate(known)
        if _names(values - (held := _masked(k)).values)
        and (gone := _names_gone(sentence, values, held))
        and _only_name(k, gone, held.values)
    )
    if _departure_only(sentence) and not (values - _near_departure(sentence)):
        return []  # "Y hemos dejado Booking": only the value that went
    if not retired and not _says_what(values, _masked(sentence).skeleton):
        return []  # "It's the 31st of March now": a new day of something this sentence does not name
    for fact in session:
        if turn in fact.turns and sum(v in fold(fact.text) for v in values) * 2 >= len(values):
            return [Revision(fact, retired, is_new=False)] if retired else []
    return [Revision(_fact(_text([sentence], lang), (turn,), lang, " ".join(sorted(values))), retired, True)]


#: Words that name no topic of a change: negations and the words for a day or a date ("Not the 17th any more",
#: "Agora é dia 4", "C'est le jour 12", "Neues Datum: 4. April" names the date, not the event).
_NO_TOPIC = frozenset(
    "not no pas nicht não nao day days dia días dias jour jours tag tage date dates fecha datum data".split()  # noqa: SIM905
)


def _calendar_or_number(value: str) -> bool:
    """A value that is a day, a month, a weekday (plural too) or a number: it says when or how much, not what."""
    word = fold(value)
    return bool(re.fullmatch(r"\d+(?:[.,:]\d+)?(?:st|nd|rd|th|er|e|º|o|a)?", word)) or any(
        w in MONTHS or w in WEEKDAYS for w in (word, word.rstrip("s"))
    )


def _says_what(values: frozenset[str], skeleton: frozenset[str]) -> bool:
    """A change said plainly names what changed: a content word beyond the negation and "day"/"date" ("Kasia now
    comes on Fridays", "Now ordering from Extra UK"), or a value that is a name, not a date or a number. "It's the
    31st of March now", "Not the 17th any more, they moved it again", "C'est le 12 mai maintenant", "Ahora es el 3
    de mayo", "Jetzt ist es der 4. April", "Agora é dia 4 de abril" say a new day of something said before: alone,
    they are no fact (the readers that know the event, `_anchored` and event.py's moves, still read them)."""
    if skeleton - _NO_TOPIC:
        return True
    return not all(_calendar_or_number(v) for v in values)


def _one_old_value(
    found: list[tuple[int, Masked, frozenset[str], str]],
) -> list[tuple[int, Masked, frozenset[str], str]]:
    """The older facts one clause replaces by topic, when they hold one old value between them.

    A correction changes one value: "the new book's first roughs are due 2 November" anchors by topic ("due", both
    dated) to a licence renewal due 1 May, an artwork deadline of 15 June and a mooring fee due on the 20th, which
    share no value: dated facts name events, and which one it replaces, if any, is unknown, so none is chosen (as
    event.py's `events_of`). Older facts that share a value (the old city said in an identity fact and a pinned one)
    are one slot said twice and all go; so do undated facts of one slot ("The user's goal: their first marathon"
    and "The user's goal: under four hours" both give way to "4:30 is the target now"). A name said gone ("Ray
    Dunmore has retired") is no topic guess and always retires its facts."""
    by_topic = [f for f in found if not f[3]]
    if len(by_topic) < 2 or not all(old.dated for _i, old, _v, _g in by_topic):
        return found
    shared = frozenset.intersection(*(old.values for _i, old, _v, _g in by_topic))
    if shared:
        return found
    return [f for f in found if f[3]]


def _anchored(
    clauses: Sequence[str], olds: Sequence[Masked], known: Sequence[str]
) -> tuple[list[int], list[str], set[str]]:
    """(older facts the clauses replace, the clauses stating the new state, the new values they add)."""
    retired: list[int] = []
    kept: list[str] = []
    added: set[str] = set()
    for clause in clauses:
        said = _masked(clause)
        about_old = ""
        anchored = False
        found: list[tuple[int, Masked, frozenset[str], str]] = []
        for index, old in enumerate(olds):
            if keeps_one_off(known[index], clause):
                continue  # "it's Mondays and Thursdays now" gives no new day to "the pairs competition is on 25 April"
            values = _values(clause, said, old)
            gone = _names_gone(clause, values, old)
            if gone and not _only_name(known[index], gone, old.values):
                gone = ""
            if not gone and not _replaces(clause, said, values, old, known[index]):
                continue
            new_values = values - old.values
            if new_values and all(v in fold(known[index]) for v in new_values):
                continue  # the older fact already says the new state
            found.append((index, old, values, gone))
        for index, old, values, gone in _one_old_value(found):
            new_values = values - old.values
            anchored = True
            if index not in retired:
                retired.append(index)
            if gone and _opens_with(clause, gone):
                about_old = gone
            for name in _names(values & old.values):
                if not about_old and _LEAVES.search(clause) and _opens_with(clause, name):
                    about_old = name  # "Changement de coach : Mathéo arrête, il part …" is about Mathéo
            added |= new_values
        if not about_old:
            if anchored:
                kept.append(clause)
        else:
            # "Effie had to drop out, so the soundtrack is now by Bram": what follows is the new state.
            kept.extend(p for p in _THEN.split(clause)[1:] if not _opens_with(p, about_old))
    return retired, kept, added


#: Words that add a holder rather than swap one ("I also buy from …", "another supplier", "as well").
_ADDITIVE = re.compile(
    r"\b(?:also|too|as well|another|second|both|extra|additionally|aussi|également|autre|también|además|otro|otra|"
    r"auch|zusätzlich|noch|weitere[nr]?|também|outro|outra)\b",
    _I,
)
#: A swap for a while or for a part only ("for now", "this week", "for the rest"): the older holder stays.
_FOR_A_WHILE = re.compile(
    r"\b(?:for now|for the moment|for the time being|this week|this month|today|temporarily|for a while|partly|"
    r"some of|for the rest|sometimes|occasionally|meanwhile|pour l'instant|pour le moment|en attendant|cette semaine|"
    r"por ahora|de momento|por el momento|esta semana|vorerst|vorübergehend|diese woche|erstmal|por agora|"
    r"por enquanto|esta semana|às vezes|a veces|parfois|manchmal)\b",
    _I,
)
#: Where a sentence's parts meet: a comma, a semicolon, a colon or a dash.
_PARTS = re.compile(r"\s*[,;:]\s+|\s+[—–-]\s+")


def _named_swap(
    sentence: str, olds: Sequence[Masked], known: Sequence[str]
) -> tuple[list[int], list[str], set[str]]:
    """A holder replaced by name, with no slot word said: "Strathearn can't dry oak fast enough, I'm buying from
    Glen Affric Hardwoods now" after "The user's supplier is Strathearn Sawmill".

    One part of the sentence names the older fact's only name, with no change cue; another part, said by the user
    ("I", "we") or of the user by whoever made the change ("they've put me with Dr Ferris instead") with a change cue of its own ("now", "instead", "from now on"; not "for now"), names a new one, no
    relation and no single-valued slot the older fact does not hold ("Birmingham is lovely, I'm working at Selly Oak
    now" is about work, not where the user lives); nothing says a holder is added ("also", "another", "as well"). The older fact must be about one
    holder of one role: a short fact (at most `_ROLE_WORDS` skeleton words) whose relation, if it names one, is a
    service the user uses (a vet, a doctor, an accountant, a landlord; SERVICE_KEYS), never family or friends
    ("Kirsty's away, I'm now cooking with Jamie" leaves "The user's wife is Kirsty" alone); nor a swap said for a
    while or for a part ("for now", "this week", "for the rest", `_FOR_A_WHILE`).
    Returns (older facts retired, the parts stating the new holder, the new names) like `_anchored`."""
    if _ADDITIVE.search(sentence) or _FOR_A_WHILE.search(sentence):
        return [], [], set()
    parts = [p for p in _PARTS.split(sentence) if p.strip()]
    if len(parts) < 2:
        return [], [], set()
    for index, old in enumerate(olds):
        names = _names(old.values)
        if not names or len(old.skeleton - _GENERIC) > _ROLE_WORDS:
            continue
        if old.relations and not old.relations <= SERVICE_KEYS:
            continue
        for at, part in enumerate(parts):
            gone = names & _values(part, _masked(part), old)
            if not gone or STATED_CHANGE.search(part) or not _only_name(known[index], min(gone), old.values):
                continue
            for other in parts[at + 1 :]:
                new = _masked(other)
                added = _names(new.values - old.values)
                if (
                    added
                    and not new.relations
                    # "Birmingham is lovely, I'm working at Selly Oak now" names another slot (work, not home)
                    and not single_valued(new.skeleton - old.skeleton - _GENERIC, dated=False)
                    and STATED_CHANGE.search(other)
                    and not _departure_only(other)
                    and (_FIRST_PERSON.search(other) or _USER_AS_OBJECT.search(other))
                ):
                    return [index], [other], set(added)
    return [], [], set()


#: The most skeleton words a fact about one holder of one role has ("The user's supplier is …": {supplier}).
_ROLE_WORDS = 2


#: A reply that confirms what it answers ("Yes, …", "Oui, …", "Sí, …", "Ja, …", "Sim, …").
_CONFIRMS = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|sure|exactly|right|correct|oui|sí|si|claro|ja|genau|sim|isso)\b", _I
)


def _referred(
    message: str, stated: Sequence[str], olds: Sequence[Masked]
) -> tuple[list[int], list[str], set[str]]:
    """Referring back ("I've revised that" after "The 1800 goal looks within reach"): the older facts holding a
    value the assistant's message names, when the user's next sentences give another value of its kind
    (grounding/replies.py). Older facts sharing no referenced value leave which one was meant unknown: none."""
    named = _masked(message).values
    found: list[tuple[int, Masked, frozenset[str], str]] = []
    kept: list[str] = []
    added: set[str] = set()
    for index, old in enumerate(olds):
        referenced = named & old.values
        if not referenced:
            continue
        kinds = _kinds(referenced, old.dated)
        for sentence in stated:
            said = _masked(sentence)
            if _CONFIRMS.match(sentence) or referenced & said.values:
                break  # "Yes, Dr Okafor and her nurse": the value is said again, it still holds
            fresh = said.values - old.values
            # A number is a number whether or not the sentence also names a month ("1700 by December").
            if fresh and ({_kind(v) for v in fresh} | _kinds(fresh, said.dated)) & kinds:
                found.append((index, old, said.values, ""))
                if sentence not in kept:
                    kept.append(sentence)
                added |= fresh
                break
    chosen = _one_old_value(found)
    return [i for i, *_rest in chosen], kept if chosen else [], added if chosen else set()


def _answered(question: str, answer: str, olds: Sequence[Masked], known: Sequence[str]) -> list[int]:
    """An answer to a question asking what holds now ("Which vet now?" — "Dr Alves at Riverside."): the older facts
    the pair replaces, read with the question's words and the answer's values (grounding/replies.py)."""
    asked, said = _masked(question), _masked(answer)
    merged = Masked(asked.skeleton | said.skeleton, said.values, asked.relations | said.relations, said.dated)
    found = []
    for index, old in enumerate(olds):
        values = _values(answer, merged, old)
        # The question asks what holds now: it is the change cue ("Still opening at 7?" — "No, 6:30 from March").
        clause = f"{question} {answer}"
        if not values or not (
            _same_topic(clause, merged, values, old, known[index]) or _same_quantity(clause, known[index])
        ):
            continue
        if all(v in fold(known[index]) for v in values - old.values):
            continue  # the older fact already says the answer
        found.append((index, old, values, ""))
    return [i for i, *_rest in _one_old_value(found)]


def _redated(
    message: str, turn: SourceTurn, session: Sequence[GroundedFact], known: Sequence[str]
) -> list[Revision]:
    """A date said to have changed without its event ("so the date's changed", "Have you rebooked?" — "the next
    slot is August 14"): the one older dated fact near the new day is retired by the turn's dated session fact
    (grounding/redated.py)."""
    dated = [f for f in session if turn.index in f.turns and plan_dates(f.text)]
    if len(dated) != 1:
        return []
    asked = sentences(message)[-1] if message.strip().endswith("?") and sentences(message) else ""
    for sentence in _user_sentences(turn)[:1] if asked else []:
        retired = redated(f"{asked} {sentence}", dated[0].text, known)
        if retired:
            return [Revision(dated[0], tuple(retired), is_new=False)]
    for sentence in _user_sentences(turn):
        retired = redated(sentence, dated[0].text, known)
        if retired:
            return [Revision(dated[0], tuple(retired), is_new=False)]
    return []


def _replies(
    message: str,
    turn: SourceTurn,
    lang: str,
    session: Sequence[GroundedFact],
    olds: Sequence[Masked],
    known: Sequence[str],
) -> tuple[list[Revision], frozenset[str]]:
    """Corrections whose slot the assistant's message names: referring back, or answering a question about now;
    with the user's sentences they read (the main reading skips them)."""
    if not message:
        return [], frozenset()
    stated = _user_sentences(turn)
    for at, sentence in enumerate(stated):
        if replies.REFER_BACK.search(sentence) and not _masked(sentence).values:
            retired, kept, added = _referred(message, stated[at + 1 :], olds)
            if retired:
                revision = _revision(retired, kept, frozenset(added), turn.index, lang, session, known)
                return [revision], frozenset(kept)
    asked = replies.question(message)
    first = stated[0] if stated else ""
    if not asked or not first or not replies.is_answer(first) or not _masked(first).values:
        return [], frozenset()
    if _CONFIRMS.match(first):
        return [], frozenset()  # "Still training for Manchester?" — "Yes, 19 April": nothing changed
    # By the slot the question names ("Which vet now?"), else by the value it names ("Still Dr Okafor?").
    retired = _answered(asked, first, olds, known) or _referred(asked, [first], olds)[0]
    if not retired:
        return [], frozenset()
    covering = _covering(_masked(first).values, turn.index, session)
    if covering is not None:
        return [Revision(covering, tuple(retired), is_new=False)], frozenset({first})
    if len(first.split()) < _MIN_STATEMENT_WORDS:
        return [], frozenset()  # "Dr Alves." alone is no fact to store: nothing stands in for the older one
    revision = _revision(retired, [first], _masked(first).values, turn.index, lang, session, known)
    return [revision], frozenset({first})


#: The fewest words an answer needs to be stored as a fact in its own words.
_MIN_STATEMENT_WORDS = 4


def _revision(
    retired: Sequence[int],
    kept: Sequence[str],
    added: frozenset[str],
    turn: int,
    lang: str,
    session: Sequence[GroundedFact],
    known: Sequence[str],
) -> Revision:
    """The revision retiring `retired`: carried by the session fact of the turn stating the new values, else a new
    fact in the user's words (with the retired fact's date when it says none)."""
    covering = _covering(added, turn, session) if added else None
    if covering is not None:
        return Revision(covering, tuple(retired), is_new=False)
    if not kept or not added:
        return Revision(None, tuple(retired), is_new=False)
    text = _with_kept_date(_text(kept, lang), [known[i] for i in retired])
    return Revision(_fact(text, (turn,), lang, " ".join(sorted(added))), tuple(retired), True)


def revisions(
    turns: Sequence[SourceTurn], session: Sequence[GroundedFact], known: Sequence[str]
) -> list[Revision]:
    """Corrections the user's turns make to `known` (the agent's active facts, older than the session)."""
    olds = [_masked(k) for k in known]
    out: list[Revision] = []
    taken: set[int] = set()
    said = [t.user for t in turns]
    # Where the session says the user lives ("I live in York now"), not only that they moved (moved_to.py).
    homes = [f.value for f in session if f.slot == "identity.home" and not said_as_move(f.text)]
    for position, turn in enumerate(turns):
        lang = detect_language(turn.user)
        cued = False
        # The slot said by the assistant's message the turn replies to (grounding/replies.py).
        answered, consumed = _replies(replies.context(turns, position), turn, lang, session, olds, known)
        answered += _redated(replies.context(turns, position), turn, session, known)
        for revision in answered:
            untaken = tuple(i for i in revision.retired if i not in taken)
            if untaken:
                taken.update(untaken)
                out.append(replace(revision, retired=untaken))
        turn_sentences = _user_sentences(turn)
        # "Callum's gone, joined the army. I've taken on Niamh Doyle": the older holder of a role said gone and a
        # successor named take the older relation fact's slot (grounding/successors.py).
        for succession in successions(turn_sentences, known):
            if succession.index not in taken:
                taken.add(succession.index)
                # A relation fact of the turn naming the successor ("mon nouveau représentant c'est Yann Morvan")
                # carries the retirement: the successor is not stored twice.
                relations = [f for f in session if f.kind is FactKind.RELATION]
                covering = _covering(frozenset({fold(succession.new_name)}), turn.index, relations)
                if covering is not None:
                    out.append(Revision(covering, (succession.index,), is_new=False))
                    continue
                fact = _fact(succession.text, (turn.index,), lang, succession.new_name)
                out.append(Revision(fact, (succession.index,), True, keeps_kind=True))
        for position_in_turn, sentence in enumerate(turn_sentences):
            if sentence in consumed:
                continue  # read with the assistant's message above
            # "We did it, we finally moved!": a change said without its value cues the sentence after it.
            was_cued, cued = cued, bool(_DONE_CHANGE.search(sentence)) and not _masked(sentence).values
            # "Podes usar emojis" after "… sem emojis": a standing instruction flipped (flips.py); what else it
            # said still holds and is stored again.
            for flip in flips(sentence, known):
                if flip.index in taken:
                    continue
                taken.add(flip.index)
                if not flip.rest:
                    out.append(Revision(None, (flip.index,), is_new=False))
                    continue
                rest = replace(_fact(flip.rest, (turn.index,), lang), kind=FactKind.INSTRUCTION)
                out.append(Revision(rest, (flip.index,), True, keeps_kind=True))
            # "Back to being closed on Mondays for the winter": a seasonal change is over (seasonal.py).
            gone = [i for i in seasons_over(sentence, known) if i not in taken]
            if gone:
                taken.update(gone)
                out.append(Revision(None, tuple(gone), is_new=False))
            # "I'm no longer a trainee": older facts about the user stating it are retired (negated.py); the
            # sentence itself, a change said plainly, is read on below.
            back = (
                returned_to(turn_sentences[position_in_turn + 1])
                if position_in_turn + 1 < len(turn_sentences)
                else ""
            )
            gone = [i for i in negated_states(sentence, known, returned=bool(back)) if i not in taken]
            if gone and back:
                # "I've dropped Fresha, too pricey. Back to a paper diary plus Google Calendar": what it returned to
                # replaces what it left.
                taken.update(gone)
                said_back = f"I'm back to {back}" if lang == "en" else turn_sentences[position_in_turn + 1]
                out.append(Revision(_fact(_text([said_back], lang), (turn.index,), lang), tuple(gone), True))
            elif gone:
                taken.update(gone)
                # "I've left the university" after "The user is a marine biologist at the university in Hilo": the
                # affiliation goes, the profession stays, restated on its own in the older fact's table and slot.
                # A new job said in the same turn ("I've left Halden Build, I started as a project manager at …")
                # replaces the profession too.
                new_job = _new_job(turn.index, session)
                trades = {i: "" if new_job else profession_kept(sentence, known[i]) for i in gone}
                for index in gone:
                    if trades[index]:
                        fact = _fact(trades[index], (turn.index,), lang)
                        out.append(Revision(fact, (index,), True, keeps_kind=True))
                left = tuple(i for i in gone if not trades[i])
                if _masked(sentence).values or _new_state_in_turn(turn.index, sentence, session):
                    # "And I've left the university. I'm at NOAA now": the turn states what holds now, so the
                    # leaving retires the old fact and is not stored beside the new one (it names the old value).
                    out.append(Revision(None, left, is_new=False))
                else:
                    # "I've also quit the call centre completely" names no value a later reading would store: the
                    # sentence is the new state.
                    out.append(Revision(_fact(_text([sentence], lang), (turn.index,), lang), left, True))
            # "Me voy de Rosario a Córdoba": older facts placed in the old place, placed anew (relocation.py).
            # "Moved the yard to Dingwall": the old place is the one the memory holds (moved_to.py).
            for move in relocations(sentence, known, said) or moved_to(sentence, known, homes, said):
                if move.index not in taken:
                    taken.add(move.index)
                    fact = _fact(move.text, (turn.index,), lang, move.new_value)
                    out.append(Revision(fact, (move.index,), True, keeps_kind=True))
            if (
                not REVISION_CUE.search(sentence)
                and not _CONTRAST.search(sentence)
                and not QUANTITY_CHANGE.search(sentence)
            ):
                if was_cued:
                    out.extend(_stated_change(sentence, turn.index, lang, session, known, cued=True))
                continue
            # "Full-time now" after "teaches music part-time": one value of a closed slot excludes the other
            # (antonyms.py); the sentence is the new state unless a later reading stores it.
            gone = [i for i in excluded(sentence, known) if i not in taken]
            if gone:
                taken.update(gone)
                covering = (
                    _covering(_masked(sentence).values, turn.index, session)
                    if _masked(sentence).values
                    else None
                )
                if covering is not None:
                    out.append(Revision(covering, tuple(gone), is_new=False))
                else:
                    out.append(
                        Revision(_fact(_text([sentence], lang), (turn.index,), lang), tuple(gone), True)
                    )
                continue
            clauses = _clauses(sentence)
            retired, kept, added = _anchored(clauses, olds, known)
            if not retired and len(clauses) > 1:
                # Read whole when no part anchors: "The Kew trip got moved, …, so we went on 4 June instead".
                retired, kept, added = _anchored([sentence], olds, known)
            if not retired:
                retired, kept, added = _named_swap(sentence, olds, known)
            if not retired:
                # "Morwenna's moving to Australia, so Alasdair's coaching our crew": the role by its verb
                # (grounding/handover.py); the sentence, naming both, is the new fact.
                handed = handovers(sentence, known)
                retired = [h.index for h in handed]
                kept = [sentence] if handed else []
                added = {h.new_name for h in handed}
            if not retired:
                # "He cambiado de harina: ahora compro a Harinas Serrano": the slot named as changed
                # (grounding/slotchange.py).
                retired, names = slot_changes(sentence, known)
                kept = [sentence] if retired else []
                added = set(names)
            swapped = []
            if not retired:
                # "Tuesdays, not Thursdays" when no slot anchors: the older fact with that one value swapped keeps
                # its other, still true parts (grounding/substitution.py).
                # A value the session says stays ("the stills stay in Dunoon") is not swapped out.
                swapped = [
                    swap
                    for swap in swaps(sentence, known)
                    if swap.index not in taken and not stays(swap.old_value, said)
                ]
                for swap in swapped:
                    taken.add(swap.index)
                    out.append(
                        Revision(
                            _fact(swap.text, (turn.index,), lang, swap.new_value),
                            (swap.index,),
                            True,
                            keeps_kind=True,
                        )
                    )
            # A parent named stays the user's parent whatever changes about them (grounding/kin.py).
            fresh = [i for i in retired if i not in taken and not names_a_parent(known[i])]
            if not fresh and any(i not in taken for i in retired):
                # Only a parent's name was read as changed: the sentence is a new state about them, stored as is.
                out.append(Revision(_fact(_text([sentence], lang), (turn.index,), lang), (), True))
                continue
            if not fresh:
                if not retired and not swapped:
                    out.extend(_stated_change(sentence, turn.index, lang, session, known, cued=was_cued))
                continue
            taken.update(fresh)
            out.extend(_trades_kept(sentence, fresh, known, turn.index, lang, session))
            thing = swapped_thing(sentence, known[fresh[0]]) if len(fresh) == 1 else ""
            if thing:
                # "Moving to Slack" after "uses Microsoft Teams, based in Leeds": Leeds still holds (mixed.py).
                fact = _fact(thing, (turn.index,), lang, " ".join(sorted(added)))
                out.append(Revision(fact, tuple(fresh), True, keeps_kind=True))
                continue
            wanted = frozenset(v for v in added if any(v in fold(c) or v in _masked(c).values for c in kept))
            covering = _covering(wanted, turn.index, session) if wanted else None
            if covering is not None:
                out.append(Revision(covering, tuple(fresh), is_new=False))
                continue
            if not kept or not wanted:
                # Only what the old value did ("Ray Dunmore has retired"): the older facts go, nothing is added.
                out.append(Revision(None, tuple(fresh), is_new=False))
                continue
            text = _with_kept_date(_text(kept, lang), [known[i] for i in fresh])
            out.append(
                Revision(_fact(text, (turn.index,), lang, " ".join(sorted(wanted))), tuple(fresh), True)
            )
    return out


def _new_job(turn: int, session: Sequence[GroundedFact]) -> bool:
    """Whether the session states a job in the turn ("I started as a project manager at Birmingham City Council")."""
    return any(turn in f.turns and (f.slot == "identity.role" or states_profession(f.text)) for f in session)


def _trades_kept(
    sentence: str,
    indices: Sequence[int],
    known: Sequence[str],
    turn: int,
    lang: str,
    session: Sequence[GroundedFact],
) -> list[Revision]:
    """The professions older facts state beside the place or employer a change replaces, each as a fact of its own
    ("L'utilisateur est luthier." once "Je m'installe à Nancy" retires "L'utilisateur est luthier à Mirecourt."):
    a move or a new employer ends the place, not the trade. None when the turn states a new job or the sentence
    names the role itself ("I'm a senior surveyor at Halden now")."""
    if _new_job(turn, session):
        return []
    said = said_stems(sentence)
    out = []
    for index in indices:
        text, role = trade_of(known[index])
        if text and not role & said:
            out.append(Revision(_fact(text, (turn,), lang), (index,), True, keeps_kind=True))
    return out


#: The resolved day the writer appends to a date ("28 March (2026-03-28)").
_RESOLVED_DAY = re.compile(r"\s*\(\d{4}-\d{2}(?:-\d{2})?\)")
#: Any fixed day serves to find a date's span; only the words of the older fact are kept, never a new resolution.
_SPAN_DAY_MS = 0


def _with_kept_date(text: str, retired: Sequence[str]) -> str:
    """The new fact with the date of the one older fact it retires, when it says no date itself: "the concert is
    moving to Hexham Abbey" replaces where, not when, so "…, it's on Saturday 28 March at St Cuthbert's" keeps its
    still-true date ("The concert is moving to Hexham Abbey — 28 March (2026-03-28)."). With two dated
    older facts which date stays is unknown: none is added."""
    if masked(text).dated:
        return text
    dated = [old for old in retired if masked(old).dated]
    if len(dated) != 1:
        return text
    mentions = find_dates(dated[0], _SPAN_DAY_MS)
    if not mentions:
        return text
    first = mentions[0]
    resolved = _RESOLVED_DAY.match(dated[0], first.end)
    phrase = dated[0][first.start : resolved.end() if resolved else first.end].strip()
    return f"{text.rstrip('.!')} — {phrase}."


#: A fact said as what holds now ("I'm at NOAA now", "je suis maintenant …", "ahora trabajo en …").
_NOW = re.compile(r"\b(?:now|nowadays|maintenant|désormais|ahora|jetzt|nun|agora)\b", _I)


def _new_state_in_turn(turn_index: int, sentence: str, session: Sequence[GroundedFact]) -> bool:
    """Whether another sentence of the same turn is read as a fact of the session said as what holds now: the new
    state the leaving ("I've left the university", "I'm no longer a trainee") makes way for."""
    return any(
        turn_index in f.turns and _NOW.search(f.text) is not None and not _shares_clause(f.text, sentence)
        for f in session
    )


def _shares_clause(fact_text: str, sentence: str) -> bool:
    """Whether a fact was read from this very sentence (most of its content words are the sentence's)."""
    said = {light_stem(t) for t in re.findall(r"[^\W\d_]{3,}", fold(sentence))}
    own = [light_stem(t) for t in re.findall(r"[^\W\d_]{3,}", fold(fact_text)) if t not in STOP_WORDS]
    return bool(own) and sum(t in said for t in own) * 2 > len(own)


def _fact(text: str, turns: tuple[int, ...], lang: str, value: str = "") -> GroundedFact:
    dated = masked(text).dated
    return GroundedFact(
        kind=FactKind.PLAN if dated else FactKind.PREFERENCE,
        text=text,
        slot="",
        value=value,
        turns=turns,
        salience=0.7,
        is_identity=False,
        language=lang,
    )


__all__ = ["DEPARTURE_CUE", "MAX_CHARS", "MIN_SHARED", "REVISION_CUE", "Revision", "revisions"]
