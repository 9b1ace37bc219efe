"""Does a section's top rows carry what the request asks for (gate-v6)? Answer kinds and the rows naming its thing.

Two general rules, read from each section's top rows (SectionEvidence.top_terms / top_kinds, measured in the
evidence pass) and the identity facts:

- **answer kind**: the question asks for a date, a place, a person or a number (answer_kinds.asked_kinds) and a
  top row holding one of the query's terms holds a value of that kind (`<s>_ans`), or the section's top rows hold
  the query's terms but none holds such a value (`<s>_ans_miss`: a vague summary, "The user talked about the beta
  launch.", beside the fact that has the date);
- **the rows that name the thing carry the rest**: of the top rows that hold a name the request gives (a rare word
  or capitalised name memory holds), the largest rarity-weighted share of the request's other terms one of them
  holds (`<s>_named_rest`); `named_bare` when a name is held by some top row but no such row holds anything else
  the request asks ("How many people live in Durban?" against "Trip to Durban in May"). `<s>_row_rest` is the same
  share over all top rows (the rest of the request held together in one row, not scattered over the section).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from memoryd.retrieval.answer_kinds import value_kinds
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.terms import fold as term_fold

PREFIXES: tuple[str, ...] = ("p", "e", "t")
ANSWER_FEATURES: tuple[str, ...] = (
    "ask_kind",
    *(f"{p}_ans" for p in PREFIXES),
    *(f"{p}_ans_miss" for p in PREFIXES),
    "id_ans",
    *(f"{p}_row_rest" for p in PREFIXES),
    *(f"{p}_named_rest" for p in PREFIXES),
    "named_bare",
)


def _share(held: Collection[str], weights: Mapping[str, float], total: float) -> float:
    return sum(w for term, w in weights.items() if term in held) / total if total > 0 else 0.0


def answer_features(
    asked: frozenset[str],
    weights: Mapping[str, float],
    named: Collection[str],
    sections: Mapping[str, SectionEvidence | None],
    identity_facts: Sequence[str],
) -> dict[str, float]:
    """ANSWER_FEATURES. asked: the kinds the question asks for; weights: each search term's rarity weight;
    named: the terms that name something memory holds; sections: prefix → the section's evidence."""
    f = dict.fromkeys(ANSWER_FEATURES, 0.0)
    f["ask_kind"] = 1.0 if asked else 0.0
    rest = {term: w for term, w in weights.items() if term not in named}
    rest_total = sum(rest.values())
    named_set = frozenset(named)
    name_held = rest_with_name = False
    for prefix in PREFIXES:
        e = sections.get(prefix)
        if e is None:
            continue
        rows = list(zip(e.top_terms, e.top_kinds, strict=False))
        relevant = [(set(terms), set(kinds)) for terms, kinds in rows if terms]
        if asked and relevant:
            hit = any(kinds & asked for _, kinds in relevant)
            f[f"{prefix}_ans"] = 1.0 if hit else 0.0
            f[f"{prefix}_ans_miss"] = 0.0 if hit else 1.0
        f[f"{prefix}_row_rest"] = max((_share(t, rest, rest_total) for t, _ in relevant), default=0.0)
        naming = [t for t, _ in relevant if t & named_set]
        if naming:
            name_held = True
            best = max(_share(t, rest, rest_total) for t in naming)
            f[f"{prefix}_named_rest"] = best
            rest_with_name = rest_with_name or best > 0
    f["named_bare"] = 1.0 if name_held and not rest_with_name and rest_total > 0 else 0.0
    if asked:
        lowered_terms = list(weights)
        for text in identity_facts:
            lowered = term_fold(text)
            if any(term in lowered for term in lowered_terms) and value_kinds(text) & asked:
                f["id_ans"] = 1.0
                break
    return f


__all__ = ["ANSWER_FEATURES", "PREFIXES", "answer_features"]
