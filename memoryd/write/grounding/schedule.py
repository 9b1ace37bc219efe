"""Which weekly schedule a changed schedule replaces: the value-type slot of a recurring activity's days.

A stored habit names its days ("We train Wednesday evenings at Market Road", "Les répétitions ont lieu le lundi
soir"), and a later session moves them ("from April we train at Highbury Fields on Tuesdays instead", "on passe au
mardi soir", "Meine Besuche sind jetzt dienstags statt mittwochs"). The head word the extractor slots a plan under
is unstable ("plan.train" / "plan.pitch", "routine.ihn" / "routine.jetzt"), so the slot here is the schedule's
**value type**: a fact naming weekdays, said with a change marker, replaces an older fact naming other weekdays when

- both speak of the same activity (a shared content stem: "train", "répétition", "besuch"), or
- the newer one names the older day as the one left ("from Wednesday", "statt mittwochs", "because Sundays clash",
  "instead of Monday").

A schedule said as an addition ("en plus du lundi", "also on Fridays", "as well") replaces nothing; neither does a
fact without a change marker (two activities on two days both hold).
"""

from __future__ import annotations

import re

from memoryd.write.grounding.dates import WEEKDAYS
from memoryd.write.grounding.event import NOT_EVENT
from memoryd.write.grounding.lexicon import HEDGE, HYPOTHETICAL
from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.summary import third_person
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import content_tokens, fold, light_stem, word_set

_I = re.IGNORECASE
#: A resolved date the extractor appends ("Saturday (2026-02-07)"): no part of what was said.
_RESOLVED = re.compile(r"\s*\(\d{4}-\d{2}(?:-\d{2})?\)")
#: Weekday words with their plural and adverbial forms ("Tuesdays", "dienstags", "los martes", "às terças").
_PT_SHORT = {"segunda": 0, "terca": 1, "quarta": 2, "quinta": 3, "sexta": 4}
_DAY_FORMS: dict[str, int] = {}
for _word, _day in (*WEEKDAYS.items(), *_PT_SHORT.items()):
    for _form in (_word, f"{_word}s"):
        _DAY_FORMS[_form] = _day
_DAY_WORD = re.compile(r"[^\W\d_][\w-]*", _I)
#: Every day, said as a schedule of its own (value DAILY): "fast täglich", "every day", "tous les jours".
DAILY = 7
_DAILY = re.compile(
    r"\b(?:daily|every day|each day|tous les jours|chaque jour|quotidiennement|todos los días|cada día|a diario|"
    r"täglich|jeden tag|todos os dias|todo dia|diariamente)\b",
    _I,
)
#: A schedule said as changed: "now", "instead", "moved", "from … to", "statt", "au lieu", "on passe au", "mudou".
_CHANGED = re.compile(
    r"\b(?:now|instead|moved|moves|moving|switched|changed|going weekly|no longer|any more|anymore|from now on|"
    r"maintenant|désormais|au lieu|plutôt|passe au|passe à|passons|déplacé|ahora|en vez|en lugar|cambiamos|"
    r"cambió|pasamos|pasa a|ya no|jetzt|nun|statt|anstatt|verlegt|verschoben|nicht mehr|agora|em vez|mudou|"
    r"mudámos|mudamos|passou|passámos|passamos|já não)\b",
    _I,
)
#: A schedule said as an addition: the older days still hold.
_ADDED = re.compile(
    r"\b(?:also|as well|in addition|additionally|another|extra|add|adding|added|en plus|aussi|ajoute|ajoutons|"
    r"además|también|añadimos|añado|otra|außerdem|zusätzlich|auch|noch eine|também|além|acrescent\w*|mais uma)\b",
    _I,
)
#: The older day named as the one left: "from Wednesday", "statt mittwochs", "instead of Monday", "Sundays clash",
#: "no longer on Sundays", "au lieu du lundi", "en vez del martes", "em vez de domingo".
_LEFT_DAY = re.compile(
    r"\b(?:from|instead of|rather than|not|no longer on|no more|au lieu du|au lieu de|plus le|plutôt que le|"
    r"en vez del?|en lugar del?|ya no los|statt|anstatt|nicht mehr|em vez de|em vez do|já não (?:à|às|ao|aos))\s+"
    r"(?:the |le |la |el |los |las |o |a |os |as |am |an )?(?P<day>[^\W\d_]+)|"
    r"(?P<day2>[^\W\d_]+) (?:clash|clashes|don't work|doesn't work|are out|is out|ne marche plus|no funciona|"
    r"geht nicht mehr|não dá)\b|"
    # a day given up: "I'm dropping Saturdays", "j'arrête le samedi", "dejo los sábados", "ich höre samstags auf",
    # "deixo os sábados"
    r"\b(?:dropp(?:ing|ed)|stopp(?:ing|ed)|giv(?:ing|en) up|gave up|cutting|cut out|no more|arrête|arrêter|"
    r"laisse tomber|dejo|dejamos|dejar|ya no abro|deixo|deixamos|deixar)\s+(?:the |le |la |les |los |las |os |as )?"
    r"(?P<day3>[^\W\d_]+)|\b(?P<day4>[^\W\d_]+) (?:höre ich auf|fallen weg|fällt weg|nicht mehr)\b",
    _I,
)
#: Words of a schedule that are no activity: times of day and the words around them.
_NOT_ACTIVITY = frozenset(
    light_stem(fold(w))
    for w in word_set(
        "evening evenings morning mornings afternoon afternoons night nights soir soirs matin après-midi tarde "
        "tardes noche noches mañana mañanas abend abends morgen morgens nachmittag nachmittags noite noites manhã "
        "manhãs weekly week every each other fortnightly semaine semana woche jeden jede jeder cada todos todas "
        "tous toutes am pm uhr h heures horas hours instead now weekly usually normally"
    )
)


