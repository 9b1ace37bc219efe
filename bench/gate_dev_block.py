"""DEV figures of gate model files end to end: section choice AND whether the block holds an answer item (gate-v6).

bench/train_gate.py scores first choices on recorded evidence; what a user gets is the block the planner builds
from the chosen section (with fall-through). This seeds the DEV profiles (bench/train_gate.DEV_PROFILES) of the
fitting sets gate_v2 .. gate_v13 into one real memoryd (real MiniLM through a real inferd, bench/gate_harness.py),
then, for each model file, asks every DEV query through AssembleContext over gRPC and reports lenient / strict
accuracy, false and missed injection, entity traps, per-section recall and the share of memory-needing queries
whose block holds an answer item. The read path's model is swapped between runs (and its cache emptied).

Run: `python -m bench.gate_dev_block [MODEL.json …]` (default gate-v11 and gate-v12; writes
bench/results/gate_dev/dev_block.json).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.gate_collect import FIT_SETS
from bench.gate_harness import (
    Outcome,
    Seeded,
    assemble,
    index_everything,
    load_profiles,
    load_queries,
    running,
    seed_profile_grpc,
    warm_identity,
)
from bench.gate_v2.loader import load_profiles as load_typed_profiles
from bench.train_gate import DEV_PROFILES
from memoryd.client import MemoryClient
from memoryd.retrieval.gate_model import DEFAULT_MODEL_PATH, GateModel
from memoryd.retrieval.gate_model import load as load_model

BENCH = Path(__file__).resolve().parent
#: Not in bench/results/ itself: bench.report reads every JSON there as a module run.
OUT = BENCH / "results" / "gate_dev" / "dev_block.json"
MODELS = tuple(DEFAULT_MODEL_PATH.parent / f"gate_model_v{n}.json" for n in (11, 12))
SECTIONS = ("none", "identity", "pinned", "episodes", "transcript")


def _pct(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def figures(outcomes: Sequence[Outcome], seeded: dict[str, Seeded]) -> dict[str, Any]:
    """The DEV figures of one model's outcomes."""
    n = len(outcomes)
    lenient = sum(
        o.section == o.query["expected"] or o.section in o.query.get("acceptable", []) for o in outcomes
    )
    strict = sum(o.section == o.query["expected"] for o in outcomes)
    nomem = [o for o in outcomes if o.query["expected"] == "none"]
    needing = [o for o in outcomes if o.query["expected"] != "none"]
    traps = [o for o in nomem if "entity_trap" in o.query.get("tags", [])]
    with_answer = [o for o in needing if o.query.get("answer_ids")]
    answered = sum(o.has_answer(seeded[o.query["profile"]]) for o in with_answer)
    recall = {
        s: _pct(
            sum(o.section == s for o in outcomes if o.query["expected"] == s),
            sum(o.query["expected"] == s for o in outcomes),
        )
        for s in SECTIONS
    }
    return {
        "queries": n,
        "lenient": _pct(lenient, n),
        "strict": _pct(strict, n),
        "false_injection": _pct(sum(o.section != "none" for o in nomem), len(nomem)),
        "false_injected": sum(o.section != "none" for o in nomem),
        "missed": _pct(sum(o.section == "none" for o in needing), len(needing)),
        "entity_traps": [sum(o.section != "none" for o in traps), len(traps)],
        "recall": recall,
        "answer_in_block": _pct(answered, len(with_answer)),
        "answer_in_block_n": [answered, len(with_answer)],
    }


def run(models: Sequence[Path]) -> dict[str, Any]:
    """Seed the DEV profiles once, then every DEV query with each model file."""
    home = Path(tempfile.mkdtemp(prefix="bench-gate-dev-"))
    queries: list[dict[str, Any]] = []
    seeded: dict[str, Seeded] = {}
    out: dict[str, Any] = {}
    with running(home, query_embed_timeout_s=2.0) as stack:
        now_ms = int(time.time() * 1000)
        with MemoryClient(stack.target, deadline_s=120.0) as client:
            for data_dir, splits in FIT_SETS:
                raw = load_profiles(data_dir / "memory.jsonl")
                typed = load_typed_profiles(data_dir / "memory.jsonl")
                for name in sorted(raw):
                    if name in DEV_PROFILES:
                        seeded[name] = seed_profile_grpc(client, typed[name], raw[name], now_ms)
                queries += [
                    q for q in load_queries(splits, data_dir / "queries.jsonl") if q["profile"] in seeded
                ]
        index_everything(stack)
        for name in seeded:
            warm_identity(stack, name)
        read_path = stack.app.read_path
        for path in models:
            model: GateModel | None = load_model(path)
            if model is None:
                continue
            read_path._gate_model = model
            read_path.invalidate()
            started = time.perf_counter()
            outcomes = [assemble(stack, q) for q in queries]
            out[model.version] = figures(outcomes, seeded) | {"seconds": round(time.perf_counter() - started)}
            print(model.version, json.dumps(out[model.version]), flush=True)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", type=Path, nargs="*", default=list(MODELS))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    result = run(args.models)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
