"""A date said of the past: a year-less date that already went by this year, in a clause told in a past tense.

The date resolver looks ahead: "15 septembre" said on 20 September is read as next year's 15 September. That is
right for a plan ("the fair is on 15 March", said in April, is next March) and wrong for what already happened
("on a commencé le 15 septembre", "the yard's crane broke in March"): a clause told in a past tense about a day this
year already passed is a report, never a plan. One rule in five languages: a past tense (a simple past or a
compound past with its auxiliary) and a year-less date whose day this year is before the session's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from memoryd.write.grounding.dates import DateMention
from memoryd.write.grounding.stale import CHANGE_MARKER

_I = re.IGNORECASE

#: A past tense: English simple past after a subject (regular "-ed" or a common irregular verb), the compound pasts
#: with their auxiliary in French, Spanish, German and Portuguese, and the European Portuguese first person plural
#: preterite ("fechámos"). A Spanish "abrimos el 1 de marzo" is present or past alike, so it is not read as past.
_PAST_TENSE = re.compile(
    r"\b(?:I|we|they|he|she|it|the \w+(?:'s \w+)?|our \w+|my \w+)\s+(?:(?:\w+ly|never|just|already|finally|only|also|still)\s+){0,2}(?:\w{2,}ed|broke|began|came|fell|"
    r"froze|went|got|took|left|won|lost|ran|sold|bought|made|met|quit|had|was|were|did|found|gave|held|"
    r"paid|sent|spent|threw|wore|wrote|rode|flew|drove|ate|saw)\b"
    # French passé composé: "on a commencé", "j'ai fini", "nous avons signé", "elle est partie".
    r"|(?:\bj'|\bj’|\b(?:on|il|elle|nous|vous|ils|elles|je|tu)\s+)(?:ai|as|a|avons|avez|ont|suis|es|est|sommes|"
    r"êtes|sont)\s+(?:\w+\s+)?\w+(?:é|ée|és|ées|i|ie|is|it|u|ue|us|ert|erte)\b"
    # Spanish and Portuguese compound pasts and the European Portuguese first person plural preterite.
    r"|\b(?:he|has|ha|hemos|habéis|han)\s+\w+(?:ado|ido|ada|ida|to|cho)\b|\b\w+(?:ámos)\b"
    # German Perfekt and Präteritum of sein/haben with a participle ("wir haben … angefangen", "ist … kaputtgegangen").
    r"|\b(?:habe|hast|hat|haben|habt|bin|bist|ist|sind|seid|hatte|hatten|war|waren)\b[^.!?]{0,60}?\b\w*ge\w+(?:t|en)\b",
    _I,
)
#: Verbs that arrange or move a date: said in the past, they set one ahead ("I booked the MOT for 3 March", "the
#: launch moved to May 3", "on a reporté le salon au 7 juin", "se aplazó al 3 de junio", "wurde verschoben").
_ARRANGED = re.compile(
    r"\b(?:booked|scheduled|planned|arranged|signed up|registered|entered|set|fixed|agreed|confirmed|decided|"
    r"moved|slipped|slid|pushed|shifted|changed|bumped|postponed|delayed|rescheduled|brought forward|put back|"
    r"réservé|(?<!que )prévu|programmé|fixé|décidé|inscrit|inscrite|reporté|reportée|décalé|décalée|déplacé|déplacée|repoussé|"
    r"avancé|reservado|programado|fijado|decidido|inscrito|aplazado|movido|pospuesto|retrasado|adelantado|cambiado|"
    r"gebucht|geplant|festgelegt|entschieden|angemeldet|verschoben|vorverlegt|verlegt|reservado|marcado|marcámos|"
    r"decidimos|adiado|adiámos|remarcado|mudado|passou)\b",
    _I,
)
#: Words that put a year-less date ahead whatever the verb ("next March", "le mois prochain").
_AHEAD = re.compile(
    r"\b(?:next|coming|prochain|prochaine|próximo|próxima|que viene|nächsten?|kommenden?|que vem)\b", _I
)


def past_tense(clause: str) -> bool:
    """Whether the clause is told in a past tense."""
    return _PAST_TENSE.search(clause) is not None


def rolled_over(mention: DateMention, clause: str, today: date) -> bool:
    """Whether a year-less date was carried into next year because its day this year is already past."""
    if not mention.is_relative or mention.is_week or _AHEAD.search(clause[mention.start : mention.end]):
        return False
    if re.search(r"\b\d{4}\b", clause[mention.start : mention.end]):
        return False
    try:
        year = int(mention.iso[:4])
    except ValueError:
        return False
    return year > today.year and mention.iso[4:] < today.isoformat()[4:]


def past_dates_only(clause: str, mentions: Sequence[DateMention], today: date) -> bool:
    """Whether every date ahead in the clause is a day already past this year, and the clause says it in a past tense
    ("Finalement on a commencé le 15 septembre", said on 20 September): a report, not a plan. A clause that says a
    change ("now", "instead", "maintenant") is a correction whose date is the new one, whatever its verbs ("it got
    messed up, the fair is now 3 March")."""
    ahead = [m for m in mentions if m.iso >= today.isoformat()[: len(m.iso)]]
    return (
        bool(ahead)
        and all(rolled_over(m, clause, today) for m in ahead)
        and not _AHEAD.search(clause)
        and not _ARRANGED.search(clause)
        and not CHANGE_MARKER.search(clause)
        and past_tense(clause)
    )


def this_year(mentions: Sequence[DateMention], today: date) -> list[DateMention]:
    """The mentions with each year-less date that was carried into next year put back in this year."""
    out = []
    for mention in mentions:
        if (
            mention.is_relative
            and not mention.is_week
            and mention.iso[:4].isdigit()
            and int(mention.iso[:4]) > today.year
        ):
            mention = replace(mention, iso=f"{int(mention.iso[:4]) - 1}{mention.iso[4:]}")
        out.append(mention)
    return out


__all__ = ["past_dates_only", "past_tense", "rolled_over", "this_year"]
