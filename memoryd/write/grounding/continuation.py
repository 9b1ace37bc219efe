"""What a fact's own sentence says after a comma that still belongs to the fact, in five languages.

The readers stop a value at the first comma, which cuts two kinds of sentence at the wrong place:

- a choice, plan or task and the person it is done with, said after a comma with no verb of its own: "Ich habe
  entschieden, den Evangelisten selbst zu besetzen, mit Jonathan Weiß aus Würzburg" stored "… selbst zu besetzen"
  (she sings it herself?); the same with "with Anna from Leeds", "avec Paul", "con Ana", "com o Rui". The company
  phrase (a preposition of company and a capitalised name, up to the end of the clause) is kept;
- a rule said as what not to do and then what to do instead: "Please don't give me generic running plans, I want
  map-reading drills, not mileage" stored only the refusal. After a negative rule ("don't", "never", "no", "ne …
  pas", "jamais", "no", "nunca", "nicht", "kein", "não"), a clause that opens with the user's own want ("I want",
  "I'd rather", "I prefer", "je veux", "je préfère", "quiero", "prefiero", "ich will", "ich möchte", "lieber",
  "quero", "prefiro") is the other half of the rule and is kept with it.

Only facts without a slot are extended: a slotted value is what corrections compare, and stays as read.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memoryd.write.grounding.model import FactKind, GroundedFact

_I = re.IGNORECASE
_DOING_KINDS = frozenset({FactKind.DECISION, FactKind.PLAN, FactKind.ACTION_ITEM})
#: ", with Anna from Leeds", ", mit Jonathan Weiß aus Würzburg": company, no verb, to the end of the clause.
_COMPANY = re.compile(
    r"^,\s*(?:(?:together |zusammen |junto )?(?:with|avec|con|mit|com))\s+"
    r"(?:(?:the|my|le|la|mon|ma|el|mi|dem|der|meinem|meiner|o|a|meu|minha)\s+)?"
    r"(?-i:[A-ZÀ-Þ])[^,.;!?]{0,60}(?=[.;!?]|$)",
    _I,
)
#: A rule said as a refusal: the negation opens it or follows its first word ("please don't", "ne me donne pas").
_NEGATIVE = re.compile(
    r"^(?:please\s+|por favor,?\s+|s'il te plaît,?\s+|bitte\s+)?(?:don't|do not|never|no|stop|"
    r"ne\b|n'|jamais|pas de|no\b|nunca|nada de|nicht|keine?n?\b|niemals|não|nunca|nada de)",
    _I,
)
#: What the user wants instead, opening the next clause.
_INSTEAD = re.compile(
    r"^,\s*(?:I want|I'd rather|I would rather|I prefer|I'd like|I need|just|"
    r"je veux|je préfère|je voudrais|plutôt|j'ai besoin|"
    r"quiero|prefiero|mejor|necesito|"
    r"ich will|ich möchte|ich brauche|lieber|"
    r"quero|prefiro|antes|preciso)\b[^.;!?]{2,80}?(?=[.;!?]|$)",
    _I,
)


def continued(fact: GroundedFact, clause: str) -> GroundedFact:
    """`fact` with the company phrase or the wanted alternative its clause says after its value, else `fact`."""
    value = fact.value.strip()
    if fact.slot or not value or value not in fact.text:
        return fact
    at = clause.lower().find(value.lower())  # "Ne me donne jamais …" read as "ne me donne jamais …"
    if at < 0:
        return fact
    rest = clause[at + len(value) :]
    found = None
    if fact.kind in _DOING_KINDS:
        found = _COMPANY.match(rest)
    elif fact.kind is FactKind.INSTRUCTION and _NEGATIVE.match(value):
        found = _INSTEAD.match(rest)
    if found is None:
        return fact
    longer = value + found.group(0).rstrip()
    return replace(fact, value=longer, text=fact.text.replace(value, longer, 1))


__all__ = ["continued"]
