"""Fitting the evidence gate: multinomial logistic regression in numpy, thresholds, and the gate-set scores.

Used by bench/train_gate.py (fit on TRAIN, choose on DEV) and bench/bench_gate.py (score TEST). No scikit-learn:
the model is small (a few dozen features, five classes, a few hundred rows) and plain gradient descent is exact
enough and deterministic.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from memoryd.retrieval.gate_model import CLASSES, GateModel

SECTIONS = [c.value for c in CLASSES]
Matrix = npt.NDArray[np.float64]
#: Standardised features are clipped to this many deviations, in fitting and in use (GateModel.z_clip).
Z_CLIP = 3.0


@dataclass(frozen=True)
class Example:
    """One labelled query with the features the real read path computed for it."""

    id: str
    split: str
    lang: str
    expected: str
    acceptable: tuple[str, ...]
    tags: tuple[str, ...]
    features: Mapping[str, float]


def matrix(examples: Sequence[Example], names: Sequence[str]) -> Matrix:
    """Rows of feature values in `names` order (absent = 0)."""
    return np.array([[e.features.get(n, 0.0) for n in names] for e in examples], dtype=np.float64)


def labels(examples: Sequence[Example]) -> npt.NDArray[np.int64]:
    """Class index of each expected section."""
    return np.array([SECTIONS.index(e.expected) for e in examples], dtype=np.int64)


def targets(examples: Sequence[Example], acceptable_weight: float) -> Matrix:
    """Soft labels: the expected section, plus `acceptable_weight` for each acceptable one, rows summing to 1."""
    t = np.zeros((len(examples), len(SECTIONS)))
    for i, e in enumerate(examples):
        t[i, SECTIONS.index(e.expected)] = 1.0
        for other in e.acceptable:
            if other in SECTIONS and other != e.expected:
                t[i, SECTIONS.index(other)] = acceptable_weight
    return t / t.sum(axis=1, keepdims=True)


def fit_softmax(
    x: Matrix,
    y: npt.NDArray[np.int64],
    *,
    l2: float,
    soft: Matrix | None = None,
    class_weight: str = "balanced",
    example_weight: npt.NDArray[np.float64] | None = None,
    iterations: int = 3000,
    learning_rate: float = 0.5,
) -> tuple[Matrix, npt.NDArray[np.float64]]:
    """(weights K x F, bias K) minimising weighted cross-entropy + l2/2 |W|^2 by full-batch gradient descent
    with Nesterov momentum; x must be standardised. example_weight multiplies each row's class weight."""
    n, f = x.shape
    k = len(SECTIONS)
    counts = np.bincount(y, minlength=k).astype(np.float64)
    if class_weight == "balanced":
        per_class = np.where(counts > 0, n / (k * np.maximum(counts, 1)), 0.0)
    else:
        per_class = np.ones(k)
    sample_w = per_class[y]
    if example_weight is not None:
        sample_w = sample_w * example_weight
    sample_w = sample_w / sample_w.sum()
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0
    if soft is not None:
        onehot = soft
    w = np.zeros((k, f))
    b = np.log(np.maximum(counts, 1) / n)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    momentum = 0.9
    for _ in range(iterations):
        lw, lb = w + momentum * vw, b + momentum * vb
        logits = x @ lw.T + lb
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        err = (p - onehot) * sample_w[:, None]
        gw = err.T @ x + l2 * lw
        gb = err.sum(axis=0)
        vw = momentum * vw - learning_rate * gw
        vb = momentum * vb - learning_rate * gb
        w, b = w + vw, b + vb
    return w, b


def standardiser(x: Matrix) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(mean, scale) per column; constant columns get scale 1 (they then carry no weight)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    return mean, scale


def train_model(
    train: Sequence[Example],
    names: Sequence[str],
    *,
    l2: float,
    class_weight: str,
    version: str,
    acceptable_weight: float = 0.0,
    none_threshold: float = 0.5,
    min_section_probability: float = 0.15,
    z_clip: float = Z_CLIP,
    example_weight: Sequence[float] | None = None,
    iterations: int = 3000,
) -> GateModel:
    """A GateModel fitted on `train` (example_weight: one weight per example, default 1)."""
    x = matrix(train, names)
    weights = None if example_weight is None else np.asarray(example_weight, dtype=np.float64)
    mean, scale = standardiser(x)
    soft = targets(train, acceptable_weight) if acceptable_weight > 0 else None
    z = (x - mean) / scale
    if z_clip > 0:
        z = np.clip(z, -z_clip, z_clip)
    w, b = fit_softmax(
        z,
        labels(train),
        l2=l2,
        class_weight=class_weight,
        soft=soft,
        example_weight=weights,
        iterations=iterations,
    )
    return GateModel(
        version=version,
        features=tuple(names),
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        weights=tuple(tuple(float(v) for v in row) for row in w),
        bias=tuple(float(v) for v in b),
        none_threshold=none_threshold,
        min_section_probability=min_section_probability,
        z_clip=z_clip,
    )


