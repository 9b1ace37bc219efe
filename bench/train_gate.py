"""Fit the evidence gate (issue 17): features from a real memoryd on the gate_v2 TRAIN and DEV splits, softmax
regression fitted on TRAIN, regularisation and thresholds chosen on DEV, written to memoryd/retrieval/.

The TEST split is never read here. Features come from AssembleContext's decision (the path users hit), after
seeding every TRAIN and DEV profile into a real memoryd with real MiniLM embeddings (bench/gate_harness.py).

Run: `python -m bench.train_gate` (about two minutes). `--features FILE` reuses features saved by an earlier run
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
from memoryd.retrieval.gate_model import DEFAULT_MODEL_PATH

FEATURES_FILE = Path(__file__).resolve().parent / "results" / "gate_v2_features.jsonl"
VERSION = "gate-v1"
L2 = (1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3)
CLASS_WEIGHTS = ("balanced", "none")
NONE_THRESHOLDS = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
ACCEPTABLE_WEIGHTS = (0.0, 0.3)
MIN_SECTION_P = (0.1, 0.2, 0.3)


def collect(path: Path) -> list[Example]:
    """Run TRAIN and DEV through a real memoryd and save the features (one JSON object a line)."""
    from bench.gate_harness import run_queries

    outcomes, _ = run_queries(["train", "dev"], query_embed_timeout_s=2.0)
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
        if raw["split"] not in ("train", "dev"):
            raise SystemExit("the features file holds a split other than train/dev")
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=Path, help="reuse saved TRAIN/DEV features")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL_PATH)
    args = parser.parse_args(argv)
    examples = read(args.features) if args.features else collect(FEATURES_FILE)
    train = [e for e in examples if e.split == "train"]
    dev = [e for e in examples if e.split == "dev"]
    names = list(FEATURE_NAMES)
    best = None
    for l2, weighting, soft in itertools.product(L2, CLASS_WEIGHTS, ACCEPTABLE_WEIGHTS):
        fitted = train_model(
            train, names, l2=l2, class_weight=weighting, acceptable_weight=soft, version=VERSION
        )
        for threshold, min_p in itertools.product(NONE_THRESHOLDS, MIN_SECTION_P):
            model = replace(fitted, none_threshold=threshold, min_section_probability=min_p)
            dev_scores = score(dev, [predict(model, e.features) for e in dev])
            key = (objective(dev_scores), dev_scores.strict, -l2)
            if best is None or key > best[0]:
                best = (
                    key,
                    model,
                    dev_scores,
                    {"l2": l2, "class_weight": weighting, "acceptable_weight": soft},
                )
    assert best is not None
    _, model, dev_scores, chosen = best
    train_scores = score(train, [predict(model, e.features) for e in train])
    provenance = {
        "data": "bench/gate_v2 (frozen) at " + data_commit(),
        "fitted_on": f"train ({len(train)} queries)",
        "chosen_on": f"dev ({len(dev)} queries): l2, class weighting, none_threshold, min_section_probability",
        "chosen": {
            **chosen,
            "none_threshold": model.none_threshold,
            "min_section_probability": model.min_section_probability,
        },
        "dev": {
            "lenient": round(dev_scores.lenient_rate, 4),
            "strict": round(dev_scores.strict / dev_scores.n, 4),
            "false_injection": round(dev_scores.false_rate, 4),
            "missed": round(dev_scores.missed_rate, 4),
        },
        "script": "bench/train_gate.py",
    }
    args.out.write_text(model.to_json(provenance), encoding="utf-8")
    for name, s in (("train", train_scores), ("dev", dev_scores)):
        print(
            f"{name}: lenient {pct(s.lenient, s.n)}, strict {pct(s.strict, s.n)}, false injection"
            f" {pct(s.false_injections, s.none_total)}, missed {pct(s.missed, s.needing_total)},"
            f" entity traps {s.tagged_false.get('entity_trap')}"
        )
    print(f"chosen on dev: {provenance['chosen']}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
