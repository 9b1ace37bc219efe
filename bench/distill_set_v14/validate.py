"""Check bench/distill_set_v14/sessions.jsonl against the schema of bench/distill_set/README.md.

Run: `python -m bench.distill_set_v14.validate` (exit 1 on an error). The checks are v13's
(`bench.distill_set_v13.validate.validate`, which chains v12 down to v3: keys and the bench's parser, unique session
and fact ids, `split == "test"`, 4-8 turn pairs, date order and one language per agent, `about` / `why` values,
folded patterns, `supersedes` pointing from a fact of this session to a fact of an earlier session of the same
agent, no must_not pattern inside a fact or allowed pattern of the same agent, a stale fact superseded at most once,
verbatim must_nots matching what was said, agent ids unused by earlier sets, `by` naming a fact of its own session,
chains in date order and acyclic, no `third_party` / `assistant_guess` must_not made of one group of one-word
patterns, agent ids unused by v11 and v12, and the older briefs' minimums). This file adds: agent ids unused by
v11, v12 and v13 (checked here directly, not only through the chain); the v14 brief's minimums (>= 45 sessions,
>= 16 users with 2-3 sessions each, >= 12 sessions of exactly 8 pairs, >= 16 non-English sessions with at least two
users in one language, >= 50 supersessions of which >= 4 chained, >= 80 must_not, >= 8 decisions, >= 12 action
items).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench.distill_set_v13.validate import validate as validate_v13

SET_PATH = Path(__file__).resolve().parent / "sessions.jsonl"
BENCH = Path(__file__).resolve().parent.parent
EARLIER = (
    "distill_set_v11/sessions.jsonl",
    "distill_set_v12/sessions.jsonl",
    "distill_set_v13/sessions.jsonl",
)
MINIMUMS = {
    "sessions": 45,
    "users": 16,
    "eight_pair_sessions": 12,
    "non_english": 16,
    "supersessions": 50,
    "chained": 4,
    "must_not": 80,
    "decisions": 8,
    "action_items": 12,
}
SESSIONS_PER_USER = (2, 3)


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _agents(path: Path) -> set[str]:
    return {str(r["agent_id"]) for r in _rows(path)} if path.exists() else set()


def validate(path: Path = SET_PATH) -> tuple[list[str], list[str], dict[str, object]]:
    """(errors, warnings, counts) of the set at `path`."""
    errors, warnings, summary = validate_v13(path)
    rows = _rows(path)
    per_agent = Counter(str(r["agent_id"]) for r in rows)
    for name in EARLIER:
        reused = sorted(set(per_agent) & _agents(BENCH / name))
        errors += [f"{agent}: agent id already used by {name}" for agent in reused]
    low, high = SESSIONS_PER_USER
    errors += [
        f"{agent}: {n} sessions ({low}-{high} wanted)"
        for agent, n in sorted(per_agent.items())
        if not low <= n <= high
    ]
    errors += [f"{r['id']}: split must be test" for r in rows if r["split"] != "test"]
    counts = {
        "sessions": len(rows),
        "users": len(per_agent),
        "eight_pair_sessions": sum(len(r["turns"]) == 8 for r in rows),
        "non_english": sum(r["lang"] != "en" for r in rows),
        "supersessions": sum(len(r["supersedes"]) for r in rows),
        "chained": int(str(summary.get("chained", 0))),
        "must_not": sum(len(r["must_not"]) for r in rows),
        "decisions": sum(f["about"] == "decision" for r in rows for f in r["facts"]),
        "action_items": sum(f["about"] == "action_item" for r in rows for f in r["facts"]),
    }
    errors += [
        f"brief minimum not met: {key} {counts[key]} < {floor}"
        for key, floor in MINIMUMS.items()
        if counts[key] < floor
    ]
    summary["v14_counts"] = counts
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
