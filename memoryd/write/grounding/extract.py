"""The deterministic extractor: candidate facts, decisions, action items, plans and entities from the USER's turns.

No model is involved. Sentences of user turns are filtered (questions, hypotheticals, reported speech and small talk
are not statements about the user), then read by the grammar rules of rules.py in five languages. Assistant text is
never a source: an assistant's guess ("you sound like a vegan") becomes a fact only when the next user turn
confirms it ("yes, I am"). Relative dates ("next Tuesday") are resolved against the session's date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from itertools import pairwise

from memoryd.write.grounding.answer_form import answer_forms, answers_the_question
from memoryd.write.grounding.answers import answered_facts
from memoryd.write.grounding.antecedent import antecedent, elided_context, whose
from memoryd.write.grounding.assigned import assigned_holders
from memoryd.write.grounding.business import business_facts
from memoryd.write.grounding.changes import changed_values, now_statements, with_contrasts, with_event_context
from memoryd.write.grounding.clauses import (
    joined_greetings,
    statement_clauses,
    without_greeting,
    without_openers,
)
from memoryd.write.grounding.continuation import continued
from memoryd.write.grounding.coreference import with_places
from memoryd.write.grounding.corrections import repaired
from memoryd.write.grounding.dates import (
    MONTHS,
    WEEKDAYS,
    DateMention,
    find_dates,
    session_day,
    weekday_span,
    with_resolved_dates,
)
from memoryd.write.grounding.entities import find_entities
from memoryd.write.grounding.event import same_event
from memoryd.write.grounding.fitness import unfit_fact
from memoryd.write.grounding.instructions import standing_instruction, wishes_to_assistant
from memoryd.write.grounding.introductions import introduced
from memoryd.write.grounding.lexicon import (
    AFFIRMATIVE,
    ASSISTANT_GUESS,
    CHOICE_CATEGORIES,
    DIET_WORDS,
    EN_REL_RE,
    HEDGE,
    HYPOTHETICAL,
    IMPERATIVES,
    LEAD_FILLER,
    NAME,
    NOT_ROLES,
    PAST,
    PETS,
    REL_RE,
    RELATIONS,
    ROLE_SUFFIX,
    SMALL_TALK,
)
from memoryd.write.grounding.model import Extraction, FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.noted_tasks import noted_tasks
from memoryd.write.grounding.past import past_dates_only, this_year
from memoryd.write.grounding.prices import holds_amount, price_facts
from memoryd.write.grounding.quantities import quantity
from memoryd.write.grounding.reminder_questions import asked_reminders
from memoryd.write.grounding.requests import standing_request, when_you
from memoryd.write.grounding.reschedule import moved_events
from memoryd.write.grounding.role_towns import role_towns
from memoryd.write.grounding.roles import role_facts
from memoryd.write.grounding.rules import Hit, apply_rules, canonical_purpose, is_name
from memoryd.write.grounding.selfemployed import self_employment
from memoryd.write.grounding.slotfill import (
    contrast,
    instruction_aspect,
    other_names,
    read_clause,
    shift,
    someone_else,
    successor_fact,
    successors,
)
from memoryd.write.grounding.stale import (
    CHANGE_MARKER,
    PERSON,
    TASTE,
    THING,
    names_value,
    stale_mentions,
)
from memoryd.write.grounding.stances import own_stances, shadowed
from memoryd.write.grounding.structure import structural_facts
from memoryd.write.grounding.summary import extractive_summary, extractive_topics, third_person
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import (
    NEGATIONS,
    STOP_WORDS,
    content_tokens,
    detect_language,
    fold,
    light_stem,
    prose,
    sentences,
    tokens,
    word_set,
)
from memoryd.write.grounding.titles import title_changes
from memoryd.write.grounding.unfit import unfit_reason
from memoryd.write.grounding.verb_second import subject_first

#: Salience by kind: who the user is and what they asked for outrank a passing plan.
SALIENCE = {
    FactKind.IDENTITY: 0.9,
    FactKind.INSTRUCTION: 0.85,
    FactKind.DECISION: 0.8,
    FactKind.PREFERENCE: 0.75,
    FactKind.RELATION: 0.7,
    FactKind.PLAN: 0.6,
    FactKind.ACTION_ITEM: 0.6,
}
#: Slots whose value is a proper name (an entity even where German capitalises every noun).
_NAME_SLOTS = frozenset(
    {"identity.name", "identity.address_as", "identity.home", "identity.origin", "identity.employer"}
)
_DATED_KINDS = frozenset({FactKind.PLAN, FactKind.DECISION, FactKind.ACTION_ITEM})
#: A day the extractor resolved, in a fact's text ("(2026-03-20)").
_ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
#: A request to the assistant is not the user's plan ("I'd like a recipe for tomorrow's dinner").
_REQUEST = re.compile(
    r"^(?:I'd like|I would like|I want you|can you|could you|help me|give me|show me|tell me|write me|je voudrais|"
    r"j'aimerais|peux-tu|quiero que|me gustaría|puedes|ich möchte|ich hätte gern|kannst du|quero que|gostaria|"
    r"você pode|pode)\b",
    re.IGNORECASE,
)
_REQUEST_VERBS = frozenset("call remind tell text ping email ask let book schedule send".split())  # noqa: SIM905
#: Words that open a plan sentence without naming the event ("I have a dentist appointment" → "dentist").
_CLAUSE_BREAK = re.compile(r"[,;:]|\b(?:and|but|so|et|mais|donc|y|pero|und|aber|e|mas)\b", re.IGNORECASE)
_NOW_IS = re.compile(
    r"\b(?:it's|it is|is|are|c'est|es|ist|é) (?:now|maintenant|ahora|jetzt|agora)\b", re.IGNORECASE
)
#: A rescheduling verb and its object: the object names the event whose date changed.
_RESCHEDULED = re.compile(
    r"\b(?:moved|move|pushed|push|rescheduled|reschedule|postponed|postpone|delayed|delay|shifted|brought forward|"
    r"changed|change|déplacé|décalé|reporté|repoussé|avancé|movido|pospuesto|aplazado|cambiado|retrasado|adelantado|"
    r"atrasado|verschoben|adiado|adiámos|atrasámos|remarcado)\s+"
    r"(?:back\s+|forward\s+)?(?:the |our |my |a |le |la |les |notre |el |la |nuestro |nuestra |den |die |das |"
    r"unseren |unsere |o |a |nosso |nossa )?"
    # The moved thing is the noun phrase up to where it is moved to; its head is the last word before a
    # post-modifier ("the kickoff meeting to Tuesday" → meeting, "the dinner with Sara to Friday" → dinner).
    r"(?P<x>(?!(?:to|for|until|till|with|of|back|forward|up|out|au|à|al|a|hasta|auf|para|pra|on|by|avec|con|mit|com)\b)[\w-]+"
    r"(?: (?!(?:to|for|until|till|with|of|back|forward|up|out|au|à|al|a|hasta|auf|para|pra|on|by|avec|con|mit|com)\b)[\w-]+){0,2})",
    re.IGNORECASE,
)
#: "The race was postponed to May 3": said in the past, the change puts the date ahead.
#: A first word followed by "'s" or an auxiliary is the subject, not an imperative ("Show's been moved to 6 June",
#: "Check-in is at noon" against "Show me …", "Call me Monday").
_OPENS_SUBJECT = re.compile(
    r"^[^\W\d_][\w-]*(?:['’]s\b|\s+(?:is|was|has|had|got|gets|will be)\b)", re.IGNORECASE
)
_MOVED_PASSIVE = re.compile(
    r"\b(?:(?:was|were|has been|have been|got|gets|is being|'s been) (?:moved|postponed|pushed(?: back)?|rescheduled|"
    r"delayed|brought forward|bumped|shifted|changed)|"
    # "a viagem passou para novembro", "la boda se ha aplazado al 3 de junio", "wurde auf den 28. April verschoben".
    r"(?:a été|ont été|est|sont) (?:reportée?s?|décalée?s?|déplacée?s?|repoussée?s?|avancée?s?)|"
    r"(?:se ha|se han|ha sido|han sido|fue|se) (?:aplazad[oa]s?|movid[oa]s?|pospuest[oa]s?|retrasad[oa]s?|"
    r"adelantad[oa]s?|cambiad[oa]s?)|pasó (?:al|a|para)|"
    r"(?:wurde|wurden|ist|sind|wird) (?:[\w.]+ ){0,4}?(?:verschoben|vorverlegt|verlegt)|verschoben auf|"
    r"(?:passou|passaram) para|(?:foi|foram) (?:adiad[oa]s?|remarcad[oa]s?|mudad[oa]s?|antecipad[oa]s?)|"
    # "The opening slipped to 8 July": the date said as where the event slid to.
    r"(?:slipped|slid|slips|slides) (?:back |again )?(?:to|until|into))\b",
    re.IGNORECASE,
)
#: An English verb in the simple past after its subject ("we switched", "the team launched").
_EN_PAST_VERB = re.compile(
    r"\b(?:I|we|they|he|she|it|team|company|and)\s+(?:\w+ly\s+)?(?:\w{3,}ed|left|went|got|took|began|came|made|"
    r"met|quit|won|lost|sold|bought|moved)\b",
    re.IGNORECASE,
)
_AHEAD = re.compile(
    r"\b(?:next|coming|this|prochain|prochaine|próximo|próxima|nächsten?|que vem)\b", re.IGNORECASE
)

#: The slot prefix of a dated plan ("plan.launch").
_PLAN_SLOT = "plan."


#: A sentence opening by taking back what was just said ("Sorry, no, …", "No wait, …", "Pardon, non, …").
_REPAIR_OPENER = re.compile(
    r"^(?:sorry|oops|no wait|wait|pardon|désolée?|perdón|perdona|disculpa|entschuldigung|sorry|desculpa)[,!.]?\s+"
    r"(?:no|non|nein|não|I mean|je veux dire|quiero decir|ich meine|quer dizer)\b",
    re.IGNORECASE,
)

#: "since Monday", "seit Montag", "depuis lundi": the date a current state began.
_SINCE = re.compile(
    r"\b(?:since|ever since|seit|depuis|desde|dès)\s+(?:the\s+|le\s+|el\s+|o\s+|dem\s+)?$", re.IGNORECASE
)


def _past_month(sentence: str, mentions: Sequence[DateMention]) -> bool:
    """A bare month name said with a past verb ("we switched in November"): behind us, though the resolver looks
    ahead; "next month" stays ahead whatever the verb ("we decided to migrate next month")."""
    return (
        bool(mentions)
        and all(m.is_month and not _AHEAD.search(sentence[m.start : m.end]) for m in mentions)
        and bool(_EN_PAST_VERB.search(sentence))
    )


#: Verbs that end the subject of a dated sentence ("the beta ships on", "the offsite is on").
_PLAN_VERB = re.compile(
    r"\b(?:is|are|was|were|will|'s|got|gets|been|starts?|begins?|ends?|ships?|lands?|launches|"
    r"happens?|takes place|opens?|closes?|slipped|slips|slid|moved|changed|bumped|pushed|est|sera|a été|ont été|commence|aura lieu|se|es|será|está|ha|han|fue|"
    r"sale|llega|empieza|pasó|cambió|ist|wird|wurde|hat|findet|beginnt|é|será|foi|vai|fica|ficou|passou|passa|mudou|"
    r"começa|on|at|in|for|to|pour|para|für|"
    # A post-modifier ends the head noun too: "the call with the client" is a call.
    r"with|avec|con|mit|com|prévue?s?|prévus|prevista?|previsto|programad[oa]|geplant|marcad[oa])\b",
    re.IGNORECASE,
)
#: An object pronoun; "it's" / "it is" / "that will" are subjects ("it's now March 17"), not what is acted on.
_OBJECT_PRONOUN = re.compile(
    r"\b(?:it|them|one|ones|those|these|that)\b(?!-|'s\b|'ll\b|\s+(?:is|was|will)\b)", re.IGNORECASE
)
#: Nouns that name an event on their own: "I have an appointment with him on February 20" is a plan.
_EVENT_NOUN = re.compile(
    r"\b(?:appointment|meeting|call|exam|interview|surgery|operation|check-?up|session|class|lesson|"
    r"rendez-vous|réunion|examen|entretien|opération|rdv|cita|reunión|entrevista|cirugía|consulta|clase|"
    r"termin|besprechung|prüfung|untersuchung|vorstellungsgespräch|reunião|exame|cirurgia|aula)\b",
    re.IGNORECASE,
)
#: Attribute nouns of an event's timing ("the launch date", "la fecha de la boda"): never the event itself.
_DATE_NOUNS = frozenset(tokens("date day time datum termin fecha dia data jour heure hora"))
_PLAN_FILLER = frozenset(
    tokens(
        "have has got going gonna will now actually also still just moved pushed planned scheduled need want currently "
        "new nouvelle nouveau nueva nuevo neue neuer neues nova novo "
        "aiming aim hoping hope looking targeting thinking "
        "ai vais va tengo voy habe werde tenho vou"
    )
)

_CALENDAR = frozenset(fold(w) for w in (*MONTHS, *WEEKDAYS))
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th|er|e|º|ª)?")
#: Words that name no event: a plan made only of them ("Starting next week", "mache ich morgen") says when, not what.
_NO_EVENT = frozenset(
    tokens(
        "go goes going went gone come coming book booked booking start starts starting started next last week weeks "
        "year years month months day days time times until till then back soon later due set fixed done do does "
        "doing mache machen macht bis ab vers hacia até à partir in on at by for from "
        "weekend morning evening night afternoon faire fais fait hacer hago hace fazer faço faz"
    )
)


@dataclass
class _Found:
    fact: GroundedFact
    evidence: tuple[str, ...]


#: Object pronouns Spanish and Portuguese write onto an imperative ("recuérda-me-lo" → "recuérdamelo").
_CLITIC_TAIL = re.compile(r"(?:me|te|se|nos)?(?:lo|la|los|las|le|les|o|a|os|as)?$")


def _with_clitics(word: str, lang: str) -> bool:
    """Whether a word is one of the language's imperatives with object pronouns written onto it ("recuérdamelo",
    "avísame", "lembra-mo"): a request to the assistant."""
    if lang not in ("es", "pt"):
        return False
    verbs = {fold(v) for v in IMPERATIVES.get(lang, ()) if len(v) >= 5}
    bare = word.replace("-", "")
    return any(
        bare.startswith(v) and bare != v and _CLITIC_TAIL.fullmatch(bare[len(v) :]) is not None for v in verbs
    )


def _plan(sentence: str, lang: str, session_time_ms: int) -> tuple[str, str] | None:
    """(text, slot) of a dated plan: a future date and at least two content words besides it, not in the past."""
    mentions = find_dates(sentence, session_time_ms)
    tomorrow = (session_day(session_time_ms) + timedelta(days=1)).isoformat()
    if not any(not m.is_relative or m.iso >= tomorrow for m in mentions):
        return None
    if (
        (PAST.search(sentence) and not _NOW_IS.search(sentence) and not _MOVED_PASSIVE.search(sentence))
        or SMALL_TALK.search(sentence)
        or unfit_reason(sentence) == "small_talk"
    ):
        return None  # "we had to push it back, it's now August 15": the past is the change, the date is ahead
    if HEDGE.search(sentence):
        return None  # "my sister might visit in February, not sure yet": no plan yet
    if _REPAIR_OPENER.match(sentence.strip()):
        return None  # "Sorry, no, Tuesday the 3rd, he changed it": a repair of the plan said before names no event

    if all(_SINCE.search(sentence[: m.start]) for m in mentions):
        return None  # "Seit Montag bin ich in der Spätschicht": a state that began, not a plan ahead
    if _past_month(sentence, mentions) and not _RESCHEDULED.search(sentence):
        return None  # "the team switched to Linear in November": a month said with a past verb is behind us
    # "On a eu une médaille d'argent au concours en juin", said in September: this year's June, a dated event that
    # happened, stated in the user's words without the plan's label ("Prévu :"); _clause_facts dates it this year.
    happened = _happened(sentence, mentions, session_time_ms)
    if _REQUEST.match(LEAD_FILLER.sub("", sentence.strip())):
        return None
    lead = LEAD_FILLER.sub("", sentence.strip())
    opener = tokens(lead)[:1]
    if (
        opener
        and not _OPENS_SUBJECT.match(lead)
        and (
            opener[0] in _REQUEST_VERBS
            or opener[0] in {fold(v) for v in IMPERATIVES.get(lang, ())}
            or _with_clitics(opener[0], lang)
        )
    ):
        return None  # a request to the assistant ("call me Monday", "Recuérdamelo el lunes"), not the user's plan
    residue = sentence
    for mention in reversed(mentions):
        residue = residue[: mention.start] + " " + residue[mention.end :]
    said = [t for t in content_tokens(residue) if not t.isdigit()]
    content = [t for t in said if t not in _PLAN_FILLER]
    if not content or all(t in _NO_EVENT or t in _CALENDAR or _ORDINAL.fullmatch(t) for t in content):
        return None  # "We're going in April next year", "He's booked for the 20th", "bis 15. August": no event named
    if len(content) < 2 and _OBJECT_PRONOUN.search(residue) and not _EVENT_NOUN.search(residue):
        return None  # "I'll buy them next week": what is bought was said elsewhere, the plan names nothing
    # The slot names the event: the first content word of the clause that holds the date ("the beta ships on …").
    first = next(m for m in mentions if not m.is_relative or m.iso >= tomorrow)
    clause_start = max((b.end() for b in _CLAUSE_BREAK.finditer(sentence, 0, first.start)), default=0)
    moved = _RESCHEDULED.search(sentence)
    # The subject before its verb names the event ("the team offsite is on …" → offsite, not team).
    subject = _PLAN_VERB.split(sentence[clause_start : first.start], maxsplit=1)[0]
    head = [t for t in content_tokens(subject) if t not in _PLAN_FILLER]
    moved_words = [t for t in content_tokens(moved.group("x")) if t not in _PLAN_FILLER] if moved else []
    if not moved_words and not head and clause_start:
        # "New launch date: May 3": the clause holding the date is bare, its label before the colon names it.
        label = _PLAN_VERB.split(sentence[:clause_start].rstrip(",;: "), maxsplit=1)[0]
        head = [t for t in content_tokens(label) if t not in _PLAN_FILLER]
    # "The launch date is …": a date word is the attribute, the word before it names the event.
    if len(head) > 1 and head[-1] in _DATE_NOUNS:
        head = head[:-1]
    if len(moved_words) > 1 and moved_words[-1] in _DATE_NOUNS:
        moved_words = moved_words[:-1]
    if moved_words:
        head_word = moved_words[-1]  # "we moved the offsite to …": the event is what was moved
    elif head:
        head_word = head[-1]
    else:
        rest = [t for t in content_tokens(sentence[clause_start : first.start]) if t not in _PLAN_FILLER]
        head_word = rest[0] if rest else content[0]
    clause = LEAD_FILLER.sub("", sentence.strip()).rstrip(".!").strip()
    if lang == "en":
        clause = third_person(clause)
    shown = clause[:1].upper() + clause[1:] if lang == "en" else clause
    text = f"{shown}." if happened else render("plan", lang, shown)
    return text, f"plan.{light_stem(head_word)}"


def _happened(sentence: str, mentions: Sequence[DateMention], session_time_ms: int) -> bool:
    """Whether a dated sentence reports what already happened this year (past.py), not a date moved ahead."""
    return (
        past_dates_only(sentence, mentions, session_day(session_time_ms))
        and not _RESCHEDULED.search(sentence)
        and not _MOVED_PASSIVE.search(sentence)
    )


#: "We're changing vets", "mudei de veterinário", "j'ai changé de médecin": a single-valued relation gets a new
#: value, named in the same turn by "the new one is …", "agora é …", "maintenant c'est …".
_CHANGE_REL = (
    # The noun ends its phrase ("changing vets:"), so "changed the manager rota" changes a rota, not a manager.
    re.compile(
        r"\b(?:chang(?:e|es|ed|ing)|switch(?:es|ed|ing)?|swap(?:s|ped|ping)?) (?:our |my |the )?(?P<rel>[\w-]+)"
        r"(?=\s*(?:[:,.;!—-]|$)|\s+(?:again|"
        r"recently|because|since|as|and|but|today|this|last)\b)",
        re.IGNORECASE,
    ),
    re.compile(r"\b(?:mudei|mudamos|troquei|trocamos) de (?P<rel>[\w-]+)", re.IGNORECASE),
    re.compile(r"\b(?:changé|change|changeons) (?:de |d')(?P<rel>[\w-]+)", re.IGNORECASE),
    re.compile(r"\b(?:cambié|cambiamos|cambio|cambiado) de (?P<rel>[\w-]+)", re.IGNORECASE),
    re.compile(r"\b(?:den |die |meinen |meine |unseren |unsere )?(?P<rel>[\w-]+) gewechselt", re.IGNORECASE),
)
_NEW_ONE = re.compile(
    rf"\b(?:(?:the |our |my )?new (?:one|[\w-]+)(?: is|'s)|now (?:it's|it is)|agora é(?: o| a)?|a nova é|o novo é|"
    # "We've switched vets, we now see Dr. Alvarez": who the user goes to now.
    rf"(?:we|I) (?:now )?(?:see|go to|use|have)(?: now)?|"
    # "I've swapped accountants, Carys got too busy, I'm with Gethin Rowlands": the one the user is with now.
    rf"(?:I'm|I am|we're|we are) (?:now )?with|je suis (?:maintenant )?(?:chez|avec)|on est (?:maintenant )?chez|"
    rf"(?:ahora )?estoy con|ich bin (?:jetzt )?bei|(?:agora )?estou com|"
    rf"maintenant c'est(?: le| la)?|c'est maintenant(?: le| la)?|le nouveau(?: c'est| est)|la nouvelle(?: c'est| est)|"
    # "j'ai changé de dentiste : ce n'est plus le Dr Martin, c'est la Dr Roux maintenant"
    rf"(?<!n')c'est(?: le| la)?|"
    rf"ahora es(?: el| la)?|el nuevo es|la nueva es|jetzt ist es|der neue ist|die neue ist)[:\s]+"
    rf"(?:(?:doctor|doctora|docteur|docteure|doutor|doutora|doktor|doktorin) )?{NAME}",
    re.IGNORECASE,
)


def _changed_relations(turns: Sequence[SourceTurn], session_lang: str) -> list[_Found]:
    found: list[_Found] = []
    for turn in turns:
        said = turn.user.replace("’", "'")
        for pattern in _CHANGE_REL:
            change = pattern.search(said)
            if change is None:
                continue
            if someone_else(said[max(said.rfind(".", 0, change.start()), 0) : change.start()]):
                continue  # "Mon frère a changé de médecin": the brother's doctor, not the user's
            noun = change.group("rel")
            entry = (
                RELATIONS.get(noun.lower()) or RELATIONS.get(fold(noun)) or RELATIONS.get(noun.lower()[:-1])
            )
            if entry is None or not entry[1]:
                continue
            named = _NEW_ONE.search(said, change.end())
            if named is not None:
                name = named.group("v")
            else:
                # "Troquei de médica, agora vou à Dra. Pires", "He cambiado de fisioterapeuta; ahora voy a Marta
                # Gil": the first name after the change, in its sentence, that is not the one who left.
                name = _first_new_name(said, change.end())
                if not name:
                    continue
            lang = detect_language(said, default="") or session_lang
            rel = noun.lower() if RELATIONS.get(noun.lower()) else noun.lower()[:-1]
            fact = GroundedFact(
                FactKind.RELATION,
                render("relation", lang, name, rel=rel if lang == "en" else noun),
                f"relation.{entry[0]}",
                name,
                (turn.index,),
                SALIENCE[FactKind.RELATION],
                False,
                "extractor",
                lang,
            )
            found.append(_Found(fact, (said,)))
            break
    return found


def _first_new_name(said: str, start: int) -> str:
    """The first name after `start` in its sentence or the next ("Dra." is a title there, not a sentence end)."""
    end, at, ends = len(said), 0, []
    for sentence in sentences(said):
        at = said.find(sentence, at)
        ends.append(at + len(sentence))
    # Its sentence or the next ("Troquei de médica. Agora vou à Dra. Pires.").
    after = [e for e in ends if e > start]
    if after:
        end = after[1] if len(after) > 1 else after[0]
    retired = [m.value for m in stale_mentions(said)]
    for match in _ANTECEDENT.finditer(said, start, end):
        name = _without_opener(match.group("n"))
        if fold(name).rstrip(".") in _TITLE_WORDS:
            continue
        if not is_name(name) or RELATIONS.get(fold(name)) or any(names_value(name, r) for r in retired):
            continue
        # Someone said as the new one: a title, or "now" / "it's" before the name ("ahora voy a Marta Gil",
        # "c'est l'entreprise Martin"), not any name nearby ("We're changing vets. Luna hated the old place.").
        titled = fold(name.split()[0]).rstrip(".") in _TITLE_WORDS
        if (
            titled
            or CHANGE_MARKER.search(said[start : match.start()])
            or _NAMED_AS.search(said[start : match.start()])
        ):
            return name
    return ""


_NAMED_AS = re.compile(r"\b(?:c'est|it's|it is|es|é|ist|est)\b", re.IGNORECASE)


_TITLE_WORDS = word_set("dr dra mr mrs ms mx prof herr frau sr sra me mme mlle m")


#: A short reply picking one of the options just offered: "eSIMs then.", "The blue one then!"
_THEN_CHOICE = re.compile(
    r"^(?:(?:ok|okay|right|fine|alright|great|good)[,!.]?\s+)?(?P<v>[\w'-]+(?: [\w'-]+){0,3}),? then\s*[.!]*$",
    re.IGNORECASE,
)
_OPTIONS = re.compile(r"\bor\b[^?]*\?", re.IGNORECASE)


def _chosen_options(turns: Sequence[SourceTurn]) -> list[_Found]:
    found: list[_Found] = []
    for before, turn in pairwise(turns):
        first = (sentences(turn.user) or [""])[0]
        picked = _THEN_CHOICE.match(first)
        if picked is None:
            continue
        value = picked.group("v")
        if fold(value.split()[0]) in STOP_WORDS:
            value = value[:1].lower() + value[1:]  # "The train then." → "the train", a name keeps its capital
        wanted = {light_stem(t) for t in content_tokens(value)}
        offered = [text for text in (before.user, before.assistant) if _OPTIONS.search(text)]
        if not wanted or not any(wanted <= {light_stem(t) for t in content_tokens(text)} for text in offered):
            continue  # "Tomorrow then": nothing was offered to choose from
        lang = detect_language(turn.user)
        fact = GroundedFact(
            FactKind.DECISION,
            render("chose", lang, value),
            "",
            value,
            (turn.index,),
            SALIENCE[FactKind.DECISION],
            False,
            "extractor",
            lang,
        )
        found.append(_Found(fact, (first, *offered)))
    return found


_TRAVEL = re.compile(
    r"\b(?:holiday|holidays|vacation|trip|visiting|visit|conference|weekend away|honeymoon|vacances|voyage|"
    r"séjour|vacaciones|viaje|urlaub|reise|férias|viagem)\b",
    re.IGNORECASE,
)
_MOVE_WORDS = re.compile(
    r"\b(?:moved|move|moving|relocated|new (?:place|house|flat|home|apartment)|unpacking|boxes)\b",
    re.IGNORECASE,
)


def _home_in_context(fact: GroundedFact, turn_text: str) -> bool:
    """A place said in passing is the user's home only in its context: "we're in Kyoto now" on a trip is not, "we
    moved! we're in Leeds now" is; "here in Rome" said on holiday is not."""
    if fact.slot != "identity.home" or fact.language != "en":
        return True
    if fact.text.startswith("The user is now in"):
        return bool(_MOVE_WORDS.search(turn_text)) and not _TRAVEL.search(turn_text)
    if fact.text.startswith("The user is here in"):
        return not _TRAVEL.search(turn_text)
    return True


