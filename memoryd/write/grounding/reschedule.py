"""A new date said of an event named just before it: "Lily moved the wedding. It's now September 12."

Or said as what replaces the old one, when the sentence that says the event moved has no date of its own: "The
coaching course got pushed. I never started in April, so I'm booked on the winter one starting 9 January instead."

The sentence with the date names no event ("It's now September 12", "C'est maintenant le 23 mai", "Ahora es el 8
de julio"); the sentence before it, in the same turn, says which event moved ("Lily moved the wedding", "The cruise
has moved though"). The plan is stored in the user's words of both sentences, so its event (grounding/event.py: the
words after the rescheduling verb) is the wedding, and supersede.py replaces the older plan of that event.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from memoryd.write.grounding.dates import find_dates, with_resolved_dates
from memoryd.write.grounding.event import event_key
from memoryd.write.grounding.lexicon import HEDGE, HYPOTHETICAL
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.schedule import activity as schedule_activity
from memoryd.write.grounding.schedule import weekdays
from memoryd.write.grounding.stale import CHANGE_MARKER
from memoryd.write.grounding.summary import third_person
from memoryd.write.grounding.templates import render
from memoryd.write.grounding.text import detect_language, light_stem, sentences

_I = re.IGNORECASE
#: A sentence whose subject is the event said before: "It's now …", "Now it's …", "C'est maintenant …".
_IT_NOW = re.compile(
    r"^(?:(?:so|and|but|yes|yeah|oh|ok|okay|well|donc|et|bon|pues|y|also|und|então|e)[,!]?\s+)?"
    r"(?:it's now|it is now|now it's|now it is|it's been moved to|it was moved to|it got moved to|it moved to|"
    r"c'est maintenant|c'est désormais|maintenant c'est|ce sera|ahora es|ahora será|es ahora|será ahora|"
    r"es ist jetzt|jetzt ist es|es ist nun|agora é|é agora|agora será|passou para)\b",
    _I,
)
#: A rescheduling verb in the sentence before ("moved the wedding", "the cruise has moved", "a été repoussé").
_MOVED = re.compile(
    r"\b(?:mov(?:e|es|ed|ing)|push(?:es|ed)?|postpon(?:e|es|ed)|delay(?:s|ed)?|reschedul(?:e|es|ed)|shift(?:s|ed)?|"
    r"brought forward|bumped|changed|déplacé|décalé|reporté|repoussé|avancé|changé|movido|pospuesto|aplazado|"
    r"cambiado|cambiaron|cambió|retrasado|adelantado|verschoben|verlegt|vorgezogen|geändert|adiado|adiaram|"
    r"remarcado|remarcaram|mudaram|mudou)\b",
    _I,
)


#: The new date said as what replaces the old one, in a sentence after one saying the event moved with no date of
#: its own: "The coaching course got pushed. … so I'm booked on the winter one starting 9 January instead."
_INSTEAD = re.compile(
    r"\b(?:instead|à la place|au lieu de ça|en su lugar|en cambio|stattdessen|em vez disso|ao invés disso)\b",
    _I,
)

_PARTS = re.compile(r"[,;:]\s*")

#: A weekly schedule said of the activity named just before: "The walking club's changed days on me. It's Mondays
#: and Wednesdays now", "Le club a changé de jours. C'est le lundi et le mercredi maintenant", "El club cambió los
#: días. Ahora son los lunes y los miércoles", "Der Chor hat die Tage geändert. Jetzt ist es montags und mittwochs",
#: "O clube mudou os dias. Agora é às segundas e quartas".
_IT_DAYS = re.compile(
    r"^(?:(?:so|and|but|yes|yeah|oh|ok|okay|well|donc|et|bon|pues|y|also|und|então|e)[,!]?\s+)?"
    r"(?:now\s+)?(?:it's|it is|they're|they are|c'est|ce sont|maintenant c'est|ahora es|ahora son|es|son|"
    r"jetzt ist es|es ist|jetzt sind es|agora é|agora são|é|são)\b",
    _I,
)
#: A day of the calendar: the change is of one occurrence, not of the weekly schedule.
_ONE_DATE = re.compile(r"\d")


def _moved_weekly(before: str, sentence: str, turn: SourceTurn, session_lang: str) -> GroundedFact | None:
    """A weekly schedule said with "it" of the activity the sentence before says changed, in the words of both."""
    part = _PARTS.split(sentence.strip())[0].strip(" .!")
    if not _IT_DAYS.match(part) or not weekdays(part) or _ONE_DATE.search(part):
        return None
    if CHANGE_MARKER.search(part) is None:
        return None  # "It's Mondays and Wednesdays" with no "now" says no change
    moved = next(p for p in _PARTS.split(before) if _MOVED.search(p)).strip(" ,;.!")
    activity = sorted(schedule_activity(moved))
    if not activity:
        return None
    lang = detect_language(f"{moved} {part}", default="") or session_lang
    said = f"{moved[:1].upper()}{moved[1:]}. {part}"
    shown = third_person(said) if lang == "en" else said
    text = render("plan", lang, shown[:1].upper() + shown[1:])
    return GroundedFact(
        FactKind.PLAN, text, f"routine.{activity[0]}", part, (turn.index,), 0.6, False, "extractor", lang
    )


def moved_events(
    turns: Sequence[SourceTurn], session_lang: str, session_time_ms: int
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Plans whose date is said of an event named in the sentence before, in the words of both sentences."""
    out: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for turn in turns:
        said = sentences(turn.user.replace("’", "'"))
        for before, sentence in pairwise(said):
            if not _MOVED.search(before):
                continue
            if any(p.search(s) for p in (HYPOTHETICAL, HEDGE) for s in (before, sentence)):
                continue
            if sentence.rstrip().endswith("?"):
                continue
            weekly = _moved_weekly(before, sentence, turn, session_lang)
            if weekly is not None:
                out.append((weekly, (before, sentence)))
                continue
            if not _IT_NOW.search(sentence.strip()) and not (
                _INSTEAD.search(sentence) and not find_dates(before, session_time_ms)
            ):
                continue
            if any(p.search(s) for p in (HYPOTHETICAL, HEDGE) for s in (before, sentence)):
                continue
            if sentence.rstrip().endswith("?") or not find_dates(sentence, session_time_ms):
                continue
            # Only the part of the sentence before that says what moved: "the ship needs repairs" is the reason.
            moved = next(p for p in _PARTS.split(before) if _MOVED.search(p)).strip(" ,;.!")
            joined = f"{moved[:1].upper()}{moved[1:]}. {sentence.strip()}".rstrip(".!")
            text = with_resolved_dates(joined, find_dates(joined, session_time_ms))
            event = sorted(event_key(text))
            if not event:
                continue  # "Things moved. It's now May 3": which event is unknown
            lang = detect_language(joined, default="") or session_lang
            fact = GroundedFact(
                FactKind.PLAN,
                render("plan", lang, text[:1].upper() + text[1:]),
                f"plan.{light_stem(event[0])}",
                sentence.strip(),
                (turn.index,),
                0.6,
                False,
                "extractor",
                lang,
            )
            out.append((fact, (before, sentence)))
    return out


__all__ = ["moved_events"]
