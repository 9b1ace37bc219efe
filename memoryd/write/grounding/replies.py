"""A user's sentence read with the assistant message it replies to, when that message names the slot.

Two shapes leave the slot unsaid in the user's own words:

- **Referring back**: "Actually I've revised that. Stellan convinced me that 1700 by December is more realistic",
  after the assistant said "The 1800 goal looks within reach". "That" is what the assistant's message named: the
  older fact holding a value that message names (1800) is the one revised, and the user's next sentences in the turn
  give the new value, of the same kind (a number for a number, a name for a name, a date for a date). The cue is a
  sentence saying only that something changed, with no value of its own (`REFER_BACK`: "I've revised that", "that's
  changed", "not any more", "ça a changé", "eso cambió", "das hat sich geändert", "isso mudou").
- **An answer to a question about a change**: "Which vet now?" — "Dr Alves.", "Still opening at 7?" — "No, 6:30
  from March." The question names the slot ("vet") and asks what holds now (`ASKS_NOW`: "now", "new", "still",
  "any more", "these days", "maintenant", "ahora", "jetzt", "agora", …); the user's first sentence answers with a
  value. The pair is read as one correction: the question's words, the answer's values.

An assistant message naming values of two unrelated older facts leaves which one was revised unknown (none is
chosen, see revisions.py); a question that asks nothing about now ("Where do you live?") is no correction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.model import SourceTurn
from memoryd.write.grounding.text import sentences

_I = re.IGNORECASE
#: A sentence saying that something the conversation named changed, naming no value itself.
REFER_BACK = re.compile(
    r"\b(?:(?:i|we)(?:'ve| have)? (?:revised|changed|updated|rethought|reconsidered|dropped) (?:that|this|it)|"
    r"(?:that|this|it)(?:'s| has| is)? (?:changed|different now|out of date|not true any ?more|no longer true)|"
    r"not any ?more|no longer|(?:ça|cela) a changé|j'ai changé (?:ça|cela|d'avis)|ce n'est plus (?:le cas|vrai)|"
    r"(?:eso|esto) (?:ha )?cambi(?:ó|ado)|lo he cambiado|ya no es así|"
    r"das hat sich (?:geändert|erledigt)|das stimmt nicht mehr|hab(?:e)? (?:das|es) geändert|"
    r"isso mudou|já não é assim|mudei isso)\b",
    _I,
)
#: A question asking what holds now.
ASKS_NOW = re.compile(
    r"\b(?:now|new|still|any ?more|these days|nowadays|instead|maintenant|désormais|toujours|nouveau|nouvelle|"
    r"ahora|todavía|sigue|nuevo|nueva|jetzt|nun|noch|neue|neuer|agora|ainda|novo|nova)\b",
    _I,
)
#: The longest reply read as an answer (a longer one says more than the value asked for).
MAX_ANSWER_WORDS = 14


def context(turns: Sequence[SourceTurn], position: int) -> str:
    """The assistant message the turn at `position` replies to ("" for the first turn)."""
    if position <= 0:
        return ""
    return turns[position - 1].assistant


def question(message: str) -> str:
    """The message's last sentence when it is a question asking what holds now, else ""."""
    said = sentences(message)
    last = said[-1].strip() if said else ""
    return last if last.endswith("?") and ASKS_NOW.search(last) else ""


def is_answer(sentence: str) -> bool:
    """Whether a sentence is short enough to be read as the answer to the question before it."""
    return len(sentence.split()) <= MAX_ANSWER_WORDS


__all__ = ["ASKS_NOW", "MAX_ANSWER_WORDS", "REFER_BACK", "context", "is_answer", "question"]