def _confirmed_guesses(turns: Sequence[SourceTurn], session_lang: str) -> list[_Found]:
    """Facts an assistant guessed and the next user turn confirmed ("Are you vegetarian?" → "Yes, I am.")."""
    found: list[_Found] = []
    for turn, reply in pairwise(turns):
        first = (sentences(reply.user) or [""])[0]
        if not turn.assistant or not AFFIRMATIVE.match(first):
            continue
        if set(tokens(first)) & NEGATIONS or re.search(r"n't\b", first):
            continue
        for sentence in sentences(turn.assistant)[-2:]:
            match = ASSISTANT_GUESS.search(sentence.replace("’", "'"))
            if match is None:
                continue
            word = match.group("v")
            # A short question ("És vegetariana?") says little of its language: the session's decides then.
            lang = detect_language(sentence, default="") or session_lang
            article = re.search(r"\b(an?)\s+" + re.escape(word) + r"\b", sentence, re.IGNORECASE)
            if DIET_WORDS.match(word):
                kind, slot, key, value, is_identity = (
                    FactKind.PREFERENCE,
                    "preference.diet",
                    "diet",
                    word,
                    False,
                )
            elif lang == "en" and article and ROLE_SUFFIX.search(word) and fold(word) not in NOT_ROLES:
                kind, slot, key = FactKind.IDENTITY, "identity.role", "role"
                value, is_identity = f"{article.group(1).lower()} {word}", True
            else:
                continue
            fact = GroundedFact(
                kind,
                render(key, lang, value),
                slot,
                value,
                (turn.index, reply.index),
                SALIENCE[kind],
                is_identity,
                "extractor",
                lang,
            )
            found.append(_Found(fact, (sentence, first)))
            break
    return found