#: Weekday words written in lower case in French, Spanish and Portuguese: capitalised inside a sentence they are
#: part of a name ("Les Tréteaux du Lundi").
_LOWER_DAYS = frozenset(
    w
    for w in _DAY_FORMS
    if not w.rstrip("s").startswith(("mon", "tues", "wednes", "thurs", "fri", "satur", "sun"))
    and not w.endswith(("tag", "tags", "woch", "wochs", "abend", "abends"))
)


def weekdays(text: str) -> frozenset[int]:
    """The weekdays a text names, in any of the five languages and their plural forms."""
    found = set()
    for match in _DAY_WORD.finditer(text):
        word = fold(match.group(0))
        if word not in _DAY_FORMS:
            continue
        inside = match.start() > 0 and text[: match.start()].rstrip()[-1:] not in {".", ":", "!", "?", ""}
        if inside and match.group(0)[:1].isupper() and word in _LOWER_DAYS:
            continue
        found.add(_DAY_FORMS[word])
    if _DAILY.search(text):
        found.add(DAILY)
    return frozenset(found)


def activity(text: str) -> frozenset[str]:
    """The content stems naming a schedule's activity: no days, numbers, times of day or words of change."""
    return _activity(text)


def _activity(text: str) -> frozenset[str]:
    stems = set()
    for token in content_tokens(text):
        if token in _DAY_FORMS or any(ch.isdigit() for ch in token):
            continue
        stem = light_stem(token)
        if stem not in NOT_EVENT and stem not in _NOT_ACTIVITY and len(stem) > 2:
            stems.add(stem)
    return frozenset(stems)


def _left_days(text: str) -> frozenset[int]:
    found = set()
    for match in _LEFT_DAY.finditer(text):
        word = fold(
            match.group("day") or match.group("day2") or match.group("day3") or match.group("day4") or ""
        )
        if word in _DAY_FORMS:
            found.add(_DAY_FORMS[word])
    # "no domingo não teve movimento", "le lundi personne ne venait": a day said with a negation is the one left.
    for match in _DAY_WORD.finditer(text):
        word = fold(match.group(0))
        if word in _DAY_FORMS and _NEGATED.match(text[match.end() :]):
            found.add(_DAY_FORMS[word])
    return frozenset(found)


