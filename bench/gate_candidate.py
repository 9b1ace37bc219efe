"""One gate recipe end to end on recorded evidence (gate-v12, session 17): its leave-one-set-out figures
(bench/gate_loso.py, the P(none) bar chosen on their mean), then the recipe fitted on TRAIN and scored on DEV at that
bar (the second check), the probes and LoCoMo's DEV questions; optionally written as a model file.

Run: `python -m bench.gate_candidate --feature-set duty --l2 0.01 --augment 0.1 --sparse 0.005 [--out FILE]`
(`--cache FILE` keeps the computed examples between runs of the same code).
"""

from __future__ import annotations

import argparse
import pickle
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bench.gate_fit import matrix, train_model
from bench.gate_loso import loso, report
from bench.train_gate import (
    ACCEPTABLE_WEIGHT,
    CLASS_WEIGHT,
    DEV_PROFILES,
    EVIDENCE_FILES,
    FEATURE_SETS,
    ITERATIONS,
    LOCOMO_DEV,
    MIN_SECTION_P,
    VERSION,
    Choice,
    Fold,
    combined,
    dev_detail,
    first_choices,
    line,
    load,
    locomo_matrix,
    locomo_none_share,
    passes_probe,
    probability_matrix,
    provenance,
    scores_of,
)


def load_cached(cache: Path | None) -> Fold:
    """The fitting examples, from `cache` when it exists (written after a fresh load)."""
    if cache is not None and cache.exists():
        with cache.open("rb") as source:
            data: Fold = pickle.load(source)  # a file this module wrote
            return data
    data = load(list(EVIDENCE_FILES))
    if cache is not None:
        with cache.open("wb") as sink:
            pickle.dump(data, sink)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--feature-set", default="duty", choices=list(FEATURE_SETS))
    parser.add_argument("--l2", type=float, default=0.01)
    parser.add_argument("--augment", type=float, default=0.1)
    parser.add_argument("--sparse", type=float, default=0.005)
    parser.add_argument("--threshold", type=float, default=None, help="a fixed bar instead of LOSO's")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--no-loso", action="store_true")
    args = parser.parse_args(argv)
    data = load_cached(args.cache)
    names = FEATURE_SETS[args.feature_set]
    settings: dict[str, float | str] = {
        "features": args.feature_set,
        "l2": args.l2,
        "augment_weight": args.augment,
        "sparse_weight": args.sparse,
    }
    threshold = args.threshold
    loso_mean: dict[str, float] = {}
    if not args.no_loso:
        result = loso(data, names, settings, l2=args.l2, augment=args.augment, sparse_weight=args.sparse)
        print(report(result), flush=True)
        for t in (0.4, 0.45, 0.475, 0.5):
            print(report(result, t), flush=True)
        threshold = result.threshold if threshold is None else threshold
        loso_mean = {k: round(v, 4) for k, v in result.mean(threshold).items()}
    assert threshold is not None, "--no-loso needs --threshold"
    train = [i for i in range(len(data.items)) if not data.is_dev[i]]
    dev = [i for i in range(len(data.items)) if data.is_dev[i]]
    weights = [1.0 if data.is_full[i] else args.sparse if data.is_sparse[i] else args.augment for i in train]
    model = train_model(
        [data.items[i] for i in train], names, l2=args.l2, class_weight=CLASS_WEIGHT,
        acceptable_weight=ACCEPTABLE_WEIGHT, version=VERSION, example_weight=weights, iterations=ITERATIONS,
    )  # fmt: skip
    p = probability_matrix(model, matrix([data.items[i] for i in dev], names))
    x_locomo = locomo_matrix(LOCOMO_DEV, names)
    chosen: Choice | None = None
    for t in sorted({threshold, 0.45, 0.475, 0.5}):
        full, aug, sparse = scores_of(data, dev, first_choices(p, t))
        candidate = replace(model, none_threshold=t, min_section_probability=MIN_SECTION_P)
        print(
            line(f"DEV (TRAIN fit) threshold {t}", full),
            f"objective {combined(full, aug, sparse):.4f}; probes {'pass' if passes_probe(candidate) else 'FAIL'};"
            f" LoCoMo DEV none {100 * locomo_none_share(candidate, x_locomo):.1f}%",
            flush=True,
        )
        if t == threshold:
            chosen = Choice(combined(full, aug, sparse), settings, candidate, full, aug, sparse)
    assert chosen is not None
    dev_detail(data, chosen)
    if args.out is not None:
        settings |= {"none_threshold": threshold}
        chosen_on = (
            "the P(none) bar and the recipe on the mean of leave-one-set-out over gate_v10..gate_v13"
            f" (bench/gate_loso.py: {loso_mean}); DEV profiles ({sorted(DEV_PROFILES)}) as the second check"
        )
        body = provenance(data, replace(chosen, settings=settings), chosen_on=chosen_on,
                          script="bench/gate_candidate.py (evidence: bench/gate_collect.py)")  # fmt: skip
        args.out.write_text(chosen.model.to_json(body), encoding="utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
