"""Check bench/distill_set_v3/sessions.jsonl against the schema of bench/distill_set/README.md.

Run: `python -m bench.distill_set_v3.validate` (exit 1 on an error). It checks the JSON shape, unique ids, the
split, 4-8 turn pairs, sessions of an agent in date order and in one language, patterns already folded,
`supersedes` pointing from a fact of this session to a fact of an earlier session of the same agent, and the
`why` values of `must_not`. As warnings it lists fact groups none of whose patterns occur in the session's user
turns (a typo or a paraphrase-only pattern), and prints the counts the README quotes.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

from bench.distill_scoring import fold, matches, parse_session

SET_PATH = Path(__file__).resolve().parent / "sessions.jsonl"
LANGS = {"en", "fr", "es", "de", "pt"}
ABOUTS = {"identity", "preference", "instruction", "relation", "plan", "decision", "action_item"}
WHYS = {"assistant_guess", "hypothetical", "third_party", "small_talk", "secret"}
KEYS = {"id", "split", "agent_id", "lang", "date", "turns", "facts", "allowed", "supersedes", "must_not"}
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _groups_ok(groups: object, where: str, errors: list[str]) -> None:
    if not isinstance(groups, list) or not groups:
        errors.append(f"{where}: match must be a non-empty list of groups")
        return
    for group in groups:
        if not isinstance(group, list) or not group or not all(isinstance(p, str) and p for p in group):
            errors.append(f"{where}: every group must be a non-empty list of non-empty strings")
            continue
        for pattern in group:
            if fold(pattern) != pattern:
                errors.append(f"{where}: pattern {pattern!r} is not folded")


def validate(path: Path = SET_PATH) -> tuple[list[str], list[str], dict[str, object]]:
    """(errors, warnings, counts) of the set at `path`."""
    errors: list[str] = []
    warnings: list[str] = []
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    session_ids: set[str] = set()
    fact_ids: dict[str, tuple[str, str]] = {}  # fact id -> (agent, date)
    agent_lang: dict[str, str] = {}
    agent_last: dict[str, str] = {}
    counts: Counter[str] = Counter()
    abouts: Counter[str] = Counter()
    whys: Counter[str] = Counter()
    langs: Counter[str] = Counter()
    pairs: Counter[int] = Counter()
    for row in rows:
        sid = row.get("id", "?")
        if set(row) != KEYS:
            errors.append(f"{sid}: keys {sorted(set(row) ^ KEYS)} missing or unexpected")
            continue
        parse_session(row)  # the bench's own parser must accept it
        if sid in session_ids:
            errors.append(f"{sid}: duplicate session id")
        session_ids.add(sid)
        agent, lang, date = row["agent_id"], row["lang"], row["date"]
        if row["split"] != "test":
            errors.append(f"{sid}: split must be test")
        if lang not in LANGS:
            errors.append(f"{sid}: unknown lang {lang}")
        if agent_lang.setdefault(agent, lang) != lang:
            errors.append(f"{sid}: {agent} mixes languages")
        if not DATE.match(date):
            errors.append(f"{sid}: bad date {date}")
        if agent in agent_last and agent_last[agent] >= date:
            errors.append(f"{sid}: not after the agent's previous session")
        agent_last[agent] = date
        turns = row["turns"]
        if not 4 <= len(turns) <= 8:
            errors.append(f"{sid}: {len(turns)} turn pairs (4-8 wanted)")
        if any(set(t) != {"user", "assistant"} or not t["user"] or not t["assistant"] for t in turns):
            errors.append(f"{sid}: every turn needs user and assistant text")
        user_text = "\n".join(t["user"] for t in turns)
        own: set[str] = set()
        for fact in row["facts"]:
            fid = fact["id"]
            if fid in fact_ids or not fid.startswith(sid + "-"):
                errors.append(f"{sid}: fact id {fid} duplicate or not prefixed by the session id")
            if fact["about"] not in ABOUTS:
                errors.append(f"{fid}: unknown about {fact['about']}")
            _groups_ok(fact["match"], fid, errors)
            for group in fact["match"]:
                if not matches([group], user_text):
                    warnings.append(f"{fid}: no pattern of {group} occurs in the user turns")
            fact_ids[fid] = (agent, date)
            own.add(fid)
            abouts[fact["about"]] += 1
        if not row["facts"]:
            errors.append(f"{sid}: no facts")
        for number, allowed in enumerate(row["allowed"]):
            _groups_ok(allowed["match"], f"{sid} allowed[{number}]", errors)
        for sup in row["supersedes"]:
            stale, by = sup["stale_fact"], sup["by"]
            if by not in own:
                errors.append(f"{sid}: supersedes.by {by} is not a fact of this session")
            earlier = fact_ids.get(stale)
            if earlier is None or stale in own:
                errors.append(f"{sid}: stale fact {stale} is not a fact of an earlier session")
            elif earlier[0] != agent or earlier[1] >= date:
                errors.append(f"{sid}: stale fact {stale} is not of an earlier session of {agent}")
        for number, item in enumerate(row["must_not"]):
            if item["why"] not in WHYS:
                errors.append(f"{sid} must_not[{number}]: unknown why {item['why']}")
            _groups_ok(item["match"], f"{sid} must_not[{number}]", errors)
            whys[item["why"]] += 1
        counts["sessions"] += 1
        counts["pairs"] += len(turns)
        counts["facts"] += len(row["facts"])
        counts["allowed"] += len(row["allowed"])
        counts["supersedes"] += len(row["supersedes"])
        counts["must_not"] += len(row["must_not"])
        langs[lang] += 1
        pairs[len(turns)] += 1
    summary: dict[str, object] = dict(counts)
    summary.update(
        agents=len(agent_lang),
        langs=dict(langs),
        pairs_per_session=dict(sorted(pairs.items())),
        abouts=dict(abouts.most_common()),
        must_not_why=dict(whys.most_common()),
        sessions_per_agent=dict(sorted(Counter(Counter(r["agent_id"] for r in rows).values()).items())),
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