_NEGATED = re.compile(
    r"\s+(?:[\w']+\s+)?(?:não|didn't|doesn't|don't|wasn't|isn't|ne|n'|nadie|nunca|nicht|keiner|niemand)\b",
    _I,
)


def changes_schedule(new: str) -> bool:
    """Whether a fact states a schedule said as changed (weekdays, a change marker, no addition)."""
    return bool(weekdays(new)) and _CHANGED.search(new) is not None and _ADDED.search(new) is None


def replaces_schedule(old: str, new: str) -> bool:
    """Whether the newer schedule `new` replaces the older fact `old`: both name weekdays, the older names a day the
    newer does not, and they share the activity or the newer names the older day as the one left."""
    old, new = _RESOLVED.sub("", old), _RESOLVED.sub("", new)
    if not changes_schedule(new):
        return False
    old_days, new_days = weekdays(old), weekdays(new) - _left_days(new)
    if not old_days or not new_days or old_days <= new_days:
        return False
    left, activity = _left_days(new), _activity(new)
    # Every dated part of the older fact must be the moved schedule: "Saturday market…, plus a bread subscription
    # collected on Wednesdays" still holds its market when only the collection moves.
    parts = [p for p in _PARTS.split(old) if p and weekdays(p)]
    return (
        bool(parts)
        and all(bool(weekdays(p) & left) or bool(_activity(p) & activity) or not _activity(p) for p in parts)
        and any(bool(weekdays(p) & left) or bool(_activity(p) & activity) for p in parts)
    )


#: Where a fact's parts end: each part names its own activity and days.
_PARTS = re.compile(r"[,;:]|\b(?:and|plus|but|while|whereas|et|mais|y|pero|und|aber|sowie|mas|e)\b", _I)


# --- reading a moved schedule that the rules miss ("And rehearsals moved to Thursdays", "my lessons are on
# Tuesdays now", "die Proben sind jetzt donnerstags")
#: A date of the calendar in the clause: the change is of one occurrence (event.py decides), not of the schedule.
_ONE_DATE = re.compile(r"\d|\b(?:the \d|next|this|tomorrow|le \d|el \d|am \d|o dia)\b", _I)


def moved_schedule(clause: str, turn: int, lang: str) -> GroundedFact | None:
    """A recurring activity said as moved to other days, with the activity as its subject ("rehearsals moved to
    Thursdays"): a plan in the slot of the activity (routine.<stem>). None for an addition, a hypothetical, a hedge,
    another person's schedule, a one-off date, or a clause whose only subject is a pronoun."""
    said = _LABEL.sub("", clause.strip().rstrip(".!"))
    days = weekdays(said)
    if not days or _ADDED.search(said) or _ONE_DATE.search(_TIME.sub("", said)):
        return None
    standing = _STANDING.match(said)
    if not changes_schedule(said) and (standing is None or not _recurring(standing)):
        return None  # without a change marker, only "Lessons are Mondays and Fridays at 4" is a schedule
    if HYPOTHETICAL.search(said) or HEDGE.search(said) or _SOMEONE.search(said):
        return None
    if lang == "fr" and _SON.search(said):
        return None
    first_day = min(
        (m.start() for m in _DAY_WORD.finditer(said) if fold(m.group(0)) in _DAY_FORMS), default=len(said)
    )
    if _DAILY.search(said):
        first_day = min(first_day, _DAILY.search(said).start())  # type: ignore[union-attr]
    subject = _activity(said[:first_day])
    # The activity is the subject ("rehearsals moved to Thursdays") or, said as changed, the user's verb ("Ich
    # besuche ihn jetzt fast täglich", "we now train on Tuesdays").
    lead = _SUBJECT.match(said) or (_DOER.match(said) if changes_schedule(said) else None)
    if not subject or lead is None:
        return None
    head = light_stem(fold(lead.group("act")))
    if head not in subject:
        return None
    said = _LEAD.sub("", said)
    # What follows the days after a comma or a semicolon is an aside ("…, Stellan started a course on Thursdays").
    aside = re.search(r"\s*[,;]", said[first_day:])
    said = said[: first_day + aside.start()] if aside is not None else said
    shown = third_person(said) if lang == "en" else said
    text = render("plan", lang, shown[:1].upper() + shown[1:])
    return GroundedFact(FactKind.PLAN, text, f"routine.{head}", said, (turn,), 0.6, False, "extractor", lang)


