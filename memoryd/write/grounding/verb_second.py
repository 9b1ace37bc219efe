"""German verb-second clauses read in the subject's order.

A German main clause may open with any part of it, then the finite verb, then the subject: "Notdienst habe ich jedes
zweite Wochenende", "Geöffnet haben wir Montag bis Freitag". The extractor's first-person rules read the subject
first ("ich habe …", "wir haben …"), as English says it. `subject_first` puts the clause in that order — subject,
finite verb, the rest, then the part that opened it, where German puts a participle or a noun of the predicate ("Wir
haben Montag bis Freitag geöffnet", "Ich habe jedes zweite Wochenende Notdienst") — so the same rules read it. The
extractor reads this order only when the clause as said yields nothing.

Only "ich" or "wir" right after a finite verb form counts (a verb ending in -e/-en or one of the irregular forms
"bin", "sind", "muss", "kann", "will", "darf", "soll", "mag", "hab"), and the opening part is one to four words with
no comma, no conjunction and no question word: "Wenn ich …", "Ob wir …", a question ("Haben wir …?", "Wann habe ich
…?") and a clause whose subject is someone else ("Notdienst hat meine Kollegin …") are left as they are. The other
languages read here (en, fr, es, pt) put the subject first in statements and are never changed.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

#: Words that open a subordinate clause or a question, never the fronted part of a statement.
_NOT_FRONT = frozenset(
    (  # noqa: SIM905
        "wenn ob weil dass da als bevor nachdem falls obwohl während wann wo wie was warum wer welche welcher "
        "welches wieso weshalb und aber oder denn sondern"
    ).split()
)
#: Adverbs and prepositions that open a German sentence; lower-cased when moved ("Jetzt", "Am Freitag").
_ADVERBS = frozenset(
    (  # noqa: SIM905
        "jetzt nun heute morgen gestern dann hier dort seit am im ab bis zurzeit inzwischen momentan immer meistens "
        "normalerweise sonst außerdem trotzdem deshalb also auch jeden jede jedes"
    ).split()
)
#: A past participle ("geöffnet", "gearbeitet", "umgezogen"): lower-case, it only opened the sentence.
_PARTICIPLE = re.compile(r"^(?:[a-zäöü]+)?ge[a-zäöüß]+(?:t|en)$", _I)
_V2 = re.compile(
    r"^(?P<front>[^\W\d_][\w.-]*(?: [\w.-]+){0,3}?) (?P<verb>(?-i:[a-zäöüß]+(?:e|en))|bin|sind|muss|müssen|kann|"
    r"können|will|wollen|darf|dürfen|soll|sollen|mag|hab) (?P<subj>ich|wir)\b(?P<rest>[^?]*?)(?P<end>[.!]?)$",
    _I,
)


def subject_first(clause: str) -> str:
    """The clause in subject-first order ("Notdienst habe ich jedes zweite Wochenende" → "Ich habe jedes zweite
    Wochenende Notdienst"), or "" when it is no German verb-second statement with "ich" / "wir" after the verb."""
    said = clause.strip()
    match = _V2.match(said)
    if match is None:
        return ""
    front = match.group("front")
    if "," in front or front.split()[0].lower() in _NOT_FRONT:
        return ""
    rest = match.group("rest").strip()
    # A comma ends the clause the front belongs to: "Geöffnet haben wir Montag bis Freitag, 7 bis 16 Uhr".
    inner, comma, tail = rest.partition(",")
    subject = match.group("subj")
    first, _, others = front.partition(" ")
    if first.lower() in _ADVERBS or _PARTICIPLE.match(first):
        # Capitalised only because it opened the sentence: "Geöffnet", "Jetzt" (a noun keeps its capital).
        front = f"{first.lower()} {others}".strip()
    moved = f"{subject[0].upper()}{subject[1:]} {match.group('verb')} {inner.strip()} {front}".replace(
        "  ", " "
    )
    return f"{moved}{comma}{tail}{match.group('end')}".strip()


__all__ = ["subject_first"]
