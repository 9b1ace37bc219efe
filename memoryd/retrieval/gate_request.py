"""The request's shape beyond what it names (gate-v5): is it about the world, and is the rest of it in memory?

An entity trap names something memory knows ("How many people live in Durban?", "What is a Boerboel bred for?")
while the request itself is complete: once the known name is set aside, the rest of its words ("how many people
live") are not what this agent's memory talks about. A question about the user's own thing keeps its rest in
memory ("When does the Ledgerly beta ship?" against "The Ledgerly mobile beta ships on March 14": "beta", "ship").
These features measure that, in any language, from the words the evidence pass already looked up; the learned
model weighs them with the rest of the evidence (never a rule on their own).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from memoryd.retrieval import gate_signals as sig

#: Feature names, in model order.
STRUCTURE_FEATURES: tuple[str, ...] = (
    "impersonal",
    "rest_known",
    "named_rest_unknown",
    "impersonal_x_rest_unknown",
    "sc_x_rest_unknown",
    "p_rest_known",
    "e_rest_known",
    "t_rest_known",
)


def is_impersonal(words: Collection[str], we_verb: bool) -> bool:
    """No first- or second-person word (pronoun, possessive, a "we" verb form): a request about the world."""
    persons = sig.FIRST_SINGULAR | sig.FIRST_PLURAL | sig.SECOND_PERSON
    return not we_verb and not any(word in persons for word in words)


def structure_features(
    weights: Mapping[str, float],
    known: Collection[str],
    named: Collection[str],
    *,
    impersonal: bool,
    self_contained: bool,
    section_df: Mapping[str, Mapping[str, int]],
) -> dict[str, float]:
    """STRUCTURE_FEATURES of one request.

    weights: each search term's rarity weight (rare words weigh more); known: the terms this agent's memory or
    identity holds; named: the terms that name something (rare words memory holds, known capitalised names). The
    "rest" is the request's other terms; rest_known is their rarity-weighted share that memory holds (1.0 when
    the request is nothing but names, or has no other term: nothing left says it is complete). section_df: each
    searched section's prefix → its term document frequencies; `<prefix>_rest_known` is the same share found in that
    section alone (the section that holds the request's rest, not only its name).
    """
    rest = {term: w for term, w in weights.items() if term not in named}
    total = sum(rest.values())
    rest_known = sum(w for term, w in rest.items() if term in known) / total if total > 0 else 1.0
    unknown = 1.0 - rest_known
    per_section = {
        f"{prefix}_rest_known": (
            sum(w for term, w in rest.items() if df.get(term, 0) > 0) / total if total > 0 else 0.0
        )
        for prefix, df in section_df.items()
    }
    return per_section | {
        "impersonal": 1.0 if impersonal else 0.0,
        "rest_known": rest_known,
        "named_rest_unknown": unknown if named else 0.0,
        "impersonal_x_rest_unknown": unknown if impersonal else 0.0,
        "sc_x_rest_unknown": unknown if self_contained else 0.0,
    }


__all__ = ["STRUCTURE_FEATURES", "is_impersonal", "structure_features"]
