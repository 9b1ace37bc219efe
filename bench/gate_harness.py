"""Runs the gate_v2 queries through a real memoryd: seed the profiles, then AssembleContext over gRPC for each query.

The stack is bench/search_stack.py's: a real inferd (MLX all-MiniLM-L6-v2 embeddings) and a real memoryd on
loopback ports. Each profile is seeded over gRPC by bench/seed_gate_memory.py (the data set's own seeder: console
Import of identity facts, pinned facts — superseded ones disabled —, episodes with their entities, transcript
turns; one agent per profile; overrides left out, they are global), indexed by memoryd's own Indexer, and every
query goes through AssembleContext: the features, scores, section and placed rows are exactly what a user's request
gets. Used by bench/train_gate.py (TRAIN and DEV) and bench/bench_gate.py (TEST).

Dates: the profiles' dates are shifted by whole weeks before seeding so the newest item is a few days old
(weekdays are kept); memoryd's entity index only counts episodes of the last 90 days, and the set was written in
early 2026.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.gate_v2.loader import Profile as V2Profile
from bench.gate_v2.loader import load_profiles as load_v2_profiles
from bench.search_stack import Stack, memoryd_stack
from bench.seed_gate_memory import seed_profile as seed_v2
from inferd.app import close_all
from inferd.app import start as start_inferd
from inferd.config import for_tests as inferd_settings
from memoryd.client import MemoryClient
from memoryd.config import ServiceSettings
from memoryd.retrieval.items import ItemKind
from osaurus.memory.v1 import memory_pb2 as pb

DATA = Path(__file__).resolve().parent / "gate_v2"
DAY_MS = 86_400_000
KIND_NAMES = {
    pb.ITEM_KIND_PINNED_FACT: "pinned",
    pb.ITEM_KIND_EPISODE: "episodes",
    pb.ITEM_KIND_TRANSCRIPT_TURN: "transcript",
    pb.ITEM_KIND_IDENTITY_FACT: "identity",
}


def agent_of(profile: str) -> str:
    """The memoryd agent id of a profile."""
    return f"gate-{profile}"


def load_profiles(path: Path = DATA / "memory.jsonl") -> dict[str, dict[str, Any]]:
    """Profile name → its memory (memory.jsonl)."""
    out: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            out[raw["profile"]] = raw
    return out


def load_queries(splits: Sequence[str], path: Path = DATA / "queries.jsonl") -> list[dict[str, Any]]:
    """Queries of the given splits only, in file order (callers never read a split they must not see)."""
    wanted = set(splits)
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            if raw["split"] in wanted:
                out.append(raw)
    return out


def _day_ms(text: str) -> int:
    d = date.fromisoformat(text)
    return int(datetime(d.year, d.month, d.day, 12, tzinfo=UTC).timestamp() * 1000)


def week_shift_ms(profile: dict[str, Any], now_ms: int) -> int:
    """Whole weeks to add so the profile's newest date is 1-7 days before now."""
    dates = [_day_ms(e["date"]) for e in profile.get("episodes", [])]
    dates += [_day_ms(t["date"]) for t in profile.get("transcript", [])]
    if not dates:
        return 0
    weeks = (now_ms - DAY_MS - max(dates)) // (7 * DAY_MS)
    return int(weeks * 7 * DAY_MS)


@dataclass
class Seeded:
    """Data ids → memoryd (kind, row id) for one profile, to check that answer items were placed."""

    refs: dict[str, set[tuple[str, str]]] = field(default_factory=dict)


def _shifted(profile: V2Profile, shift_ms: int) -> V2Profile:
    """The profile with every date moved by shift_ms (whole days)."""

    def move(day: str) -> str:
        return (date.fromisoformat(day) + timedelta(milliseconds=shift_ms)).isoformat()

    return replace(
        profile,
        episodes=tuple(replace(e, date=move(e.date)) for e in profile.episodes),
        transcript=tuple(replace(t, date=move(t.date)) for t in profile.transcript),
    )


def seed_profile_grpc(client: MemoryClient, profile: V2Profile, raw: dict[str, Any], now_ms: int) -> Seeded:
    """Seed one profile with bench/seed_gate_memory.py (dates shifted) as agent gate-<profile>."""
    seeded_v2 = seed_v2(
        client, _shifted(profile, week_shift_ms(raw, now_ms)), agent_id=agent_of(profile.profile)
    )
    seeded = Seeded()
    for item, refs in seeded_v2.refs.items():
        seeded.refs[item] = {(_KIND_OF[ref.kind], ref.id) for ref in refs}
    return seeded


