"""Check bench/distill_set_v5/sessions.jsonl against the schema of bench/distill_set/README.md.

Run: `python -m bench.distill_set_v5.validate` (exit 1 on an error). The row checks and the brief's minimums are
v4's (`bench.distill_set_v4.validate.validate`, which runs v3's row checks: keys and the bench's parser, unique
session and fact ids, `split == "test"`, 4-8 turn pairs, date order and one language per agent, `about` / `why`
values, folded patterns, `supersedes` pointing from a fact of this session to a fact of an earlier session of the
same agent; then ≥ 44 sessions, ≥ 14 agents with 2-4 sessions each, ≥ 14 non-English, ≥ 12 sessions with 8 pairs,
≥ 18 supersessions, ≥ 40 must_not, and no must_not pattern inside a fact or allowed pattern of the same agent).
This file adds: a stale fact is superseded at most once; every `secret`, `small_talk` and `hypothetical` must_not
matches what was said in the agent's own turns, so it is not a typo (assistant-guess and third-party matchers are
worded the way a wrong item would be stored, "has a lease car", "user loves …", so nobody said them); agent ids
are new (not in the earlier sets).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench.distill_scoring import matches
from bench.distill_set_v4.validate import validate as validate_v4

SET_PATH = Path(__file__).resolve().parent / "sessions.jsonl"
#: must_not kinds whose value was said in the chat as written (a guess or a mis-attribution is worded as it would be
#: stored, "has a lease car", "user loves …", which nobody said).
VERBATIM = ("secret", "small_talk", "hypothetical")
EARLIER = ("distill_set/sessions.jsonl", "distill_set_v3/sessions.jsonl", "distill_set_v4/sessions.jsonl")


def _earlier_agents() -> set[str]:
    bench = Path(__file__).resolve().parent.parent
    agents: set[str] = set()
    for name in EARLIER:
        path = bench / name
        if path.exists():
            for line in path.read_text("utf-8").splitlines():
                if line.strip():
                    agents.add(str(json.loads(line)["agent_id"]))
    return agents


def validate(path: Path = SET_PATH) -> tuple[list[str], list[str], dict[str, object]]:
    """(errors, warnings, counts) of the set at `path`."""
    errors, warnings, summary = validate_v4(path)
    rows: list[dict[str, Any]] = [
        json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()
    ]
    stale = Counter(s["stale_fact"] for r in rows for s in r["supersedes"])
    errors += [f"{fid}: superseded {n} times" for fid, n in stale.items() if n > 1]
    reused = sorted({r["agent_id"] for r in rows} & _earlier_agents())
    errors += [f"{agent}: agent id already used by an earlier set" for agent in reused]
    for agent in sorted({r["agent_id"] for r in rows}):
        mine = [r for r in rows if r["agent_id"] == agent]
        said = "\n".join(t["user"] + "\n" + t["assistant"] for r in mine for t in r["turns"])
        for row in mine:
            for number, item in enumerate(row["must_not"]):
                if item["why"] in VERBATIM and not matches(
                    item["match"], said, secret=item["why"] == "secret"
                ):
                    errors.append(
                        f"{row['id']} must_not[{number}]: matches nothing said in {agent}'s sessions"
                    )
    summary["stale_facts"] = len(stale)
    summary["recall_facts"] = int(str(summary.get("facts", 0))) - len(stale)
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
