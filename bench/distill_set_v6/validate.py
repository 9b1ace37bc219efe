"""Check bench/distill_set_v6/sessions.jsonl against the schema of bench/distill_set/README.md.

Run: `python -m bench.distill_set_v6.validate` (exit 1 on an error). The row checks and the brief's minimums are
v5's (`bench.distill_set_v5.validate.validate`: keys and the bench's parser, unique session and fact ids,
`split == "test"`, 4-8 turn pairs, date order and one language per agent, `about` / `why` values, folded patterns,
`supersedes` pointing from a fact of this session to a fact of an earlier session of the same agent, the brief's
minimums, no must_not pattern inside a fact or allowed pattern of the same agent, a stale fact superseded at most
once, verbatim must_nots matching what was said, agent ids unused by v1, v3 and v4). This file adds: agent ids unused
by v5 as well, and no chained supersession (a `by` fact that is itself stale could never count as replaced, since
the bench leaves stale facts out of recall).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench.distill_set_v5.validate import validate as validate_v5

SET_PATH = Path(__file__).resolve().parent / "sessions.jsonl"
V5_PATH = Path(__file__).resolve().parent.parent / "distill_set_v5" / "sessions.jsonl"


def validate(path: Path = SET_PATH) -> tuple[list[str], list[str], dict[str, object]]:
    """(errors, warnings, counts) of the set at `path`."""
    errors, warnings, summary = validate_v5(path)
    rows: list[dict[str, Any]] = [
        json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()
    ]
    if V5_PATH.exists():
        v5_agents = {
            str(json.loads(line)["agent_id"])
            for line in V5_PATH.read_text("utf-8").splitlines()
            if line.strip()
        }
        reused = sorted({r["agent_id"] for r in rows} & v5_agents)
        errors += [f"{agent}: agent id already used by distill_set_v5" for agent in reused]
    stale = {s["stale_fact"] for r in rows for s in r["supersedes"]}
    errors += [
        f"{r['id']}: replacement {s['by']} is itself superseded later (chain)"
        for r in rows
        for s in r["supersedes"]
        if s["by"] in stale
    ]
    return errors, warnings, summary


def main() -> int:
    errors, warnings, summary = validate()
    for line in warnings:
        print("warning:", line)
    for line in errors:
        print("error:", line)
    print(json.dumps(summary, indent=1))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
