"""Check bench/distill_set_v7/sessions.jsonl against the schema of bench/distill_set/README.md.

Run: `python -m bench.distill_set_v7.validate` (exit 1 on an error). The row checks and the brief's minimums are
v6's (`bench.distill_set_v6.validate.validate`, which runs v5's, v4's and v3's: keys and the bench's parser, unique
session and fact ids, `split == "test"`, 4-8 turn pairs, date order and one language per agent, `about` / `why`
values, folded patterns, `supersedes` pointing from a fact of this session to a fact of an earlier session of the
same agent, the brief's minimums, no must_not pattern inside a fact or allowed pattern of the same agent, a stale
fact superseded at most once, verbatim must_nots matching what was said, agent ids unused by v1 and v3 to v5, no
chained supersession). This file adds: agent ids unused by v6 as well, and the v7 brief's minimums restated
(>= 44 sessions, >= 14 users, 2-4 sessions each, >= 14 non-English sessions, >= 12 sessions of exactly 8 pairs,
>= 18 supersessions, >= 40 must_not).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench.distill_set_v6.validate import validate as validate_v6

SET_PATH = Path(__file__).resolve().parent / "sessions.jsonl"
V6_PATH = Path(__file__).resolve().parent.parent / "distill_set_v6" / "sessions.jsonl"


def validate(path: Path = SET_PATH) -> tuple[list[str], list[str], dict[str, object]]:
    """(errors, warnings, counts) of the set at `path`."""
    errors, warnings, summary = validate_v6(path)
    rows: list[dict[str, Any]] = [
        json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()
    ]
    if V6_PATH.exists():
        v6_agents = {
            str(json.loads(line)["agent_id"])
            for line in V6_PATH.read_text("utf-8").splitlines()
            if line.strip()
        }
        reused = sorted({r["agent_id"] for r in rows} & v6_agents)
        errors += [f"{agent}: agent id already used by distill_set_v6" for agent in reused]
    per_agent = Counter(r["agent_id"] for r in rows)
    minimums = {
        "sessions >= 44": len(rows) >= 44,
        "users >= 14": len(per_agent) >= 14,
        "2-4 sessions per user": all(2 <= n <= 4 for n in per_agent.values()),
        "non-English sessions >= 14": sum(r["lang"] != "en" for r in rows) >= 14,
        "8-pair sessions >= 12": sum(len(r["turns"]) == 8 for r in rows) >= 12,
        "supersessions >= 18": sum(len(r["supersedes"]) for r in rows) >= 18,
        "must_not >= 40": sum(len(r["must_not"]) for r in rows) >= 40,
    }
    errors += [f"brief minimum not met: {name}" for name, ok in minimums.items() if not ok]
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
