"""Builds the consolidation benchmark's store: 1M pinned facts, 200k episodes, 2M transcript rows (at scale 1).

Rows are bulk-inserted with the FTS triggers dropped, then each FTS mirror is rebuilt in one pass and the
triggers restored, so the store is exactly what memoryd's migrations create. The result is cached by scale in the
temp directory (building takes minutes; every run then copies it, since a pass changes it).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memoryd.consolidate import learned
from memoryd.consolidate.state import StateStore
from memoryd.storage.store import open_store

DAY_MS = 86_400_000
#: Seed format version: bump when the generator changes so a stale cache is not reused.
FORMAT = 5
AGENTS = 200
FACTS = 1_000_000
EPISODES = 200_000
TRANSCRIPT = 2_000_000
#: Rows are spread over this many days before "now"; retention 365 prunes the oldest ~9%.
SPAN_DAYS = 400
EMBED_DIM = 384
MODEL = "bench-embed"
#: Share of episodes that are a near-copy of an earlier episode of the same agent (merge work).
DUPLICATE_SHARE = 0.02
#: Vectors: every episode; this share of pinned facts and transcript rows (the rest were "not yet indexed").
FACT_VECTOR_SHARE = 0.05
TURN_VECTOR_SHARE = 0.05
_VOCABULARY = 6000
_CHUNK = 50_000


@dataclass(frozen=True)
class Seed:
    """Where the built store is and what it holds."""

    home: Path
    now_ms: int
    facts: int
    episodes: int
    transcript: int
    agents: int
    vectors: int
    build_s: float


def _words(rng: np.random.Generator) -> list[str]:
    syllables = [
        "ka",
        "lo",
        "mi",
        "ne",
        "ru",
        "sa",
        "ti",
        "vo",
        "ze",
        "pa",
        "qui",
        "dor",
        "len",
        "mar",
        "bel",
    ]
    words: set[str] = set()
    while len(words) < _VOCABULARY:
        words.add("".join(rng.choice(syllables, size=int(rng.integers(2, 5)))))
    return sorted(words)


def _sentences(rng: np.random.Generator, vocab: list[str], count: int, length: int) -> list[str]:
    # Zipf-like (p ∝ 1/(rank+100)) word choice, as content words in real text after filler is dropped.
    weights = 1.0 / (np.arange(len(vocab)) + 100.0)
    ranks = rng.choice(len(vocab), size=(count, length), p=weights / weights.sum())
    return [" ".join(vocab[i] for i in row) for row in ranks]


def _vector_blobs(rng: np.random.Generator, count: int) -> list[bytes]:
    vectors = rng.standard_normal((count, EMBED_DIM)).astype("<f4")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [row.tobytes() for row in vectors]


def _chunks(total: int) -> Iterator[tuple[int, int]]:
    for start in range(0, total, _CHUNK):
        yield start, min(total, start + _CHUNK)


def build(home: Path, scale: float, now_ms: int, seed: int = 7) -> Seed:
    """Create memory.sqlite under `home` at `scale` (1.0 = the issue's sizes)."""
    started = time.perf_counter()
    db_path = home / "memory" / "memory.sqlite"
    store = open_store(db_path)  # migrations: the exact schema memoryd uses
    StateStore(store.db)  # and the consolidator's side table
    store.close()
    rng = np.random.default_rng(seed)
    vocab = _words(rng)
    agents = max(2, int(AGENTS * min(1.0, scale * 4)))
    n_facts, n_episodes, n_turns = int(FACTS * scale), int(EPISODES * scale), int(TRANSCRIPT * scale)
    con = sqlite3.connect(db_path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=OFF")
    triggers = con.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name NOT LIKE '%emb_ad'"
    ).fetchall()
    for name, _ in triggers:
        con.execute(f"DROP TRIGGER {name}")
    span = SPAN_DAYS * DAY_MS

    def stamps(count: int) -> np.ndarray:
        return now_ms - rng.integers(DAY_MS // 24, span, size=count)

    agent_of = [f"agent-{i:04d}" for i in range(agents)]
    with con:
        con.executemany(
            "INSERT INTO agents (agent_id, created_at_ms, updated_at_ms) VALUES (?, ?, ?)",
            [(a, now_ms - span, now_ms - span) for a in agent_of],
        )
    # Episodes: summaries of 24 words, 3 topics; a share are near-copies of an earlier one of the same agent.
    episode_agent = rng.integers(0, agents, size=n_episodes)
    episode_at = stamps(n_episodes)
    summaries = _sentences(rng, vocab, n_episodes, 24)
    topics = [", ".join(t.split()) for t in _sentences(rng, vocab, n_episodes, 3)]
    for i in np.nonzero(rng.random(n_episodes) < DUPLICATE_SHARE)[0].tolist():
        earlier = int(rng.integers(0, max(1, i)))
        episode_agent[i] = episode_agent[earlier]
        summaries[i], topics[i] = summaries[earlier] + ".", topics[earlier]
    with con:
        for a, b in _chunks(n_episodes):
            con.executemany(
                "INSERT INTO episodes (id, agent_id, conversation_id, summary, topics_csv, entities_csv, decisions, "
                "salience, token_count, conversation_at_ms, created_at_ms, last_decayed_at_ms) "
                "VALUES (?, ?, ?, ?, ?, '', '', ?, 40, ?, ?, ?)",
                [
                    (
                        i + 1,
                        agent_of[episode_agent[i]],
                        f"conv-{i}",
                        summaries[i],
                        topics[i],
                        float(rng.random()),
                        int(episode_at[i]),
                        int(episode_at[i]),
                        now_ms - DAY_MS,
                    )
                    for i in range(a, b)
                ],
            )
    # Pinned facts: 8 words; each agent's recent episodes restate a few of its facts (promotion work), and a few
    # identity-grade facts recur (source_count 2).
    fact_agent = rng.integers(0, agents, size=n_facts)
    fact_text = _sentences(rng, vocab, n_facts, 8)
    created = stamps(n_facts)
    last_used = np.maximum(created, now_ms - rng.integers(0, span, size=n_facts))
    source_count = np.ones(n_facts, dtype=np.int64)
    recent = np.nonzero(episode_at > now_ms - 60 * DAY_MS)[0]
    for i in rng.choice(n_facts, size=max(1, n_facts // 200), replace=False).tolist():
        hosts = recent[episode_agent[recent] == fact_agent[i]]
        for e in rng.choice(hosts, size=min(4, len(hosts)), replace=False).tolist():
            summaries[e] = f"{summaries[e]} {fact_text[i]}"
    identity = rng.choice(n_facts, size=max(1, agents // 2), replace=False)
    for i in identity.tolist():
        fact_text[i] = f"The user lives in {vocab[int(rng.integers(0, len(vocab)))].title()}"
        source_count[i] = 2
    with con:
        for a, b in _chunks(n_facts):
            con.executemany(
                "INSERT INTO pinned_facts (id, agent_id, content, salience, source_count, use_count, last_used_at_ms, "
                "created_at_ms, updated_at_ms, last_decayed_at_ms) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)",
                [
                    (
                        i + 1,
                        agent_of[fact_agent[i]],
                        fact_text[i],
                        float(rng.random()),
                        int(source_count[i]),
                        int(last_used[i]),
                        int(created[i]),
                        int(created[i]),
                        now_ms - DAY_MS,
                    )
                    for i in range(a, b)
                ],
            )
        con.executemany(
            "UPDATE episodes SET summary = ? WHERE id = ?", [(summaries[e], e + 1) for e in recent.tolist()]
        )
    # Transcript: 20-word turns in conversations of 10.
    turn_agent = rng.integers(0, agents, size=n_turns // 10)
    with con:
        for a, b in _chunks(n_turns):
            texts = _sentences(rng, vocab, b - a, 20)
            times = stamps(b - a)
            con.executemany(
                "INSERT INTO transcript (id, agent_id, conversation_id, chunk_index, role, content, token_count, "
                "created_at_ms) VALUES (?, ?, ?, ?, ?, ?, 30, ?)",
                [
                    (
                        i + 1,
                        agent_of[turn_agent[i // 10]],
                        f"t-{i // 10}",
                        i % 10,
                        "user" if i % 2 == 0 else "assistant",
                        texts[i - a],
                        int(times[i - a]),
                    )
                    for i in range(a, b)
                ],
            )
    vectors = 0
    with con:
        for kind, count, share, owners in (
            ("episode", n_episodes, 1.0, episode_agent),
            ("pinned_fact", n_facts, FACT_VECTOR_SHARE, fact_agent),
            ("transcript", n_turns, TURN_VECTOR_SHARE, None),
        ):
            chosen = np.nonzero(rng.random(count) < share)[0]
            for a, b in _chunks(len(chosen)):
                ids = chosen[a:b]
                blobs = _vector_blobs(rng, len(ids))
                rows = []
                for row, blob in zip(ids.tolist(), blobs, strict=True):
                    owner = agent_of[owners[row]] if owners is not None else agent_of[turn_agent[row // 10]]
                    rows.append((kind, row + 1, owner, MODEL, EMBED_DIM, blob, now_ms))
                con.executemany(
                    "INSERT INTO embeddings (kind, row_id, agent_id, model, dimension, vector, created_at_ms) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
                vectors += len(rows)
    with con:
        # The turns are live history, learned when said: one mark older than every row says memory held them all
        # then, so prune judges them by their own (conversation) times, as a long-running store's marks would.
        con.execute(
            "INSERT INTO consolidation_state (key, value, updated_at_ms) VALUES (?, ?, ?)",
            (learned.MARKS_KEY, f"[[{now_ms - span}, {n_turns}]]", now_ms),
        )
    with con:
        for fts in ("fts_pinned", "fts_episodes", "fts_transcript"):
            con.execute(f"INSERT INTO {fts}({fts}) VALUES ('rebuild')")
        for _, sql in triggers:
            con.execute(sql)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.execute("ANALYZE")
    con.close()
    return Seed(home, now_ms, n_facts, n_episodes, n_turns, agents, vectors, time.perf_counter() - started)


def cached(scale: float, now_ms: int) -> Seed:
    """The built store for `scale`, from the temp-dir cache when present (built once otherwise)."""
    root = Path(tempfile.gettempdir()) / f"osaurus-bench-consolidate-v{FORMAT}-{scale:g}"
    marker = root / "now_ms"
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        seed = build(root, scale, now_ms)
        marker.write_text(str(now_ms))
        (root / "build_s").write_text(f"{seed.build_s:.1f}")
    built_at = int(marker.read_text())
    con = sqlite3.connect(root / "memory" / "memory.sqlite")
    counts = [
        con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        for t in ("pinned_facts", "episodes", "transcript", "agents", "embeddings")
    ]
    con.close()
    return Seed(
        root,
        built_at,
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        counts[4],
        float((root / "build_s").read_text()),
    )


def copy_to(seed: Seed, home: Path) -> None:
    """A private copy of the seed store (the pass changes it)."""
    (home / "memory").mkdir(parents=True, exist_ok=True)
    shutil.copy2(seed.home / "memory" / "memory.sqlite", home / "memory" / "memory.sqlite")


def describe(seed: Seed) -> str:
    """One line about the store."""
    return (
        f"{seed.facts:,} pinned facts, {seed.episodes:,} episodes, {seed.transcript:,} transcript rows, "
        f"{seed.agents} agents, {seed.vectors:,} vectors ({EMBED_DIM}-d)"
    )


__all__ = ["DAY_MS", "MODEL", "Seed", "build", "cached", "copy_to", "describe"]
