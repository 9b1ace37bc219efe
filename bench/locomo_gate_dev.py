"""LoCoMo's DEV conversations (conv-26, 30, 41: the first three) question by question, for the gate (gate-v7).

bench/bench_locomo_e2e.py reports aggregates; choosing a gate model needs to see which questions a model leaves
without a block and why. This ingests the three DEV conversations exactly as bench_locomo_e2e does (fake core
model, real MiniLM, every row embedded), then asks every category 1-4 question once per model file (the read path's
model is swapped between passes, its cache emptied) and records, per question and model: the section, the reason,
whether the block holds an evidence turn, P(section) and the features. The first pass also records the evidence the
features were computed from (gate_collect.recording), so a candidate's decisions on these questions can be
recomputed offline (bench/train_gate.py `--locomo`). Conversations 3-9 are never read here (LoCoMo protocol:
they are looked at in aggregate only, through bench_locomo_e2e).

Run: `OSAURUS_LOCOMO_PATH=… python -m bench.locomo_gate_dev [MODEL.json …]` (default gate-v5, gate-v6 and gate-v7; writes
bench/results/gate_dev/locomo_dev.jsonl.gz, about 6 minutes).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sqlite3
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.bench_locomo_e2e import DEV, dia_of_transcript, ingest, placed_dia
from bench.gate_collect import evidence_json, recording
from bench.locomo_data import load
from bench.search_stack import model_stack
from memoryd.retrieval.gate_model import DEFAULT_MODEL_PATH
from memoryd.retrieval.gate_model import load as load_model
from osaurus.memory.v1 import memory_pb2 as pb

BENCH = Path(__file__).resolve().parent
#: Not in bench/results/ itself: bench.report reads every JSON there as a module run.
OUT = BENCH / "results" / "gate_dev" / "locomo_dev.jsonl.gz"
MODELS = tuple(DEFAULT_MODEL_PATH.parent / f"gate_model_v{n}.json" for n in (5, 6, 7))


def run(models: Sequence[Path], out: Path) -> int:
    """Ingest the DEV conversations once, ask every question with each model; one JSON line per question."""
    data = [c for c in load() if c.sample_id in DEV]
    rows: dict[tuple[str, int], dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="locomo-gate-dev-") as tmp:
        home = Path(tmp)
        with model_stack(home, "fake") as stack:
            for conv in data:
                ingest(stack.memory, conv, f"locomo-{conv.sample_id}")
            print(f"embedded {stack.index()} rows", flush=True)
            db = sqlite3.connect(f"file:{home / 'memoryd' / 'memory' / 'memory.sqlite'}?mode=ro", uri=True)
            read_path = stack.app.read_path
            for path in models:
                model = load_model(path)
                if model is None:
                    continue
                read_path._gate_model = model
                read_path.invalidate()
                started = time.perf_counter()
                for conv in data:
                    agent = f"locomo-{conv.sample_id}"
                    dia = dia_of_transcript(db, agent, conv)
                    for k, q in enumerate(conv.questions):
                        with recording() as seen:
                            reply = stack.memory.AssembleContext(
                                pb.AssembleContextRequest(agent_id=agent, query=q.question), timeout=30
                            )
                        held = placed_dia(db, reply.placed, dia) if reply.block else set()
                        row = rows.setdefault(
                            (conv.sample_id, k),
                            {
                                "conversation": conv.sample_id,
                                "index": k,
                                "question": q.question,
                                "category": q.category,
                                "evidence_turns": list(q.evidence),
                                "evidence": evidence_json(seen[0][1]) if seen else None,
                                "models": {},
                            },
                        )
                        row["models"][model.version] = {
                            "section": pb.Section.Name(reply.section) if reply.block else "none",
                            "reason": reply.reason,
                            "has_evidence": bool(held & set(q.evidence)),
                            "tokens": reply.block_tokens,
                            "scores": {
                                pb.Section.Name(s.section): round(s.probability, 4)
                                for s in reply.decision.scores
                            },
                            "features": {f.name: round(f.value, 4) for f in reply.decision.features},
                        }
                got = [r["models"][model.version] for r in rows.values()]
                print(
                    f"{model.version}: {len(got)} questions, evidence in block"
                    f" {sum(g['has_evidence'] for g in got)}, no block {sum(g['section'] == 'none' for g in got)}"
                    f" ({time.perf_counter() - started:.0f} s)",
                    flush=True,
                )
            db.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8") as sink:
        for row in rows.values():
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("models", type=Path, nargs="*", default=list(MODELS))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    print(f"wrote {run(args.models, args.out)} questions to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
