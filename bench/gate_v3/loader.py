"""Load and validate the frozen gate_v3 data: a held-out, test-only set of memory profiles and labelled gate queries.

The record types and the readers are gate_v2's (same schema, see bench/gate_v2/README.md); this module points them
at this directory and checks gate_v3's own invariants (README.md next to this file). `python -m bench.gate_v3.loader`
validates and prints counts. Later held-out sets (gate_v4) reuse this validator with their own `HeldOutRules`.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from bench.gate_v2.loader import (
    EXPECTED,
    NONE_TAGS,
    SECTIONS,
    DataError,
    Episode,
    GateQuery,
    IdentityFact,
    PinnedFact,
    Profile,
    TranscriptTurn,
)
from bench.gate_v2.loader import load_profiles as _load_v2_profiles
from bench.gate_v2.loader import load_queries as _load_v2_queries

DATA_DIR: Final = Path(__file__).resolve().parent
GATE_V2_DIR: Final = DATA_DIR.parent / "gate_v2"
# The minimums the set was written to (README.md, "Counts"); the validator holds the files to them.
PROFILES_PER_LANG: Final[Mapping[str, int]] = {"en": 4, "fr": 2, "es": 2, "de": 2, "pt": 2}
MIN_QUERIES: Final = 260
MIN_NONE_SHARE: Final = 0.42
SPLIT: Final = "test"


@dataclass(frozen=True)
class HeldOutRules:
    """What one held-out set was written to: its name, minimums, and the earlier sets its ids must not reuse."""

    name: str
    profiles_per_lang: Mapping[str, int]
    min_queries: int
    earlier_dirs: tuple[Path, ...]
    min_entity_traps_per_profile: int = 0
    # Inclusive (min, max) section sizes per profile; the defaults are the shape gate_v3 … gate_v11 were written to.
    identity_range: tuple[int, int] = (3, 100)
    pinned_range: tuple[int, int] = (6, 12)
    episodes_range: tuple[int, int] = (3, 6)
    transcript_range: tuple[int, int] = (10, 30)


V3_RULES: Final = HeldOutRules("gate_v3", PROFILES_PER_LANG, MIN_QUERIES, (GATE_V2_DIR,))


def load_profiles(data_dir: Path = DATA_DIR) -> dict[str, Profile]:
    """Read <data_dir>/memory.jsonl into profiles keyed by profile id, in file order."""
    return _load_v2_profiles(data_dir / "memory.jsonl")


def load_queries(data_dir: Path = DATA_DIR, split: str | None = None) -> list[GateQuery]:
    """Read <data_dir>/queries.jsonl, optionally keeping one split (every gate_v3 query is "test")."""
    return _load_v2_queries(data_dir / "queries.jsonl", split)


def _check_profiles(profiles: Mapping[str, Profile], rules: HeldOutRules, problems: list[str]) -> None:
    per_lang = Counter(p.lang for p in profiles.values())
    for lang, minimum in rules.profiles_per_lang.items():
        if per_lang[lang] < minimum:
            problems.append(f"profiles: {per_lang[lang]} in {lang} < {minimum}")
    problems.extend(
        f"profiles: unexpected language {lang}" for lang in per_lang if lang not in rules.profiles_per_lang
    )
    # A set's ids must never be mistaken for an earlier set's when results of the sets sit side by side.
    earlier: set[str] = set()
    for other in rules.earlier_dirs:
        if (other / "memory.jsonl").is_file():
            earlier |= set(_load_v2_profiles(other / "memory.jsonl"))
    seen: set[str] = set()
    for p in profiles.values():
        if p.profile in earlier:
            problems.append(f"{p.profile}: profile id also used by an earlier set")
        sections = p.item_sections()
        if seen & sections.keys():
            problems.append(f"{p.profile}: item ids shared with another profile")
        seen |= sections.keys()
        if len(sections) != len(p.identity) + len(p.pinned) + len(p.episodes) + len(p.transcript):
            problems.append(f"{p.profile}: duplicate item ids")
        if any(not i.startswith(f"{p.profile}.") for i in sections):
            problems.append(f"{p.profile}: an item id does not start with the profile id")
        sizes = (
            (len(p.identity), rules.identity_range),
            (len(p.pinned), rules.pinned_range),
            (len(p.episodes), rules.episodes_range),
            (len(p.transcript), rules.transcript_range),
        )
        if not all(low <= n <= high for n, (low, high) in sizes):
            problems.append(f"{p.profile}: section sizes out of range")
        for fact in p.pinned:
            target = fact.superseded_by
            if target is not None and (sections.get(target) != "pinned" or target in p.superseded_ids()):
                problems.append(f"{fact.id}: superseded_by {target} is not a live pinned fact")
        dates = [t.date for t in p.transcript]
        conversations = [t.conversation for t in p.transcript]
        wanted = [f"c{sorted(set(dates)).index(d) + 1}" for d in dates]
        if dates != sorted(dates) or conversations != wanted:
            problems.append(f"{p.profile}: transcript not one conversation per date in date order")
    if not any(p.superseded_ids() for p in profiles.values()):
        problems.append("profiles: no superseded fact")


def _check_query(q: GateQuery, profile: Profile, rules: HeldOutRules, problems: list[str]) -> None:
    if q.split != SPLIT:
        problems.append(f"{q.id}: split {q.split}, every {rules.name} query is {SPLIT}")
    if q.lang != profile.lang:
        problems.append(f"{q.id}: lang {q.lang} differs from its profile's")
    if not q.id.startswith(f"{q.profile}.q"):
        problems.append(f"{q.id}: id does not start with its profile id")
    if q.expected not in EXPECTED or any(a not in SECTIONS or a == q.expected for a in q.acceptable):
        problems.append(f"{q.id}: bad expected/acceptable")
    if len(set(q.acceptable)) != len(q.acceptable):
        problems.append(f"{q.id}: acceptable lists a section twice")
    if q.expected == "none":
        if q.answer_ids or q.acceptable:
            problems.append(f"{q.id}: a none query has answer_ids or acceptable")
        if not set(q.tags) & set(NONE_TAGS):
            problems.append(f"{q.id}: a none query without a no-memory tag")
        return
    if set(q.tags) & set(NONE_TAGS) - {"code"}:
        problems.append(f"{q.id}: a memory-needing query with a no-memory tag")
    if not q.answer_ids:
        problems.append(f"{q.id}: memory-needing query without answer_ids")
        return
    sections = profile.item_sections()
    superseded = profile.superseded_ids()
    for aid in q.answer_ids:
        if aid not in sections:
            problems.append(f"{q.id}: answer id {aid} not in profile {q.profile}")
        elif aid in superseded:
            problems.append(f"{q.id}: answer id {aid} is superseded")
        elif sections[aid] != q.expected and sections[aid] not in q.acceptable:
            problems.append(f"{q.id}: answer id {aid} is in a section neither expected nor acceptable")
    if sections.get(q.answer_ids[0]) != q.expected:
        problems.append(f"{q.id}: first answer id is not in the expected section {q.expected}")
    if "superseded" in q.tags:
        replacements = {f.superseded_by for f in profile.pinned if f.superseded_by is not None}
        if not replacements & set(q.answer_ids):
            problems.append(f"{q.id}: tagged superseded but no answer id is a replacing fact")


def _check_queries(
    profiles: Mapping[str, Profile], queries: Sequence[GateQuery], rules: HeldOutRules, problems: list[str]
) -> None:
    ids = Counter(q.id for q in queries)
    problems.extend(f"queries: duplicate id {i}" for i, n in ids.items() if n > 1)
    for q in queries:
        profile = profiles.get(q.profile)
        if profile is None:
            problems.append(f"{q.id}: unknown profile {q.profile}")
        else:
            _check_query(q, profile, rules, problems)
    n = len(queries)
    n_none = sum(1 for q in queries if q.expected == "none")
    if n < rules.min_queries:
        problems.append(f"queries: {n} < {rules.min_queries}")
    if n and n_none / n < MIN_NONE_SHARE:
        problems.append(f"queries: none share {n_none / n:.1%} < {MIN_NONE_SHARE:.0%}")
    expected = Counter(q.expected for q in queries)
    problems.extend(f"queries: no {s} query" for s in SECTIONS if not expected[s])
    tags = Counter(t for q in queries if q.expected == "none" for t in q.tags)
    problems.extend(f"queries: no {t} query" for t in NONE_TAGS if not tags[t])
    asked = Counter(q.profile for q in queries)
    problems.extend(f"{p}: no queries" for p in profiles if not asked[p])
    if not any("superseded" in q.tags for q in queries):
        problems.append("queries: none asks about a superseded fact")
    if rules.min_entity_traps_per_profile:
        traps = Counter(q.profile for q in queries if q.expected == "none" and "entity_trap" in q.tags)
        problems.extend(
            f"{p}: {traps[p]} entity traps < {rules.min_entity_traps_per_profile}"
            for p in profiles
            if traps[p] < rules.min_entity_traps_per_profile
        )


def validate(
    profiles: Mapping[str, Profile], queries: Sequence[GateQuery], rules: HeldOutRules = V3_RULES
) -> None:
    """Raise DataError listing every broken invariant; return None when the data is as README.md says."""
    problems: list[str] = []
    _check_profiles(profiles, rules, problems)
    _check_queries(profiles, queries, rules, problems)
    if problems:
        raise DataError("; ".join(problems))


def counts(profiles: Mapping[str, Profile], queries: Sequence[GateQuery]) -> dict[str, dict[str, int]]:
    """Counts per language, expected section and tag (the README's tables)."""
    return {
        "profiles_lang": dict(Counter(p.lang for p in profiles.values())),
        "items": {
            "identity": sum(len(p.identity) for p in profiles.values()),
            "pinned": sum(len(p.pinned) for p in profiles.values()),
            "superseded": sum(len(p.superseded_ids()) for p in profiles.values()),
            "episodes": sum(len(p.episodes) for p in profiles.values()),
            "transcript": sum(len(p.transcript) for p in profiles.values()),
            "overrides": sum(len(p.overrides) for p in profiles.values()),
        },
        "split": dict(Counter(q.split for q in queries)),
        "lang": dict(Counter(q.lang for q in queries)),
        "lang_none": dict(Counter(q.lang for q in queries if q.expected == "none")),
        "expected": dict(Counter(q.expected for q in queries)),
        "none_tag": dict(Counter(t for q in queries if q.expected == "none" for t in q.tags)),
        "memory_tag": dict(Counter(t for q in queries if q.expected != "none" for t in q.tags)),
    }


def main(data_dir: Path = DATA_DIR, rules: HeldOutRules = V3_RULES) -> int:
    """Validate the files of a held-out set (this module's by default) and print their counts."""
    profiles, queries = load_profiles(data_dir), load_queries(data_dir)
    validate(profiles, queries, rules)
    n_none = sum(1 for q in queries if q.expected == "none")
    print(json.dumps(counts(profiles, queries), indent=1, sort_keys=True, ensure_ascii=False))
    print(
        f"profiles {len(profiles)}, queries {len(queries)}, no-memory {n_none} ({n_none / len(queries):.1%})"
    )
    return 0


__all__ = [
    "DATA_DIR",
    "V3_RULES",
    "DataError",
    "Episode",
    "GateQuery",
    "HeldOutRules",
    "IdentityFact",
    "PinnedFact",
    "Profile",
    "TranscriptTurn",
    "counts",
    "load_profiles",
    "load_queries",
    "validate",
]


if __name__ == "__main__":
    sys.exit(main())
