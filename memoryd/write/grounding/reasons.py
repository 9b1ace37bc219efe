"""A decision's reason, said after it in the same sentence, is no part of what was decided.

"Decidimos não aceitar mais trabalhos em fachadas no inverno, a cal não seca bem com esta humidade" decides the
first clause; the second is why (the weather, small talk), and stored with the decision it becomes a fact of its
own that nobody decided. A decision's value ends where, after a comma or a dash, a clause of reason begins:

- a causal conjunction: "because", "'cause", "since", "as"; "parce que", "car", "puisque", "vu que"; "porque", "ya
  que", "pues"; "weil", "denn"; "porque", "pois",
  "já que", "visto que";
- or a clause with its own subject said in the negative ("…, the van won't fit", "…, la salle n'est pas libre", "…,
  el horno no calienta", "…, der Kunde zahlt nicht", "…, a cal não seca"): a determiner or pronoun, at most two
  words, and a negation.

What stays: the decision itself, at least two words of it; a comma that goes on with the decision ("we'll go with
Postgres, the managed one", "on prend la salle du haut, celle avec la vue") is no reason, having no negation or
conjunction.
"""

from __future__ import annotations

import re

_I = re.IGNORECASE
_DETERMINER = (
    r"(?:the|this|that|it|they|our|my|le|la|les|l'|ce|cette|ça|cela|il|elle|ils|on|el|los|las|este|esta|eso|esto|"
    r"der|die|das|es|er|sie|unser|unsere|mein|meine|o|a|os|as|este|esta|isso|isto|ele|ela)"
)
_NEGATION = r"(?:not|no|never|n't|ne|n'|pas|jamais|nunca|nicht|kein|keine|nie|não|nao)"
#: Where a reason begins after a comma or a dash (module docstring).
_REASON = re.compile(
    r"\s*(?:,|\s[–—-])\s+(?:"
    r"because|'cause|cos|since(?!\s+\d)|parce que|parce qu'|car|puisque|vu que|porque|ya que|pues|weil|denn|pois|"
    r"já que|ja que|visto que"
    r")\b"
    rf"|\s*(?:,|\s[–—-])\s+{_DETERMINER}\b(?:\s+[\w'’-]+){{0,2}}?\s*(?:\w+n't\b|\b{_NEGATION}\b)",
    _I,
)
MIN_WORDS = 2


def without_reason(value: str) -> str:
    """A decision's value without the clause of reason said after it (module docstring), or `value` unchanged."""
    match = _REASON.search(value)
    if match is None:
        return value
    kept = value[: match.start()].rstrip(" ,;:–—-")
    return kept if len(kept.split()) >= MIN_WORDS else value


__all__ = ["without_reason"]
