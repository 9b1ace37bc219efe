"""Check bench/distill_set_v4/sessions.jsonl against the schema of bench/distill_set/README.md.

Run: `python -m bench.distill_set_v4.validate` (exit 1 on an error). The per-row checks are v3's
(`bench.distill_set_v3.validate.validate`: keys, the bench's parser, unique ids, `split == "test"`, 4-8 turn pairs,
date order and one language per agent, `about` / `why` values, folded patterns, `supersedes` pointing from a fact of
this session to a fact of an earlier session of the same agent; a warning for a fact group none of whose patterns
occurs in the session's user turns). This file adds the v4 brief's minimums and one cross-check: no `must_not`
pattern may occur inside a fact or allowed pattern of the same agent (a must_not broader than a true label).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench.distill_scoring import occurs
from bench.distill_set_v3.validate import validate as validate_rows

SET_PATH = Path(__file__).resolve().parent / "sessions.jsonl"
MINIMUMS = {
    "sessions": 44,
    "agents": 14,
    "non_english": 14,
    "eight_pair_sessions": 12,
    "supersedes": 18,
    "must_not": 40,
}


def _labels(rows: list[dict[str, Any]]) -> list[str]:
    groups = [f["match"] for r in rows for f in r["facts"]] + [a["match"] for r in rows for a in r["allowed"]]
    return [pattern for match in groups for group in match for pattern in group]


def validate(path: Path = SET_PATH) -> tuple[list[str], list[str], dict[str, object]]:
    """(errors, warnings, counts) of the set at `path`."""
    errors, warnings, summary = validate_rows(path)
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    per_agent = Counter(r["agent_id"] for r in rows)
    summary["non_english"] = sum(r["lang"] != "en" for r in rows)
    summary["eight_pair_sessions"] = sum(len(r["turns"]) == 8 for r in rows)
    for key, floor in MINIMUMS.items():
        value = summary.get(key, 0)
        if not isinstance(value, int) or value < floor:
            errors.append(f"{key}: {summary.get(key)} < {floor}")
    for agent, count in per_agent.items():
        if not 2 <= count <= 4:
            errors.append(f"{agent}: {count} sessions (2-4 wanted)")
    for agent in per_agent:
        mine = [r for r in rows if r["agent_id"] == agent]
        labels = _labels(mine)
        for row in mine:
            for item in row["must_not"]:
                for pattern in (p for group in item["match"] for p in group):
                    for label in labels:
                        if occurs(pattern, label):
                            errors.append(
                                f"{row['id']}: must_not {pattern!r} occurs in label pattern {label!r}"
                            )
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
