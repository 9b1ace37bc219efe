"""The evidence gate's verdict: the learned model over the query's features, with the section order to try."""

from __future__ import annotations

from collections.abc import Mapping

from memoryd.retrieval.gate import GateDecision, decide_heuristic
from memoryd.retrieval.gate_features import is_self_contained
from memoryd.retrieval.gate_model import GateModel
from memoryd.retrieval.items import Section


def decide_evidence(
    query: str, features: Mapping[str, float], model: GateModel | None, known_entities: frozenset[str]
) -> GateDecision:
    """ "evidence:<section>" with the fall-through order, or "none:self_contained" / "none:no_evidence".

    Without a model the trigger phrases decide alone ("trigger:…"), as before the evidence gate.
    """
    if model is None:
        return decide_heuristic(query, known_entities)
    probabilities = model.probabilities(features)
    ranked = model.ranked(probabilities)
    if not ranked:
        reason = "none:self_contained" if is_self_contained(features) else "none:no_evidence"
        return GateDecision(Section.NONE, reason, (), probabilities)
    return GateDecision(ranked[0], f"evidence:{ranked[0].value}", tuple(ranked), probabilities)


__all__ = ["decide_evidence"]
