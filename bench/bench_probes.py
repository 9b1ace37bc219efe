"""End-to-end probes: real sessions Ingested and distilled, then questions through AssembleContext, per kind.

`python -m bench.bench_probes [--model fake|default] [--split dev|test|all]`

The probe set (bench/gate_v2/probes.jsonl, frozen before tuning) holds agents with raw multi-session chats and
questions of four kinds: recall (the answer was said in a session), correction (a later session changed it: the
new value must be in the block and the stale one must not), isolation (asked of another agent: nothing of the
first agent's may appear), none (no memory needed: no block). A question passes when its rule holds for the
block AssembleContext returns; that is the block InjectMemory would prepend.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from google.protobuf.timestamp_pb2 import Timestamp

from bench.gate_v2.loader import ProbeQuestion, load_probes
from bench.report import BenchResult
from bench.search_stack import model_stack
from memoryd.retrieval.gate import fold
from osaurus.memory.v1 import memory_pb2 as pb

ISSUE = 17


@dataclass(frozen=True)
class Outcome:
    """One question's verdict."""

    question: ProbeQuestion
    block: str
    passed: bool
    reason: str


def judge(question: ProbeQuestion, block: str) -> tuple[bool, str]:
    """The kind's rule on the block."""
    text = fold(block)
    has_answer = any(fold(a) in text for a in question.answer_any)
    has_forbidden = any(fold(f) in text for f in question.forbidden)
    if question.kind == "none":
        return (not block, "block_given" if block else "")
    if question.kind == "isolation":
        return (not has_forbidden, "leaked" if has_forbidden else "")
    if question.kind == "correction":
        if has_forbidden:
            return False, "stale_value_in_block"
        return (has_answer, "" if has_answer else ("no_block" if not block else "answer_missing"))
    return (has_answer, "" if has_answer else ("no_block" if not block else "answer_missing"))


def _timestamp(day: str) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(datetime.strptime(day, "%Y-%m-%d").replace(hour=12, tzinfo=UTC))
    return stamp


def measure(model: str, split: str) -> tuple[list[Outcome], dict[str, int], float]:
    probes = load_probes()
    questions = [q for q in probes.questions if split == "all" or q.split == split]
    outcomes: dict[str, int] = defaultdict(int)
    results: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="probes-") as tmp:
        home = Path(tmp)
        with model_stack(home, model) as stack:
            started = time.monotonic()
            for agent in probes.agents:
                for session in agent.sessions:
                    reply = stack.memory.Ingest(
                        pb.IngestRequest(
                            agent_id=agent.agent_id,
                            conversation_id=session.session_id,
                            turns=[pb.Turn(user=u, assistant=a) for u, a in session.turns],
                            session_time=_timestamp(session.date),
                        ),
                        timeout=900,
                    )
                    outcomes[reply.distillation.split(":")[0]] += 1
            ingest_s = time.monotonic() - started
            stack.index()
            for question in questions:
                reply = stack.memory.AssembleContext(
                    pb.AssembleContextRequest(agent_id=question.agent_id, query=question.query),
                    timeout=30,
                )
                passed, reason = judge(question, reply.block)
                results.append(Outcome(question, reply.block, passed, reason))
    return results, dict(outcomes), ingest_s


def render(results: Sequence[Outcome], outcomes: dict[str, int], ingest_s: float, model: str) -> str:
    lines = [
        f"Model: `{model}`. Sessions distilled: "
        + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
        + f" (ingest {ingest_s:.0f} s).",
        "",
        "| split | kind | questions | passed | failures by reason |",
        "| --- | --- | --- | --- | --- |",
    ]
    for split in ("dev", "test"):
        for kind in ("recall", "correction", "isolation", "none"):
            part = [r for r in results if r.question.split == split and r.question.kind == kind]
            if not part:
                continue
            reasons: dict[str, int] = defaultdict(int)
            for r in part:
                if not r.passed:
                    reasons[r.reason] += 1
            why = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) or "-"
            passed = sum(r.passed for r in part)
            lines.append(f"| {split} | {kind} | {len(part)} | {passed} ({passed / len(part):.0%}) | {why} |")
    return "\n".join(lines)


def run(model: str = "", split: str = "all") -> list[BenchResult]:
    """Probe figures per kind; the headline is the test split. `python -m bench bench_probes` takes the core model
    from OSAURUS_BENCH_PROBES_MODEL (fake or default; fake when unset)."""
    model = model or os.environ.get("OSAURUS_BENCH_PROBES_MODEL", "fake")
    results, outcomes, ingest_s = measure(model, split)
    detail = render(results, outcomes, ingest_s, model)
    print(detail)
    test = [r for r in results if r.question.split == "test"] or list(results)
    out: list[BenchResult] = []
    for kind in ("recall", "correction", "isolation", "none"):
        part = [r for r in test if r.question.kind == kind]
        if part:
            share = sum(r.passed for r in part) / len(part)
            out.append(
                BenchResult(
                    ISSUE,
                    f"E2E probes, {kind} passed (test split, {model} model)",
                    f"{share:.0%} of {len(part)}",
                    "(reported)",
                    detail if not out else "",
                )
            )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--model", choices=("fake", "default"), default="fake")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    args = parser.parse_args(argv)
    run(args.model, args.split)
    return 0


if __name__ == "__main__":
    sys.exit(main())
