"""Check bench/distill_set_v11/sessions.jsonl against the schema of bench/distill_set/README.md.

Run: `python -m bench.distill_set_v11.validate` (exit 1 on an error). The row checks are v10's
(`bench.distill_set_v10.validate.validate`, which chains v9 down to v3: keys and the bench's parser, unique session
and fact ids, `split == "test"`, 4-8 turn pairs, date order and one language per agent, `about` / `why` values,
folded patterns, `supersedes` pointing from a fact of this session to a fact of an earlier session of the same
agent, no must_not pattern inside a fact or allowed pattern of the same agent, a stale fact superseded at most once,
verbatim must_nots matching what was said, agent ids unused by earlier sets, `by` naming a fact of its own session,
and the older briefs' minimums: >= 44 sessions, >= 14 users, 2-4 sessions each, >= 14 non-English sessions, >= 12
sessions of exactly 8 pairs, >= 18 supersessions, >= 40 must_not), with one exception: v6's "no chained
supersession" error is dropped, since the chains rule of bench/distill_set/README.md (2026-12-07) scores a pair
A -> B whose B is replaced later, and this set's brief asks for chains. This file adds: agent ids unused by v10;
the v11 brief's minimums (>= 15 users, >= 15 non-English sessions with at least two users in one language,
>= 30 supersessions of which >= 3 chained, >= 60 must_not); every chain in date order (A's session before B's before
C's, which the row checks already imply) and acyclic; every `third_party` and `assistant_guess` must_not precise:
not a single group of one-word patterns (a lone topical word would also catch a true relation fact or a denial).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench.distill_set_v10.validate import validate as validate_v10

SET_PATH = Path(__file__).resolve().parent / "sessions.jsonl"
BENCH = Path(__file__).resolve().parent.parent
EARLIER = ("distill_set_v10/sessions.jsonl",)
#: The error text v6's validator gives a chained pair; chains are scored now, so it is not an error here.
CHAIN_ERROR = "is itself superseded later (chain)"
PRECISE_WHYS = ("third_party", "assistant_guess")
MINIMUMS = {"users": 15, "non_english": 15, "supersessions": 30, "chained": 3, "must_not": 60}


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _agents(path: Path) -> set[str]:
    return {str(r["agent_id"]) for r in _rows(path)} if path.exists() else set()


def _chains(rows: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """(pairs whose replacement is replaced later, errors: a cycle or a chain out of date order)."""
    date = {str(f["id"]): str(r["date"]) for r in rows for f in r["facts"]}
    nxt = {str(s["stale_fact"]): str(s["by"]) for r in rows for s in r["supersedes"]}
    errors: list[str] = []
    chained = 0
    for stale, by in nxt.items():
        if by in nxt:
            chained += 1
            if not date.get(stale, "") < date.get(by, "") < date.get(nxt[by], ""):
                errors.append(f"chain {stale} -> {by} -> {nxt[by]} is not in date order")
        seen = {stale}
        cur = by
        while cur in nxt:
            if cur in seen:
                errors.append(f"chain from {stale} loops back to {cur}")
                break
            seen.add(cur)
            cur = nxt[cur]
    return chained, errors


def validate(path: Path = SET_PATH) -> tuple[list[str], list[str], dict[str, object]]:
    """(errors, warnings, counts) of the set at `path`."""
    errors, warnings, summary = validate_v10(path)
    errors = [e for e in errors if CHAIN_ERROR not in e]
    rows = _rows(path)
    mine = {str(r["agent_id"]) for r in rows}
    for name in EARLIER:
        reused = sorted(mine & _agents(BENCH / name))
        errors += [f"{agent}: agent id already used by {name}" for agent in reused]
    chained, chain_errors = _chains(rows)
    errors += chain_errors
    for row in rows:
        for number, item in enumerate(row["must_not"]):
            groups = item["match"]
            if item["why"] in PRECISE_WHYS and len(groups) == 1 and all(" " not in p for p in groups[0]):
                errors.append(f"{row['id']} must_not[{number}]: a {item['why']} of one-word patterns only")
    users_per_lang = Counter(lang for _, lang in {(str(r["agent_id"]), str(r["lang"])) for r in rows})
    counts = {
        "users": len(mine),
        "non_english": sum(r["lang"] != "en" for r in rows),
        "supersessions": sum(len(r["supersedes"]) for r in rows),
        "chained": chained,
        "must_not": sum(len(r["must_not"]) for r in rows),
    }
    errors += [
        f"brief minimum not met: {key} {counts[key]} < {floor}"
        for key, floor in MINIMUMS.items()
        if counts[key] < floor
    ]
    if not any(n >= 2 for lang, n in users_per_lang.items() if lang != "en"):
        errors.append("brief minimum not met: no non-English language has two users")
    summary["chained"] = chained
    summary["users_per_lang"] = dict(sorted(users_per_lang.items()))
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
