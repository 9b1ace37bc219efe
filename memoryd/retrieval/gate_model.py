"""The evidence gate's learned model: multinomial logistic regression over gate_features, loaded from a JSON file.

The file the service loads is gate_model_v12.json next to this module, written by bench/gate_candidate.py: fitted
on the TRAIN profiles of the frozen gate_v2 .. gate_v13 sets (plus agents with sections missing, timed-out query
vectors and sparse agents derived from them), its recipe and P(none) bar chosen on the mean of leave-one-set-out
over gate_v10 .. gate_v13 (bench/gate_loso.py), with their DEV profiles as the second check, among the candidates
that pass the sparse, answer and personal-request probes and give LoCoMo's DEV questions a section (docs/gate.md,
"gate-v12"). gate_model_v11.json was the default before (gate-v11's features, without a commitment presupposed:
gate_duty.py).
gate_model_v10.json was the default before (gate-v10's features, without whether the asker is the request's subject:
gate_asker.py). gate_model_v9.json was the default before (gate-v9's features, without what the request presupposes: gate_recall.py).
gate_model_v8.json was the default before (gate-v8's features, without the open-slot ones of gate_slots.py).
gate_model_v7.json was the default before gate-v8 (it reads gate-v8's code's own_name, whose rarity route now needs two
rows, and then declines the four-fact sparse probe at P(none) 0.52). gate_model_v6.json missed
LoCoMo's 70% end-to-end check by 0.2 points with gate-v6's features (dates read as numbers and names, third-person
questions as world questions: gate-v7's rules fix the features), gate_model_v5.json was the default before, and
gate_model_v4.json declines a question whose every word one pinned fact holds on an agent with no other section.
Earlier versions stay next to it (gate_model_v2.json, gate_model_v3.json) so a figure can be reproduced; `ReadPath`
takes a model file. It is small, versioned and read once at startup; a missing or malformed file makes the gate
fall back to the trigger phrases (reason says so).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from memoryd.retrieval.items import Section

#: The classes, in the model's row order.
CLASSES: tuple[Section, ...] = (
    Section.NONE,
    Section.IDENTITY,
    Section.PINNED,
    Section.EPISODES,
    Section.TRANSCRIPT,
)
#: The file the service loads (gate-v12; gate-v3 .. gate-v11 are kept for their figures: docs/gate.md).
DEFAULT_MODEL_PATH = Path(__file__).resolve().parent / "gate_model_v12.json"


class GateModelError(ValueError):
    """The model file is missing a field or its shapes do not agree."""


@dataclass(frozen=True)
class GateModel:
    """Standardise (clipped to ±z_clip), then softmax(W x + b) over CLASSES.

    none_threshold: memory is injected only when P(none) is below it. min_section_probability: a section below
    it is never tried, not even as a fall-through. z_clip: a standardised value is cut to this many deviations, so
    a feature nearly constant in the fitted data (every profile there had every section) cannot dominate when an
    agent is unlike them (a new agent with pinned facts only); 0 means no clipping (files without the key).
    """

    version: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[tuple[float, ...], ...]
    bias: tuple[float, ...]
    none_threshold: float = 0.5
    min_section_probability: float = 0.15
    z_clip: float = 0.0

    def probabilities(self, values: Mapping[str, float]) -> dict[Section, float]:
        """P(section) for one feature vector; features absent from `values` count as 0."""
        x = [
            (values.get(name, 0.0) - mu) / (sd if sd > 0 else 1.0)
            for name, mu, sd in zip(self.features, self.mean, self.scale, strict=True)
        ]
        if self.z_clip > 0:
            x = [min(max(v, -self.z_clip), self.z_clip) for v in x]
        logits = [
            b + sum(w * xi for w, xi in zip(row, x, strict=True))
            for row, b in zip(self.weights, self.bias, strict=True)
        ]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        return {section: e / total for section, e in zip(CLASSES, exps, strict=True)}

    def ranked(self, probabilities: Mapping[Section, float]) -> list[Section]:
        """Sections to try, best first: empty when P(none) is at or above none_threshold."""
        if probabilities.get(Section.NONE, 0.0) >= self.none_threshold:
            return []
        sections = sorted((s for s in CLASSES if s is not Section.NONE), key=lambda s: -probabilities[s])
        head, rest = sections[0], sections[1:]
        return [head, *(s for s in rest if probabilities[s] >= self.min_section_probability)]

    def to_json(self, extra: Mapping[str, object] | None = None) -> str:
        """The file format (extra: provenance such as the data set and the dev figures)."""
        body: dict[str, object] = {
            "version": self.version,
            "classes": [c.value for c in CLASSES],
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": [list(row) for row in self.weights],
            "bias": list(self.bias),
            "none_threshold": self.none_threshold,
            "min_section_probability": self.min_section_probability,
            "z_clip": self.z_clip,
        }
        if extra:
            body["provenance"] = dict(extra)
        return json.dumps(body, indent=1) + "\n"


def _floats(raw: object, field: str) -> tuple[float, ...]:
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise GateModelError(f"{field} must be a list")
    return tuple(float(v) for v in raw)


def parse(text: str) -> GateModel:
    """A GateModel from the file's JSON; GateModelError when it is inconsistent."""
    raw = json.loads(text)
    if not isinstance(raw, dict):
        raise GateModelError("the model file must hold an object")
    classes = raw.get("classes")
    if classes != [c.value for c in CLASSES]:
        raise GateModelError("classes must be none, identity, pinned, episodes, transcript")
    features = tuple(str(name) for name in raw.get("features", []))
    weights_raw = raw.get("weights")
    if not isinstance(weights_raw, list):
        raise GateModelError("weights must be a list of rows")
    weights = tuple(_floats(row, "weights row") for row in weights_raw)
    model = GateModel(
        version=str(raw.get("version", "")),
        features=features,
        mean=_floats(raw.get("mean"), "mean"),
        scale=_floats(raw.get("scale"), "scale"),
        weights=weights,
        bias=_floats(raw.get("bias"), "bias"),
        none_threshold=float(raw.get("none_threshold", 0.5)),
        min_section_probability=float(raw.get("min_section_probability", 0.15)),
        z_clip=float(raw.get("z_clip", 0.0)),
    )
    n = len(features)
    if not model.version or len(model.mean) != n or len(model.scale) != n:
        raise GateModelError("version, mean and scale must match the features")
    if (
        len(weights) != len(CLASSES)
        or any(len(row) != n for row in weights)
        or len(model.bias) != len(CLASSES)
    ):
        raise GateModelError("weights must be one row per class, one column per feature")
    return model


def load(path: Path = DEFAULT_MODEL_PATH) -> GateModel | None:
    """The model at `path`, or None when there is no file (the gate then uses the trigger phrases)."""
    if not path.exists():
        return None
    return parse(path.read_text(encoding="utf-8"))


__all__ = ["CLASSES", "DEFAULT_MODEL_PATH", "GateModel", "GateModelError", "load", "parse"]
