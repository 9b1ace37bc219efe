"""Verified facts → rows to write: a repeat bumps the existing fact, a new value in a known slot supersedes it."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from memoryd.write.dedup import Embedder, FactPlan, bumped_salience, normalize_tokens, plan_facts
from memoryd.write.grounding import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.changed_slot import changed_slot
from memoryd.write.grounding.dates import MONTHS
from memoryd.write.grounding.event import events_of, moves_date, same_event
from memoryd.write.grounding.lexicon import NAME, RELATIONS
from memoryd.write.grounding.owner import someone_elses
from memoryd.write.grounding.recurring import keeps_one_off
from memoryd.write.grounding.revisions import revisions
from memoryd.write.grounding.roles import ROLE_KEYS, role_key
from memoryd.write.grounding.rules import is_name
from memoryd.write.grounding.schedule import changes_schedule, replaces_schedule
from memoryd.write.grounding.skeleton import Masked, masked
from memoryd.write.grounding.skeleton import same_slot as same_skeleton
from memoryd.write.grounding.slotfill import SUCCESSOR
from memoryd.write.grounding.stale import (
    ACTIVITY,
    EVENT,
    HELD,
    JOB,
    LEFT_JOB,
    PERSON,
    TASTE,
    THING,
    names_value,
    same_kind,
    stale_mentions,
)
from memoryd.write.grounding.templates import TEMPLATE_WORDS, TOWN_OF_WORK, render
from memoryd.write.grounding.text import NUMBER_WORDS, STOP_WORDS, fold, light_stem, tokens
from memoryd.write.grounding.word_family import same_family
from memoryd.write.parse import Candidate
from memoryd.write.store_protocol import ExistingFact, FactBump, NewFact, NewIdentityFact, ReplacedFact

#: Maps a session's turn indices to the transcript ids they were stored as.
TurnIds = Callable[[Sequence[int]], tuple[int, ...]]


@dataclass(frozen=True)
class GroundedPlan:
    """What a distillation writes for its facts."""

    facts: FactPlan
    identity_inserts: tuple[NewIdentityFact, ...]
    identity_bumps: tuple[str, ...]
    #: Existing facts (pinned and identity, either table) a new value replaced.
    superseded: int
    #: Facts of the session replaced later in it by a value an existing row holds (that row is bumped):
    #: (the replaced fact, the existing row's id, whether that row is an identity fact).
    kept_history: tuple[tuple[ReplacedFact, str, bool], ...] = ()


def same_value(existing: str, value: str) -> bool:
    """Whether an existing fact already states `value` (every content word of the value occurs in it)."""
    wanted = normalize_tokens(value)
    return bool(wanted) and wanted <= normalize_tokens(existing)


def _slot_decision(
    fact: GroundedFact, pool: Sequence[ExistingFact]
) -> tuple[ExistingFact | None, tuple[str, ...]]:
    """(the existing fact this one repeats, or None; ids of the slot's facts it supersedes)."""
    if not fact.slot:
        return None, ()
    if fact.slot.startswith(_PLAN):
        # A plan's slot word is unstable ("plan.move" for "the launch moves to …"): its event decides.
        plans = [e for e in pool if e.slot.startswith(_PLAN)]
        same_event_plans = [plans[i] for i in events_of(fact.text, [e.content for e in plans])]
        for existing in same_event_plans:
            if not moves_date(existing.content, fact.text):
                return existing, ()
        return None, tuple(e.id for e in same_event_plans)
    same_slot = [e for e in pool if competes(e.slot, fact.slot)] or _kin_relation(fact.slot, pool)
    if fact.slot.startswith("instruction."):
        # "Keep citing cases, but add a one-line summary" confirms "cite the actual statute or case name".
        same_slot = [e for e in same_slot if not _kept_instruction(fact.text, e.content)]
    for existing in same_slot:
        if same_value(existing.content, fact.value or fact.text):
            return existing, ()
    return None, tuple(e.id for e in same_slot)


_PLAN = "plan."
#: "keep citing", "still use", "continue à citer", "sigue usando", "weiterhin zitieren", "continua a citar": the word
#: after it names what the user keeps doing.
_KEEP = re.compile(
    r"\b(?:keep|keeps|still|continue to|continue|carry on|continuez? à|continue à|toujours|sigue|sigues|seguir|"
    r"continúa|weiterhin|immer noch|continua a|continue a|continuar a)\s+(?P<w>[^\W\d_][\w'-]*)",
    re.IGNORECASE,
)


def _kept_instruction(new: str, old: str) -> bool:
    """Whether a new standing instruction says to keep doing what an older one asked ("keep citing cases" after
    "cite the actual statute"): it adds to that instruction, it does not replace it."""
    held = {light_stem(w) for w in tokens(old) if w not in STOP_WORDS}
    return any(
        fold(m.group("w")) not in STOP_WORDS and light_stem(fold(m.group("w"))) in held
        for m in _KEEP.finditer(new)
    )


#: Relation keys with one current value (manager, vet, doctor…): a person leaving one of them is replaced.
_SINGLE_RELATIONS = frozenset(key for key, single in RELATIONS.values() if single)
#: Single-valued relations held by someone in a role, who can leave it (a partner or a parent does not).
_ROLES = _SINGLE_RELATIONS - {"partner", "mother", "father"}
#: Slots whose value a dropped tool, service or habit may have been ("switched away from Jira").
_THING_SLOTS = (
    "choice.",
    "tool.",
    "preference.",
    "diet.",
    "plan.",
    "routine.",
    "target",
    "favorite.",
    "instruction.",
)
#: Identity slots a place or holder the user is no longer with may have been stored in ("no longer at Acme").
_HELD_SLOTS = (
    "identity.home",
    "identity.workplace",
    "identity.employer",
    "identity.business",
    "identity.team",
)
_NAMES = re.compile(NAME)
#: The slots a job is stored in: a job change retires both.
_JOB_SLOTS = ("identity.role", "identity.employer", "identity.workplace")
#: Slots of facts that may restate a relation in passing ("Mein Chef heißt Herr Becker, er will bis Freitag …").
_RESTATING_SLOTS = ("plan.", "target")


def _single_relation(slot: str) -> str:
    """The key of a single-valued relation slot ("relation.vet" → "vet"), else ""."""
    parts = slot.split(".")
    return parts[1] if len(parts) == 2 and parts[0] == "relation" and parts[1] in _SINGLE_RELATIONS else ""


def _base_relation(slot: str) -> str:
    """The single-valued relation a relation slot names, qualified or not ("relation.thesis_adviser" and
    "relation.adviser" → "adviser"), else ""."""
    parts = slot.split(".")
    if len(parts) != 2 or parts[0] != "relation":
        return ""
    base = parts[1].rsplit("_", 1)[-1]
    return base if base in _SINGLE_RELATIONS or base in ROLE_KEYS else ""


def _kin_relation(slot: str, pool: Sequence[ExistingFact]) -> list[ExistingFact]:
    """The one fact of the same relation said with another qualifier ("my thesis adviser" after "my adviser"),
    when the agent holds exactly one: then both name the same role. With two ("eye doctor" and "doctor") which one
    a bare "my doctor" replaces is unknown, and none is."""
    base = _base_relation(slot)
    if not base or _added_holder(slot):
        return []
    plain = f"relation.{base}"
    # One of the two must be the plain relation: "the coffee supplier" and "the milk supplier" are two.
    kin = [
        e
        for e in pool
        if e.slot != slot
        and _base_relation(e.slot) == base
        and plain in (e.slot, slot)
        and not _added_holder(e.slot)
    ]
    return kin if len(kin) == 1 else []


#: Qualifiers of a relation naming one more holder beside the first ("my second supervisor", "mi segunda médica",
#: "mein zweiter Betreuer"): that relation adds a person, it replaces none.
_ADDED_QUALIFIERS = frozenset(
    [
        "second",
        "third",
        "another",
        "other",
        "additional",
        "extra",
        "deuxieme",
        "seconde",
        "troisieme",
        "autre",
        "segundo",
        "segunda",
        "tercero",
        "tercera",
        "otro",
        "otra",
        "zweite",
        "zweiter",
        "zweiten",
        "dritte",
        "dritter",
        "andere",
        "anderer",
        "outro",
        "outra",
        "terceiro",
        "terceira",
    ]
)


def _added_holder(slot: str) -> bool:
    """Whether a relation slot's qualifier names an additional holder ("relation.second_manager")."""
    parts = slot.split(".")
    if len(parts) != 2 or "_" not in parts[1]:
        return False
    return any(fold(word) in _ADDED_QUALIFIERS for word in parts[1].rsplit("_", 1)[0].split("_"))


def _relation_keys(content: str) -> set[str]:
    """Single-valued relation keys a text names by their noun ("The user's manager, Tomás, …" → {"manager"})."""
    return {
        RELATIONS[t][0] for t in tokens(content) if t in RELATIONS and RELATIONS[t][0] in _SINGLE_RELATIONS
    }


def _retired_by_mentions(fact: GroundedFact, pool: Sequence[ExistingFact]) -> tuple[str, ...]:
    """Ids of active facts stating a value the fact's turn says no longer holds (grounding/stale.py)."""
    out: list[str] = []
    for scope, value in fact.replaces:
        if scope == JOB:
            # "I've left TfL, I'm driving for Sullivan Buses now": the older job, as a role or an employer.
            out.extend(
                e.id
                for e in pool
                if e.slot in _JOB_SLOTS and e.id not in out and not names_value(e.content, value)
            )
            continue
        if scope == TASTE:
            out.extend(e for e in _older_tastes(fact, value, pool) if e not in out)
            continue
        if scope == EVENT:
            out.extend(e for e in _older_dates(fact, value, pool) if e not in out)
            continue
        for existing in pool:
            if not names_value(existing.content, value) or existing.id in out:
                continue
            if fact.value and names_value(existing.content, fact.value):
                continue  # it already states the new value too ("Dr. Li left; the new vet is Dr. Park")
            slot = existing.slot
            if scope == PERSON:
                # Someone who left a role ("Dr. Harris retired"): a professional the user has one of, or the
                # employer; a partner or a parent who "moved to Paris" is still the user's partner or parent.
                fits = (
                    _single_relation(slot) in _ROLES
                    or bool(_role(slot))
                    or slot == "identity.employer"
                    or (not slot and bool(_relation_keys(existing.content) & _ROLES))
                )
            elif scope == HELD:
                # A place or holder the user is no longer with ("nicht mehr für Petershausen"): where they live or
                # work, their employer, or a role held by no one of their family (a supplier, a district).
                fits = bool(_role(slot)) or slot in _HELD_SLOTS
            else:
                # A thing dropped may have been a role's holder that is no person: a supplier or a district held
                # ("I've stopped using Zest" retires "The user's supplier is Zest Flowers"); kin and friends, whose
                # slots name the person, never are.
                fits = scope in (THING, ACTIVITY) and (
                    not slot or slot.startswith(_THING_SLOTS) or bool(_role(slot))
                )
            if fits:
                out.append(existing.id)
    return tuple(out)


#: Words of time that name no event ("by the end of March", "next week"): no overlap of theirs makes two plans one.
_TIME_WORDS = frozenset(
    light_stem(w)
    for w in "end start begin day week month year time next last first weekend morning evening night".split()  # noqa: SIM905
) | frozenset(light_stem(w) for w in NUMBER_WORDS)  # a count names no event: "chapter six" is not "six-month"
#: A date of the year, not a weekly day: a month name or an ordinal ("March 28th", "le 8 septembre", "am 9. April").
_DAY_OF_YEAR = re.compile(
    r"\b(?:"
    + "|".join(sorted((m for m in MONTHS if len(m) > 3), key=len, reverse=True))
    + r")\b|\b\d{1,2}(?:st|nd|rd|th)\b",
    re.IGNORECASE,
)


def _shares_family(old: frozenset[str], said: frozenset[str], own: frozenset[str]) -> bool:
    """Whether the changed date's words (`said`: its sentence and the one before) and an older plan's share a word,
    or the fact's own words (`own`) and the older plan's a word family (`same_family`): "Le parc a décalé la
    livraison" is about "leur livrer la carte … le 27 février". A family is looser than a word, so only the
    sentence that states the date is read for one ("il part s'installer" before it is no "participe")."""
    return bool(old & said) or any(same_family(a, b) for a in old for b in own)


def _older_dates(fact: GroundedFact, context: str, pool: Sequence[ExistingFact]) -> list[str]:
    """Older dated plans about something the changed date's turn names (`context`: its stemmed words), with a date
    the new fact does not state: "The haul-out is booked for March 28th" once "the haul-out kept slipping, Kittiwake
    now comes out on May 2nd" is said."""
    said = frozenset(context.split()) - _TIME_WORDS
    new = masked(fact.text)
    return [
        e.id
        for e in pool
        if e.content != fact.text
        and (not e.slot or e.slot.startswith(_PLAN))
        and _DAY_OF_YEAR.search(fold(e.content))  # "27 février", "3 de março": months said with accents
        and (old := masked(e.content)).dated
        and _shares_family(old.skeleton, said, new.skeleton - _TIME_WORDS)
        # "A Andrés le han ofrecido trabajo en Alicante y nos mudamos en septiembre": one word shared with the
        # user's work schedule, but the husband's (grounding/owner.py).
        and not _someone_elses_word(fact.text, old, new)
        and old.relations == new.relations
        and old.values - new.values
        and not (new.values <= old.values)
        # A weekly schedule gives no new day to a one-off event (grounding/recurring.py).
        and not keeps_one_off(e.content, fact.text)
    ]


def _someone_elses_word(text: str, old: Masked, new: Masked) -> bool:
    """Whether the one word a changed date's fact shares with an older plan is someone else's ("A Andrés le han
    ofrecido trabajo …" after the user's "trabajo de mañana"; grounding/owner.py). Two shared words or more decide
    as before."""
    shared = frozenset(w for w in old.skeleton & new.skeleton if w not in _TIME_WORDS)
    return len(shared) == 1 and someone_elses(text, shared, frozenset(new.values - old.values))


def _older_tastes(fact: GroundedFact, value: str, pool: Sequence[ExistingFact]) -> list[str]:
    """Unslotted likings and habits of the user ("The user prefers …", "The user drinks …") about the same kind of
    thing as the new one ("tea" before "coffee"), or naming the new value ("prefers tea to coffee"), said with the
    same polarity: "doesn't like tea" stays true when coffee is now preferred."""
    subject = _TASTE_SUBJECT.match(fact.text)
    if subject is None or fact.text.find(value) <= 0:
        return []
    negative = bool(_NEGATIVE.search(fact.text))
    said = fact.text[subject.end() :].split()
    new_verb = fold(said[0]) if said else ""
    out = []
    for existing in pool:
        if (
            existing.slot
            or existing.content == fact.text
            or not existing.content.startswith(subject.group(0))
        ):
            continue
        if bool(_NEGATIVE.search(existing.content)) != negative:
            continue
        thing = existing.content[subject.end() :].rstrip(".")
        old_verb = fold(thing.split()[0]) if thing.split() else ""
        if old_verb != new_verb and old_verb not in _HABIT_VERBS:
            continue  # "loves coffee" is not replaced by "prefers tea"; a habit ("drinks coffee") is
        if names_value(thing, value) or same_kind(thing, value):
            out.append(existing.id)
    return out


#: Verbs of a habit ("drinks", "boit", "trinkt"): a new liking of the kind replaces the habit.
_HABIT_VERBS = frozenset(fold(w) for w in "drinks eats boit mange toma bebe come trinkt isst".split())  # noqa: SIM905
#: How a fact about the user opens in each language's template ("The user ", "El usuario ", "Der Nutzer ").
_TASTE_SUBJECT = re.compile(
    r"^(?:The user|L'utilisateur|El usuario|Al usuario|Der Nutzer|O usuário|O utilizador)\s+"
)
_NEGATIVE = re.compile(
    r"\b(?:not|never|doesn't|don't|no longer|ne|n'|pas|plus|no|nunca|nicht|kein|keine|keinen|nie|não)\b",
    re.IGNORECASE,
)


#: Relation nouns as tokens() gives them ("médico" → "medico"): a fact's opening noun is no name.
_FOLDED_RELATIONS = frozenset(fold(word) for word in RELATIONS)


def _old_names(old: ExistingFact, fact: GroundedFact) -> list[str]:
    """The names a replaced relation fact held that the new one does not ("Tomás" of "The user's manager is
    Tomás." replaced by Aylin); template words and relation nouns ("Chef des Nutzers") are not names."""
    found = []
    for match in _NAMES.finditer(old.content):
        name = match.group("v")
        words = tokens(name)
        if not is_name(name) or all(
            w in TEMPLATE_WORDS or w in _FOLDED_RELATIONS or w in STOP_WORDS or role_key(w) for w in words
        ):
            continue
        if fact.value and names_value(fact.value, name):
            continue
        found.append(name)
    return found


def _restatements(
    fact: GroundedFact, replaced: Sequence[ExistingFact], pool: Sequence[ExistingFact]
) -> tuple[str, ...]:
    """Unslotted facts restating a replaced relation ("The user's manager, Tomás, wants a plan by Friday"): they
    name the old person with the same relation noun, so they go with the fact they restate."""
    key = _single_relation(fact.slot)
    role = _role(fact.slot)
    if not key and not role:
        return ()
    names = [name for old in replaced for name in _old_names(old, fact)]
    # The turn names who left ("Kwesi has moved to a job in Ghana"): an older fact naming two holders ("primary
    # supervisor is Helena, second is Kwesi") restates only the one who left; Helena's tasks stay.
    left = [value for scope, value in fact.replaces if scope == PERSON]
    if left:
        names = [n for n in names if any(names_value(n, v) or names_value(v, n) for v in left)]
    if names:
        # "Ernesto" of "Ernesto Lasheras", "Santa Inês" of "Fazenda Santa Inês": a part of the holder's name.
        names += [
            " ".join(parts[i:j])
            for parts in (n.split() for n in names if len(n.split()) > 1)
            for i in range(len(parts))
            for j in range(i + 1, len(parts) + 1)
            if (j - i) < len(parts) and len(parts[i]) > 2 and parts[i].rstrip(".") not in _TITLES
        ]
    gone = {old.id for old in replaced}
    return tuple(
        e.id
        for e in pool
        if (not e.slot or e.slot.startswith(_RESTATING_SLOTS))
        and e.id not in gone
        # Named with the same relation or role noun ("The user's PI, Professor Drummond, and the user are applying…"
        # restates the PI), or a plan or task naming the one who held a role ("mandarle las facturas a Ernesto",
        # "Luis starts demolition on April 13"): the work was theirs in that role, and someone else holds it now.
        # What they did ("Dana recommended a book on negotiation") stays true.
        and ((key or role) in (_relation_keys(e.content) | _role_keys(e.content)) or _is_task_or_plan(e))
        and any(names_value(e.content, name) for name in names)
        and not (fact.value and names_value(e.content, fact.value))
    )


#: How a task or a plan is stored (templates.py "remind", "plan", "needs"), or a date the writer resolved in one.
_TASK_OR_PLAN = re.compile(
    r"^(?:The user asked to be reminded|The user needs to|The user will|Rappel demandé|Recordatorio pedido|"
    r"Erinnerung für|Lembrete pedido|Prévu :|Plan:|Geplant:|Planejado:)|\(\d{4}-\d{2}-\d{2}\)"
)


def _is_task_or_plan(fact: ExistingFact) -> bool:
    return fact.slot.startswith(_PLAN) or bool(_TASK_OR_PLAN.search(fact.content))


def _role_keys(content: str) -> set[str]:
    """Role keys (grounding/roles.py) a text names by their noun ("Gestor del usuario: …" → {"accountant"})."""
    return {key for key in (role_key(word) for word in re.findall(r"[\w'-]+", content)) if key}


_TITLES = frozenset("Dr Dra Mr Mrs Ms Mx Prof Professor Herr Frau Sr Sra Mme Mlle".split())  # noqa: SIM905


def _role(slot: str) -> str:
    """The key of a role slot read by grounding/roles.py ("relation.hygienist" → "hygienist"), else ""."""
    parts = slot.split(".")
    return (
        parts[1] if len(parts) == 2 and parts[0] == "relation" and parts[1] not in _SINGLE_RELATIONS else ""
    )


def _supersedes(
    fact: GroundedFact, same_slot: tuple[str, ...], pool: Sequence[ExistingFact]
) -> tuple[str, ...]:
    """Everything a new fact replaces: its slot's older values, their restatements, and values said to be gone."""
    by_id = {e.id: e for e in pool}
    mentioned = _retired_by_mentions(fact, pool)
    # The holders of a role the fact replaces, by slot or because the turn says they left ("Ernesto se ha jubilado").
    replaced = [by_id[i] for i in (*same_slot, *mentioned) if i in by_id]
    found = [
        *same_slot,
        *_restatements(fact, replaced, pool),
        *mentioned,
        *_moved_schedules(fact, pool),
        *_town_of_old_job(fact, pool),
    ]
    if not found:
        found = _same_skeleton(fact, pool)
    return tuple(dict.fromkeys(found))


#: "The user works in ", "L'utilisateur travaille à ", …: a workplace stated as a town only.
_WORKS_IN_TOWN = tuple(
    render("works_in", lang, f"{prep} \0").split("\0")[0] for lang, prep in TOWN_OF_WORK.items()
)


#: "The user works as ", "Der Nutzer arbeitet als ", …: a workplace said with the role held there (distill47:
#: "The user works as a farrier in Hexham.", grounding/role_towns.py and the introduction reader).
_WORKS_AS = tuple(render("works_as", lang, "\0").split("\0")[0] for lang in TOWN_OF_WORK)
#: Such a fact ends with the job's town ("… in Hexham.", "… à La Clusaz.", "… de Valencia.").
_ENDS_IN_TOWN = re.compile(
    r"\s(?:in|à|en|em|de|da|do)\s+[A-ZÀ-ÖØ-Þ][\w'’-]*(?:[ -]+(?:(?:de|del|la|le|da|do|upon|am|sur)\s+)*"
    r"[A-ZÀ-ÖØ-Þ][\w'’-]*)*\.$"
)
#: The most words a role said with its town adds to a workplace-town fact.
_ROLE_WORDS = 8


def _is_town_of_job(content: str) -> bool:
    """A workplace stated as a town only, or as the role held in that town."""
    words = len(content.split())
    if content.startswith(_WORKS_IN_TOWN):
        return words <= _TOWN_FACT_WORDS
    return (
        content.startswith(_WORKS_AS)
        and _ENDS_IN_TOWN.search(content) is not None
        and words <= _TOWN_FACT_WORDS + _ROLE_WORDS
    )


def _town_of_old_job(fact: GroundedFact, pool: Sequence[ExistingFact]) -> list[str]:
    """A new home in another town retires the older workplace stated only as a town ("Der Nutzer arbeitet in
    Fulda.", read from "Gemeindereferentin in Fulda") or as the role held in that town ("Der Nutzer arbeitet als
    Gemeindereferentin in Fulda."): the town the job was placed in goes with the move, as the home once guessed
    from it did. A workplace named otherwise ("works at a bakery") stays, and so does the town the new home is
    in."""
    if fact.slot != "identity.home" or not fact.value:
        return []
    return [
        e.id
        for e in pool
        if e.slot == "identity.workplace"
        and _is_town_of_job(e.content)
        and not names_value(e.content, fact.value)
    ]


#: The most words a workplace-town fact has ("O usuário trabalha em Vila Nova de Gaia." is 8).
_TOWN_FACT_WORDS = 9


def _same_skeleton(fact: GroundedFact, pool: Sequence[ExistingFact]) -> list[str]:
    """What the slot readers missed: older facts saying the same thing about another value (grounding/skeleton.py).
    A fact a slot reader filed elsewhere is left to it ("relation.vet" is not replaced by a "plan." fact)."""
    return [
        e.id
        for e in pool
        if (not e.slot or not fact.slot or competes(e.slot, fact.slot) or e.slot.startswith(_PLAN))
        and e.content != fact.text
        and same_skeleton(e.content, fact.text)
    ]


#: Slots a weekly schedule is stored under (or none): the value-type slot of schedule.py spans them.
_SCHEDULE_SLOTS = ("plan.", "routine.")


def _moved_schedules(fact: GroundedFact, pool: Sequence[ExistingFact]) -> list[str]:
    """Older schedules a changed schedule replaces ("we train … on Tuesdays instead" after "We train Wednesday
    evenings"), whatever head word each was slotted under (grounding/schedule.py)."""
    if fact.is_identity or not (not fact.slot or fact.slot.startswith(_SCHEDULE_SLOTS)):
        return []
    if not changes_schedule(fact.text):
        return []
    return [
        e.id
        for e in pool
        if (not e.slot or e.slot.startswith(_SCHEDULE_SLOTS))
        and e.content != fact.text
        and replaces_schedule(e.content, fact.text)
    ]


def slot_key(slot: str) -> str:
    """The slot a fact competes in: a tool used for a purpose and a choice made for it are one ("I use Jira for
    tickets" = tool.issue_tracking, "we're switching to Linear for tickets" = choice.issue_tracking)."""
    return "choice." + slot[5:] if slot.startswith("tool.") else slot


#: What a target measures, the last part of its slot ("target.time", "target.york.time").
_MEASURES = frozenset({"time", "amount", "weight"})


def competes(old_slot: str, new_slot: str) -> bool:
    """Whether a new fact's slot replaces an old one's: the same slot (tool.X = choice.X), or targets of one
    measure where one of them names no event ("finish under 2 hours" then "my target for York is now 1:50")."""
    old, new = slot_key(old_slot), slot_key(new_slot)
    if old == new:
        return True
    old_parts, new_parts = old.split("."), new.split(".")
    if old_parts[0] != "target" or new_parts[0] != "target" or old_parts[-1] != new_parts[-1]:
        return False
    return old_parts[-1] in _MEASURES and (len(old_parts) == 2 or len(new_parts) == 2)


def session_replacements(facts: Sequence[GroundedFact]) -> list[tuple[GroundedFact, GroundedFact]]:
    """(earlier fact, the later fact of the same session that takes its place) for each fact a later one of its slot
    follows ("I live in Paris… actually, we moved to Lyon").

    Plans go by their event, not their slot's head word: "a dentist appointment on May 3" and "a physio appointment
    on May 10" both stay; "the launch is on Oct 1" gives way to "the launch moves to Oct 6" said after it (the last
    such plan takes its place)."""
    last: dict[str, GroundedFact] = {}
    for fact in facts:
        if fact.slot and not fact.slot.startswith(_PLAN):
            key = slot_key(fact.slot)
            held = last.get(key)
            if held is None or max(fact.turns, default=-1) >= max(held.turns, default=-1):
                last[key] = fact
    out: list[tuple[GroundedFact, GroundedFact]] = []
    for fact in facts:
        if not fact.slot:
            continue
        if not fact.slot.startswith(_PLAN):
            if last[slot_key(fact.slot)] is not fact:
                out.append((fact, last[slot_key(fact.slot)]))
            continue
        later = [
            other
            for other in facts
            if other is not fact
            and other.slot.startswith(_PLAN)
            and max(other.turns, default=-1) > max(fact.turns, default=-1)
            and same_event(fact.text, other.text)
        ]
        if later:
            out.append((fact, max(later, key=lambda f: max(f.turns, default=-1))))
    return out


def latest_per_slot(facts: Sequence[GroundedFact]) -> list[GroundedFact]:
    """One fact per slot within a session: the one said last (`session_replacements` names the others)."""
    dropped = {id(old) for old, _new in session_replacements(facts)}
    return [f for f in facts if id(f) not in dropped]


def replaced_in_session(facts: Sequence[GroundedFact]) -> dict[int, list[GroundedFact]]:
    """The earlier facts of the session each kept fact corrected, by `id()` of the kept fact: those it replaces
    with another value, said in other turns. A later fact that restates the earlier value ("I live in Paris" …
    "yes, Paris, the 11th") or a plan said again with no new date corrects nothing, and an earlier fact from one of
    the later fact's own turns ("my manager is Ana, Bob was before") is no line the user took back."""
    out: dict[int, list[GroundedFact]] = {}
    for old, new in session_replacements(facts):
        if set(old.turns) & set(new.turns) or not old.turns:
            continue
        if new.slot.startswith(_PLAN):
            changed = moves_date(old.text, new.text)
        else:
            value = old.value or old.text
            changed = not same_value(new.text, value) and normalize_tokens(new.text) != normalize_tokens(
                old.text
            )
        if changed:
            out.setdefault(id(new), []).append(old)
    return out


def holder_who_left(fact: GroundedFact, turns: Sequence[SourceTurn]) -> bool:
    """Whether a relation or identity fact names, as its value, a person its own turn says left the role: "he
    cambiado de gestor: Ramón se jubiló y ahora nos lleva las cuentas la gestoría Nalón" read as "Gestor del
    usuario: Ramón" states the old holder, not a current one (the fact of the new holder, or the correction, carries
    the change). Someone else leaving ("Bob left, Ana is my manager now") leaves a fact about Ana alone."""
    if fact.kind not in (FactKind.RELATION, FactKind.IDENTITY) or not fact.value:
        return False
    said = [t.user for t in turns if t.index in fact.turns]
    return any(
        m.scope == PERSON and names_value(fact.value, m.value) for text in said for m in stale_mentions(text)
    )


def _role_of_successor(
    fact: GroundedFact, pinned: Sequence[ExistingFact], identity: Sequence[ExistingFact]
) -> GroundedFact:
    """A successor fact ("Gillian retired, so Martin Doyle took over our books") takes the role the agent's memory
    holds for the person replaced: the older fact's wording with the new name, in its slot ("The user's accountant
    is Martin Doyle.", relation.accountant). Without such a fact it stays a plain fact in the user's words."""
    if fact.slot != SUCCESSOR:
        return fact
    olds = [value for scope, value in fact.replaces if scope == PERSON]
    for existing in (*pinned, *identity):
        if not _single_relation(existing.slot) and not _role(existing.slot):
            continue
        for match in _NAMES.finditer(existing.content):
            name = match.group("v")
            if is_name(name) and any(names_value(name, old) or names_value(old, name) for old in olds):
                text = existing.content[: match.start()] + fact.value + existing.content[match.end() :]
                return replace(fact, slot=existing.slot, text=text)
    return replace(fact, slot="")


def plan_grounded(
    facts: Sequence[GroundedFact],
    pinned: Sequence[ExistingFact],
    identity: Sequence[ExistingFact],
    turn_ids: TurnIds,
    embed: Embedder | None = None,
    turns: Sequence[SourceTurn] = (),
) -> GroundedPlan:
    """Split verified facts into inserts and bumps, with provenance and supersession links.

    With the session's `turns`, corrections are also read against the agent's facts (grounding/revisions.py): the
    older facts they retire are superseded by the fact stating the new value (the session's own, or the correcting
    sentence inserted as a fact); a correction that only says the old value is gone retires through another fact
    the same session inserts (from its turn when there is one), since supersession links to a newer row."""
    superseded = 0
    retiring = _Retiring(facts, pinned, identity, turns)
    identity_inserts: list[NewIdentityFact] = []
    identity_bumps: list[str] = []
    slot_bumps: dict[str, float] = {}
    plain: list[GroundedFact] = []
    plain_supersedes: dict[str, tuple[str, ...]] = {}
    plain_other: dict[str, tuple[str, ...]] = {}
    slotted_inserts: list[NewFact] = []
    facts = [_role_of_successor(f, pinned, identity) for f in facts if not holder_who_left(f, turns)]
    replaced = replaced_in_session(facts)
    kept_history: list[tuple[ReplacedFact, str, bool]] = []
    for fact in latest_per_slot(facts):
        history = tuple(
            ReplacedFact(
                old.text, old.salience, turn_ids(old.turns), old.slot, old.kind.value, old.is_identity
            )
            for old in replaced.get(id(fact), ())
        )
        pool, other_pool = (identity, pinned) if fact.is_identity else (pinned, identity)
        repeat, same_slot = _slot_decision(fact, pool)
        # The same slot in the other table: "The user lives in Porto" (identity) and a newer pinned fact of the
        # slot are one fact; only the slot decides there, never a mention (too loose across kinds of fact).
        other_repeat, other_slot = _slot_decision(fact, other_pool)
        supersedes = _supersedes(fact, same_slot, pool)
        more_same, more_other = retiring.take(fact, identity_table=fact.is_identity)
        changed_same, changed_other = _changed_slot(fact, pool, other_pool, turns)
        supersedes = tuple(dict.fromkeys((*supersedes, *more_same, *changed_same)))
        other_slot = tuple(dict.fromkeys((*other_slot, *more_other, *changed_other)))
        if repeat is None and other_repeat is not None:
            # Said again in the slot the other table holds: that fact gains a source, nothing is duplicated.
            kept_history.extend((old, other_repeat.id, not fact.is_identity) for old in history)
            if fact.is_identity:
                slot_bumps[other_repeat.id] = max(
                    slot_bumps.get(other_repeat.id, 0.0),
                    bumped_salience(other_repeat.salience, fact.salience),
                )
            elif other_repeat.id not in identity_bumps:
                identity_bumps.append(other_repeat.id)
            continue
        if fact.is_identity:
            if repeat is not None:
                if repeat.id not in identity_bumps:
                    identity_bumps.append(repeat.id)
                kept_history.extend((old, repeat.id, True) for old in history)
                continue
            if not fact.slot and any(
                normalize_tokens(fact.text) == normalize_tokens(e.content) for e in identity
            ):
                continue
            identity_inserts.append(
                NewIdentityFact(fact.text, turn_ids(fact.turns), fact.slot, supersedes, other_slot, history)
            )
            superseded += len(supersedes) + len(other_slot)
            continue
        if repeat is not None:
            slot_bumps[repeat.id] = max(
                slot_bumps.get(repeat.id, 0.0), bumped_salience(repeat.salience, fact.salience)
            )
            kept_history.extend((old, repeat.id, False) for old in history)
            continue
        if fact.slot:
            slotted_inserts.append(
                NewFact(
                    fact.text,
                    fact.salience,
                    (),
                    turn_ids(fact.turns),
                    fact.slot,
                    fact.kind.value,
                    supersedes,
                    other_slot,
                    history,
                )
            )
            superseded += len(supersedes) + len(other_slot)
        else:
            plain.append(fact)
            plain_supersedes[fact.text] = supersedes
            plain_other[fact.text] = other_slot
    # Facts without a slot: the near-duplicate dedup (token Jaccard, embedding cosine) against the agent's facts.
    by_text: Mapping[str, GroundedFact] = {f.text: f for f in plain}
    # Tags stay empty: the read path treats pinned tags as known entities, and a kind is not an entity.
    dedup = plan_facts([Candidate(f.text, f.salience, ()) for f in plain], pinned, embed)
    inserts = [
        NewFact(
            new.content,
            new.salience,
            new.tags,
            turn_ids(by_text[new.content].turns) if new.content in by_text else (),
            "",
            by_text[new.content].kind.value if new.content in by_text else "",
            plain_supersedes.get(new.content, ()),
            plain_other.get(new.content, ()),
        )
        for new in dedup.inserts
    ]
    superseded += sum(len(new.supersedes) + len(new.supersedes_identity) for new in inserts)
    revised = [
        NewFact(f.text, f.salience, (), turn_ids(f.turns), f.slot, f.kind.value, same, other)
        for f, same, other in retiring.new_facts()
    ]
    for f, same, other in retiring.new_identity_facts():
        superseded += len(same) + len(other)
        twin = next(
            (
                i
                for i, new in enumerate(identity_inserts)
                if normalize_tokens(new.content) == normalize_tokens(f.text)
            ),
            None,
        )
        if twin is None:
            identity_inserts.append(NewIdentityFact(f.text, turn_ids(f.turns), f.slot, same, other))
            continue
        # The session states the swapped fact itself: that row carries the retirements, nothing is duplicated.
        held = identity_inserts[twin]
        identity_inserts[twin] = replace(
            held,
            supersedes=tuple(dict.fromkeys((*held.supersedes, *same))),
            supersedes_pinned=tuple(dict.fromkeys((*held.supersedes_pinned, *other))),
        )
    superseded += sum(len(new.supersedes) + len(new.supersedes_identity) for new in revised)
    slotted_inserts, with_revised, extra = retiring.attach_rest(
        slotted_inserts, [*inserts, *revised], identity_inserts
    )
    inserts, revised = with_revised[: len(inserts)], with_revised[len(inserts) :]
    superseded += extra
    bumps = {b.fact_id: b.salience for b in dedup.bumps}
    for fact_id, salience in slot_bumps.items():
        bumps[fact_id] = max(bumps.get(fact_id, 0.0), salience)
    vectors = (
        (*((None,) * len(slotted_inserts)), *dedup.insert_vectors, *((None,) * len(revised)))
        if dedup.insert_vectors
        else ()
    )
    plan = FactPlan(
        inserts=(*slotted_inserts, *inserts, *revised),
        bumps=tuple(FactBump(k, v) for k, v in bumps.items()),
        merged_in_reply=dedup.merged_in_reply,
        insert_vectors=vectors,
    )
    return GroundedPlan(plan, tuple(identity_inserts), tuple(identity_bumps), superseded, tuple(kept_history))


def _changed_slot(
    fact: GroundedFact,
    pool: Sequence[ExistingFact],
    other_pool: Sequence[ExistingFact],
    turns: Sequence[SourceTurn],
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The one older fact, of either table, whose slot the fact says changed (grounding/changed_slot.py)."""
    # Ids of the two tables may coincide: each is tagged with its table while the rule reads them.
    older = [(f"s{e.id}", e.content) for e in pool] + [(f"o{e.id}", e.content) for e in other_pool]
    found = changed_slot(fact.text, fact.turns, older, turns)
    return tuple(key[1:] for key in found if key[0] == "s"), tuple(key[1:] for key in found if key[0] == "o")


def _given_up(
    turns: Sequence[SourceTurn], known: Sequence[tuple[bool, ExistingFact]]
) -> list[tuple[bool, str]]:
    """(table, id) of the facts an activity the user gave up in these turns names (grounding/stale.py `activity`):
    facts without a slot, or of a thing's slot (a routine, a plan, a choice); never who the user is. With a job the
    user left (`left_job`), the older employer and workplace facts too."""
    mentions = [m for t in turns for m in stale_mentions(t.user)]
    values = [m.value for m in mentions if m.scope == ACTIVITY]
    # "já não trabalho para a Custódia": the user's employer and place of work went with that job.
    left_job = any(m.scope == LEFT_JOB for m in mentions)
    return [
        (is_identity, e.id)
        for is_identity, e in known
        if (
            (not e.slot or e.slot.startswith(_THING_SLOTS)) and any(names_value(e.content, v) for v in values)
        )
        or (left_job and e.slot in _LEFT_JOB_SLOTS)
    ]


#: What a job the user left takes with it: the employer and the workplace, not the profession.
_LEFT_JOB_SLOTS = ("identity.employer", "identity.workplace")


class _Retiring:
    """The older facts corrections retire (grounding/revisions.py), until a new row of the session carries them.

    Each older fact is held as (is_identity, id): the two tables number their rows apart."""

    def __init__(
        self,
        facts: Sequence[GroundedFact],
        pinned: Sequence[ExistingFact],
        identity: Sequence[ExistingFact],
        turns: Sequence[SourceTurn],
    ) -> None:
        known = [(False, e) for e in pinned] + [(True, e) for e in identity]
        self._by_text: dict[str, list[tuple[bool, str]]] = {}
        self._new: list[tuple[GroundedFact, list[tuple[bool, str]]]] = []
        #: Older identity facts with one value swapped: inserted as identity facts in the older fact's slot.
        self._new_identity: list[tuple[GroundedFact, list[tuple[bool, str]]]] = []
        #: Facts retired by corrections whose sentence states no new value of its own.
        self._loose: list[tuple[bool, str]] = []
        # An activity given up ("je ne fais plus le marché de Lons") retires the older facts naming it, whether or
        # not a fact of its turn was read to carry it (the sentence often states no new value a reader knows).
        self._loose.extend(_given_up(turns, known))
        for revision in revisions(turns, facts, [e.content for _t, e in known]) if turns else []:
            olds = [(known[i][0], known[i][1].id) for i in revision.retired]
            if revision.fact is None:
                self._loose.extend(olds)
            elif revision.is_new and revision.keeps_kind and len(olds) == 1:
                # The older fact with one value swapped keeps its table and its slot.
                is_identity, old = known[revision.retired[0]]
                kept = replace(revision.fact, slot=old.slot, is_identity=is_identity)
                (self._new_identity if is_identity else self._new).append((kept, olds))
            elif revision.is_new:
                self._new.append((revision.fact, olds))
            else:
                self._by_text.setdefault(revision.fact.text, []).extend(olds)

    @staticmethod
    def _split(
        olds: Sequence[tuple[bool, str]], *, identity_table: bool
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(ids in the table of the fact carrying them, ids in the other table)."""
        same = tuple(i for is_identity, i in olds if is_identity == identity_table)
        other = tuple(i for is_identity, i in olds if is_identity != identity_table)
        return same, other

    def take(self, fact: GroundedFact, *, identity_table: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(ids in the fact's own table, ids in the other table) a session fact carries if it is inserted."""
        return self._split(self._by_text.get(fact.text, []), identity_table=identity_table)

    def new_facts(self) -> list[tuple[GroundedFact, tuple[str, ...], tuple[str, ...]]]:
        """Correcting sentences to insert as pinned facts, with the (pinned, identity) ids they retire."""
        return [(fact, *self._split(olds, identity_table=False)) for fact, olds in self._new]

    def new_identity_facts(self) -> list[tuple[GroundedFact, tuple[str, ...], tuple[str, ...]]]:
        """Older identity facts with one value swapped, to insert as identity facts, with the (identity, pinned)
        ids they retire."""
        return [(fact, *self._split(olds, identity_table=True)) for fact, olds in self._new_identity]

    def attach_rest(
        self,
        slotted: Sequence[NewFact],
        plain: Sequence[NewFact],
        identity: Sequence[NewIdentityFact] = (),
    ) -> tuple[list[NewFact], list[NewFact], int]:
        """The retirements no inserted fact carries (its session fact became a repeat, or the sentence stated no new
        value) put on the session's first inserted pinned fact; with none, they wait for a later correction."""
        carried = {(False, i) for new in (*slotted, *plain) for i in new.supersedes}
        carried |= {(True, i) for new in (*slotted, *plain) for i in new.supersedes_identity}
        carried |= {(True, i) for new in identity for i in new.supersedes}
        carried |= {(False, i) for new in identity for i in new.supersedes_pinned}
        wanted = [old for olds in self._by_text.values() for old in olds] + self._loose
        rest = list(dict.fromkeys(old for old in wanted if old not in carried))
        self._by_text, self._loose = {}, []
        slotted, plain = list(slotted), list(plain)
        target = slotted if slotted else plain
        if not rest or not target:
            return slotted, plain, 0
        same, other = self._split(rest, identity_table=False)
        first = target[0]
        target[0] = replace(
            first,
            supersedes=tuple(dict.fromkeys((*first.supersedes, *same))),
            supersedes_identity=tuple(dict.fromkeys((*first.supersedes_identity, *other))),
        )
        return slotted, plain, len(same) + len(other)


__all__ = [
    "GroundedPlan",
    "TurnIds",
    "competes",
    "holder_who_left",
    "latest_per_slot",
    "plan_grounded",
    "replaced_in_session",
    "same_value",
    "session_replacements",
    "slot_key",
]
