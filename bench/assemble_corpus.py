"""bench_assemble's synthetic store (issue 6), seeded the same way on SQLite and on PostgreSQL (issue 21).

`populate` writes one agent's 100k turns, 10k pinned facts and 5k episodes (times `scale`) through the store's own
statements; `seed` then gives every row a vector through memoryd's own Indexer. Which vectors
(OSAURUS_BENCH_ASSEMBLE_CORPUS_VECTORS, bench/assemble_vectors.py): by default (`minilm`) the real all-MiniLM-L6-v2's,
the model that embeds the queries, computed once through inferd and read from a cache file by every backend's seed;
`fake` gives inferd's fake model's (hashed bag of words, 384-d) stored under MiniLM's name, as before benchvec.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.assemble_vectors import (
    FAKE_INFO,
    CorpusVectorsInfo,
    FakeCorpusVectors,
    corpus_client,
    vectors_mode,
)
from inferd.client import InferenceClient
from inferd.config import FAKE_LLM
from memoryd.consolidate.report import TASK_TYPE, PassReport
from memoryd.vectors.embedding import Embedder
from memoryd.vectors.indexer import Indexer
from memoryd.vectors.registry import VectorRegistry

AGENT = "bench-agent"
OTHER_AGENT = "bench-other"
DAY_MS = 86_400_000
#: The model that embeds queries for real, and whose name the corpus vectors are stored under (same 384 dimensions).
QUERY_MODEL = "all-minilm-l6-v2"
#: The model whose values the corpus vectors are.
INDEX_MODEL = "fake-embedding"
#: The rng seed of the corpus and rows: the same rows on every backend.
SEED = 606
_BATCH = 500


#: The fake-model client of `fake` mode (its name before bench/assemble_vectors.py).
CorpusVectors = FakeCorpusVectors


def write_config(home: Path) -> None:
    """memory.json of a seeded home: MiniLM queries, token counts by inferd's fake LLM (as the in-process arm), and
    no consolidation pass due for a week (seed() records one), so none runs over the rows while calls are timed."""
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "memory.json").write_text(
        json.dumps({"embeddingModel": QUERY_MODEL, "coreModel": FAKE_LLM, "consolidationIntervalHours": 168})
    )


@dataclass(frozen=True)
class Seeded:
    """What seeding one store wrote and took."""

    sizes: dict[str, int]
    insert_s: float
    indexed: int
    index_s: float
    #: Which vectors the rows got (`minilm` from the cache, or `fake`); index_s excludes computing the cache.
    vectors: CorpusVectorsInfo = FAKE_INFO


def seed(
    app: Any,
    client: InferenceClient,
    registry: VectorRegistry,
    scale: float,
    now_ms: int,
    *,
    mode: str | None = None,
    cache: Path | None = None,
) -> tuple[Corpus, Seeded]:
    """The rows (rng seed SEED, times relative to `now_ms`) and their vectors, through memoryd's Indexer into the
    embeddings table and `registry`; then a consolidation pass is recorded as just done. `mode`: the corpus vectors
    (assemble_vectors.MODES; None: OSAURUS_BENCH_ASSEMBLE_CORPUS_VECTORS); `cache`: the cache directory (None: its
    default)."""
    rng = random.Random(SEED)
    corpus = make_corpus(rng)
    started = time.perf_counter()
    sizes = populate(app, corpus, rng, scale, now_ms)
    insert_s = time.perf_counter() - started
    vectors, info = corpus_client(app.store, client, mode or vectors_mode(), cache)
    started = time.perf_counter()
    indexer = Indexer(app.store, Embedder(vectors, app.config), registry)
    try:
        indexed = indexer.run_once()
    finally:
        indexer.close()
    index_s = time.perf_counter() - started
    app.store.consolidation.pass_log(TASK_TYPE).record(
        model="",
        failed=False,
        details=PassReport(now_ms, 0, (), "bench seed").to_details(),
        duration_ms=0,
        finished_ms=now_ms,
    )
    return corpus, Seeded(sizes, insert_s, indexed, index_s, info)


@dataclass(frozen=True)
class Corpus:
    """Vocabulary the synthetic rows and queries are drawn from."""

    words: list[str]
    entities: list[str]
    topics: list[str]


def make_corpus(rng: random.Random) -> Corpus:
    syllables = "ka lo mi ter sun dra vel po ri nax bel tor qui zen ham".split()  # noqa: SIM905
    common = (  # noqa: SIM905 - a word list reads better as text
        "the a to and of in is for on with that it this we you i my our was be have can will about from at"
        " project plan meeting budget trip code bug release team client database server design deadline week"
        " doctor cat dog gym book movie recipe flight hotel train apartment lease salary invoice contract"
    ).split()
    invented = sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(4000)})
    entities = [w.capitalize() for w in rng.sample(invented, 400)]
    topics = rng.sample(invented, 300)
    return Corpus(common * 20 + invented, entities, topics)


def _sentence(rng: random.Random, corpus: Corpus, n: int, *extra: str) -> str:
    words = [rng.choice(corpus.words) for _ in range(n)]
    for item in extra:
        words.insert(rng.randrange(len(words) + 1), item)
    return " ".join(words).capitalize() + "."


def populate(app: Any, corpus: Corpus, rng: random.Random, scale: float, now_ms: int) -> dict[str, int]:
    """Bulk-insert rows for AGENT (plus a smaller OTHER_AGENT) through the store's own statements, on SQLite or
    PostgreSQL alike; the full-text side fills itself (FTS5 triggers, generated tsvector columns)."""
    n_turns, n_facts, n_episodes = int(100_000 * scale), int(10_000 * scale), int(5_000 * scale)
    store = app.store
    store.agents.ensure(AGENT)
    store.agents.ensure(OTHER_AGENT)
    store.identity.add_override("My name is Terence")
    store.identity.add_override("Always reply in English")
    db = store.db
    with db.write():
        db.execute(
            "UPDATE identity SET content = ? WHERE id = 1",
            ("Terence builds Swift apps for macOS, prefers Postgres, and lives in Lisbon with his cat.",),
        )
    turns = []
    for i in range(n_turns):
        conv = f"c{i // 20}"
        at = now_ms - (n_turns - i) * 60_000
        text = _sentence(rng, corpus, rng.randint(8, 30), *rng.sample(corpus.topics, 1))
        turns.append((AGENT, conv, i % 20, "user" if i % 2 == 0 else "assistant", text, len(text) // 4, at))
    _insert_many(
        db,
        "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count,"
        " created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
        turns,
    )
    facts = []
    for _ in range(n_facts):
        entity = rng.choice(corpus.entities)
        text = _sentence(rng, corpus, rng.randint(6, 16), entity)
        at = now_ms - rng.randint(0, 400) * DAY_MS
        facts.append((AGENT, text, rng.random(), entity, at, at))
    _insert_many(
        db,
        "INSERT INTO pinned_facts (agent_id, content, salience, tags_csv, created_at_ms, updated_at_ms)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        facts,
    )
    episodes = []
    for i in range(n_episodes):
        ents = rng.sample(corpus.entities, 3)
        topic = rng.sample(corpus.topics, 2)
        summary = _sentence(rng, corpus, rng.randint(15, 40), *ents[:1], *topic)
        decisions = "\n".join(_sentence(rng, corpus, 6) for _ in range(rng.randint(0, 3)))
        at = now_ms - (n_episodes - i) * DAY_MS // 10
        episodes.append(
            (AGENT, f"c{i}", summary, ",".join(topic), ",".join(ents), decisions, rng.random(), at, at)
        )
    _insert_many(
        db,
        "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, decisions, salience,"
        " conversation_at_ms, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        episodes,
    )
    other = [(OTHER_AGENT, _sentence(rng, corpus, 10), 0.5, "", now_ms, now_ms) for _ in range(1000)]
    _insert_many(
        db,
        "INSERT INTO pinned_facts (agent_id, content, salience, tags_csv, created_at_ms, updated_at_ms)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        other,
    )
    return {"transcript": n_turns, "pinned": n_facts, "episodes": n_episodes}


def _insert_many(db: Any, sql: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """All rows in one transaction, as multi-row INSERTs of _BATCH rows (`sql` is a one-row `INSERT … VALUES (?, …)`):
    one statement per batch, not per row, and the client never holds 100k rows of parameters at once. (The seeding
    used to commit every 500 rows: PostgreSQL's lexeme-count trigger upserted its counts then, and single-row
    statements in one long transaction got slower as it grew. The trigger now appends deltas
    (memoryd/storage/pg_term_stats.py), flat however long the transaction: docs/postgres_search.md.)"""
    values = sql[sql.rindex("VALUES") + len("VALUES") :].strip()
    with db.write():
        for start in range(0, len(rows), _BATCH):
            batch = rows[start : start + _BATCH]
            db.execute(f"{sql}{f', {values}' * (len(batch) - 1)}", [v for row in batch for v in row])


def make_queries(corpus: Corpus, rng: random.Random, n_per_section: int) -> list[tuple[str, str]]:
    """(intended section, unique query): every query distinct, so the query-embedding cache never hits."""
    recent = (
        corpus.entities
    )  # entities of recent episodes are known; the gate sees only those the store lists
    out: list[tuple[str, str]] = []
    for i in range(n_per_section):
        topic = rng.choice(corpus.topics)
        word = rng.choice(corpus.words)
        out.append(("none", f"How do I write a {word} parser in Python, variant {i}?"))
        out.append(("identity", f"What do you know about me? ({i} {word})"))
        out.append(("pinned", f"Do you remember my {topic} plans with {rng.choice(recent)}? #{i}"))
        out.append(("episodes", f"What did we discuss about {topic} {word} last week? #{i}"))
        out.append(("transcript", f"What were my exact words about {topic} {word}? #{i}"))
    rng.shuffle(out)
    return out