def extract(turns: Sequence[SourceTurn], *, session_time_ms: int) -> Extraction:
    """Candidate facts (with turn provenance and evidence), entities, resolved dates and the extractive summary."""
    # Self-repairs applied ("Dr. Roisin… no sorry, Dr. Walsh"): what the user took back is never read; a "there"
    # of living or working names its place ("… to Black Mountain. I live there now").
    turns = [replace(t, user=with_places(repaired(prose(t.user)))) for t in turns]
    session_lang = detect_language(" ".join(t.user for t in turns))
    found: list[_Found] = []
    resolved: set[str] = set()
    for turn in turns:
        opening = introduced(
            joined_greetings(sentences(turn.user)),
            session_lang,
            first_turn=turn is turns[0],
            reply=turn.assistant,
        )
        for sentence in opening:
            for clause in statement_clauses(sentence):
                clause = without_openers(clause)
                # No language evidence in a short clause ("Prefiero té."): try every language's rules.
                # "Sprint reviews are on Thursdays, not Tuesdays": the rules read what holds now.
                clause, corrected = contrast(clause)
                evidence = detect_language(clause, default="")
                lang = evidence or session_lang
                languages = frozenset({evidence, session_lang}) if evidence else None
                for mention in find_dates(clause, session_time_ms):
                    if mention.is_relative:
                        resolved.add(mention.iso)
                        resolved.add(mention.iso[:7])
                clause_facts = _clause_facts(clause, lang, languages, turn.index, session_time_ms)
                if not clause_facts and lang == "de" and (reordered := subject_first(clause)):
                    # "Geöffnet haben wir Montag bis Freitag": read as "Wir haben Montag bis Freitag geöffnet",
                    # kept in the user's words where a fact quotes the clause.
                    said_as = clause.strip().rstrip(".!")
                    clause_facts = [
                        replace(
                            f,
                            text=f.text.replace(reordered.rstrip(".!"), said_as),
                            value=f.value.replace(reordered.rstrip(".!"), said_as),
                        )
                        for f in _clause_facts(reordered, lang, languages, turn.index, session_time_ms)
                    ]
                if corrected:
                    clause_facts = [
                        replace(f, replaces=(*f.replaces, (THING, corrected))) for f in clause_facts
                    ]
                bare = without_greeting(clause)
                if bare != clause and bare:
                    # "Bonjour ! Je prépare le marathon le 12 avril": the greeting introduces a name, it is no
                    # part of a plan, a choice or a task.
                    said = _clause_facts(bare, lang, languages, turn.index, session_time_ms)
                    clause_facts = [f for f in clause_facts if f.kind is FactKind.IDENTITY] + [
                        f for f in said if f.kind is not FactKind.IDENTITY
                    ]
                clause_facts = [f for f in clause_facts if _home_in_context(f, turn.user)]
                if answers_the_question(clause, turn.user):  # "What is 2+2? Please answer in French."
                    clause_facts = [f for f in clause_facts if f.kind is not FactKind.INSTRUCTION]
                clause_facts = _with_read_slots(clause_facts, clause, sentence, turn, lang, corrected)
                clause_facts += structural_facts(clause, lang, turn.index, clause_facts)
                clause_facts += [
                    b
                    for b in business_facts(clause, lang, turn.index)
                    if not any(_restates(f, b) for f in clause_facts)
                ]
                found.extend(_Found(fact, (clause,)) for fact in clause_facts)
    found.extend(_confirmed_guesses(turns, session_lang))
    found.extend(_changed_relations(turns, session_lang))
    found.extend(_chosen_options(turns))
    found.extend(_pronoun_relations(turns, session_lang))
    found.extend(_adopted_pets(turns, session_lang))
    found.extend(_successors(turns, session_lang))
    # "Have you found another pilot?" — "The federation moved me to Karen Achebe": the role asked, the holder given.
    found.extend(_Found(f, evidence) for f, evidence in assigned_holders(turns, session_lang))
    # "Je me suis mis à mon compte": the employer slot held by the user themselves.
    found.extend(_Found(f, evidence) for f, evidence in self_employment(turns))
    stances = own_stances(turns, session_lang)  # the user's taste said against another person's
    found = [item for item in found if not shadowed(item.fact, [f for f, _ in stances])]
    found.extend(_Found(f, evidence) for f, evidence in stances)
    found.extend(_Found(f, e) for f, e in answer_forms(turns, session_lang, [i.fact for i in found]))
    found.extend(
        _Found(f, e)
        for f, e in asked_reminders(turns, session_lang, session_time_ms, [i.fact for i in found])
    )
    # "Put down: write my reflective accounts by May", "Note-moi : commander les étiquettes": a task dictated.
    found.extend(
        _Found(f, e) for f, e in noted_tasks(turns, session_lang, session_time_ms, [i.fact for i in found])
    )
    # "Dilston full sets are £105 from this month", "El plato grande lo he subido a 50": a price the user states.
    found = _with_prices(found, price_facts(turns, session_lang, session_time_ms))
    found.extend(_Found(fact, evidence) for fact, evidence in role_facts(turns, session_lang))
    # "I'm Chief Product Officer now": a bare title said as the role held now, where no role was read in the turn.
    roles_read = [t for item in found if item.fact.slot == "identity.role" for t in item.fact.turns]
    found.extend(_Found(f, evidence) for f, evidence in title_changes(turns, roles_read))
    # "I'm a farrier, working out of Hexham", "soy ceramista en Talavera de la Reina": the job's town.
    found.extend(
        _Found(f, e)
        for f, e in role_towns(
            [(i.fact, i.evidence[0]) for i in found if i.evidence], [i.fact for i in found]
        )
    )
    found.extend(_Found(f, evidence) for f, evidence in moved_events(turns, session_lang, session_time_ms))
    # "— What kit are you brewing on? — A Grainfather G30.": the question names the slot, the reply the value.
    read = [clause for item in found for clause in item.evidence]
    found.extend(
        _Found(f, evidence) for f, evidence in answered_facts(turns, session_lang, session_time_ms, read)
    )
    found.extend(_Found(f, e) for f, e in changed_values(turns, session_lang, [i.fact for i in found]))
    found.extend(_Found(f, e) for f, e in now_statements(turns, session_lang, [i.fact for i in found]))
    found = _dedup([_with_context_category(item, turns) for item in found])
    found.extend(_switched_to(turns, found, session_lang))
    found.extend(_moved_it(turns, found, session_time_ms))
    found = _with_replaced_values(found, turns)
    found = [_with_antecedent(item, turns) for item in found]
    # "…, mit Jonathan Weiß aus Würzburg", "don't …, I want …": what the sentence says after a comma for the fact.
    found = [_Found(continued(i.fact, i.evidence[0]), i.evidence) if i.evidence else i for i in found]
    # Whose clause it is: another person's plan or wish, or a shift never named, is no fact about the user.
    found = _co_held_roles([item for item in found if not unfit_fact(item.fact, item.evidence)])
    facts = with_event_context(with_contrasts([item.fact for item in found], turns), turns)
    names = [f.value for f in facts if f.slot in _NAME_SLOTS or f.kind is FactKind.RELATION]
    read = [clause for item in found for clause in item.evidence]
    entities = find_entities(turns, names, read)
    decisions = [f for f in facts if f.kind is FactKind.DECISION]
    summary, summary_turns = extractive_summary(turns, decisions, _current_evidence(found))
    topics = extractive_topics(turns, entities)
    return Extraction(
        facts=facts,
        entities=entities,
        resolved_dates=frozenset(resolved),
        evidence=tuple(f.evidence for f in found),
        language=session_lang,
        summary=summary,
        summary_turns=summary_turns,
        topics=topics,
    )


