"""A place said again as "there": "we're moving the studio to Black Mountain … I live there now" means the user
lives in Black Mountain. The extractor reads the turn with the place put back (`with_places`), so the move is read
like any other: "I live in Black Mountain now". Only where one lives or works is resolved, only to a place named
earlier in the same turn after "to", "in" or "at" (not "from": "20 minutes from Asheville" is where they are not),
and only in the user's own sentence ("I", "we" or a first-person verb)."""

from __future__ import annotations

import re
from functools import lru_cache

_PLACE = r"(?-i:[A-ZÀ-ÖØ-Þ][\w'’-]*(?:[ -](?:(?:de|da|do|del|la|le|am|an|upon)\s+)?[A-ZÀ-ÖØ-Þ][\w'’-]*){0,3})"
#: (where a place is named, a "there" of living or working, the preposition the resolved place takes).
_RULES: tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...] = tuple(
    (re.compile(before, re.IGNORECASE), re.compile(there, re.IGNORECASE), preposition)
    for before, there, preposition in (
        (rf"\b(?:to|in|at|into)\s+(?:the\s+)?(?P<p>{_PLACE})",
         r"\b(?P<verb>(?:I|we)(?:'m|'re| am| are)?\s+(?:now\s+)?(?:live|living|work|working|based))\s+there\b", "in"),
        (rf"\b(?:à|en|au)\s+(?P<p>{_PLACE})", r"\b(?P<verb>j'habite|on habite|nous habitons|je travaille)\s+là-bas\b",
         "à"),
        (rf"\b(?:a|en|al)\s+(?P<p>{_PLACE})",
         r"\b(?P<verb>vivo|vivimos|trabajo|trabajamos)(?:\s+ahora)?\s+(?:allí|allá|ahí)\b", "en"),
        (rf"\b(?:nach|in)\s+(?P<p>{_PLACE})",
         r"\b(?P<verb>(?:ich|wir)\s+(?:wohne|wohnen|arbeite|arbeiten)(?:\s+jetzt)?)\s+(?:dort|da)\b", "in"),
        (rf"\b(?:para|em|no|na)\s+(?P<p>{_PLACE})",
         r"\b(?P<verb>moro|moramos|trabalho|trabalhamos)(?:\s+agora)?\s+(?:lá|ali)\b", "em"),
    )
)  # fmt: skip


@lru_cache(maxsize=4_096)
def with_places(text: str) -> str:
    """The turn with a "there" of living or working replaced by the place named before it (module docstring)."""
    for before, there, preposition in _RULES:
        match = there.search(text)
        if match is None:
            continue
        places = list(before.finditer(text, 0, match.start()))
        if not places:
            continue
        place = places[-1].group("p")
        text = f"{text[: match.start()]}{match.group('verb')} {preposition} {place}{text[match.end() :]}"
    return text


__all__ = ["with_places"]