def seed_profile(stack: Stack, profile: dict[str, Any], now_ms: int) -> Seeded:
    """Write one profile into memoryd's store directly (SQL; superseded facts get status "superseded"): the path
    used before the data set's gRPC seeder existed, kept to check that both seedings give the same features."""
    store = stack.app.store
    agent = agent_of(profile["profile"])
    store.agents.ensure(agent)
    shift = week_shift_ms(profile, now_ms)
    seeded = Seeded()
    conn = store.db.pw.connection()
    with store.db.write():
        for n, text in enumerate(profile.get("identity", []), start=1):
            cur = conn.execute(
                "INSERT INTO identity_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?)",
                (agent, text, now_ms, now_ms),
            )
            seeded.refs[f"{profile['profile']}.i{n}"] = {("identity", str(cur.lastrowid))}
        for fact in profile.get("pinned", []):
            status = "superseded" if fact.get("superseded_by") else "active"
            cur = conn.execute(
                "INSERT INTO pinned_facts (agent_id, content, salience, status, created_at_ms, updated_at_ms)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (agent, fact["text"], 0.6, status, now_ms - 30 * DAY_MS, now_ms - 30 * DAY_MS),
            )
            seeded.refs[fact["id"]] = {("pinned", str(cur.lastrowid))}
        for i, episode in enumerate(profile.get("episodes", [])):
            at = _day_ms(episode["date"]) + shift
            cur = conn.execute(
                "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, decisions,"
                " action_items, salience, conversation_at_ms, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    agent,
                    f"e{i + 1}",
                    episode["summary"],
                    "",
                    ",".join(episode.get("entities", [])),
                    "\n".join(episode.get("decisions", [])),
                    "\n".join(episode.get("action_items", [])),
                    0.5,
                    at,
                    at,
                ),
            )
            seeded.refs[episode["id"]] = {("episodes", str(cur.lastrowid))}
        chunk: dict[str, int] = {}
        for turn in profile.get("transcript", []):
            at = _day_ms(turn["date"]) + shift
            conv = turn["conversation"]
            ids: set[tuple[str, str]] = set()
            for role in ("user", "assistant"):
                text = turn.get(role, "")
                if not text:
                    continue
                index = chunk.get(conv, 0)
                chunk[conv] = index + 1
                cur = conn.execute(
                    "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count,"
                    " created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (agent, conv, index, role, text, len(text) // 4, at + index * 60_000),
                )
                ids.add(("transcript", str(cur.lastrowid)))
            seeded.refs[turn["id"]] = ids
    return seeded


@dataclass(frozen=True)
class Outcome:
    """What AssembleContext answered for one query."""

    query: dict[str, Any]
    section: str
    reason: str
    features: dict[str, float]
    scores: dict[str, float]
    model_version: str
    placed: frozenset[tuple[str, str]]
    block_tokens: int
    latency_ms: float

    def has_answer(self, seeded: Seeded) -> bool:
        """Whether any answer item of the query was placed in the block."""
        answers = set()
        for answer_id in self.query.get("answer_ids", []):
            answers |= seeded.refs.get(answer_id, set())
        return bool(answers & self.placed)


_KIND_OF = {
    ItemKind.PINNED_FACT: "pinned",
    ItemKind.EPISODE: "episodes",
    ItemKind.TRANSCRIPT_TURN: "transcript",
    ItemKind.IDENTITY_FACT: "identity",
}

SECTION_NAMES = {
    pb.SECTION_NONE: "none",
    pb.SECTION_IDENTITY: "identity",
    pb.SECTION_PINNED: "pinned",
    pb.SECTION_EPISODES: "episodes",
    pb.SECTION_TRANSCRIPT: "transcript",
}


def assemble(stack: Stack, query: dict[str, Any]) -> Outcome:
    """One AssembleContext call for a labelled query."""
    started = time.perf_counter()
    reply = stack.memory.AssembleContext(
        pb.AssembleContextRequest(agent_id=agent_of(query["profile"]), query=query["query"]), timeout=30.0
    )
    latency_ms = (time.perf_counter() - started) * 1000
    section = SECTION_NAMES[reply.section] if reply.placed else "none"  # the overrides alone are not memory
    return Outcome(
        query=query,
        section=section,
        reason=reply.reason,
        features={f.name: f.value for f in reply.decision.features},
        scores={SECTION_NAMES[s.section]: s.probability for s in reply.decision.scores},
        model_version=reply.decision.model_version,
        placed=frozenset((KIND_NAMES[r.kind], r.id) for r in reply.placed),
        block_tokens=reply.block_tokens,
        latency_ms=latency_ms,
    )