#: Kinds of a fact that a price read from the same turn restates: a plan ("From next month it's £95 a tuning") or
#: a statement; a task, decision, instruction, relation or identity fact holding the amount says something else.
_PRICE_RESTATES = frozenset({FactKind.PLAN, FactKind.PREFERENCE})


def _with_prices(found: list[_Found], prices: Sequence[tuple[GroundedFact, tuple[str, ...]]]) -> list[_Found]:
    """The found facts with the prices the user stated: a price is one slot (`price.<noun>`), so a fact another
    reader made of the same turn's amount without that slot (a plan with its date of effect, a change said in the
    user's words) is replaced by the price fact, which a later price of the same thing replaces in turn; a price
    some other kind of fact of the turn already states is not stored again."""
    out = list(found)
    for price, evidence in prices:
        holders = [
            i
            for i, item in enumerate(out)
            if set(price.turns) & set(item.fact.turns) and holds_amount(item.fact.text, price.value)
        ]
        if any(
            out[i].fact.kind not in _PRICE_RESTATES or out[i].fact.slot.startswith("price.") for i in holders
        ):
            continue
        if any(out[i].fact.slot and not out[i].fact.slot.startswith("plan.") for i in holders):
            continue
        if holders:
            # The other reader's fact stays as it was said and read (a plan keeps its date of effect), in the
            # price's slot.
            out = [
                _Found(replace(item.fact, slot=price.slot), item.evidence) if i in holders else item
                for i, item in enumerate(out)
            ]
            continue
        out.append(_Found(price, evidence))
    return out


def _current_evidence(found: Sequence[_Found]) -> list[str]:
    """The clauses the summary may draw on: not those of a fact that a later fact of the same slot in this session
    replaced ("the beta ships on December 15" … "the beta moved to December 18": the summary must not state the
    old date the session itself corrected)."""
    last_turn: dict[str, int] = {}
    for item in found:
        if item.fact.slot:
            last_turn[item.fact.slot] = max(
                last_turn.get(item.fact.slot, -1), max(item.fact.turns, default=-1)
            )
    return [
        clause
        for item in found
        if (not item.fact.slot or max(item.fact.turns, default=-1) >= last_turn[item.fact.slot])
        and not _plan_moved_later(item, found)
        for clause in item.evidence
    ]


def _plan_moved_later(item: _Found, found: Sequence[_Found]) -> bool:
    """Whether a later plan of this session is the same event ("the booking system goes live on March 3" …
    "the go-live moved to March 10"): plans of different slot words, paired by their event as the writer's
    within-session supersession pairs them, so the summary states only the date the session ended on."""
    fact = item.fact
    if not fact.slot.startswith(_PLAN_SLOT):
        return False
    said_at = max(fact.turns, default=-1)
    return any(
        other.fact is not fact
        and other.fact.slot.startswith(_PLAN_SLOT)
        and max(other.fact.turns, default=-1) > said_at
        and same_event(fact.text, other.fact.text)
        for other in found
    )


#: A role said as a change ("I'm now a senior nurse", "je suis désormais chef d'équipe", "promoted to …").
_ROLE_CHANGE = re.compile(
    r"\b(?:now|new|newly|promoted|became|become|anymore|any more|no longer|since|maintenant|désormais|nouveau|"
    r"nouvelle|devenue?|ahora|nuevo|nueva|ya no|jetzt|nun|neu|neue|seit|agora|novo|nova|já não|promovid[oa]|"
    r"promue?|ascendid[oa]|befördert)\b",
    re.IGNORECASE,
)


