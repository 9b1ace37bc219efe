"""A seasonal change that is over: "We're back to being closed on Mondays for the winter, from 2 November" after
"Summer change too: from June to September we'll open seven days a week, Mondays included".

A change said for a bounded period ("from June to September", "de junio a septiembre", "von Juni bis September",
"until October", "jusqu'en octobre") holds for that period only. When the user says the earlier state is back (a
return cue: "back to", "again", "de nuevo", "otra vez", "à nouveau", "de nouveau", "wieder", "de novo", "outra vez";
`_RETURN`) and names a value the seasonal fact names (a weekday, a month, a name: "Mondays"), the seasonal fact is
over and is retired; the sentence is the current state.

Not over: a sentence with no return cue ("we're also closed on Mondays in January"), or one naming nothing the
seasonal fact names; an older fact with no bounded period is no seasonal change (revisions.py reads it as usual).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.text import fold

_I = re.IGNORECASE
_MONTH = "|".join(sorted((re.escape(m) for m in MONTHS if len(m) > 3), key=len, reverse=True))
#: A bounded period: "from June to September", "until October" and their kin in five languages.
_PERIOD = re.compile(
    rf"\b(?:(?:from|de|desde|von|vom|entre)\s+(?:{_MONTH})\s+(?:to|till|until|à|a|hasta|bis|até|and|et|y|e)\s+"
    rf"(?:{_MONTH})|(?:until|till|through|jusqu'en|jusqu'à|hasta|bis|até)\s+(?:{_MONTH})|"
    rf"(?:for|during|pendant|durante|über|im|en|no|na)\s+(?:the\s+|l'|el\s+|le\s+|den\s+|o\s+)?"
    rf"(?:summer|winter|season|été|hiver|saison|verano|invierno|temporada|sommer|winter|saison|verão|inverno|época))\b",
    _I,
)
#: The earlier state said to be back.
_RETURN = re.compile(
    r"\b(?:back to|again|once more|de nuevo|otra vez|volvemos a|vuelve a|à nouveau|de nouveau|on revient|"
    r"wieder|de novo|outra vez|voltamos a|volta a)\b",
    _I,
)
#: The day the writer resolves a date to ("June (2026-06)"): not part of what was said.
_RESOLVED = re.compile(r"\s*\(\d{4}-\d{2}(?:-\d{2})?\)")
_WEEKDAY = re.compile(
    "|".join(rf"\b{re.escape(w)}s?\b" for w in sorted(WEEKDAYS, key=len, reverse=True)),
    _I,
)


def _days(text: str) -> frozenset[str]:
    """The weekdays a text names, singular and folded ("Mondays" → "monday")."""
    return frozenset(re.sub(r"s$", "", fold(m.group(0))) for m in _WEEKDAY.finditer(text))


def seasons_over(sentence: str, known: Sequence[str]) -> list[int]:
    """Indices of the older seasonal facts the sentence says are over (module docstring)."""
    if not _RETURN.search(sentence):
        return []
    said = _days(sentence)
    if not said:
        return []
    return [
        i for i, text in enumerate(known) if _PERIOD.search(_RESOLVED.sub("", text)) and said & _days(text)
    ]


__all__ = ["seasons_over"]
