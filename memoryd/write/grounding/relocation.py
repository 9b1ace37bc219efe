"""A move from one named place to another: "me voy de Rosario a Córdoba", "ich ziehe um, von Kassel nach Göttingen",
"we're moving from Leeds to York". The sentence says which value changed (the old place for the new one), like
"X instead of Y" (grounding/substitution.py), so every older fact placing the user's life in the old place ("El
usuario vive en Rosario", "Der Nutzer ist Lokführerin bei der Regionalbahn in Kassel") is retired and stored again
with the new place in its words; its other parts still hold.

Read only when:
- the sentence says a move ("move", "moving", "déménage", "me mudo", "me voy", "ziehe um", "mudo", …) and names both
  places, capitalised, as "from X to Y" in one of five languages;
- the older fact holds the old place after a preposition of place ("in", "en", "à", "em", "bei", "aus", "at"), or the
  old thing after a verb of using ("use Java, that's what the robot runs" when the code moves "from Java to Kotlin"),
  and not the new one;
- the move is not someone else's ("my brother is moving from Leeds to York", "she's moving …");
- no sentence of the session says the old place stays ("the stills stay in Dunoon", "sigo en Rosario", "bleibt in
  Kassel"): what stays behind keeps its place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.slotfill import someone_else
from memoryd.write.grounding.substitution import Swap
from memoryd.write.grounding.text import detect_language, fold

_I = re.IGNORECASE
_PLACE = r"(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+(?:\s+(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]+){0,2}"
#: "from X to Y" in five languages ("de X a Y", "von X nach Y", "de X para Y", "out of X into Y").
_FROM_TO = re.compile(
    rf"\b(?:from|out of|de|desde|von|aus|da|do)\s+(?P<old>{_PLACE})\s+"
    rf"(?:to|into|à|a|au|en|nach|para|pra|pro)\s+(?P<new>{_PLACE})",
    _I,
)
#: A move of home or work said as such.
_MOVE = re.compile(
    r"\b(?:mov(?:e|es|ed|ing)|relocat\w*|déménag\w*|(?:je |on |nous )?(?:pars|partons|part)|"
    r"(?:me|nos) (?:mudo|mudamos|mudé|voy|vamos|fui|fuimos)|mudanza|"
    r"zieh\w*|umgezogen|umzug|wechsle|mud(?:o|ei|amos|ámos|ar|ou)|mudança|vou|vamos)\b",
    _I,
)
#: The old place said to stay ("stay in Dunoon", "reste à Brest", "sigue en Rosario", "bleibt in Kassel").
_STAYS = r"\b(?:stay|stays|staying|still|remain|remains|reste|restent|sigue|siguen|sigo|queda|quedan|bleibt|bleiben|fica|ficam|continua|continuam)\b"
_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS)
#: A preposition placing something in a place, or a verb of using what moves ("use Java" when the robot code moves
#: "from Java to Kotlin").
_AT = r"(?:in|en|à|a|em|no|na|bei|aus|at|im|de|use|uses|using|utilise|utilisez|usa|usamos|usar|benutze|nutze|uso)"


def _held_at(text: str, place: str) -> re.Match[str] | None:
    return re.search(
        rf"\b{_AT}\s+(?:the\s+|la\s+|le\s+|el\s+|o\s+|a\s+)?(?P<p>{re.escape(place)})(?![\w'’-])", text
    )


def stays(value: str, session_said: Sequence[str]) -> bool:
    """Whether a sentence of the session says `value` stays ("No, the stills stay in Dunoon"); a sentence moving
    from it is no such sentence."""
    said = re.compile(rf"{_STAYS}[^.!?]*\b{re.escape(value)}\b|\b{re.escape(value)}\b[^.!?]*{_STAYS}", _I)
    return any(
        said.search(sentence) and not _FROM_TO.search(sentence)
        for turn in session_said
        for sentence in re.split(r"(?<=[.!?])\s+", turn)
    )


def relocations(sentence: str, known: Sequence[str], session_said: Sequence[str] = ()) -> list[Swap]:
    """The older facts a from-to move places anew (module docstring); `session_said`: the session's user turns."""
    if not _MOVE.search(sentence):
        return []
    out: list[Swap] = []
    for move in _FROM_TO.finditer(sentence):
        old, new = move.group("old"), move.group("new")
        if someone_else(sentence[: move.start()], detect_language(sentence)):
            continue  # "My brother is moving his code from Java to Kotlin": not the user's move
        if fold(old) == fold(new) or {fold(old), fold(new)} & _CALENDAR:
            continue  # "from March to May" moves a date, not a place
        if stays(old, session_said):
            continue
        for index, text in enumerate(known):
            at = _held_at(text, old)
            if at is None or re.search(rf"\b{re.escape(new)}\b", text):
                continue
            out.append(Swap(index, text[: at.start("p")] + new + text[at.end("p") :], new))
    return out


__all__ = ["relocations", "stays"]