def _co_held_roles(found: list[_Found]) -> list[_Found]:
    """Roles said side by side in one session ("a retired librarian and an independent town councillor", a joiner
    who is also a volunteer firefighter) are all held: the first said keeps the role slot (a later job change
    replaces it), the others leave it so none replaces another, unless a later role is said as a change ("I'm now
    …")."""
    roles = [i for i, item in enumerate(found) if item.fact.slot == "identity.role"]
    if len(roles) < 2:
        return found
    changed = any(_ROLE_CHANGE.search(" ".join(found[i].evidence)) for i in roles[1:])
    if changed:
        return found
    values = {fold(found[i].fact.value) for i in roles}
    if len(values) < 2:
        return found
    first = min(roles, key=lambda i: min(found[i].fact.turns, default=-1))
    return [
        _Found(replace(item.fact, slot=""), item.evidence) if i in roles and i != first else item
        for i, item in enumerate(found)
    ]


def _restates(held: GroundedFact, new: GroundedFact) -> bool:
    """Whether a fact another reader took from the clause already says the new one (what the user runs, said as a
    business or a count: "The user coaches an under-11s football team")."""
    if held.slot.startswith("identity.business"):
        return True
    wanted = {t for t in tokens(new.value) if t not in STOP_WORDS}
    return bool(wanted) and wanted <= set(tokens(held.text))


def _with_antecedent(item: _Found, turns: Sequence[SourceTurn]) -> _Found:
    """A decision, task or plan whose pronoun stands for something said just before keeps those words
    ("he decidido ofrecerle contrato" → "… (Yeray lo está haciendo genial)")."""
    fact = item.fact
    if fact.kind not in (*_DATED_KINDS, FactKind.INSTRUCTION) or not fact.turns:
        return item
    turn = next((t for t in turns if t.index == fact.turns[0]), None)
    if fact.kind is FactKind.INSTRUCTION:  # "I'd rather you never use their names": whose, said just before
        context = whose(fact.value, turn.user) if turn is not None else ""
    else:
        context = antecedent(fact.value, turn.user) if turn is not None else ""
    if turn is not None and not context:  # "…, tenho de entregar até 20 de março": the object left unsaid
        context = elided_context(fact.value, turn.user, dated=_ISO_DAY.search(fact.text) is not None)
    if not context or fold(context) in fold(fact.text) or unfit_reason(context):
        return item  # small talk or a hypothetical said before a task is no part of it
    text = f"{fact.text.rstrip().rstrip('.')} ({context})."
    return _Found(replace(fact, text=text), (*item.evidence, context))


def _slot_family(slot: str) -> str:
    """The slot a fact competes in within one clause (a tool used and a choice made for a purpose are one; so are
    a relation's qualified and plain names)."""
    if slot.startswith(("tool.", "choice.")):
        return "choice." + slot.split(".", 1)[1]
    if slot.startswith("relation."):
        return "relation." + slot.split(".")[1]
    return slot.split(".")[0] if slot.startswith("target") else slot


def _with_read_slots(
    facts: list[GroundedFact], clause: str, sentence: str, turn: SourceTurn, lang: str, corrected: str = ""
) -> list[GroundedFact]:
    """The clause's facts plus what the slot-filling reader (slotfill.py) names that the rules did not: a slot the
    rules filled stays theirs; a shift read there replaces a "workplace" the rules took it for ("in der
    Frühschicht"); a switch to a new tool retires the other tools named in its sentence."""
    said = turn.user.replace("’", "'")
    mentions = stale_mentions(said)
    retired = {fold(m.value) for m in mentions}
    retired_names = [m.value for m in mentions if m.scope == PERSON]
    at = said.find(clause[:20])
    earlier = [
        n.group("n")
        for n in _ANTECEDENT.finditer(said, 0, at + len(clause) if at >= 0 else len(said))
        if is_name(n.group("n"))
        and fold(n.group("n")) not in retired
        and not any(r in fold(n.group("n")) for r in retired)
    ]
    held = {_slot_family(f.slot) for f in facts if f.slot}
    decided = any(f.kind is FactKind.DECISION for f in facts)
    out = list(facts)
    for fact in read_clause(clause, turn.index, lang, earlier, sentence, corrected):
        if fact.kind is FactKind.RELATION and any(names_value(fact.value, r) for r in retired_names):
            continue  # "My dentist is great, Dr. Ruiz retired though": the one who left is no current relation
        family = _slot_family(fact.slot) if fact.slot else ""
        if family and family in held:
            continue
        if fact.kind is FactKind.DECISION:
            old = tuple((THING, name) for name in other_names(sentence, fact.value))
            if decided:
                # "I've moved the thesis over to LaTeX; Word kept crashing": the rules read the choice, the
                # switch says which tool it replaces.
                out = [
                    replace(f, replaces=(*f.replaces, *old)) if f.kind is FactKind.DECISION else f
                    for f in out
                ]
                continue
            fact = replace(fact, replaces=old)
        if any(f.slot and _slot_family(f.slot) == family and f.kind is fact.kind for f in out):
            continue
        if corrected and (THING, corrected) not in fact.replaces:
            fact = replace(fact, replaces=(*fact.replaces, (THING, corrected)))
        out.append(fact)
        if family:
            held.add(family)
    shifts = [fold(f.value) for f in out if f.slot == "identity.shift"]
    return [
        f for f in out if not (f.slot == "identity.workplace" and any(v in fold(f.value) for v in shifts))
    ]


def _clause_facts(
    clause: str, lang: str, languages: frozenset[str] | None, turn_index: int, session_time_ms: int
) -> list[GroundedFact]:
    facts: list[GroundedFact] = []
    hits = apply_rules(clause, languages)
    # Sister languages share words ("Decidido:" is Spanish and Portuguese): of twin hits keep the clause's language.
    twins = {(h.kind, h.start, h.end) for h in hits if h.lang == lang}
    hits = [h for h in hits if h.lang == lang or (h.kind, h.start, h.end) not in twins]
    for hit in hits:
        text = hit.text
        if hit.kind in _DATED_KINDS:
            text = _with_clause_dates(text, clause, hit, session_time_ms)
        facts.append(
            GroundedFact(
                hit.kind,
                text,
                hit.slot,
                hit.value,
                (turn_index,),
                SALIENCE[hit.kind],
                hit.is_identity,
                "extractor",
                hit.lang,
            )
        )
    if wishes_to_assistant(clause):
        facts = [f for f in facts if f.kind is not FactKind.PREFERENCE]  # how the assistant acts, not a taste
    instruction = standing_instruction(clause, lang, languages)
    condition = when_you(clause) if instruction is None else None
    if condition is not None:
        # "When you give me vocab, always include the kana": the rule after the condition, said with it.
        ruled = standing_instruction(condition[1], lang, languages)
        instruction = (f"{condition[0]}, {ruled[0]}", ruled[1], ruled[2]) if ruled is not None else None
    if (
        instruction is not None
        and not any(f.kind is FactKind.PREFERENCE and fold(f.value) in fold(instruction[0]) for f in facts)
    ):  # "I'd rather you …" read as a liking too: the wish is no taste; a liking said beside the rule stays apart
        value, slot, said_in = instruction
        slot = slot or instruction_aspect(value)
        text = render("instruction", said_in, value)
        facts.append(
            GroundedFact(
                FactKind.INSTRUCTION,
                text,
                slot,
                value,
                (turn_index,),
                SALIENCE[FactKind.INSTRUCTION],
                False,
                "extractor",
                lang,
            )
        )
    if not any(f.kind is FactKind.PREFERENCE for f in facts) and not any(
        f.kind is FactKind.INSTRUCTION and f.slot != "instruction.register" for f in facts
    ):
        # "Keep dynos out of anything you suggest until April": a standing request without "always" or "never".
        request = standing_request(clause, lang)
        if request:
            # "go down to magnitude 12 now": no aspect, so the slot of the noun it counts
            counted = quantity(clause, turn_index, lang)
            facts.append(
                GroundedFact(
                    FactKind.INSTRUCTION,
                    render("instruction", lang, request),
                    instruction_aspect(request) or (counted.slot if counted is not None else ""),
                    request,
                    (turn_index,),
                    SALIENCE[FactKind.INSTRUCTION],
                    False,
                    "extractor",
                    lang,
                )
            )
    if all(f.kind is FactKind.RELATION for f in facts):
        routine = _routine(clause, lang)
        if routine is not None:
            text, slot = routine
            facts.append(
                GroundedFact(
                    FactKind.PLAN,
                    text,
                    slot,
                    clause.strip().rstrip(".!"),
                    (turn_index,),
                    SALIENCE[FactKind.PLAN],
                    False,
                    "extractor",
                    lang,
                )
            )
            return facts
    month_only = all(m.is_month for m in find_dates(clause, session_time_ms))
    if not any(f.kind in _DATED_KINDS or f.kind is FactKind.INSTRUCTION for f in facts) and not (
        month_only and any(f.kind is FactKind.PREFERENCE for f in facts)
    ):  # "I love skiing in January" is a liking, not a plan for next January
        plan, planned = None, clause
        said_plain = _without_relation_statements(clause, hits)
        narrowed = _without_named_roles(said_plain)
        if narrowed != said_plain:
            # "Son vétérinaire, c'est le Dr Lemaire, rendez-vous pour les vaccins le 12 juin": the plan is the
            # appointment, not who else the sentence names.
            plan, planned = _plan(narrowed, lang, session_time_ms), narrowed
        if plan is None and said_plain != clause:
            plan, planned = (
                _plan(said_plain, lang, session_time_ms),
                said_plain,
            )  # without the relation it names
        if plan is None:
            plan, planned = _plan(clause, lang, session_time_ms), clause
        if plan is not None:
            text, slot = plan
            said_dates = find_dates(text, session_time_ms)
            if _happened(planned, find_dates(planned, session_time_ms), session_time_ms):
                said_dates = this_year(said_dates, session_day(session_time_ms))
            text = with_resolved_dates(text, said_dates)
            facts.append(
                GroundedFact(
                    FactKind.PLAN,
                    text,
                    slot,
                    planned.strip().rstrip(".!"),
                    (turn_index,),
                    SALIENCE[FactKind.PLAN],
                    False,
                    "extractor",
                    lang,
                )
            )
    return facts


