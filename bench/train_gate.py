"""Fit the evidence gate (issue 17): softmax regression over features from a real memoryd on all of gate_v2,
regularisation and thresholds chosen by cross-validation grouped by profile, written to memoryd/retrieval/.

gate-v1 was fitted on gate_v2 TRAIN and chosen on DEV; its TEST split was then reported (79.7% lenient against
89.8% on DEV: 387 queries on 18 profiles were too few to choose on). gate-v2 retires that TEST split into fitting:
every gate_v2 query is used, hyperparameters are chosen on out-of-fold predictions (6 folds, whole profiles held
out, so a profile's memory is never both fitted and judged), and the held-out report is the separate gate_v3 set,
written blind and frozen before this fit (`python -m bench.bench_gate --set v3`), which this script never reads.
Features come from AssembleContext's decision (the path users hit), after seeding every profile into a real
memoryd with real MiniLM embeddings (bench/gate_harness.py).

Run: `python -m bench.train_gate` (a few minutes). `--features FILE` reuses features saved by an earlier run
(bench/results/gate_v2_features.jsonl) instead of starting the stack.
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bench.gate_fit import Example, objective, pct, predict, score, train_model
from memoryd.retrieval.gate_features import FEATURE_NAMES, derive
from memoryd.retrieval.gate_model import DEFAULT_MODEL_PATH, GateModel

FEATURES_FILE = Path(__file__).resolve().parent / "results" / "gate_v2_features.jsonl"
VERSION = "gate-v2"
FOLDS = 6
SPLITS = ("train", "dev", "test")
L2 = (1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3)
CLASS_WEIGHTS = ("balanced", "none")
NONE_THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
ACCEPTABLE_WEIGHTS = (0.0, 0.3)
MIN_SECTION_P = (0.1, 0.2, 0.3)


def collect(path: Path) -> list[Example]:
    """Run every gate_v2 query through a real memoryd and save the features (one JSON object a line)."""
    from bench.gate_harness import run_queries

    outcomes, _ = run_queries(list(SPLITS), query_embed_timeout_s=2.0)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for o in outcomes:
            q = o.query
            row = {"id": q["id"], "split": q["split"], "lang": q["lang"], "expected": q["expected"]}
            row |= {"acceptable": q.get("acceptable", []), "tags": q.get("tags", []), "features": o.features}
            row |= {"reason": o.reason}
            out.write(json.dumps(row) + "\n")
    return read(path)


def read(path: Path) -> list[Example]:
    """Examples saved by collect()."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        raw = json.loads(line)
        if raw["split"] not in SPLITS:
            raise SystemExit("the features file holds a query that is not gate_v2's")
        out.append(
            Example(
                raw["id"], raw["split"], raw["lang"], raw["expected"], tuple(raw["acceptable"]),
                tuple(raw["tags"]), derive(dict(raw["features"])),
            )
        )  # fmt: skip
    return out


def data_commit() -> str:
    """The commit that froze the data (for the model's provenance)."""
    try:
        return subprocess.run(
            ["git", "log", "-1", "--format=%h", "--", "bench/gate_v2/queries.jsonl"],
            capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[1],
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return ""


def profile_of(example: Example) -> str:
    """The profile a query runs against ("en1" for "en1.q03")."""
    return example.id.split(".", 1)[0]


def folds(examples: Sequence[Example]) -> list[int]:
    """Fold of each example: whole profiles, dealt round-robin in name order (so languages spread over folds)."""
    profiles = sorted({profile_of(e) for e in examples})
    fold_of = {p: i % FOLDS for i, p in enumerate(profiles)}
    return [fold_of[profile_of(e)] for e in examples]


def out_of_fold(
    examples: Sequence[Example], names: Sequence[str], *, l2: float, weighting: str, soft: float
) -> list[GateModel]:
    """One model per fold, each fitted without that fold's profiles (index = fold)."""
    assignment = folds(examples)
    models = []
    for k in range(FOLDS):
        kept = [e for e, f in zip(examples, assignment, strict=True) if f != k]
        models.append(
            train_model(kept, names, l2=l2, class_weight=weighting, acceptable_weight=soft, version=VERSION)
        )
    return models


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=Path, help="reuse saved gate_v2 features")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL_PATH)
    args = parser.parse_args(argv)
    examples = read(args.features) if args.features else collect(FEATURES_FILE)
    names = list(FEATURE_NAMES)
    assignment = folds(examples)
    best = None
    for l2, weighting, soft in itertools.product(L2, CLASS_WEIGHTS, ACCEPTABLE_WEIGHTS):
        per_fold = out_of_fold(examples, names, l2=l2, weighting=weighting, soft=soft)
        for threshold, min_p in itertools.product(NONE_THRESHOLDS, MIN_SECTION_P):
            predictions = [
                predict(
                    replace(per_fold[f], none_threshold=threshold, min_section_probability=min_p), e.features
                )
                for e, f in zip(examples, assignment, strict=True)
            ]
            cv_scores = score(examples, predictions)
            key = (objective(cv_scores), cv_scores.strict, l2)
            if best is None or key > best[0]:
                best = (key, cv_scores, (l2, weighting, soft), threshold, min_p)
    assert best is not None
    _, cv_scores, (l2, weighting, soft), threshold, min_p = best
    chosen: dict[str, float | str] = {"l2": l2, "class_weight": weighting, "acceptable_weight": soft}
    fitted = train_model(
        examples, names, l2=l2, class_weight=weighting, acceptable_weight=soft, version=VERSION
    )
    model = replace(fitted, none_threshold=threshold, min_section_probability=min_p)
    fit_scores = score(examples, [predict(model, e.features) for e in examples])
    provenance = {
        "data": "bench/gate_v2 (frozen) at " + data_commit(),
        "fitted_on": f"all of gate_v2 ({len(examples)} queries, train + dev + the retired test split)",
        "chosen_on": (
            f"{FOLDS}-fold cross-validation grouped by profile: l2, class weighting, acceptable weight,"
            " none_threshold, min_section_probability"
        ),
        "chosen": {**chosen, "none_threshold": threshold, "min_section_probability": min_p},
        "cross_validated": {
            "lenient": round(cv_scores.lenient_rate, 4),
            "strict": round(cv_scores.strict / cv_scores.n, 4),
            "false_injection": round(cv_scores.false_rate, 4),
            "missed": round(cv_scores.missed_rate, 4),
        },
        "held_out": "bench/gate_v3 (python -m bench.bench_gate --set v3)",
        "script": "bench/train_gate.py",
    }
    args.out.write_text(model.to_json(provenance), encoding="utf-8")
    for name, s in (("fit (all)", fit_scores), ("cross-validated", cv_scores)):
        print(
            f"{name}: lenient {pct(s.lenient, s.n)}, strict {pct(s.strict, s.n)}, false injection"
            f" {pct(s.false_injections, s.none_total)}, missed {pct(s.missed, s.needing_total)},"
            f" entity traps {s.tagged_false.get('entity_trap')}"
        )
    print(f"chosen by cross-validation: {provenance['chosen']}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
