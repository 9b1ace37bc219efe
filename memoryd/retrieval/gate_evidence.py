"""The evidence gate's verdict: the learned model over the query's features, with the section order to try."""

from __future__ import annotations

from collections.abc import Mapping

from memoryd.retrieval.gate import GateDecision, decide_heuristic, fold
from memoryd.retrieval.gate_features import is_self_contained
from memoryd.retrieval.gate_model import GateModel
from memoryd.retrieval.gate_personal import asks_near
from memoryd.retrieval.items import Section

#: Share of the query's (rarity-weighted) terms one transcript turn must hold (some of its words besides "exact
#: words") for a literal-recall request to be answered from the transcript whatever the model says.
LITERAL_COVERAGE = 0.05
#: Where the user lives or is lives in these sections (an identity fact, a pinned fact, an episode that says "I moved
#: to Lisbon"), in this order: a place-dependent request the model declines tries them (gate-v8).
PLACE_SECTIONS: tuple[tuple[Section, str], ...] = (
    (Section.IDENTITY, "id_has"),
    (Section.PINNED, "p_has"),
    (Section.EPISODES, "e_has"),
)


def decide_evidence(
    query: str, features: Mapping[str, float], model: GateModel | None, known_entities: frozenset[str]
) -> GateDecision:
    """ "evidence:<section>" with the fall-through order, or "none:self_contained" / "none:no_evidence".

    Without a model the trigger phrases decide alone ("trigger:…"), as before the evidence gate. A request for the
    user's exact words (the spec's literal-recall trigger) whose words a transcript turn holds is answered from the
    transcript first, whatever the model says (never none, and never a distilled fact in place of the words the
    user said: a corrected fact's old wording lives only there). Likewise a request about the user themselves (the
    spec's identity trigger: "what do you know about me?") is never none when the agent has an identity, even
    with every other section empty (an agent unlike any fitted one). And a request whose answer depends on where
    the user is ("any good neighbourhoods for a walk near me?") is never none while memory holds durable facts about
    the user: it tries the identity, the pinned facts, then the episodes (PLACE_SECTIONS; gate-v8). When the identity
    holds a place (`id_place`), such a request takes the identity first even when the model chose another section
    (gate-v9).
    """
    if model is None:
        return decide_heuristic(query, known_entities)
    probabilities = model.probabilities(features)
    ranked = model.ranked(probabilities)
    if (
        features.get("trig_literal_recall", 0.0) > 0
        and features.get("t_cov", 0.0) >= LITERAL_COVERAGE
        and not is_self_contained(features)
    ):
        ranked = [Section.TRANSCRIPT, *(s for s in ranked if s is not Section.TRANSCRIPT)]
    if not ranked and features.get("trig_identity", 0.0) > 0 and features.get("id_has", 0.0) > 0:
        ranked = [Section.IDENTITY]
    near = not is_self_contained(features) and asks_near(fold(query))
    if not ranked and near:
        ranked = [section for section, has in PLACE_SECTIONS if features.get(has, 0.0) > 0]
    elif near and features.get("id_place", 0.0) > 0 and ranked[0] is not Section.IDENTITY:
        # gate-v9: the identity holds where the user is ("physiotherapist in Bergen"): it answers "near me"
        # whatever else the model prefers (a personal request's pinned diet facts do not).
        ranked = [Section.IDENTITY, *(s for s in ranked if s is not Section.IDENTITY)]
    if not ranked:
        reason = "none:self_contained" if is_self_contained(features) else "none:no_evidence"
        return GateDecision(Section.NONE, reason, (), probabilities)
    return GateDecision(ranked[0], f"evidence:{ranked[0].value}", tuple(ranked), probabilities)


__all__ = ["LITERAL_COVERAGE", "PLACE_SECTIONS", "decide_evidence"]
