"""Self-repairs in a user's turn: what they said before "no sorry" is not what they meant.

"From June I'll be under Dr. Roisin... no sorry, Dr. Sinead Walsh at York Hospital" means Dr. Walsh; "abrimos los
sábados por la tarde... no, espera, me lío: los sábados seguimos solo por la mañana" means the mornings. The
extractor reads the repaired turn (`repaired`), so the value the user took back is never stored, and the fact the
user meant is read like any other statement. Two shapes:

- the repair starts with a value (a name, a number, a date): it replaces the value the text before the marker ended
  with ("Dr. Roisin… no sorry, Dr. Sinead Walsh" → "Dr. Sinead Walsh");
- otherwise the repair is a clause of its own, and the clause it repairs is dropped;
- a sentence taken back with nothing in its place ("Book me in at Fazioli? No, forget it, just thinking aloud.",
  "laisse tomber", "olvídalo", "vergiss es", "esquece"): it is dropped with the words taking it back (`withdrawn`).

A marker needs a pause before it (an ellipsis, a comma, a dash) and a word that takes something back ("sorry",
"I mean", "wait", "pardon", "perdón", "espera", "ich meine", "desculpa", "quer dizer" …) or an ellipsis followed by
"no": a plain "no" inside a sentence is a negation, not a repair. Nothing is added: the repaired turn only loses
words, so every fact read from it is still grounded in what the user said.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memoryd.write.grounding.dates import MONTHS, WEEKDAYS
from memoryd.write.grounding.text import fold, word_set

_I = re.IGNORECASE
_NO = r"(?:no|non|nein|n[ãa]o|nope)"
_TAKE_BACK = (
    r"(?:sorry|i mean|i meant|or rather|scratch that|correction|my mistake|my bad|wait|hang on|"
    r"pardon|je veux dire|enfin|attends|plutôt|"
    r"perd[óo]n|quiero decir|mejor dicho|espera|me l[íi]o|me equivoqu[ée]|"
    r"ich meine|sorry|moment|verzeihung|quatsch|"
    r"desculpa|desculpe|quer dizer|ali[áa]s|espera)"
)
#: The pause, then the take-back words ("… no sorry,", ", I mean", "... no, espera, me lío:"), then any "no" or
#: "actually" the speaker adds.
_MARKER = re.compile(
    rf"(?:\s*(?:\.\.\.|…)\s*(?:{_NO}[,!.]?\s+)?(?:{_TAKE_BACK}[,:!.]?\s+)*(?:{_TAKE_BACK}|(?<=\.\.\.)\s*{_NO}|(?<=…)\s*{_NO})"
    rf"|\s*[,—–]\s*(?:{_NO}[,!.]?\s+)?(?:{_TAKE_BACK}[,:!.]?\s+)*{_TAKE_BACK})"
    rf"[,:!.]?\s+(?:(?:{_NO}|actually|en fait|en realidad|eigentlich|na verdade)[,:!.]?\s+)*",
    _I,
)
_TITLE = r"(?:Dr|Dra|Mr|Mrs|Ms|Mx|Prof|Herr|Frau|Sr|Sra|Mme|M)\.?"
#: A value the text before a marker ends with: a name (titles kept), a number or a day ("the 15th", "Thursday").
_TRAILING_VALUE = re.compile(
    rf"(?:(?:{_TITLE}\s+)?(?-i:[A-ZÀ-ÖØ-Þ][\w'’-]*)(?:\s+(?-i:[A-ZÀ-ÖØ-Þ][\w'’-]*)){{0,3}}"
    rf"|(?:the\s+|le\s+|el\s+|am\s+|o\s+)?\d[\w:.,/-]*(?:\s+[^\W\d_]+)?"
    rf"|[^\W\d_]+)$",
)
_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS)
#: Where the clause a repair replaces starts.
_CLAUSE_START = re.compile(r"(?:^|[.!?;:]\s+|,\s+(?=\S))")


#: The end of the repair's sentence (a title's dot ends none: "Dr. Kohl").
_SENTENCE_END = re.compile(
    r"(?<!\bDr)(?<!\bMr)(?<!\bMs)(?<!\bSr)(?<!\bDra)(?<!\bMrs)(?<!\bSra)(?<!\bProf)[.!?;](?=\s|$)"
)
#: A take-back word the speaker adds after the repair (", pardon.", ", sorry!"): dropped with its comma.
_TRAILING_TAKE_BACK = re.compile(rf",\s*{_TAKE_BACK}(?P<end>\s*[.!]?)(?=\s|$)", _I)
#: A repair of this many words or fewer replaces as many words before its marker.
_SHORT_REPAIR = 3


def _starts_with_value(text: str) -> bool:
    match = re.match(rf"(?:{_TITLE}\s+)?([^\s,.;:!?]+)", text)
    if match is None:
        return False
    word = match.group(1)
    if match.group(0) != word:  # a title: "Dr. Walsh"
        return True
    return any(ch.isdigit() for ch in word) or fold(word) in _CALENDAR or _is_name(word)


def _is_name(word: str) -> bool:
    return word[:1].isupper() and fold(word) not in _PRONOUNS


#: Capitalised openers of a clause that are no value ("I", "We", "Je", "Los").
_PRONOUNS = word_set(
    "i we you he she they it this that there the a an my our je nous on il elle le la les mon ma yo nosotros el los "
    "las mi ich wir er sie es der die das mein meine eu nos ele ela o os as meu minha make let"
)


def _trailing_value(before: str, after: str) -> re.Match[str] | None:
    """The value at the end of `before` that the repair's first value stands for (of the same shape)."""
    match = _TRAILING_VALUE.search(before)
    if match is None:
        return None
    said = match.group(0)
    first = after.split()[0] if after.split() else ""
    kind = _kind(said)
    # A plain word ("tarde") is no value: the repair is a clause of its own.
    return match if kind and kind == _kind(first) else None


