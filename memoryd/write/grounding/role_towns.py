"""The town a job is held in, said right after the role: "I'm a farrier, working out of Hexham", "je suis fromager
affineur à La Clusaz", "soy ceramista en Talavera de la Reina", "ich bin Goldschmiedin mit eigener Werkstatt in
Pforzheim", "sou conservadora de azulejos em Lisboa".

Rule: when a grammar rule read the user's role from a clause (`identity.role`) and the clause goes on, after the
role's words and at most three more words of the same phrase (no comma but the one before "working" / "based"; no
conjunction, pronoun or verb of another clause), with a town preposition ("in", "out of", "working out of", "based
in", "à", "en", "em", "in") and a place name (capitalised words, joined by "de", "la", "del", "do", "da", "upon",
"am", "an der", "sur"…), the job's town is a fact of its own: where the user works (`identity.workplace`), said
with the role ("The user works as a farrier in Hexham.", "L'utilisateur travaille comme fromager affineur à La
Clusaz.", "Der Nutzer arbeitet als Goldschmiedin in Pforzheim."), so a later move retires the town and leaves the
profession (supersede.py `_town_of_old_job`), as the introduction reader already does for "Gemeindereferentin in
Fulda" (grounding/structure.py).

Not read: a workplace named with "at" / "chez" / "bei" ("a nurse at St Mary's": the place is the workplace, kept in
the role's words), a retired role's town (that is where the user lives), a town after another clause ("I'm a nurse
and my sister lives in Leeds"), a role of someone else (the grammar rules read only the user's), a turn whose facts
already say where the user works or lives in that town, or already say the role in that town ("The user is an
independent town councillor in Frome.").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.templates import TOWN_OF_WORK, render
from memoryd.write.grounding.text import fold

_I = re.IGNORECASE
#: A capitalised place name, its lower-case joining words allowed ("Talavera de la Reina", "Stratford-upon-Avon",
#: "Frankfurt am Main", "La Clusaz").
_PLACE = (
    r"(?P<place>(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*(?:\s+(?:(?:de|del|la|le|les|los|da|do|das|dos|upon|on|am|an der|sur|"
    r"en)\s+)*(?-i:[A-ZÀ-ÖØ-Þ])[\w'’-]*){0,3})"
)
#: What may stand between the role and its town: up to three words of the same phrase.
_GAP = r"(?P<gap>(?:\s+(?!(?:and|but|who|which|where|et|mais|qui|où|y|pero|que|donde|und|aber|wo|e|mas|onde|I|je|"
_GAP += r"j'|yo|ich|eu|my|mon|ma|mi|mein|meine|meu|minha|at|chez|bei)\b)[\w'’-]+){0,3}?)"
_TOWN_AFTER = re.compile(
    rf"^{_GAP}(?:\s*,\s*(?:working|based|bas[ée]e?|basad[oa]|ansässig)|\s+working)?\s+"
    r"(?P<prep>out of|in|à|en|em|no|na|aus|from|de)\s+"
    rf"{_PLACE}(?=\s*(?:[.,;!]|$|\s+(?:and|et|y|und|e|now|depuis|desde|seit|since)\b))",
    _I,
)
#: A role no longer held: its town is the home, not the workplace.
_RETIRED = re.compile(
    r"\b(?:retired|former|ex|retraitée?|ancienne?|jubilad[oa]|retirad[oa]|aposentad[oa]|reformad[oa]|pensioniert|"
    r"ehemalige[rn]?|rentner(?:in)?)\b",
    _I,
)
#: Words that are no town even when capitalised (a school year, a month, a weekday opening a name).
_NOT_TOWN = frozenset(
    fold(w)
    for w in re.findall(
        r"\S+",
        "Year Grade Class Level Term January February March April May June July August September October "
        "November December Monday Tuesday Wednesday Thursday Friday Saturday Sunday English French Spanish German "
        "Portuguese Maths Math",
    )
)


def _town(role: GroundedFact, clause: str) -> tuple[str, str] | None:
    """(the role's words as said, the town) when the clause names the job's town right after the role."""
    value = role.value.strip()
    at = clause.casefold().find(value.casefold())
    if not value or at < 0 or _RETIRED.search(value):
        return None
    said = clause[at : at + len(value)]
    after = _TOWN_AFTER.match(clause[at + len(value) :])
    if after is None:
        return None
    place = after["place"].strip()
    if fold(place.split()[0]) in _NOT_TOWN:
        return None
    gap = " ".join(after["gap"].split())
    if _RETIRED.search(gap):
        return None  # "sou enfermeira aposentada em Braga": a role no longer held, its town is the home
    if gap and (gap[:1].isupper() and role.language != "de"):
        return None  # "I'm a nurse Monday to Friday in Leeds": a gap of names is no part of the role
    return f"{said} {gap}".strip(), place


def role_towns(
    read: Sequence[tuple[GroundedFact, str]], held: Sequence[GroundedFact]
) -> list[tuple[GroundedFact, tuple[str, ...]]]:
    """Workplace facts for roles read with their town (module docstring): `read` pairs each role fact with the
    clause it was read from; `held` are the facts found so far (a town they already place is not stated again)."""
    out: list[tuple[GroundedFact, tuple[str, ...]]] = []
    for role, clause in read:
        if role.slot != "identity.role" or role.kind is not FactKind.IDENTITY:
            continue
        got = _town(role, clause)
        if got is None:
            continue
        words, place = got
        if any(
            fold(place) in fold(f.text)
            and (f.slot in ("identity.workplace", "identity.home") or fold(role.value) in fold(f.text))
            for f in (*held, *(o for o, _ in out))
        ):
            continue  # the town is placed already, or a fact says the role in that town ("… councillor in Frome.")
        lang = role.language
        at = f"{TOWN_OF_WORK.get(lang, 'in')} {place}"
        text = render("works_as", lang, f"{words} {at}")
        out.append(
            (
                GroundedFact(
                    FactKind.IDENTITY,
                    text,
                    "identity.workplace",
                    at,
                    role.turns,
                    role.salience,
                    True,
                    "extractor",
                    lang,
                ),
                (clause,),
            )
        )
    return out


__all__ = ["role_towns"]
