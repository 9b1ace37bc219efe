"""Load and validate the frozen gate_v2 data: memory profiles, labelled gate queries and the end-to-end probe set.

The files are the source of truth (see README.md next to them); this module only reads them, turns them into typed
records and checks the invariants the README promises. `python -m bench.gate_v2.loader` validates and prints counts.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, cast

DATA_DIR: Final = Path(__file__).resolve().parent
LANGS: Final = ("en", "fr", "es", "de", "pt")
SECTIONS: Final = ("identity", "pinned", "episodes", "transcript")
EXPECTED: Final = ("none", *SECTIONS)
NONE_TAGS: Final = (
    "hard_negative",
    "entity_trap",
    "general_knowledge",
    "code",
    "math",
    "translation",
    "greeting",
)
PROBE_KINDS: Final = ("recall", "correction", "isolation", "none")
# The split table of README.md ("Split rule"); the validator holds the data to it.
PROFILE_SPLITS: Final[Mapping[str, str]] = {
    **dict.fromkeys(
        ("en1", "en5", "fr1", "fr5", "es1", "es4", "es5", "de1", "de4", "de5", "pt1", "pt4"), "train"
    ),
    **dict.fromkeys(("en2", "fr2", "fr4", "es2", "de2", "pt2"), "dev"),
    **dict.fromkeys(("en3", "en4", "fr3", "es3", "de3", "pt3"), "test"),
}
PROBE_SPLITS: Final[Mapping[str, str]] = {
    "probe-sam-work": "dev",
    "probe-claire": "dev",
    "probe-jana": "dev",
    "probe-sam-home": "test",
    "probe-pablo": "test",
    "probe-beatriz": "test",
}

Split = Literal["train", "dev", "test"]
Expected = Literal["none", "identity", "pinned", "episodes", "transcript"]
ProbeKind = Literal["recall", "correction", "isolation", "none"]


class DataError(ValueError):
    """The data files break an invariant of README.md; the message lists every problem found."""


@dataclass(frozen=True)
class IdentityFact:
    """One identity fact; its id is positional ("<profile>.i<n>", n from 1) because the file stores plain strings."""

    id: str
    text: str


@dataclass(frozen=True)
class PinnedFact:
    """One pinned fact; `superseded_by` names the pinned fact that replaced it (then this one never counts)."""

    id: str
    text: str
    superseded_by: str | None = None


@dataclass(frozen=True)
class Episode:
    """One distilled episode as the agent would have stored it."""

    id: str
    date: str
    summary: str
    entities: tuple[str, ...]
    decisions: tuple[str, ...]
    action_items: tuple[str, ...]


@dataclass(frozen=True)
class TranscriptTurn:
    """One raw user/assistant turn; `conversation` groups turns of one date ("c1", "c2", ...)."""

    id: str
    conversation: str
    date: str
    user: str
    assistant: str


@dataclass(frozen=True)
class Profile:
    """One simulated user+agent memory."""

    profile: str
    lang: str
    identity: tuple[IdentityFact, ...]
    overrides: tuple[str, ...]
    pinned: tuple[PinnedFact, ...]
    episodes: tuple[Episode, ...]
    transcript: tuple[TranscriptTurn, ...]

    def item_sections(self) -> dict[str, str]:
        """Map every item id of this profile to its section name."""
        out: dict[str, str] = {f.id: "identity" for f in self.identity}
        out.update({p.id: "pinned" for p in self.pinned})
        out.update({e.id: "episodes" for e in self.episodes})
        out.update({t.id: "transcript" for t in self.transcript})
        return out

    def superseded_ids(self) -> frozenset[str]:
        """Ids of pinned facts that a later fact replaced."""
        return frozenset(p.id for p in self.pinned if p.superseded_by is not None)


@dataclass(frozen=True)
class GateQuery:
    """One labelled gate query against one profile."""

    id: str
    split: Split
    profile: str
    lang: str
    query: str
    expected: Expected
    acceptable: tuple[str, ...]
    answer_ids: tuple[str, ...]
    tags: tuple[str, ...]

    @property
    def needs_memory(self) -> bool:
        """Whether any section answers it (False for the labelled `none` queries)."""
        return self.expected != "none"

    def is_lenient_hit(self, predicted: str) -> bool:
        """Lenient scoring: the predicted section is `expected` or one of `acceptable`."""
        return predicted == self.expected or predicted in self.acceptable


@dataclass(frozen=True)
class ProbeSession:
    """One raw chat session to be ingested with distillation (conversation id = session_id)."""

    session_id: str
    date: str
    turns: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ProbeAgent:
    """One probe agent and its sessions, oldest first."""

    agent_id: str
    lang: str
    display_name: str
    sessions: tuple[ProbeSession, ...]


@dataclass(frozen=True)
class ProbeQuestion:
    """One end-to-end question: any `answer_any` string in the block counts; no `forbidden` string may be there."""

    id: str
    split: Literal["dev", "test"]
    agent_id: str
    kind: ProbeKind
    query: str
    answer_any: tuple[str, ...]
    forbidden: tuple[str, ...]


@dataclass(frozen=True)
class ProbeSet:
    """The probe agents and their questions."""

    agents: tuple[ProbeAgent, ...]
    questions: tuple[ProbeQuestion, ...]


def _lines(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [cast(dict[str, Any], json.loads(line)) for line in f if line.strip()]


def _strs(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in values)


def _profile(raw: Mapping[str, Any]) -> Profile:
    pid = str(raw["profile"])
    return Profile(
        profile=pid,
        lang=str(raw["lang"]),
        identity=tuple(IdentityFact(id=f"{pid}.i{n}", text=str(t)) for n, t in enumerate(raw["identity"], 1)),
        overrides=_strs(raw.get("overrides", [])),
        pinned=tuple(
            PinnedFact(id=str(p["id"]), text=str(p["text"]), superseded_by=p.get("superseded_by"))
            for p in raw["pinned"]
        ),
        episodes=tuple(
            Episode(
                id=str(e["id"]),
                date=str(e["date"]),
                summary=str(e["summary"]),
                entities=_strs(e["entities"]),
                decisions=_strs(e["decisions"]),
                action_items=_strs(e["action_items"]),
            )
            for e in raw["episodes"]
        ),
        transcript=tuple(
            TranscriptTurn(
                id=str(t["id"]),
                conversation=str(t["conversation"]),
                date=str(t["date"]),
                user=str(t["user"]),
                assistant=str(t["assistant"]),
            )
            for t in raw["transcript"]
        ),
    )


def load_profiles(path: Path = DATA_DIR / "memory.jsonl") -> dict[str, Profile]:
    """Read memory.jsonl into profiles keyed by profile id, in file order."""
    return {p.profile: p for p in (_profile(raw) for raw in _lines(path))}


def load_queries(path: Path = DATA_DIR / "queries.jsonl", split: str | None = None) -> list[GateQuery]:
    """Read queries.jsonl, optionally keeping one split ("train", "dev" or "test")."""
    out = [
        GateQuery(
            id=str(q["id"]),
            split=cast(Split, q["split"]),
            profile=str(q["profile"]),
            lang=str(q["lang"]),
            query=str(q["query"]),
            expected=cast(Expected, q["expected"]),
            acceptable=_strs(q["acceptable"]),
            answer_ids=_strs(q["answer_ids"]),
            tags=_strs(q["tags"]),
        )
        for q in _lines(path)
    ]
    return [q for q in out if split is None or q.split == split]


def load_probes(path: Path = DATA_DIR / "probes.jsonl") -> ProbeSet:
    """Read probes.jsonl (agent lines, then question lines) into a ProbeSet."""
    agents: list[ProbeAgent] = []
    questions: list[ProbeQuestion] = []
    for raw in _lines(path):
        if raw["type"] == "agent":
            agents.append(
                ProbeAgent(
                    agent_id=str(raw["agent_id"]),
                    lang=str(raw["lang"]),
                    display_name=str(raw["display_name"]),
                    sessions=tuple(
                        ProbeSession(
                            session_id=str(s["session_id"]),
                            date=str(s["date"]),
                            turns=tuple((str(t["user"]), str(t["assistant"])) for t in s["turns"]),
                        )
                        for s in raw["sessions"]
                    ),
                )
            )
        elif raw["type"] == "question":
            questions.append(
                ProbeQuestion(
                    id=str(raw["id"]),
                    split=cast(Literal["dev", "test"], raw["split"]),
                    agent_id=str(raw["agent_id"]),
                    kind=cast(ProbeKind, raw["kind"]),
                    query=str(raw["query"]),
                    answer_any=_strs(raw["answer_any"]),
                    forbidden=_strs(raw["forbidden"]),
                )
            )
        else:
            raise DataError(f"probes: unknown line type {raw['type']!r}")
    return ProbeSet(agents=tuple(agents), questions=tuple(questions))


def _check_profiles(profiles: Mapping[str, Profile], problems: list[str]) -> None:
    per_lang = Counter(p.lang for p in profiles.values())
    if len(profiles) < 24:
        problems.append(f"profiles: {len(profiles)} < 24")
    for lang in LANGS:
        if per_lang[lang] < 4:
            problems.append(f"profiles: {per_lang[lang]} in {lang} < 4")
    seen: set[str] = set()
    for p in profiles.values():
        sections = p.item_sections()
        if seen & sections.keys():
            problems.append(f"{p.profile}: item ids shared with another profile")
        seen |= sections.keys()
        if len(sections) != len(p.identity) + len(p.pinned) + len(p.episodes) + len(p.transcript):
            problems.append(f"{p.profile}: duplicate item ids")
        if not (6 <= len(p.pinned) <= 12 and 3 <= len(p.episodes) <= 6 and 10 <= len(p.transcript) <= 30):
            problems.append(f"{p.profile}: section sizes out of range")
        for fact in p.pinned:
            if fact.superseded_by is not None and sections.get(fact.superseded_by) != "pinned":
                problems.append(f"{fact.id}: superseded_by {fact.superseded_by} is not a pinned fact")
        if p.profile not in PROFILE_SPLITS:
            problems.append(f"{p.profile}: not in the README split table")


def _check_queries(
    profiles: Mapping[str, Profile], queries: Sequence[GateQuery], problems: list[str]
) -> None:
    ids = Counter(q.id for q in queries)
    problems.extend(f"queries: duplicate id {i}" for i, n in ids.items() if n > 1)
    for q in queries:
        profile = profiles.get(q.profile)
        if profile is None:
            problems.append(f"{q.id}: unknown profile {q.profile}")
            continue
        if q.split != PROFILE_SPLITS.get(q.profile):
            problems.append(
                f"{q.id}: split {q.split} but profile {q.profile} is {PROFILE_SPLITS.get(q.profile)}"
            )
        if q.lang != profile.lang:
            problems.append(f"{q.id}: lang {q.lang} differs from its profile's")
        if q.expected not in EXPECTED or any(a not in SECTIONS or a == q.expected for a in q.acceptable):
            problems.append(f"{q.id}: bad expected/acceptable")
        sections = profile.item_sections()
        if q.expected == "none":
            if q.answer_ids or q.acceptable:
                problems.append(f"{q.id}: a none query has answer_ids or acceptable")
            if not set(q.tags) & set(NONE_TAGS):
                problems.append(f"{q.id}: a none query without a no-memory tag")
            continue
        if not q.answer_ids:
            problems.append(f"{q.id}: memory-needing query without answer_ids")
            continue
        for aid in q.answer_ids:
            if aid not in sections:
                problems.append(f"{q.id}: answer id {aid} not in profile {q.profile}")
            elif aid in profile.superseded_ids():
                problems.append(f"{q.id}: answer id {aid} is superseded")
        if sections.get(q.answer_ids[0]) != q.expected:
            problems.append(f"{q.id}: first answer id is not in the expected section {q.expected}")
    n = len(queries)
    n_none = sum(1 for q in queries if q.expected == "none")
    per_lang = Counter(q.lang for q in queries)
    test_langs = {q.lang for q in queries if q.split == "test"}
    if n < 420:
        problems.append(f"queries: {n} < 420")
    if n and n_none / n < 0.40:
        problems.append(f"queries: none share {n_none / n:.1%} < 40%")
    problems.extend(f"queries: {per_lang[lang]} in {lang} < 50" for lang in LANGS[1:] if per_lang[lang] < 50)
    if sum(1 for q in queries if "entity_trap" in q.tags) < 30:
        problems.append("queries: fewer than 30 entity traps")
    if set(LANGS) - test_langs:
        problems.append(f"queries: test split lacks {sorted(set(LANGS) - test_langs)}")
    if sum(1 for s in PROFILE_SPLITS.values() if s == "test") < 6:
        problems.append("split table: fewer than 6 test profiles")


def _check_probes(probes: ProbeSet, problems: list[str]) -> None:
    agents = {a.agent_id: a for a in probes.agents}
    if len(agents) < 6:
        problems.append(f"probes: {len(agents)} agents < 6")
    for a in probes.agents:
        if not 2 <= len(a.sessions) <= 4:
            problems.append(f"{a.agent_id}: {len(a.sessions)} sessions, want 2-4")
        dates = [s.date for s in a.sessions]
        if dates != sorted(dates):
            problems.append(f"{a.agent_id}: sessions not in date order")
    all_text = " ".join(f"{u} {a}" for ag in probes.agents for s in ag.sessions for u, a in s.turns).lower()
    if len(probes.questions) < 60:
        problems.append(f"probes: {len(probes.questions)} questions < 60")
    for q in probes.questions:
        if q.agent_id not in agents:
            problems.append(f"{q.id}: unknown agent {q.agent_id}")
        if q.kind not in PROBE_KINDS or q.split != PROBE_SPLITS.get(q.agent_id):
            problems.append(f"{q.id}: bad kind or split")
        has_answer = bool(q.answer_any)
        if has_answer != (q.kind in ("recall", "correction")):
            problems.append(f"{q.id}: answer_any must be set exactly for recall and correction")
        if q.kind in ("correction", "isolation") and not q.forbidden:
            problems.append(f"{q.id}: {q.kind} without forbidden strings")
        if q.kind == "none" and q.forbidden:
            problems.append(f"{q.id}: none question with forbidden strings")
        own_text = (
            " ".join(f"{u} {a}" for s in agents[q.agent_id].sessions for u, a in s.turns)
            if q.agent_id in agents
            else ""
        )
        if q.kind in ("recall", "correction") and not any(
            s.lower() in own_text.lower() for s in q.answer_any
        ):
            problems.append(f"{q.id}: no answer_any string occurs in the agent's own sessions")
        if q.kind == "isolation" and any(s.lower() in own_text.lower() for s in q.forbidden):
            problems.append(f"{q.id}: a forbidden string occurs in the agent's own sessions")
        # A stale value never said, or another agent's fact nobody told, would make the check vacuous.
        if q.kind == "correction" and not all(s.lower() in own_text.lower() for s in q.forbidden[:1]):
            problems.append(f"{q.id}: the stale value does not occur in the agent's own sessions")
        if q.kind == "isolation" and not any(s.lower() in all_text for s in q.forbidden):
            problems.append(f"{q.id}: no forbidden string occurs in any other agent's sessions")
    kinds = Counter(q.kind for q in probes.questions)
    problems.extend(f"probes: no {k} questions" for k in PROBE_KINDS if not kinds[k])


def validate(profiles: Mapping[str, Profile], queries: Sequence[GateQuery], probes: ProbeSet) -> None:
    """Raise DataError listing every broken invariant; return None when the data is as README.md says."""
    problems: list[str] = []
    _check_profiles(profiles, problems)
    _check_queries(profiles, queries, problems)
    _check_probes(probes, problems)
    if problems:
        raise DataError("; ".join(problems))


def counts(queries: Sequence[GateQuery], probes: ProbeSet) -> dict[str, dict[str, int]]:
    """Counts per split, language, expected section, no-memory tag and probe kind, for the README and reports."""
    return {
        "split": dict(Counter(q.split for q in queries)),
        "lang": dict(Counter(q.lang for q in queries)),
        "expected": dict(Counter(q.expected for q in queries)),
        "none_tag": dict(Counter(t for q in queries if q.expected == "none" for t in q.tags)),
        "probe_kind": dict(Counter(q.kind for q in probes.questions)),
        "probe_split": dict(Counter(q.split for q in probes.questions)),
    }


def main() -> int:
    """Validate the files next to this module and print their counts."""
    profiles, queries, probes = load_profiles(), load_queries(), load_probes()
    validate(profiles, queries, probes)
    print(json.dumps(counts(queries, probes), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
