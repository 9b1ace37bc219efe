"""The query's own kind as gate evidence: P(section | the query's embedding), before looking at any memory.

Why: on held-out profiles most missed queries were pinned-fact or episode questions that share no word with the
item that answers them ("suggest a dinner recipe" for a vegetarian, "what should I bring to the team offsite?").
The keyword evidence is silent on them and one cosine to the nearest row says little; but the question itself has
a recognisable kind (a request whose good answer depends on the person, a question about their own plans) that no
word list covers in five languages. A softmax regression over the query's MiniLM vector — the vector the evidence
pass embeds anyway, so it costs one 5 x 384 product — gives that kind as five log-probabilities (`qp_<section>`)
and the log-odds of "needs memory" (`qp_memory`), which the gate model weighs with the memory's own evidence.

Fitted by bench/train_gate.py on the training profiles only (out-of-fold for the examples the gate model is fitted
on) and shipped inside the gate model file (`query_prior`). When the query has no vector (embedding timed out) the
features take the values the model was standardised around, so they move no decision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memoryd.retrieval.items import Section

#: The classes in the gate model's order (gate_model.CLASSES, which imports this module).
CLASSES: tuple[Section, ...] = (
    Section.NONE,
    Section.IDENTITY,
    Section.PINNED,
    Section.EPISODES,
    Section.TRANSCRIPT,
)
#: Feature names, in CLASSES order, then the memory log-odds.
PRIOR_FEATURES: tuple[str, ...] = (*(f"qp_{c.value}" for c in CLASSES), "qp_memory")
#: Probabilities are floored here before the log (a confident prior must not become an unbounded feature).
FLOOR = 1e-4


class QueryPriorError(ValueError):
    """The query_prior block of a model file is inconsistent."""


@dataclass(frozen=True)
class QueryPrior:
    """softmax(W (scale x v) + b) over CLASSES for a unit query vector v."""

    weights: tuple[tuple[float, ...], ...]
    bias: tuple[float, ...]
    scale: float

    @property
    def dimension(self) -> int:
        """Length of the query vectors it reads."""
        return len(self.weights[0]) if self.weights else 0

    def features(self, vector: npt.NDArray[np.float32] | Sequence[float]) -> dict[str, float]:
        """qp_<section> (log P) and qp_memory (log P(not none) - log P(none)) for one query vector."""
        v = np.asarray(vector, dtype=np.float64).reshape(-1)
        if v.shape[0] != self.dimension:
            raise QueryPriorError(f"expected a {self.dimension}-d query vector, got {v.shape[0]}")
        logits = np.asarray(self.weights) @ (v * self.scale) + np.asarray(self.bias)
        logits -= logits.max()
        p = np.exp(logits)
        p /= p.sum()
        return features_from(p)

    def to_json(self) -> dict[str, object]:
        """The model file's `query_prior` block."""
        return {"weights": [list(row) for row in self.weights], "bias": list(self.bias), "scale": self.scale}


def features_from(p: npt.NDArray[np.float64] | Sequence[float]) -> dict[str, float]:
    """The prior's features from P over CLASSES (shared with the fitting script)."""
    probabilities = [float(x) for x in p]
    out = {
        name: math.log(max(value, FLOOR)) for name, value in zip(PRIOR_FEATURES, probabilities, strict=False)
    }
    none = probabilities[0]
    out["qp_memory"] = math.log(max(1.0 - none, FLOOR)) - math.log(max(none, FLOOR))
    return out


def parse(raw: Mapping[str, object]) -> QueryPrior:
    """A QueryPrior from the model file's block; QueryPriorError when its shapes disagree."""
    weights_raw = raw.get("weights")
    bias_raw = raw.get("bias")
    if not isinstance(weights_raw, list) or not isinstance(bias_raw, list):
        raise QueryPriorError("query_prior needs weights and bias lists")
    weights = tuple(tuple(float(x) for x in row) for row in weights_raw)
    bias = tuple(float(x) for x in bias_raw)
    scale_raw = raw.get("scale", 1.0)
    if not isinstance(scale_raw, int | float):
        raise QueryPriorError("query_prior scale must be a number")
    if len(weights) != len(CLASSES) or len(bias) != len(CLASSES):
        raise QueryPriorError("query_prior needs one row per class")
    if len({len(row) for row in weights}) != 1 or not weights[0]:
        raise QueryPriorError("query_prior rows must have one equal, non-zero length")
    return QueryPrior(weights, bias, float(scale_raw))


__all__ = ["PRIOR_FEATURES", "QueryPrior", "QueryPriorError", "features_from", "parse"]