def predict(model: GateModel, features: Mapping[str, float]) -> str:
    """The section the model's first choice would inject ("none" when P(none) is at or above the threshold)."""
    ranked = model.ranked(model.probabilities(features))
    return ranked[0].value if ranked else "none"


# -------------------------------------------------------------------------------------------------- scoring
NO_MEMORY_TAGS = ("hard_negative", "entity_trap")


@dataclass(frozen=True)
class GateScores:
    """Quality on one split: accuracies, false/missed injection, per-section recall/precision, confusion."""

    n: int
    lenient: int
    strict: int
    none_total: int
    false_injections: int
    needing_total: int
    missed: int
    tagged_false: dict[str, tuple[int, int]]
    non_english_false: tuple[int, int]
    recall: dict[str, tuple[int, int]]
    precision: dict[str, tuple[int, int]]
    confusion: dict[tuple[str, str], int]
    by_lang: dict[str, tuple[int, int]]

    @property
    def lenient_rate(self) -> float:
        return self.lenient / self.n if self.n else 0.0

    @property
    def false_rate(self) -> float:
        return self.false_injections / self.none_total if self.none_total else 0.0

    @property
    def missed_rate(self) -> float:
        return self.missed / self.needing_total if self.needing_total else 0.0


def is_lenient_hit(example: Example, got: str) -> bool:
    """Expected section, or one the labeller marked acceptable."""
    return got == example.expected or got in example.acceptable


def score(examples: Sequence[Example], predictions: Sequence[str]) -> GateScores:
    """Every figure bench_gate reports, for one split."""
    recall: dict[str, list[int]] = {s: [0, 0] for s in SECTIONS}
    precision: dict[str, list[int]] = {s: [0, 0] for s in SECTIONS}
    langs: dict[str, list[int]] = {}
    tagged: dict[str, list[int]] = {t: [0, 0] for t in NO_MEMORY_TAGS}
    non_english = [0, 0]
    confusion: Counter[tuple[str, str]] = Counter()
    lenient = strict = none_total = false_inj = needing = missed = 0
    for e, got in zip(examples, predictions, strict=True):
        hit = is_lenient_hit(e, got)
        lenient += hit
        strict += got == e.expected
        recall[e.expected][1] += 1
        recall[e.expected][0] += got == e.expected
        precision[got][1] += 1
        precision[got][0] += got == e.expected
        lang = langs.setdefault(e.lang, [0, 0])
        lang[0] += hit
        lang[1] += 1
        confusion[(e.expected, got)] += 1
        if e.expected == "none":
            none_total += 1
            injected = got != "none"
            false_inj += injected
            for tag in NO_MEMORY_TAGS:
                if tag in e.tags:
                    tagged[tag][1] += 1
                    tagged[tag][0] += injected
            if e.lang != "en":
                non_english[1] += 1
                non_english[0] += injected
        else:
            needing += 1
            missed += got == "none"
    return GateScores(
        n=len(examples),
        lenient=lenient,
        strict=strict,
        none_total=none_total,
        false_injections=false_inj,
        needing_total=needing,
        missed=missed,
        tagged_false={k: (v[0], v[1]) for k, v in tagged.items()},
        non_english_false=(non_english[0], non_english[1]),
        recall={k: (v[0], v[1]) for k, v in recall.items() if v[1]},
        precision={k: (v[0], v[1]) for k, v in precision.items() if v[1]},
        confusion=dict(confusion),
        by_lang={k: (v[0], v[1]) for k, v in sorted(langs.items())},
    )


def objective(s: GateScores) -> float:
    """What DEV selection maximises: lenient accuracy, penalised past the issue's false/missed targets."""
    return s.lenient_rate - 2.0 * max(0.0, s.false_rate - 0.05) - 2.0 * max(0.0, s.missed_rate - 0.10)


def pct(part: int, whole: int) -> str:
    """'93.1% (270/290)'."""
    return f"{100 * part / whole:.1f}% ({part}/{whole})" if whole else "n/a"


def confusion_table(s: GateScores) -> str:
    """Rows: expected; columns: got."""
    lines = ["| expected \\ got | " + " | ".join(SECTIONS) + " |", "|" + " --- |" * (len(SECTIONS) + 1)]
    for exp in SECTIONS:
        lines.append(f"| {exp} | " + " | ".join(str(s.confusion.get((exp, g), 0)) for g in SECTIONS) + " |")
    return "\n".join(lines)


__all__ = [
    "SECTIONS",
    "Example",
    "GateScores",
    "confusion_table",
    "fit_softmax",
    "is_lenient_hit",
    "matrix",
    "objective",
    "pct",
    "predict",
    "score",
    "train_model",
]