#: The activity opening the clause: "(and) (my|our|the) rehearsals", "(et) les répétitions", "meine Besuche",
#: "as aulas", "las clases".
_SUBJECT = re.compile(
    r"^(?:(?:and|so|also|but|et|donc|y|pues|und|also|e|então)\s+)?(?:(?:my|our|the|mes|nos|les|mis|nuestras|"
    r"nuestros|las|los|meine|unsere|die|as|os|minhas|meus|nossas|nossos)\s+)?(?P<act>[^\W\d_][\w-]{3,})\s+"
    r"(?:are|is|have|has|will|moved|move|moves|sont|passent|ont|son|pasan|han|sind|finden|wurden|werden|são|"
    r"passaram|passam|mudaram|foram)\b",
    _I,
)
#: A schedule said plainly: the activity, a copula, the days ("Lessons are Thursdays at 7pm over Zoom").
_STANDING = re.compile(
    r"^(?:(?:my|our|the|mes|nos|les|mis|nuestras|nuestros|las|los|meine|unsere|die|as|os|minhas|meus|nossas|"
    r"nossos)\s+)?[^\W\d_][\w-]{3,}\s+(?:are|is|sont|ont lieu|son|sind|finden|são)\s+(?:(?:on|le|les|el|los|am|"
    r"à|às|aos|nas|nos)\s+)?(?P<day>[^\W\d_]+)",
    _I,
)


def _recurring(standing: re.Match[str]) -> bool:
    """Whether a plain schedule's day recurs: a plural ("Thursdays", "dienstags") or after a plural article ("los
    martes", "les lundis", "às terças"); "The kickoff is on Tuesday" is one day."""
    day = fold(standing.group("day"))
    if day not in _DAY_FORMS:
        return False
    plural_article = re.search(r"\b(?:les|los|às|aos|nas|nos)\s+\S+$", standing.group(0), _I) is not None
    return plural_article or (day not in WEEKDAYS and day not in _PT_SHORT)


#: A label before the schedule ("A correction for your notes: my lessons are on Tuesdays now").
_LABEL = re.compile(r"^[^:]{0,60}:\s+")
#: A time of day ("at 7pm", "à 20h", "um 18 Uhr"): no calendar date.
_TIME = re.compile(r"\b(?:at|à|a las|às|um)?\s*\d{1,2}(?:[:.h]\d{2})?\s*(?:am|pm|h|uhr)?\b", _I)
_LEAD = re.compile(r"^(?:and|so|also|but|et|donc|y|pues|und|e|então)\s+", _I)
#: The user doing the activity: "ich besuche", "we (now) train", "je répète", "entreno", "treino".
_DOER = re.compile(
    r"^(?:(?:and|so|also|but|et|donc|y|pues|und|e|então)\s+)?(?:I|we|ich|wir|je|nous|on|yo|nosotros|eu|nós)\s+"
    r"(?:(?:now|jetzt|maintenant|ahora|agora|also|auch)\s+)?(?P<act>[^\W\d_][\w-]{3,})\b",
    _I,
)
#: Another person's schedule: "my daughter's lessons", "his rehearsals", "Stellan started a course on Thursdays".
_SOMEONE = re.compile(r"(?:'s|’s)\s|\b(?:his|her|their|sa|ses|su|sus|sein|seine|ihr|ihre|seu|sua)\b", _I)
#: French "son" (his/her) is Spanish "son" (they are).
_SON = re.compile(r"\bson\b", _I)


__all__ = ["DAILY", "changes_schedule", "moved_schedule", "replaces_schedule", "weekdays"]
