"""Per-query decisions of `bench.bench_gate --set v2` (or another set: `--set`), written to a file, and a diff of two
such files.

A change that only makes the read path faster must not change what it decides. This runs the regression set exactly
as `python -m bench.bench_gate --set v2` does (and prints the same tables), and also writes, one JSON line per query,
the section, the placed rows and the reason AssembleContext answered. `--compare OLD NEW` lists every query whose
section or placed rows differ, with both reasons (a query that ran without its vector says "fts_only" in its reason:
on a busy machine the 150 ms query-embedding deadline can be missed in one run and not the other).

Run: `python -m bench.read_decisions [--set v2] [--query-embed-timeout-ms 5000] OUT.jsonl`, then `python -m bench.read_decisions --compare OLD.jsonl NEW.jsonl`.
Not a benchmark of its own (no figures under bench/results); nothing here is tuned on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import gate_v2_report
from bench.gate_harness import Outcome, Seeded, run_queries


def decision_record(outcome: Outcome) -> dict[str, Any]:
    """What a user would see of one decision: the section, the placed rows and the reason."""
    return {
        "id": outcome.query["id"],
        "section": outcome.section,
        "placed": sorted(f"{kind}:{row}" for kind, row in outcome.placed),
        "reason": outcome.reason,
        "latency_ms": round(outcome.latency_ms, 1),
    }


def record(out: Path, query_embed_timeout_s: float | None = None, gate_set: str = "v2") -> None:
    """Run bench_gate --set <gate_set> (its tables printed; default v2), writing each query's decision to `out`
    (with `all`, every set's, each id prefixed by its set's directory).

    query_embed_timeout_s: memoryd's query-embedding deadline (None: bench_gate's, the default 150 ms). A long one
    makes every query carry its vector however busy the machine is, so two runs can be compared query by query.
    """
    from bench.bench_gate import run

    # run_v2 looks run_queries up in its module's namespace on every call: swapped there for this run.
    namespace = vars(gate_v2_report)

    def capturing(*args: Any, **kwargs: Any) -> tuple[list[Outcome], dict[str, Seeded]]:
        if query_embed_timeout_s is not None:
            kwargs["query_embed_timeout_s"] = query_embed_timeout_s
        outcomes, seeded = run_queries(*args, **kwargs)
        prefix = "" if gate_set == "v2" else f"{Path(kwargs.get('data_dir', 'gate_v2')).name}:"
        with out.open("a", encoding="utf-8") as handle:
            for outcome in outcomes:
                decided = decision_record(outcome)
                handle.write(json.dumps({**decided, "id": f"{prefix}{decided['id']}"}) + "\n")
        return outcomes, seeded

    out.write_text("", encoding="utf-8")
    namespace["run_queries"] = capturing
    try:
        for result in run(gate_set):
            print(f"{result.metric}: {result.value} (target {result.target})")
            if result.detail:
                print(result.detail)
    finally:
        namespace["run_queries"] = run_queries


def load(path: Path) -> dict[str, dict[str, Any]]:
    """Decisions by query id."""
    with path.open(encoding="utf-8") as handle:
        return {row["id"]: row for row in (json.loads(line) for line in handle if line.strip())}


def differences(old: dict[str, dict[str, Any]], new: dict[str, dict[str, Any]]) -> list[str]:
    """One line per query whose section or placed rows differ (or that only one file has)."""
    lines = []
    for query_id in sorted(old.keys() | new.keys()):
        a, b = old.get(query_id), new.get(query_id)
        if a is None or b is None:
            lines.append(f"{query_id}: only in {'new' if a is None else 'old'}")
        elif (a["section"], a["placed"]) != (b["section"], b["placed"]):
            lines.append(
                f"{query_id}: {a['section']} {a['placed']} ({a['reason']}) -> {b['section']} {b['placed']}"
                f" ({b['reason']})"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), type=Path)
    parser.add_argument("--query-embed-timeout-ms", type=float, default=None)
    parser.add_argument("--set", dest="gate_set", default="v2", help="bench_gate's --set (v2 … v13, all)")
    parser.add_argument("out", nargs="?", type=Path)
    args = parser.parse_args(argv)
    if args.compare:
        old, new = (load(path) for path in args.compare)
        lines = differences(old, new)
        print(f"{len(old)} old, {len(new)} new decisions; {len(lines)} differ (section or placed rows)")
        print("\n".join(lines))
        return 1 if lines else 0
    if args.out is None:
        parser.error("give OUT.jsonl or --compare OLD NEW")
    timeout_ms = args.query_embed_timeout_ms
    record(args.out, None if timeout_ms is None else timeout_ms / 1000, args.gate_set)
    return 0


if __name__ == "__main__":
    sys.exit(main())
