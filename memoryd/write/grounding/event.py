"""Which event a dated plan is about, so a corrected date supersedes the plan it corrects and nothing else.

A plan's slot names its event by one head word the extractor picks ("plan.launch"), and that word is unstable
across phrasings: "we're launching the app on October 1" and "the launch moves to October 6" share the event, not
the head word; "a dentist appointment on March 3" and "a physio appointment on March 10" share the head word, not
the event. Here the event is the set of content stems of the clause that holds the plan's date, without the date,
the rescheduling verbs and the fact template's own words: {launch, mobile, app} and {launch}; {dentist, appoint}
and {physio, appoint}. A newer plan is about an older one's event when the older set holds the newer: the later wording
may say less ("the wedding got pushed"), never something the earlier one did not ("physio" is not "dentist").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.synonyms import canonical
from memoryd.write.grounding.templates import TEMPLATE_WORDS
from memoryd.write.grounding.text import content_tokens, fold, light_stem, word_set

#: A resolved date the extractor appends to a plan ("October 6 (2027-10-06)"), or an ISO date said as such.
_ISO = re.compile(r"\b(\d{4}-\d{2}(?:-\d{2})?)\b")
_RESOLVED = re.compile(r"\s*\(\d{4}-\d{2}(?:-\d{2})?\)")
#: Where a clause ends: the reason or the aside after it is not the event ("…, so I'm busy with QA").
_CLAUSE_BREAK = re.compile(
    r"[,;:()!?—]|\s-\s|\b(?:and|but|so|because|since|while|as|et|mais|donc|car|parce que|pero|porque|pues|und|aber|"
    r"weil|denn|mas|pois|due to|owing to|à cause|en raison|por causa|a causa|debido a|por culpa|wegen|aufgrund)\b",
    re.IGNORECASE,
)
#: Words that say when or that the date changed, in five languages: never what the event is.
_NOT_EVENT = frozenset(
    light_stem(fold(t))
    for t in word_set(
        # rescheduling and being
        "move moves moved moving push pushes pushed back forward postpone postponed delay delayed reschedule "
        "rescheduled shift shifted bring brought bumped slipped slid change changed changes now new actually "
        "finally instead still got gets been being planned scheduled booked set happen happens happening take takes "
        # corrections and updates said around the event ("Correction on the sale", "slipped again though")
        "again though correction correct update updated revised extend extends extended extension already "
        "slip slips slipping prolongé prolongée repoussée déjà ampliado ampliada prorrogado prorrogada ya "
        "verlängert schon bereits já prolongado prolongada "
        "unfortunately sadly leider malheureusement lamentablemente desgraciadamente infelizmente "
        # auxiliaries the stop words miss ("a été repoussé", "ha sido aplazada", "ist verschoben worden")
        "été sido worden ist sind hat haben han ha foi foram será sera "
        "place going gonna will start starts begin begins end ends "
        # starting, in the other languages: "la chapelle ne démarre que le 4 mai" is the chapel's date
        "démarre démarrent démarrer démarrage débute débuter empieza empiezan comienza comienzan arranca arrancan "
        "startet starten começa começam arranque ne que "
        "déplacé décalé décale reporté repoussé avancé changé finalement maintenant nouveau nouvelle prévu prévue "
        "aura lieu commence "
        "movido pospuesto aplazado cambiado cambiaron cambió retrasado adelantado atrasado ahora finalmente nuevo "
        "nueva previsto prevista será "
        "verschoben verlegt vorgezogen geändert jetzt neu neue neuer neuen endlich findet statt beginnt wurde "
        "adiado adiámos adiamos atrasámos remarcado remarcaram mudou mudaram agora afinal novo nova passou "
        # moved to, said with "pass" ("est passée au 16 juin", "pasó al 8", "passaram para") and the "so" before it
        "passée passées passés pasó pasaron passaram isso así asi deshalb daher darum alors então entao "
        # when, said relative to the usual ("this year it starts earlier", "este ano começa mais cedo")
        "earlier later early late sooner cedo tarde antes depois plus tôt plus tard früher später temprano "
        "year ano año année jahr este esta cette dieses diesem "
        # when
        "date dates day days time datum termin fecha dia data jour heure hora week month year weekend morning "
        "afternoon evening night today tomorrow next coming this semaine mois prochain prochaine demain semana mes "
        "próximo próxima mañana woche monat nächste nächsten morgen semana mês amanhã que vem "
        # Portuguese contractions the stop words miss ("no dia 5", "na sexta")
        "no na nos nas num numa pelo pela "
        # when a change starts ("desde marzo abrimos a las 6:30")
        "since from desde depuis dès seit ab partir"
    )
    | {light_stem(fold(w)) for w in (*MONTHS, *WEEKDAYS)}
    | {light_stem(fold(t)) for t in TEMPLATE_WORDS}
)


#: A rescheduling verb: what follows it up to the date is the event moved ("the department moved the deadline to …").
_MOVED = re.compile(
    r"\b(?:mov(?:e|es|ed|ing)|push(?:es|ed)?|postpon(?:e|es|ed)|delay(?:s|ed)?|reschedul(?:e|es|ed)|shift(?:s|ed)?|"
    r"brought forward|bumped|changed|extend(?:s|ed)?|slipped|prolongé|ampliado|prorrogado|verlängert|prolongado|déplacé|décalé|reporté|repoussé|avancé|changé|movido|pospuesto|aplazado|"
    r"cambiado|cambiaron|cambió|retrasado|adelantado|atrasado|verschoben|verlegt|vorgezogen|adiado|adiámos|adiamos|"
    r"atrasámos|remarcado|remarcaram|mudaram|mudámos)\b",
    re.IGNORECASE,
)
#: A date said as where the event moved to, after the verb: "the harvest moved to June 16", "est passé au 16 juin",
#: "pasó al 16 de junio", "wurde auf den 16. Juni verschoben", "a tiragem passou para 16 de junho".
_MOVED_TO = re.compile(
    _MOVED.pattern.removesuffix(r")\b") + r"|passou|passaram|pasó|pasaron|(?:est|sont) passée?s?)\b"
    r"(?:\s+\w+){0,2}?\s+(?:to|until|till|into|à|au|al|a|para|pra|auf|zum|zur|en)\s+[^\x00]{0,20}\x00"
    # German puts the verb last: "wurde auf den 16. Juni verschoben"
    r"|\b(?:auf|zum|zur)\s+[^\x00]{0,20}\x00\s*(?:\w+\s+){0,2}?(?:verschoben|verlegt|vorgezogen)\b",
    re.IGNORECASE,
)


def plan_dates(text: str) -> frozenset[str]:
    """The ISO dates a stored plan states (the extractor appends the day each said date resolves to)."""
    return frozenset(_ISO.findall(text))


def _clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE_BREAK.split(text) if c and c.strip()]


#: Who an event is with names it too, pronoun or not: "the appointment with her" (the new doctor) is not the
#: appointment said before without anyone.
_WITH = re.compile(
    r"\b(?:with|avec|con|mit|com|bei|chez)\s+(?:(?:the|my|our|le|la|les|el|los|las|mi|den|dem|der|o|os|meu|minha)\s+)?(?P<w>[^\W\d_][\w'-]*)",
    re.IGNORECASE,
)


#: One event said with its noun or its verb, in five languages: "the wedding" is "getting married"; the synonym
#: classes of grounding/synonyms.py too ("the launch" is "the release").
_SAME_EVENT = {
    light_stem(fold(w)): key
    for key, words in (
        (
            "wedding",
            "wedding weddings married marry marrying marries mariage marier marient épouse boda bodas casarse "
            "casan casamos casamento casar casam hochzeit heiraten heiratet heirat",
        ),
        ("haulout", "haul-out haulout lift-out"),
        ("move", "removal removals déménagement mudanza umzug mudança"),
    )
    for w in words.split()
}


def _event_words(clause: str) -> frozenset[str]:
    words = {
        _SAME_EVENT.get(stem) or canonical(stem)
        for stem in (light_stem(t) for t in content_tokens(clause) if not any(ch.isdigit() for ch in t))
        if stem not in _NOT_EVENT and len(stem) > 1
    }
    return frozenset(words | {f"with:{light_stem(fold(m.group('w')))}" for m in _WITH.finditer(clause)})


def event_key(text: str) -> frozenset[str]:
    """The stems naming a plan's event: those of the clause holding its first date, or of the clause before it when
    that clause names nothing ("New launch date: May 3" → {launch})."""
    bare = _RESOLVED.sub(" (DATE)", text)
    clauses = _clauses(bare.replace("(DATE)", "\x00"))
    # The clause that says the event moved to its date names it, not an earlier date said in passing ("It rained a
    # lot in May, so the harvest moved to June 16": the harvest, not the rain).
    dated = next((i for i, c in enumerate(clauses) if _MOVED_TO.search(c)), None)
    if dated is None:
        dated = next((i for i, c in enumerate(clauses) if "\x00" in c), None)
    if dated is None:
        return _event_words(" ".join(clauses))
    clause = clauses[dated]
    moved = [m for m in _MOVED.finditer(clause) if m.end() <= clause.find("\x00")]
    if moved:
        found = _event_words(clause[moved[-1].end() : clause.find("\x00")])
        if found:
            return found
    # "Este ano a colheita começa mais cedo, a 28 de setembro": "mais" breaks a clause, so look two back.
    for index in (dated, dated - 1, dated - 2):
        if index >= 0:
            found = _event_words(clauses[index].replace("\x00", " "))
            if found:
                return found
    return frozenset()


def _held(word: str, key: frozenset[str]) -> bool:
    """A word of the newer key is in the older one, or is the head of an older compound ("prüfung" of
    "gesellenprüfung", said again as "die Prüfung")."""
    return word in key or (len(word) >= 4 and any(len(w) > len(word) and w.endswith(word) for w in key))


def _whole_plan_words(text: str) -> frozenset[str]:
    """The event stems of every clause of a plan, without its resolved dates."""
    return _event_words(_RESOLVED.sub(" ", text))


def same_event(old: str, new: str) -> bool:
    """Whether a newer plan names the older one's event: its event key is not empty and the older key holds it, or
    the older plan's whole wording does (module docstring)."""
    key = event_key(new)
    if not key:
        return False
    if all(_held(word, event_key(old)) for word in key):
        return True
    whole = _whole_plan_words(old)
    return all(_held(word, whole) for word in key)


def events_of(new: str, olds: Sequence[str]) -> list[int]:
    """Positions of the older plans the new one is about. When they name different events ("the deadline moved"
    and two deadlines held, the grant's and the thesis'), which one moved is unknown: none is chosen."""
    found = [i for i, old in enumerate(olds) if same_event(old, new)]
    return found if len({event_key(olds[i]) for i in found}) <= 1 else []


def moves_date(old: str, new: str) -> bool:
    """Whether the newer plan states a date the older one does not (a repeat of the same date changes nothing)."""
    new_dates = plan_dates(new)
    return bool(new_dates) and not new_dates <= plan_dates(old)


#: The words that never name an event (schedule.py reads activities with the same list).
NOT_EVENT = _NOT_EVENT

__all__ = ["NOT_EVENT", "event_key", "events_of", "moves_date", "plan_dates", "same_event"]