@contextmanager
def running(home: Path, query_embed_timeout_s: float) -> Iterator[Stack]:
    """inferd with the real default models and memoryd pointed at it (search_stack's, with the embed deadline)."""
    inferd = start_inferd(inferd_settings(home / "inferd", fake=False))
    try:
        with memoryd_stack(
            ServiceSettings(
                listen="127.0.0.1:0",
                home=home / "memoryd",
                inferd_addr=inferd[0].target,
                background_indexing=False,
                query_embed_timeout_s=query_embed_timeout_s,
            )
        ) as stack:
            yield stack
    finally:
        close_all(*inferd)


def index_everything(stack: Stack) -> int:
    """Run the indexer until no row lacks a vector (a batch can time out on a busy machine; it is retried)."""
    total = 0
    for _ in range(20):
        done = stack.app.indexer.run_once()
        total += done
        model = stack.app.embedder.model
        if model is None or not stack.app.store.embeddings.missing(model, 1, after={}):
            return total
        stack.app.embedder._retry_at = 0.0  # skip the back-off wait between batches
    raise RuntimeError("rows left without vectors after 20 indexing passes")


@contextmanager
def seeded_stack(
    profiles: Sequence[str], *, query_embed_timeout_s: float = 0.15, data_dir: Path = DATA
) -> Iterator[tuple[Stack, dict[str, Seeded]]]:
    """A real memoryd + inferd with the given profiles of data_dir (gate_v2 or gate_v3) seeded and indexed."""
    home = Path(tempfile.mkdtemp(prefix="bench-gate-v2-"))
    all_profiles = load_profiles(data_dir / "memory.jsonl")
    typed = load_v2_profiles(data_dir / "memory.jsonl")
    with running(home, query_embed_timeout_s) as stack:
        now_ms = int(time.time() * 1000)
        with MemoryClient(stack.target, deadline_s=120.0) as client:
            seeded = {
                name: seed_profile_grpc(client, typed[name], all_profiles[name], now_ms) for name in profiles
            }
        index_everything(stack)
        for name in profiles:
            warm_identity(stack, name)
        yield stack, seeded


def warm_identity(stack: Stack, profile: str) -> None:
    """Let memoryd embed the profile's identity facts (done in the background after a first query)."""
    for attempt in range(100):
        reply = stack.memory.AssembleContext(
            pb.AssembleContextRequest(agent_id=agent_of(profile), query=f"warm-up question {attempt}"),
            timeout=30.0,
        )
        features = {f.name: f.value for f in reply.decision.features}
        if features.get("id_vec", 0.0) or not features.get("id_has", 0.0):
            return
        time.sleep(0.05)


def run_queries(
    splits: Sequence[str], *, query_embed_timeout_s: float = 0.15, data_dir: Path = DATA
) -> tuple[list[Outcome], dict[str, Seeded]]:
    """Seed every profile the splits use, then AssembleContext for each of their queries.

    query_embed_timeout_s: memoryd's query-embedding deadline (OSAURUS_MEMORYD_QUERY_EMBED_TIMEOUT_MS). Training
    raises it so a machine busy with other work does not turn features into "no vector" ones; the reported run
    keeps the default and counts how many queries ran without their vector. data_dir: the set (gate_v2 by
    default; bench/gate_v3 has the same schema and only a test split).
    """
    queries = load_queries(splits, data_dir / "queries.jsonl")
    profiles = sorted({q["profile"] for q in queries})
    with seeded_stack(profiles, query_embed_timeout_s=query_embed_timeout_s, data_dir=data_dir) as (
        stack,
        seeded,
    ):
        for query in queries[:3]:  # warm the channel, the tokenizer and the embedder (not counted)
            assemble(stack, {**query, "query": f"{query['query']} (warm-up)"})
        return [assemble(stack, q) for q in queries], seeded


__all__ = [
    "Outcome",
    "Seeded",
    "agent_of",
    "assemble",
    "load_profiles",
    "load_queries",
    "run_queries",
    "seed_profile",
    "seeded_stack",
]