#: Someone named by a role with any determiner ("Son vétérinaire, c'est le Dr Lemaire, …", "her dentist is Dr Roe,
#: …"): a role statement the rules did not take as the user's is no part of a plan said in the same breath.
_NAMED_ROLE = re.compile(
    rf"(?:^|(?<=[\s,]))(?:his|her|their|its|the|son|sa|leur|le|la|su|sus|el|sein|seine|seinem|ihr|ihre|ihrem|der|die|"
    rf"dem|seu|sua|o|a)\s+(?:{REL_RE})\s*,?\s*(?:(?:is|'s|is called|c'est|est|es|se llama|ist|heißt|é|s'appelle|"
    rf"chama-se)\s+)?(?:(?:le|la|el|o|a|der|die)\s+)?{NAME.replace('(?P<v>', '(?:')}\s*(?:,\s*|$)",
    re.IGNORECASE,
)


def _without_named_roles(clause: str) -> str:
    """The clause without role statements about someone ("Son vétérinaire, c'est le Dr Lemaire, rendez-vous le 12
    juin" → "rendez-vous le 12 juin"), when enough is left to say something."""
    rest = _NAMED_ROLE.sub("", clause).strip()
    return rest if rest != clause.strip() and len(rest.split()) >= _MIN_REST_WORDS else clause


#: A weekday said as a habit: "every Tuesday", "los martes", "le mercredi", "jeden Dienstag",
#: "dienstags", "às terças".
_HABIT_DAY = re.compile(
    r"\b(?:(?:every|each) (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|evening|weekend)|"
    r"(?:chaque|tous les) (?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)s?|"
    r"le (?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)(?! \d)|"
    r"(?:cada|todos los|los) (?:lunes|martes|miércoles|jueves|viernes|sábados?|domingos?)|"
    r"(?:jeden|immer) (?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)|"
    r"(?:montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)s|"
    r"(?:todas as|às|aos) (?:segundas|terças|quartas|quintas|sextas|sábados|domingos))\b",
    re.IGNORECASE,
)
#: "on Tuesdays and Thursdays": an English plural weekday, the English of "dienstags", read as a habit only when the
#: user is its subject ("I go to the walking club on Tuesdays"); "my teacher …, she comes on Thursdays" is the
#: teacher's, and a bare "Mondays and Thursdays" after a name is who is met then, not a habit.
_EN_PLURAL_DAY = re.compile(r"\bon (?-i:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)days)\b", re.IGNORECASE)
_EN_USER_SUBJECT = re.compile(r"^(?:I|I've|I'm|we|we've|we're)\b", re.IGNORECASE)
#: Whose habit it is: the user or someone of theirs ("I", "my daughter", "mi hija", "meine Tochter").
_OWN_SUBJECT = re.compile(
    r"^(?:I|I've|we|we've|my|our|je|j'|on|nous|mon|ma|mes|notre|nos|yo|mi|mis|nuestro|nuestra|tengo|tenemos|ich|wir|"
    r"mein|meine|unser|unsere|eu|nós|o meu|a minha|os meus|as minhas|tenho|temos)\b",
    re.IGNORECASE,
)


def _routine(clause: str, lang: str) -> tuple[str, str] | None:
    """(text, slot) of a weekly habit of the user or their family ("My daughter has swimming every Tuesday", "we're
    open Tuesday to Sunday": a span of the week is a habit too, dates.py `weekday_span`)."""
    habit = _HABIT_DAY.search(clause)
    if habit is None and _EN_USER_SUBJECT.match(LEAD_FILLER.sub("", clause.strip())):
        habit = _EN_PLURAL_DAY.search(clause)
    # A span read as a shift's days ("on nights Sunday to Wednesday") is the shift's, stored with it (slotfill.py).
    span = habit.span() if habit is not None else None if shift(clause, 0, lang) else weekday_span(clause)
    said = LEAD_FILLER.sub("", clause.strip()).rstrip(".!").strip()
    if span is None or not _OWN_SUBJECT.match(said) or HEDGE.search(said) or PAST.search(said):
        return None
    before = [t for t in content_tokens(clause[: span[0]]) if t not in _PLAN_FILLER]
    after = [t for t in content_tokens(clause[span[1] :]) if t not in _PLAN_FILLER and not t.isdigit()]
    if len(before) + len(after) < 2:
        return None  # "I go every Tuesday": what is done is said elsewhere
    head = before[-1] if len(before) > 1 or not after else after[0]
    shown = third_person(said) if lang == "en" else said
    return render("plan", lang, shown[:1].upper() + shown[1:] if lang == "en" else shown), (
        f"routine.{light_stem(head)}"
    )


#: Words that end a relation said as a statement ("my dentist is", "Mein Chef heißt", "o meu médico é").
_COPULA_END = re.compile(
    r"(?:\bis|'s|\best|c'est|\bes|\bist|\bheißt|\bheisst|\bé|se llama|s'appelle|chama-se|se chama|\bcalled|\bnamed)"
    r"\s*(?:le|la|el|o|a)?$",
    re.IGNORECASE,
)
_LEAD_JOIN = re.compile(r"^[\s,;:—-]*(?:(?:and|et|e|y|und|so|then|puis|dann)\b[\s,]*)?", re.IGNORECASE)
#: A clause that goes on with a verb and no subject of its own ("und kommt am 14. April"): the relation's noun is it.
_SUBJECTLESS = re.compile(
    r"^(?!(?:I|I'm|I'll|I've|we|we're|he|he's|she|she's|they|it|it's|you|je|j'|tu|il|elle|on|nous|vous|ils|elles|"
    r"yo|él|ella|nosotros|ich|du|er|sie|es|wir|ihr|eu|ele|ela|nós|my|our|mon|ma|mes|mi|mis|mein|meine|meu|minha|"
    r"the|a|an|le|la|les|el|los|las|der|die|das|o|os|as)\b)[a-zäöüßàâçéèêëîïôûùœáíóúñãõ]+\b"
)
_NAME_ARTICLE = re.compile(r",\s*(?:a|o|the|le|la|el|der|die)$", re.IGNORECASE)
#: A third-person pronoun opening what follows a relation statement: it is the person's role noun.
_PRONOUN_SUBJECT = re.compile(r"^(?:he|she|il|elle|er|sie|él|ella|ele|ela)(?=\b|')", re.IGNORECASE)
#: "is a guy called", "est une femme qui s'appelle": the words between the role noun and the name.
_COPULA_SUBJECT = re.compile(
    r"\s*(?:\s(?:is|was)|'s)(?:\s+an?\s+(?:guy|man|woman|lady|chap|bloke|fellow|person))?$", re.IGNORECASE
)
#: Words a clause needs after the relation statement is cut away to still say something.
_MIN_REST_WORDS = 3


def _without_relation_statements(clause: str, hits: Sequence[Hit]) -> str:
    """The clause with a single-valued relation it names taken out, so a plan said in the same breath ("My
    manager, Tomás, wants the plan by Friday"; "O meu médico é o Dr. Costa e tenho consulta no dia 5") does not
    restate who holds the role: the relation fact says that, and is replaced alone when it changes."""
    for hit in sorted(hits, key=lambda h: h.start, reverse=True):
        if hit.kind is not FactKind.RELATION or hit.slot.count(".") != 1 or not hit.value:
            continue
        span = clause[hit.start : hit.end]
        # "com a minha namorada, a Inês" → "com a minha namorada": the article of the name goes with it.
        head = _NAME_ARTICLE.sub("", span.replace(hit.value, "").rstrip(" ,")).rstrip(" ,")
        rest = clause[hit.end :]
        copula = _COPULA_END.search(head)
        if copula:
            after = _LEAD_JOIN.sub("", rest, count=1)
            subject = head[: copula.start()].rstrip(" ,")
            subject = _COPULA_SUBJECT.sub("", subject)
            pronoun = _PRONOUN_SUBJECT.match(after)
            if len(after.split()) >= _MIN_REST_WORDS and pronoun and subject:
                # "Our builder is a guy called Pete Marsh, he's starting on Monday" → "Our builder's starting …"
                clause = f"{subject}{after[pronoun.end() :]}"
            elif len(after.split()) >= _MIN_REST_WORDS and _SUBJECTLESS.match(after) and subject:
                # "Der Fliesenleger heißt Herr Böhm und kommt am 14. April" → "Der Fliesenleger kommt am 14. April"
                clause = f"{subject} {after}"
            elif len(after.split()) >= _MIN_REST_WORDS:
                clause = (
                    after  # "Mon dentiste, c'est le Dr Martin, et j'ai rendez-vous …" → "j'ai rendez-vous …"
                )
        elif head:
            clause = clause[: hit.start] + head + re.sub(r"^\s*,", "", rest, count=1)
    return clause


def _with_clause_dates(text: str, clause: str, hit: Hit, session_time_ms: int) -> str:
    """Resolved dates in a dated fact; a date said outside the captured words ("Morgen muss ich …") is appended."""
    if _past_month(clause, find_dates(clause, session_time_ms)):
        return text  # "we switched … in November": a past month, not next year's (the resolver looks ahead)
    inside = find_dates(text, session_time_ms)
    if inside:
        return with_resolved_dates(text, inside)
    outside = [m for m in find_dates(clause, session_time_ms) if m.end <= hit.start or m.start >= hit.end]
    if not outside:
        return text
    return f"{text.rstrip('.')} ({outside[0].iso})."


#: How many user turns back a decision looks for what kind of thing was chosen ("which database?" … "let's use X").
CONTEXT_TURNS = 2


def _with_context_category(item: _Found, turns: Sequence[SourceTurn]) -> _Found:
    """A decision without a category takes the one named nearby: "We need a database. … Let's go with Postgres"."""
    fact = item.fact
    if fact.kind is not FactKind.DECISION or fact.slot:
        return item
    last = fact.turns[-1]
    nearby = [t.user for t in turns if last - CONTEXT_TURNS <= t.index <= last]
    for text in reversed(nearby):
        found = CHOICE_CATEGORIES.findall(text)
        if found:
            slug = "_".join(t for t in tokens(found[-1]) if t not in STOP_WORDS)
            return _Found(replace(fact, slot=f"choice.{canonical_purpose(slug)}"), item.evidence)
    return item


