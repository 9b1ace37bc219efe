"""Check bench/distill_set_v8/sessions.jsonl against the schema of bench/distill_set/README.md.

Run: `python -m bench.distill_set_v8.validate` (exit 1 on an error). The row checks are v7's
(`bench.distill_set_v7.validate.validate`, which runs v6's to v3's: keys and the bench's parser, unique session and
fact ids, `split == "test"`, 4-8 turn pairs, date order and one language per agent, `about` / `why` values, folded
patterns, `supersedes` pointing from a fact of this session to a fact of an earlier session of the same agent, no
must_not pattern inside a fact or allowed pattern of the same agent, a stale fact superseded at most once, verbatim
must_nots matching what was said, agent ids unused by v1 and v3 to v6, no chained supersession, and the v7/v8 brief's
minimums: >= 44 sessions, >= 14 users, 2-4 sessions each, >= 14 non-English sessions, >= 12 sessions of exactly 8
pairs, >= 18 supersessions, >= 40 must_not). This file adds: agent ids unused by v7 (and dev2 to dev4) as well.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench.distill_set_v7.validate import validate as validate_v7

SET_PATH = Path(__file__).resolve().parent / "sessions.jsonl"
BENCH = Path(__file__).resolve().parent.parent
EARLIER = (
    "distill_set_v7/sessions.jsonl",
    "distill_set/dev2.jsonl",
    "distill_set/dev3.jsonl",
    "distill_set/dev4.jsonl",
)


def _agents(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {
        str(json.loads(line)["agent_id"]) for line in path.read_text("utf-8").splitlines() if line.strip()
    }


def validate(path: Path = SET_PATH) -> tuple[list[str], list[str], dict[str, object]]:
    """(errors, warnings, counts) of the set at `path`."""
    errors, warnings, summary = validate_v7(path)
    rows: list[dict[str, Any]] = [
        json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()
    ]
    mine = {str(r["agent_id"]) for r in rows}
    for name in EARLIER:
        reused = sorted(mine & _agents(BENCH / name))
        errors += [f"{agent}: agent id already used by {name}" for agent in reused]
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
