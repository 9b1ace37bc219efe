"""Check bench/distill_set_v10/sessions.jsonl against the schema of bench/distill_set/README.md.

Run: `python -m bench.distill_set_v10.validate` (exit 1 on an error). The row checks are v9's
(`bench.distill_set_v9.validate.validate`, which chains v8 down to v3: keys and the bench's parser, unique session
and fact ids, `split == "test"`, 4-8 turn pairs, date order and one language per agent, `about` / `why` values,
folded patterns, `supersedes` pointing from a fact of this session to a fact of an earlier session of the same
agent, no must_not pattern inside a fact or allowed pattern of the same agent, a stale fact superseded at most once,
verbatim must_nots matching what was said, agent ids unused by earlier sets, no chained supersession, `by` naming a
fact of its own session, and the brief's minimums: >= 44 sessions, >= 14 users, 2-4 sessions each, >= 14
non-English sessions, >= 12 sessions of exactly 8 pairs, >= 18 supersessions, >= 40 must_not). This file adds:
agent ids unused by v9 as well.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.distill_set_v9.validate import validate as validate_v9

SET_PATH = Path(__file__).resolve().parent / "sessions.jsonl"
BENCH = Path(__file__).resolve().parent.parent
EARLIER = ("distill_set_v9/sessions.jsonl",)


def _agents(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {
        str(json.loads(line)["agent_id"]) for line in path.read_text("utf-8").splitlines() if line.strip()
    }


def validate(path: Path = SET_PATH) -> tuple[list[str], list[str], dict[str, object]]:
    """(errors, warnings, counts) of the set at `path`."""
    errors, warnings, summary = validate_v9(path)
    mine = _agents(path)
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