def _dedup(found: list[_Found]) -> list[_Found]:
    """Same fact said twice in the session: keep the first, with the turns of both."""
    kept: list[_Found] = []
    keys: list[tuple[tuple[str, str, str] | None, frozenset[str]]] = []
    for item in found:
        slot_key = (item.fact.kind.value, item.fact.slot, fold(item.fact.value)) if item.fact.slot else None
        text_key = frozenset(light_stem(t) for t in content_tokens(item.fact.text))
        position = next(
            (i for i, (s, t) in enumerate(keys) if (slot_key is not None and s == slot_key) or t == text_key),
            None,
        )
        if position is None:
            kept.append(item)
            keys.append((slot_key, text_key))
            continue
        twin = kept[position]
        merged = tuple(sorted(set(twin.fact.turns) | set(item.fact.turns)))
        kept[position] = _Found(_replace_turns(twin.fact, merged), twin.evidence + item.evidence)
    return kept


def _with_replaced_values(found: list[_Found], turns: Sequence[SourceTurn]) -> list[_Found]:
    """Each fact carries the old values its turns say no longer hold ("Dr. Harris retired", "we're off Jira").

    A relation or identity fact never replaces the value it states itself."""
    stale = {turn.index: stale_mentions(turn.user) for turn in turns}
    out: list[_Found] = []
    for item in found:
        fact = item.fact
        mentions = [m for index in fact.turns for m in stale.get(index, ())]
        if fact.kind in (FactKind.RELATION, FactKind.IDENTITY):
            mentions = [m for m in mentions if not names_value(fact.value, m.value)]
        pairs = tuple(dict.fromkeys([*fact.replaces, *((m.scope, m.value) for m in mentions)]))
        if (
            fact.kind is FactKind.PREFERENCE
            and not fact.slot
            and fact.value
            and any(CHANGE_MARKER.search(said) for said in item.evidence)
        ):
            pairs = (*pairs, (TASTE, fact.value))  # "I prefer coffee now": an older liking of the kind goes
        out.append(_Found(replace(fact, replaces=pairs), item.evidence) if pairs else item)
    return out


#: "we pushed it to May 10", "they moved it to the 9th", "it's now May 17": a pronoun for the event said before.
#: "It's" with anything after it dates nothing: "pay the mooring fee, it's due on the 20th" is about the fee.
_MOVED_IT = re.compile(
    r"\b(?:(?:moved|pushed|rescheduled|postponed|shifted|changed|bumped|delayed|brought)(?: back| forward)? (?:it|that)\b|"
    r"(?:it|that)(?:'s| is| has been| was| got) (?:(?:now |been )?(?:moved |pushed |postponed |rescheduled )(?:to |on |until )?|"
    r"now (?:to |on |until )?|(?:on|until) ))",
    re.IGNORECASE,
)
_DATE_LABEL = re.compile(r"\s*\((?:week of )?\d{4}-\d{2}(?:-\d{2})?\)")


#: Words that may open a sentence before its "it" ("Actually it is now May 17", "Update: it's on the 9th").
_IT_OPENERS = 2


def _it_named_here(sentence: str) -> bool:
    """Whether the sentence's "it's …" stands for something it names itself, before a comma or a few words in
    ("remember the fistula check, it's on 12 May"): then it is no earlier plan said again."""
    match = _MOVED_IT.search(sentence)
    if match is None or not re.match(r"(?:it|that)\b", match.group(0), re.IGNORECASE):
        return False
    before = sentence[: match.start()]
    return "," in before or len(before.replace(":", " ").split()) > _IT_OPENERS


def _moved_it(turns: Sequence[SourceTurn], found: Sequence[_Found], session_time_ms: int) -> list[_Found]:
    """A date change said of "it" restates the latest dated plan of the session with the new date, in the words of
    both turns ("The product launch is on May 3." … "we pushed it to May 10" → "The product launch is on May 10")."""
    out: list[_Found] = []
    tomorrow = (session_day(session_time_ms) + timedelta(days=1)).isoformat()
    for turn in turns:
        for sentence in sentences(turn.user):
            if (
                HYPOTHETICAL.search(sentence)
                or sentence.rstrip().endswith("?")
                or not _MOVED_IT.search(sentence)
                or _it_named_here(sentence)
            ):
                continue
            new = [m for m in find_dates(sentence, session_time_ms) if not m.is_relative or m.iso >= tomorrow]
            at = turn.user.find(sentence)
            earlier = [
                item
                for item in [*found, *out]
                if item.fact.kind is FactKind.PLAN
                and item.fact.slot
                and max(item.fact.turns) <= turn.index
                and (turn.index not in item.fact.turns or _said_before(item, turn.user, at))
            ]
            if any(turn.index in item.fact.turns for item in earlier):
                # "The scanner man is coming Monday morning. Sorry, no, Tuesday the 3rd, he changed it": "it" is
                # the plan said just before in the same turn, not an older one of an earlier turn.
                earlier = [item for item in earlier if turn.index in item.fact.turns]
            if not new:
                continue
            if not earlier:
                named = _named_event(turns, turn, sentence, new[0], session_time_ms)
                if named is not None:
                    out.append(named)
                continue
            before = earlier[-1].fact
            bare = _DATE_LABEL.sub("", before.text)
            old = find_dates(bare, session_time_ms)
            if not old:
                continue
            said = sentence[new[0].start : new[0].end]
            text = bare[: old[0].start] + said + bare[old[0].end :]
            text = with_resolved_dates(text, find_dates(text, session_time_ms))
            fact = replace(
                before, text=text, turns=(*before.turns, turn.index), value=f"{before.value} → {said}"
            )
            out.append(_Found(fact, (*earlier[-1].evidence, sentence)))
    return out


def _said_before(item: _Found, said: str, at: int) -> bool:
    """Whether every clause a fact was read from occurs in the turn before position `at` (the plan an "it" of a
    later sentence of the same turn can stand for)."""
    if at <= 0:
        return False
    before = said[:at]
    return bool(item.evidence) and all(
        clause.strip() and clause.strip() in before for clause in item.evidence
    )


#: An event named before its date is said of "it": "I've signed up for the York half marathon. It's on April 19."
_EVENT_NAMED = re.compile(
    r"\b(?:signed up for|registered for|entered|booked|(?:I|we) have|(?:I|we)'ve got|(?:I'm|we're) (?:doing|running|"
    r"going to|attending|hosting)) (?P<e>(?:the|a|an|my|our) (?:[\w'-]+ ){0,4}?(?:marathon|race|run|triathlon|"
    r"wedding|party|concert|exam|interview|appointment|meeting|trip|conference|recital|match|tournament|show|"
    r"festival|launch|demo|review|surgery|operation|check-up|checkup|visit|event|dinner|course|workshop|ceremony|"
    r"\d+k|ultra|sportive|fondo))\b",
    re.IGNORECASE,
)


#: The reply before a user's turn naming one of the user's events with its date ("You've got your BIAZA talk on 21
#: March.", "Your dentist appointment is on the 3rd").
_REPLY_EVENT = re.compile(
    r"\byour (?P<e>(?:[\w'-]+ ){0,4}?(?:talk|marathon|race|run|triathlon|wedding|party|concert|exam|interview|"
    r"appointment|meeting|trip|conference|recital|match|tournament|show|festival|launch|demo|review|surgery|"
    r"operation|check-up|checkup|visit|event|dinner|course|workshop|ceremony|presentation|deadline|test|hearing))"
    r"(?: is| was)? (?:on|for) ",
    re.IGNORECASE,
)
#: A user turn that opens by saying the reply's date is wrong or old ("No, that's old", "Not any more", "Nope").
_SAYS_OLD = re.compile(
    r"^\W*(?:no|nope|not any ?more|not anymore|that's old|that's out of date|that's changed|actually no)\b",
    re.IGNORECASE,
)


def _corrected_reminder(
    turns: Sequence[SourceTurn], turn: SourceTurn, sentence: str, when: DateMention, session_time_ms: int
) -> _Found | None:
    """ "You've got your BIAZA talk on 21 March." — "No, that's old, they moved it again. It's on the 4th of April
    now": when the user's turn opens by saying the reply before it is wrong or old, the "it" given a new date is the
    one event that reply named with a date of the user's ("your … talk / appointment / exam … on <date>"). English
    replies only; a reply naming two dated events, or none, leaves "it" unread, and a turn that does not say the
    reply is wrong ("Great. It's on the 4th too") dates nothing of the reply's."""
    reply = next((u.assistant for u in turns if u.index == turn.index - 1), "")
    if not reply or not _SAYS_OLD.match(turn.user.replace("’", "'")):
        return None
    events = [
        m for m in _REPLY_EVENT.finditer(reply) if find_dates(reply[m.end() : m.end() + 30], session_time_ms)
    ]
    if len(events) != 1 or detect_language(turn.user) != "en":
        return None
    event = events[0].group("e")
    said = sentence[when.start : when.end]
    fact = _event_on(
        f"The user's {event} is on {said}", event, said, (turn.index - 1, turn.index), session_time_ms
    )
    return _Found(fact, (reply, sentence))


def _event_on(body: str, event: str, said: str, turns: tuple[int, ...], session_time_ms: int) -> GroundedFact:
    """The English plan "<event> is on <date>" (body), its dates resolved, slotted by the event's head noun."""
    return GroundedFact(
        FactKind.PLAN,
        with_resolved_dates(body, find_dates(body, session_time_ms)) + ".",
        f"plan.{light_stem(content_tokens(event)[-1])}",
        f"{event} {said}",
        turns,
        SALIENCE[FactKind.PLAN],
        False,
        "extractor",
        "en",
    )