def _kind(said: str) -> str:
    """What kind of value a span is: "day" (a number or a calendar word: "the 15th" and "Thursday" are one kind),
    "name", or "" for none."""
    words = said.split()
    if not words:
        return ""
    if any(ch.isdigit() for ch in said) or any(fold(w.strip(",.")) in _CALENDAR for w in words):
        return "day"
    if re.match(rf"{_TITLE}\b", words[0]) or _is_name(words[0]):
        return "name"
    return ""


def _repair_once(text: str) -> str | None:
    for marker in _MARKER.finditer(text):
        before, after = text[: marker.start()], text[marker.end() :]
        if not before.strip() or not after.strip() or before.rstrip().endswith(("?", "!")):
            continue
        if before.rstrip()[-1:] in ".;:" and not before.rstrip().endswith("..."):
            continue  # a marker opening a sentence repairs something said before it, not in this turn's words
        if _starts_with_value(after):
            value = _trailing_value(before, after)
            if value is not None:
                return before[: value.start()] + after
        after = _TRAILING_TAKE_BACK.sub(lambda m: m.group("end"), after, count=1)
        phrase = re.split(r",\s", _SENTENCE_END.split(after, maxsplit=1)[0])[0].split()
        if 0 < len(phrase) <= _SHORT_REPAIR and len(before.split()) > len(phrase):
            # "na quarta… não, desculpa, na quinta": the repair stands for as many words before the marker, or for
            # what follows the word it starts with ("un souci de chauffage… enfin non, de sécurité incendie").
            words = before.rstrip().split(" ")
            first = fold(phrase[0])
            starts = [i for i in range(max(1, len(words) - 6), len(words)) if fold(words[i]) == first]
            cut = starts[-1] if starts else len(words) - len(phrase)
            return " ".join(words[:cut]) + " " + after
        starts = [m.end() for m in _CLAUSE_START.finditer(before) if m.end() < len(before)]
        start = starts[-1] if starts else 0
        opens = start == 0 or before[:start].rstrip()[-1:] in ".!?"
        return before[:start] + (after[:1].upper() + after[1:] if opens else after)
    return None


#: A sentence that takes back the one before it and says nothing else: "No, forget it, just thinking aloud.",
#: "Never mind.", "Non, laisse tomber, je réfléchis à voix haute.", "Olvídalo, da igual.", "Nein, vergiss es, nur
#: laut gedacht.", "Não, esquece, deixa para lá.".
_WITHDRAW_PHRASE = (
    r"(?:forget (?:it|that|about it)|never ?mind|ignore that|(?:I'm |I was )?just thinking (?:aloud|out loud)|"
    r"thinking (?:aloud|out loud)|laisse[zr]? tomber|oublie[sz]?(?: ça| cela)?|(?:je )?(?:réfléchis|pense) à voix haute|"
    r"olv[íi]dalo|olvida eso|d[ée]jalo|da igual|(?:solo |sólo )?(?:estoy )?pensando en voz alta|"
    r"vergiss (?:es|das)|vergessen sie (?:es|das)|schon gut|(?:ich )?(?:denke )?nur laut(?: gedacht)?|"
    r"esquece|esqueça|deixa (?:pra|para) lá|deixa estar|(?:estou )?(?:só )?a pensar alto|(?:só )?pensando alto)"
)
_WITHDRAWAL = re.compile(
    rf"(?:^|(?<=[.!?…])\s+)(?:{_NO}[,!.]?\s+)?{_WITHDRAW_PHRASE}(?:[,;]?\s+(?:{_NO}[,!.]?\s+)?{_WITHDRAW_PHRASE})*"
    rf"\s*[.!…]*\s*(?=$|(?<=[.!…])\s)",
    _I,
)
#: The sentence before a withdrawal: from the previous sentence end (or the turn's start) to the withdrawal.
_SENTENCE_BEFORE = re.compile(r"(?:^|(?<=[.!?…])\s+)[^.!?…]+[.!?…]+\s*$")


def withdrawn(text: str) -> str:
    """The turn without a sentence the user took back at once and the words taking it back ("Book me in for a
    regulation course at Fazioli? No, forget it, just thinking aloud." → ""): a request or plan withdrawn is no
    task, no plan and names no entity. A withdrawal opening the turn takes back something said earlier, and a
    withdrawal with more words after it ("Never mind, I'll call them myself") is a statement: both stay."""
    for match in _WITHDRAWAL.finditer(text):
        before = text[: match.start()]
        said = _SENTENCE_BEFORE.search(before)
        if said is None or not said.group(0).strip():
            continue
        return withdrawn((before[: said.start()] + " " + text[match.end() :]).strip())
    return text


@lru_cache(maxsize=4_096)
def repaired(text: str) -> str:
    """The turn as the user meant it: each self-repair applied, and a sentence withdrawn at once left out (module
    docstring, `withdrawn`)."""
    text = withdrawn(text)
    for _ in range(4):  # a turn repairs itself a few times at most
        fixed = _repair_once(text)
        if fixed is None or fixed == text:
            return text
        text = fixed
    return text


__all__ = ["repaired", "withdrawn"]
