"""Leave-one-set-out evaluation of a gate recipe (gate-v12, session 17): a selection signal closer to a blind set.

DEV (bench/train_gate.DEV_PROFILES) has been optimistic by 2-7 points against every blind set: its profiles were
written by the same authors as TRAIN profiles of the same set, so a phrasing learnt on TRAIN reappears on DEV. Each
of the newest sets (LOSO_SETS, gate_v10 .. gate_v13) was written blind by a different author; a recipe (feature set,
l2, augment and sparse weights) is fitted on every example of all the other sets (TRAIN and DEV profiles, with
their augmented and sparse agents) and scored on the held-out set's full profiles, once per held-out set. The mean
over the folds of the full-profile figures is what a recipe is chosen on; the P(none) bar is chosen on the same
mean, for every bar of the grid at once (one fit per fold serves them all). DEV stays the second check.

Run: `python -m bench.gate_loso --feature-sets asker --l2 0.01 --augment-weights 0.1 --sparse-weights 0.005`
(gate-v11's recipe; each fold is one fit over ~90% of the data).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from bench.gate_fit import GateScores, matrix, objective, score, train_model
from bench.train_gate import (
    ACCEPTABLE_WEIGHT,
    CLASS_WEIGHT,
    EVIDENCE_FILES,
    FEATURE_SETS,
    ITERATIONS,
    VERSION,
    Fold,
    first_choices,
    load,
    probability_matrix,
)

#: The held-out sets, one per fold: the four newest, each written blind by its own author.
LOSO_SETS = ("gate_v10", "gate_v11", "gate_v12", "gate_v13")
#: The P(none) bars scored on each fold: train_gate's grid (0.2-0.7) at half its step, 0.025 (one fit serves every
#: bar, so a finer grid costs nothing; between gate-v11's 0.45 and 0.5 the LOSO mean moved by 0.02 in session 17).
LOSO_THRESHOLDS = tuple(round(0.2 + 0.025 * i, 3) for i in range(21))


def set_of(split: str) -> str:
    """The fitting set of an example's split ("gate_v12" for "gate_v12/full/novec")."""
    return split.split("/", 1)[0]


@dataclass(frozen=True)
class FoldScores:
    """One held-out set's full-profile scores at every P(none) bar of the grid."""

    held_out: str
    by_threshold: dict[float, GateScores]


@dataclass(frozen=True)
class LosoResult:
    """A recipe's folds, and the bar whose mean objective over them is highest."""

    settings: dict[str, float | str]
    folds: list[FoldScores]
    threshold: float

    def mean(self, threshold: float | None = None) -> dict[str, float]:
        """Mean over the folds of lenient, strict, false, missed (rates) and the objective at `threshold`."""
        return mean_figures(
            [f.by_threshold[self.threshold if threshold is None else threshold] for f in self.folds]
        )


def mean_figures(scores: Sequence[GateScores]) -> dict[str, float]:
    """Unweighted mean over folds (each set counts once, whatever its size)."""
    n = len(scores)
    return {
        "lenient": sum(s.lenient_rate for s in scores) / n,
        "strict": sum(s.strict / s.n for s in scores) / n,
        "false": sum(s.false_rate for s in scores) / n,
        "missed": sum(s.missed_rate for s in scores) / n,
        "objective": sum(objective(s) for s in scores) / n,
    }


def fold_rows(data: Fold, held_out: str) -> tuple[list[int], list[int]]:
    """(training rows: every example of the other sets; scored rows: the held-out set's full profiles)."""
    train = [i for i, e in enumerate(data.items) if set_of(e.split) != held_out]
    test = [i for i, e in enumerate(data.items) if set_of(e.split) == held_out and data.is_full[i]]
    return train, test


def best_threshold(folds: Sequence[FoldScores], thresholds: Sequence[float] = LOSO_THRESHOLDS) -> float:
    """The bar with the highest mean objective over the folds (the lower bar on a tie)."""
    return max(thresholds, key=lambda t: (mean_figures([f.by_threshold[t] for f in folds])["objective"], -t))


def loso(
    data: Fold,
    names: Sequence[str],
    settings: dict[str, float | str],
    *,
    l2: float,
    augment: float,
    sparse_weight: float,
    held_out_sets: Sequence[str] = LOSO_SETS,
    iterations: int = ITERATIONS,
) -> LosoResult:
    """Fit the recipe once per held-out set on the others and score the held-out set's full profiles."""
    folds = []
    for held_out in held_out_sets:
        train, test = fold_rows(data, held_out)
        if not test:
            raise ValueError(f"no full-profile example of {held_out} in the data")
        weights = [1.0 if data.is_full[i] else sparse_weight if data.is_sparse[i] else augment for i in train]
        model = train_model(
            [data.items[i] for i in train], names, l2=l2, class_weight=CLASS_WEIGHT,
            acceptable_weight=ACCEPTABLE_WEIGHT, version=VERSION, example_weight=weights, iterations=iterations,
        )  # fmt: skip
        p: npt.NDArray[np.float64] = probability_matrix(model, matrix([data.items[i] for i in test], names))
        items = [data.items[i] for i in test]
        folds.append(FoldScores(held_out, {t: score(items, first_choices(p, t)) for t in LOSO_THRESHOLDS}))
    return LosoResult(settings, folds, best_threshold(folds))


def report(result: LosoResult, threshold: float | None = None) -> str:
    """One line per fold and the mean, at `threshold` (default: the recipe's best bar)."""
    t = result.threshold if threshold is None else threshold
    parts = []
    for f in result.folds:
        s = f.by_threshold[t]
        parts.append(
            f"{f.held_out} {100 * s.lenient_rate:.1f}/{100 * s.missed_rate:.1f}/{100 * s.false_rate:.1f}"
        )
    m = result.mean(t)
    return (
        f"{result.settings} threshold {t}: LOSO mean lenient {100 * m['lenient']:.1f}, strict"
        f" {100 * m['strict']:.1f}, missed {100 * m['missed']:.1f}, false {100 * m['false']:.1f}, objective"
        f" {m['objective']:.4f} | " + ", ".join(parts) + " (lenient/missed/false)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--feature-sets", nargs="*", default=["asker"], choices=list(FEATURE_SETS))
    parser.add_argument("--l2", type=float, nargs="*", default=[0.01])
    parser.add_argument("--augment-weights", type=float, nargs="*", default=[0.1])
    parser.add_argument("--sparse-weights", type=float, nargs="*", default=[0.005])
    parser.add_argument("--threshold", type=float, default=None, help="also report at this fixed bar")
    args = parser.parse_args(argv)
    data = load(list(EVIDENCE_FILES))
    for feature_set, l2, augment, sparse_weight in itertools.product(
        args.feature_sets, args.l2, args.augment_weights, args.sparse_weights
    ):
        settings: dict[str, float | str] = {
            "features": feature_set,
            "l2": l2,
            "augment_weight": augment,
            "sparse_weight": sparse_weight,
        }
        result = loso(
            data, FEATURE_SETS[feature_set], settings, l2=l2, augment=augment, sparse_weight=sparse_weight
        )
        print(report(result), flush=True)
        if args.threshold is not None and args.threshold != result.threshold:
            print(report(result, args.threshold), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