def _named_event(
    turns: Sequence[SourceTurn], turn: SourceTurn, sentence: str, when: DateMention, session_time_ms: int
) -> _Found | None:
    """ "It's on April 19" after "I've signed up for the York half marathon": the event, in the user's words."""
    before_here = turn.user[: turn.user.find(sentence)] if sentence in turn.user else ""
    previous = [u.user for u in turns if u.index == turn.index - 1]
    corrected = _corrected_reminder(turns, turn, sentence, when, session_time_ms)
    if corrected is not None:
        return corrected
    for text in (before_here, *previous):
        events = list(_EVENT_NAMED.finditer(text))
        if not events or detect_language(text) != "en":
            continue
        event = events[-1].group("e")
        said = sentence[when.start : when.end]
        source = (turn.index,) if text is before_here else (turn.index - 1, turn.index)
        fact = _event_on(f"{third_person(event)} is on {said}", event, said, source, session_time_ms)
        return _Found(fact, (text, sentence))
    return None


def _switched_to(turns: Sequence[SourceTurn], found: Sequence[_Found], session_lang: str) -> list[_Found]:
    """A tool dropped and its successor named in one sentence without a decision verb ("I've moved the thesis out
    of Overleaf, I'm writing it in Typst now", "Wir sind von Jira weg, die Tickets laufen jetzt über Linear"): the
    last name after the dropped one is what the user chose. Only where the turn yielded no decision."""
    decided = {i for item in found if item.fact.kind is FactKind.DECISION for i in item.fact.turns}
    out: list[_Found] = []
    for turn in turns:
        if turn.index in decided:
            continue
        for sentence in sentences(turn.user):
            said = sentence.replace("’", "'")
            if HYPOTHETICAL.search(said) or said.rstrip().endswith("?"):
                continue
            dropped = [m for m in stale_mentions(said) if m.scope == THING and m.value[:1].isupper()]
            if not dropped:
                continue
            old = dropped[0].value
            at = fold(said).find(fold(old))
            after = [
                n.group("n")
                for n in _ANTECEDENT.finditer(said, max(at, 0) + len(old))
                if is_name(n.group("n"))
                and not names_value(n.group("n"), old)
                and not RELATIONS.get(fold(n.group("n")))
                # "… so that's what I'll use": a pronoun with its verb is no tool's name
                and fold(re.split(r"['’]", n.group("n"))[0]) not in STOP_WORDS
            ]
            if not after:
                continue
            lang = detect_language(said, default="") or session_lang
            new = after[-1]
            fact = GroundedFact(
                FactKind.DECISION,
                render("chose", lang, new),
                "",
                new,
                (turn.index,),
                SALIENCE[FactKind.DECISION],
                False,
                "extractor",
                lang,
            )
            out.append(_Found(fact, (sentence,)))
            break
    return out


#: "… so he's my GP now", "she's our new vet": a pronoun for the person named just before it in the turn.
_PRONOUN_RELATION = (
    ("en", re.compile(rf"\b(?:he|she|they)(?:'s| is| are)(?P<now> now)? (?:my|our) (?P<new>new )?(?P<rel>{EN_REL_RE})(?P<now2> now)?\b", re.I)),
    ("fr", re.compile(rf"\b(?:c'est|il est|elle est)(?P<now> maintenant| désormais)? (?:mon|ma|notre) (?P<new>nouveau |nouvelle )?(?P<rel>{REL_RE})(?P<now2> maintenant| désormais)?\b", re.I)),
    ("es", re.compile(rf"\b(?P<now>ahora )?es (?:ahora )?(?:mi|nuestro|nuestra) (?P<new>nuevo |nueva )?(?P<rel>{REL_RE})(?P<now2> ahora)?\b", re.I)),
    ("de", re.compile(rf"\b(?:er|sie) ist (?P<now>jetzt |nun )?(?:mein|meine|unser|unsere) (?P<new>neuer |neue )?(?P<rel>{REL_RE})(?P<now2> jetzt| nun)?\b", re.I)),
    ("pt", re.compile(rf"\b(?P<now>agora )?é (?:agora )?(?:o meu|a minha|meu|minha|o nosso|a nossa) (?P<new>novo |nova )?(?P<rel>{REL_RE})(?P<now2> agora)?\b", re.I)),
)  # fmt: skip
_ANTECEDENT = re.compile(NAME.replace("(?P<v>", "(?P<n>"))
#: "the new one is Dr. Park": a new one of the relation the turn is about.
_NEW_ONE_ALONE = re.compile(
    rf"\b(?:the new one|the new one will be|le nouveau|la nouvelle|el nuevo|la nueva|der neue|die neue|o novo|a nova)"
    rf"(?: is| will be| est| sera| es| será| ist| wird| é)?(?: c'est)?(?: le| la| el| o| a)?[:\s]+{NAME}",
    re.IGNORECASE,
)


def _without_opener(name: str) -> str:
    """ "Ask Rui" → "Rui": a capitalised word opening the sentence before a name is not part of it."""
    words = name.split()
    if len(words) > 1 and fold(words[0]) in STOP_WORDS | _OPENING_VERBS:
        return " ".join(words[1:])
    return name


#: Imperatives and openers that precede a name capitalised at a sentence start ("Ask Rui", "Tell Dana").
_OPENING_VERBS = frozenset("ask tell call text email ping thank meet see so news update also well".split())  # noqa: SIM905


def _relation_fact(rel: str, name: str, turn: SourceTurn, said: str, session_lang: str) -> _Found | None:
    entry = RELATIONS.get(rel.lower()) or RELATIONS.get(fold(rel))
    if entry is None or not entry[1] or entry[0] in PETS or not is_name(name):
        return None
    lang = detect_language(said, default="") or session_lang
    fact = GroundedFact(
        FactKind.RELATION,
        render("relation", lang, name, rel=rel.lower() if lang == "en" else rel),
        f"relation.{entry[0]}",
        name,
        (turn.index,),
        SALIENCE[FactKind.RELATION],
        False,
        "extractor",
        lang,
    )
    return _Found(fact, (said,))


def _pronoun_relations(turns: Sequence[SourceTurn], session_lang: str) -> list[_Found]:
    """A single-valued relation said with a pronoun ("so he's my GP now"): the person is the last name said before
    it in the same turn; the one a stale marker retires ("Dr. Harris retired") is never the antecedent."""
    found: list[_Found] = []
    for turn in turns:
        said = turn.user.replace("’", "'")
        retired = [m.value for m in stale_mentions(said)]
        for _, pattern in _PRONOUN_RELATION:
            for match in pattern.finditer(said):
                if not (match.group("now") or match.group("new") or match.group("now2")):
                    continue  # "Ask Rui, he is my manager": no change said, the rules read the name itself
                names = [
                    n.group("n")
                    for n in _ANTECEDENT.finditer(said, 0, match.start())
                    if is_name(n.group("n")) and not any(names_value(n.group("n"), r) for r in retired)
                ]
                names = [_without_opener(n) for n in names if not RELATIONS.get(fold(n))]
                if names:
                    item = _relation_fact(match.group("rel"), names[-1], turn, said, session_lang)
                    if item is not None:
                        found.append(item)
        named = _NEW_ONE_ALONE.search(said)
        if named is not None:
            rels = [m.group("rel") for _, p in _PRONOUN_RELATION for m in [p.search(said)] if m]
            # The relation is named before "the new one" in this turn or the user's two turns before it ("My vet
            # is retiring." … "She's leaving in May, the new one is Dr. Park").
            before = [u.user for u in turns if turn.index - CONTEXT_TURNS <= u.index < turn.index]
            nouns = [
                w
                for w in re.findall(r"[\w'-]+", " ".join([*before, said[: named.start()]]))
                if (RELATIONS.get(w.lower()) or ("", False))[1] and RELATIONS[w.lower()][0] not in PETS
            ]
            rel = (rels or nouns or [""])[-1]
            if rel:
                item = _relation_fact(rel, named.group("v"), turn, said, session_lang)
                if item is not None:
                    found.append(item)
    return found


#: "I adopted a beagle called Biscuit", "we rescued a greyhound named Flash": a pet named after its breed.
#: Things adopted that are no pets: a plan, a policy — or a person, whose relation the rules read.
_NOT_PETS = frozenset(
    [
        "plan",
        "policy",
        "approach",
        "strategy",
        "framework",
        "method",
        "process",
        "idea",
        "rule",
        "standard",
        "practice",
        "system",
        "model",
        "name",
        "style",
        "tool",
        "child",
        "baby",
        "boy",
        "girl",
        "son",
        "daughter",
        "kid",
    ]
)
_ADOPTED = re.compile(
    rf"\b(?:I|we) (?:just |recently |finally )?(?:adopted|rescued|got) an? (?:[\w-]+ )?(?P<rel>[\w-]+),? "
    rf"(?:called|named) {NAME}",
    re.IGNORECASE,
)


def _adopted_pets(turns: Sequence[SourceTurn], session_lang: str) -> list[_Found]:
    found: list[_Found] = []
    for turn in turns:
        said = turn.user.replace("’", "'")
        for match in _ADOPTED.finditer(said):
            name, rel = match.group("v"), match.group("rel").lower()
            if not is_name(name) or fold(rel) in STOP_WORDS or fold(rel) in _NOT_PETS:
                continue
            lang = detect_language(said, default="") or session_lang
            if lang != "en":
                continue
            fact = GroundedFact(
                FactKind.RELATION,
                render("pet", "en", name, rel=rel),
                f"pet.{fold(name).replace(' ', '_')}",
                name,
                (turn.index,),
                SALIENCE[FactKind.RELATION],
                False,
                "extractor",
                "en",
            )
            found.append(_Found(fact, (said,)))
    return found


def _successors(turns: Sequence[SourceTurn], session_lang: str) -> list[_Found]:
    """Someone taking over a role from a person who left it or is away ("Gillian retired, so Martin Doyle took
    over our books"): supersede.py gives the fact the role the agent's memory holds for the person replaced."""
    found: list[_Found] = []
    for turn in turns:
        said = turn.user.replace("\u2019", "'")
        gone = [m.value for m in stale_mentions(said) if m.scope == PERSON]
        for sentence in sentences(said):
            if HYPOTHETICAL.search(sentence) or sentence.rstrip().endswith("?"):
                continue
            for new, old in successors(sentence, gone):
                lang = detect_language(sentence, default="") or session_lang
                shown = third_person(sentence) if lang == "en" else sentence
                found.append(_Found(successor_fact(new, old, shown, turn.index, lang), (sentence,)))
    return found


def _replace_turns(fact: GroundedFact, turns: tuple[int, ...]) -> GroundedFact:
    return replace(fact, turns=turns)


__all__ = ["SALIENCE", "extract"]
