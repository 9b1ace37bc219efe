"""Dates said in a turn (absolute or relative, five languages), resolved against the session's date to ISO days."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from memoryd.write.grounding.text import fold

# Month and weekday names, folded (no accents); a month name counts only next to a day number.
_MONTH_NAMES = {
    1: "january jan janvier enero januar janeiro jaenner janner",
    2: "february feb fevrier febrero februar fevereiro",
    3: "march mar mars marzo marz marco",
    4: "april apr avril abril",
    5: "may mai mayo maio",
    6: "june jun juin junio juni junho",
    7: "july jul juillet julio juli julho",
    8: "august aug aout agosto",
    9: "september sept sep septembre septiembre setiembre setembro",
    10: "october oct octobre octubre oktober outubro",
    11: "november nov novembre noviembre novembro",
    12: "december dec decembre diciembre dezember dezembro",
}
MONTHS = {name: number for number, names in _MONTH_NAMES.items() for name in names.split()}
_WEEKDAY_NAMES = {
    0: "monday lundi lunes montag segunda-feira",
    1: "tuesday mardi martes dienstag terca-feira",
    2: "wednesday mercredi miercoles mittwoch quarta-feira",
    3: "thursday jeudi jueves donnerstag quinta-feira",
    4: "friday vendredi viernes freitag sexta-feira",
    5: "saturday samedi sabado samstag sonnabend",
    6: "sunday dimanche domingo sonntag",
}
WEEKDAYS = {name: number for number, names in _WEEKDAY_NAMES.items() for name in names.split()}
# Portuguese short weekday names ("terça") are ordinary words too; they count only after na/no/próxima.
_PT_SHORT = {"segunda": 0, "terca": 1, "quarta": 2, "quinta": 3, "sexta": 4}
_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_WEEKDAY_RE = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_PT_SHORT_RE = "|".join(_PT_SHORT)
_ORD = r"(?:st|nd|rd|th|er|º|o|\.)?"

_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
#: A day number is never the fraction or the whole part of a decimal: "kostet ab März 3,50", "£2.80 since 3 May"
#: ("3,50" is a price, not 3 March; a comma or point with a digit on both sides joins one number).
_DAY_MONTH = re.compile(
    rf"(?<!\d[.,])\b(\d{{1,2}}){_ORD}\s*(?:of\s+|de\s+)?({_MONTH_RE})\b\.?(?:,?\s*(?:de\s+)?(\d{{4}}))?"
)
_MONTH_DAY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?![.,]\d)(?:,?\s*(\d{{4}}))?")
_RELATIVE_DAYS = (
    (
        re.compile(
            r"\b(?:the\s+)?day after tomorrow|apres-demain|pasado manana|ubermorgen|depois de amanha\b"
        ),
        2,
    ),
    (
        re.compile(
            # "cada mañana", "jeden Morgen", "heute Morgen": a morning, not tomorrow.
            r"\b(?:tomorrow|demain|amanha)\b|(?<!la )(?<!por )(?<!de )(?<!cada )(?<!esta )\bmanana\b|"
            r"(?<!am )(?<!guten )(?<!jeden )(?<!heute )(?<!diesen )(?<!ganzen )\bmorgen\b"
        ),
        1,
    ),
    (re.compile(r"\b(?:today|tonight|this evening|aujourd'hui|ce soir|hoy|esta noche|heute|hoje)\b"), 0),
)
_IN_N = re.compile(
    r"\b(?:in|dans|en|em|daqui a)\s+(\d{1,2}|[a-z]+)\s+"
    r"(days?|jours?|dias?|tagen|weeks?|semaines?|semanas?|wochen|months?|mois|meses|monaten?)\b"
)
_NEXT_WEEK = re.compile(
    r"\b(?:next week|la semaine prochaine|la proxima semana|la semana que viene|nachste woche|"
    r"(?:na )?proxima semana|(?:na )?semana que vem)\b"
)
_NEXT_MONTH = re.compile(r"\b(?:next month|le mois prochain|el proximo mes|el mes que viene|nachsten monat|"
                         r"(?:no )?proximo mes|(?:no )?mes que vem)\b")  # fmt: skip
_WEEKDAY = re.compile(
    rf"\b(?:(?:next|this|coming|on|by|until|ce|el|este|proximo|proxima|am|nachsten|kommenden|diesen|bis|"
    rf"na|no|ate)\s+)?({_WEEKDAY_RE})(?:\s+(?:prochain|que viene|que vem|next week))?\b"
)
_WEEKDAY_DAY = re.compile(
    rf"\b({_WEEKDAY_RE}),?\s+(?:the\s+|le\s+|el\s+|den\s+|dia\s+)?(\d{{1,2}})(?:st|nd|rd|th|er|º|\.)?(?!\s*(?:h\b|:|am\b|pm\b|uhr\b|\d))"
)

#: What may stand between a weekday and the date it names: spaces, a comma, one article ("the", "le", "el", "den",
#: "dia", "o").
_NAMES_NEXT_DATE = re.compile(r",?\s*(?:(?:the|le|el|den|dia|o)\s+)?")

_DAY_ONLY = re.compile(
    r"\bthe (\d{1,2})(?:st|nd|rd|th)(?=\s*(?:[.,;!?)]|$|at\b|in\b|and\b|or\b|to\b|until\b|for\b|then\b|so\b|"
    r"but\b|because\b|of (?:this|next|the) month\b))|\ble (\d{1,2})(?:er)?(?=\s*(?:[.,;!?]|$|au\b|et\b|à\b))|"
    r"\bam (\d{1,2})\.(?=\s*(?:[,;!?]|$|um\b|und\b|bis\b|[a-zäöü]))|\bel d[ií]a (\d{1,2})\b(?! de\b)|"
    r"\b(?:no )?dia (\d{1,2})\b(?! de\b)"
)


def _next_day_of_month(today: date, day: int) -> date | None:
    """The next date (today included) whose day of the month is `day`."""
    year, month = today.year, today.month
    for _ in range(3):
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and candidate >= today:
            return candidate
        month, year = (1, year + 1) if month == 12 else (month + 1, year)
    return None


def _weekday_day(today: date, weekday: int, day: int) -> date | None:
    """The next date on or after today whose day of the month is `day` and which falls on `weekday` (within a year)."""
    year, month = today.year, today.month
    for _ in range(13):
        try:
            candidate = date(year, month, day)
        except ValueError:
            candidate = None
        if candidate is not None and candidate >= today and candidate.weekday() == weekday:
            return candidate
        month, year = (1, year + 1) if month == 12 else (month + 1, year)
    return None


#: Words before a weekday that make it a habit ("every Tuesday", "los martes", "le mercredi", "jeden Dienstag").
_RECURRING = re.compile(
    r"\b(?:every|each|chaque|tous les|cada|todos los|todas las|los|las|le|jeden|jede|immer|toda|todas as|todos os)\s+$"
)
#: An English weekday said as the name of a recurring thing: after "the" / a possessive and before a plural noun
#: within three words ("the Saturday market gigs", "my Tuesday classes", "our Sunday lunches"): a habit, not one date.
#: A singular thing ("the Saturday meeting") may be one occasion and keeps its date, and so does a plural that names
#: what one occasion holds ("my Saturday plans", "the Friday errands").
_HABIT_BEFORE = re.compile(r"\b(?:the|my|our|his|her|their|your)\s+$")
_HABIT_AFTER = re.compile(
    r"(?:\s+[a-z]+){0,2}?\s+(?!(?:plans|arrangements|errands|chores|things)\b)[a-z]+[^s'\s]s\b(?!')"
)
#: Two weekdays joined as a span of the week ("Monday to Thursday", "Sunday-Wednesday", "du lundi au vendredi", "de
#: lunes a viernes", "Montag bis Freitag", "de segunda a sexta"): a weekly pattern, so neither day is a date.
_WEEKDAY_RANGE = re.compile(
    rf"\b({_WEEKDAY_RE}|{_PT_SHORT_RE})s?\s*(?:to|till|until|through|thru|-|–|au|a|al|hasta|bis|ate)\s*"
    rf"(?:(?:le|el|la|o|a)\s+)?({_WEEKDAY_RE}|{_PT_SHORT_RE})s?\b"
)
_PT_WEEKDAY = re.compile(rf"\b(?:na|proxima|ate a)\s+({_PT_SHORT_RE})\b|\b({_PT_SHORT_RE})\s+que vem\b")
#: A month said alone after a preposition ("in September", "em setembro", "en juillet"): its first day.
_IN_MONTH = re.compile(
    rf"\b(?:in|en|em|im|no|for|until|by|from|to|starting|desde|a partir de|ab|para|pour|au|al|hasta|até|auf|bis|à)\s+(?:(?:le |el |o |den )?mois (?:de |d.)?|(?:el |o )?mes de |(?:den )?monat )?({_MONTH_RE})\b(?!\s*\d(?!\d?[.,]\d))"
)
#: A capitalised word right after a month said alone: the month word is part of a name ("Mayo University
#: Hospital", "March Road"), not a date.
_NAME_GOES_ON = re.compile(r" [A-Z][a-z]")
#: English only: German writes every noun with a capital ("im Mai Urlaub machen").
_EN_LEAD = re.compile(r"(?:in|for|until|by|from|to|starting)\s")
_SMALL_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "un": 1, "une": 1, "deux": 2, "trois": 3,
                  "uno": 1, "una": 1, "dos": 2, "tres": 3, "einem": 1, "einer": 1, "zwei": 2, "drei": 3,
                  "um": 1, "uma": 1, "dois": 2, "duas": 2}  # fmt: skip


@dataclass(frozen=True)
class DateMention:
    """A date said in a text: its character span there, the resolved ISO day (or month), and whether it was relative."""

    start: int
    end: int
    iso: str
    is_relative: bool
    is_week: bool = False
    is_month: bool = False


def session_day(session_time_ms: int) -> date:
    """The UTC calendar day of the session."""
    return datetime.fromtimestamp(session_time_ms / 1000, UTC).date()


def _upcoming(today: date, month: int, day: int, year: int | None) -> date | None:
    try:
        if year is not None:
            return date(year, month, day)
        candidate = date(today.year, month, day)
        return candidate if candidate >= today else date(today.year + 1, month, day)
    except ValueError:
        return None


def _next_weekday(today: date, weekday: int) -> date:
    ahead = (weekday - today.weekday()) % 7 or 7
    return today + timedelta(days=ahead)


def find_dates(text: str, session_time_ms: int) -> list[DateMention]:
    """Every date mention in `text`, in order; spans index the original text (folding keeps lengths for Latin)."""
    return list(_find_dates(text, session_day(session_time_ms)))


@lru_cache(maxsize=8_192)
def _find_dates(text: str, today: date) -> tuple[DateMention, ...]:
    folded = fold(text)
    if len(folded) != len(text):  # folding changed lengths (rare ligatures): fall back to a lower-cased copy
        folded = text.lower()
    found: list[DateMention] = []
    spans = [match.span() for match in _WEEKDAY_RANGE.finditer(folded)]

    def in_span(start: int, end: int) -> bool:
        return any(s < end and start < e for s, e in spans)

    def add(
        start: int, end: int, day: date | None, *, relative: bool, week: bool = False, month: bool = False
    ) -> None:
        if day is None or any(m.start < end and start < m.end for m in found):
            return
        found.append(DateMention(start, end, day.isoformat(), relative, week, month))

    for match in _ISO.finditer(folded):
        add(*match.span(), _upcoming(today, int(match[2]), int(match[3]), int(match[1])), relative=False)
    for match in _DAY_MONTH.finditer(folded):
        year = int(match[3]) if match[3] else None
        add(*match.span(), _upcoming(today, MONTHS[match[2]], int(match[1]), year), relative=year is None)
    for match in _MONTH_DAY.finditer(folded):
        year = int(match[3]) if match[3] else None
        add(*match.span(), _upcoming(today, MONTHS[match[1]], int(match[2]), year), relative=year is None)
    for pattern, days in _RELATIVE_DAYS:
        for match in pattern.finditer(folded):
            add(*match.span(), today + timedelta(days=days), relative=True)
    for match in _IN_N.finditer(folded):
        count = int(match[1]) if match[1].isdigit() else _SMALL_NUMBERS.get(match[1])
        if count is None:
            continue
        unit = match[2]
        if unit.startswith(("day", "jour", "dia", "tag")):
            add(*match.span(), today + timedelta(days=count), relative=True)
        elif unit.startswith(("week", "semaine", "semana", "woche")):
            add(*match.span(), today + timedelta(days=7 * count), relative=True, week=True)
    for match in _NEXT_WEEK.finditer(folded):
        monday = today + timedelta(days=7 - today.weekday())
        add(*match.span(), monday, relative=True, week=True)
    for match in _NEXT_MONTH.finditer(folded):
        first = date(today.year + today.month // 12, today.month % 12 + 1, 1)
        add(*match.span(), first, relative=True, month=True)
    for match in _IN_MONTH.finditer(folded):
        if _NAME_GOES_ON.match(text, match.end()) and _EN_LEAD.match(match.group()):
            continue  # "a nurse in Mayo University Hospital", "in May Street": the month word opens a name
        first_day = _upcoming(today, MONTHS[match[1]], 1, None)
        if first_day is not None and first_day.month == today.month:
            first_day = date(today.year, today.month, 1)  # "in June" said in June: this month, not next year
        add(*match.span(), first_day, relative=True, month=True)
    for match in _DAY_ONLY.finditer(folded):
        # "on the 14th", "le 14", "am 14.", "el día 14", "no dia 14": the next 14th of a month.
        day = int(next(g for g in match.groups() if g))
        add(*match.span(), _next_day_of_month(today, day), relative=True)
    for match in _WEEKDAY_DAY.finditer(folded):
        if in_span(*match.span()):
            continue  # "Monday to Thursday, 7 till 7": a day of the week's span, then hours
        # "el martes 10", "Tuesday the 10th": the day of the month that falls on that weekday, ahead.
        add(*match.span(), _weekday_day(today, WEEKDAYS[match[1]], int(match[2])), relative=True)
    for match in _WEEKDAY.finditer(folded):
        if in_span(*match.span()):
            continue  # "on nights Sunday to Wednesday": a weekly span, not one date
        if any(
            _NAMES_NEXT_DATE.fullmatch(folded, match.end(), m.start) for m in found if m.start >= match.end()
        ):
            # "am Dienstag, 10. März", "Saturday the 11th of July", "samedi le 11 juillet", "sábado, dia 11 de
            # julho": the weekday names the date that follows it (after a comma or an article), not a second date
            continue
        if _RECURRING.search(folded, 0, match.start()):
            continue  # "every Tuesday", "los martes", "le mercredi", "jeden Dienstag": a habit, not one date
        if _HABIT_BEFORE.search(folded, 0, match.start()) and _HABIT_AFTER.match(folded, match.end()):
            continue  # "the Saturday market gigs": the name of a weekly thing
        add(*match.span(), _next_weekday(today, WEEKDAYS[match[1]]), relative=True)
    for match in _PT_WEEKDAY.finditer(folded):
        if in_span(*match.span()):
            continue
        add(*match.span(), _next_weekday(today, _PT_SHORT[match[1] or match[2]]), relative=True)
    return tuple(sorted(found, key=lambda m: m.start))


def weekday_span(text: str) -> tuple[int, int] | None:
    """The span of the first span of the week in `text` ("Sunday to Wednesday", "du lundi au vendredi"), or None."""
    folded = fold(text)
    match = _WEEKDAY_RANGE.search(folded if len(folded) == len(text) else text.lower())
    return match.span() if match else None


def with_resolved_dates(text: str, mentions: list[DateMention]) -> str:
    """The text with " (YYYY-MM-DD)" after each relative or year-less date ("week of" for weeks)."""
    pieces: list[str] = []
    cursor = 0
    for mention in mentions:
        if not mention.is_relative:
            continue
        pieces.append(text[cursor : mention.end])
        if mention.is_month:
            label = mention.iso[:7]
        elif mention.is_week:
            label = f"week of {mention.iso}"
        else:
            label = mention.iso
        pieces.append(f" ({label})")
        cursor = mention.end
    pieces.append(text[cursor:])
    return "".join(pieces)


__all__ = [
    "MONTHS",
    "WEEKDAYS",
    "DateMention",
    "find_dates",
    "session_day",
    "weekday_span",
    "with_resolved_dates",
]
