"""pgread7's probe (issue #21): why bench_pg_search's PostgreSQL store (bench/pg_twin.py) answers ~4x slower than
bench_assemble's on the same code.

bench_assemble's corpus (OSAURUS_PROBE_SCALE of it) on SQLite, copied to PostgreSQL by bench/pg_twin.py exactly as
bench_pg_search copies it. Then, in two states of the same store: as pg_twin leaves it, and after the lexeme-count
deltas are folded (what memoryd's TermFolder does every 2 s on every replica, and what bench_assemble's store has
had long before its timed calls): the pending deltas, planner statistics of the vector partition, EXPLAIN (ANALYZE,
BUFFERS) of the transcript walk, the document frequencies and BM25's N for one query, and the time of
those statements and of a transcript search (query vector cached) over OSAURUS_PROBE_QUERIES queries, SQLite's
beside them. Not a committed figure: docs/postgres_search.md ("eighth pass") records its run.

Run: `python -m bench.pg_twin_probe`.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.assemble_corpus import AGENT, make_corpus, make_queries, populate
from bench.bench_assemble import INDEX_MODEL, QUERY_MODEL, RealQueryVectors, inferd_process, percentile
from bench.pg_twin import Twin, fold_deltas, pg_twin
from inferd.client import InferenceClient
from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.read.assemble import DEFAULT_READ_BUDGET_S
from memoryd.read.search import MemorySearch
from memoryd.retrieval.terms import query_terms
from memoryd.storage import pg_term_stats
from memoryd.storage.pg_db import PgDatabase
from memoryd.storage.pg_fts import PgFtsIndex
from memoryd.storage.pg_vectors import PgVectorStore, query_param
from memoryd.vectors.embedding import Embedder
from tests.support.postgres import running_postgres

SEED = 606
SCHEMA = "probe"
KINDS = (KIND_TRANSCRIPT, KIND_PINNED, KIND_EPISODE)


def _ms(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def _cell(values: Sequence[float]) -> str:
    return f"{statistics.median(values):.2f} / {percentile(values, 0.95):.2f}"


def _explain(db: PgDatabase, sql: str, params: object) -> list[str]:
    rows = db.percent_queries().query(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params)
    return [str(r[0]) for r in rows]


def _state(twin: Twin) -> dict[str, object]:
    db = twin.db.percent_queries()
    agent = twin.db.percent_queries().query(
        f"SELECT partition FROM {SCHEMA}.vector_agents WHERE agent_id = %s", (AGENT,)
    )[0][0]
    return {
        "pending delta rows": db.scalar(f"SELECT count(*) FROM {SCHEMA}.{pg_term_stats.DELTAS}"),
        "pending (agent, source, lexeme) changes": db.scalar(pg_term_stats.pending_sql(SCHEMA)),
        "folded search_terms rows": db.scalar(f"SELECT count(*) FROM {SCHEMA}.{pg_term_stats.TABLE}"),
        "vector partition has pg_stats": db.scalar(
            "SELECT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = %s AND tablename = %s)", (SCHEMA, agent)
        ),
    }


def measure(
    label: str,
    twin: Twin,
    embedder: Embedder,
    sqlite_search: MemorySearch,
    pg_search: MemorySearch,
    queries: Sequence[str],
) -> None:
    """The state, three EXPLAINs and the statement times of one state of the store."""
    print(f"\n===== {label}", flush=True)
    for name, value in _state(twin).items():
        print(f"  {name}: {value}")
    fts = PgFtsIndex(twin.db.percent_queries(), SCHEMA)
    vectors = PgVectorStore(twin.db.percent_queries(), SCHEMA)
    agent = vectors.agent(AGENT)
    assert agent is not None
    probe_q = queries[3]
    terms = query_terms(probe_q)
    embedded = embedder.embed_query(probe_q, timeout_s=60.0)
    assert embedded is not None
    qv = embedded[0]
    print(f"\n  EXPLAIN transcript walk ({probe_q!r}):")
    walk = vectors.nearest_rows_sql(agent, KIND_TRANSCRIPT, 100, 13)
    twin.db.percent_queries().setting("hnsw.ef_search", "100")
    for line in _explain(twin.db, walk, {"v": query_param(qv), "agent": AGENT}):
        print("   ", line)
    print(f"\n  EXPLAIN document frequencies, transcript ({terms}):")
    freq = pg_term_stats.frequencies_sql(SCHEMA, "transcript", fts._configs)
    for line in _explain(twin.db, freq, (list(dict.fromkeys(terms)), AGENT)):
        print("   ", line)
    print("\n  EXPLAIN agent rows (BM25's N), transcript:")
    for line in _explain(twin.db, pg_term_stats.agent_rows_sql(SCHEMA, "transcript"), (AGENT,)):
        print("   ", line)
    times: dict[str, list[float]] = {}
    for q in queries:
        t = query_terms(q)
        if not t:
            continue
        embedder.embed_query(q, timeout_s=60.0)
        for kind in KINDS:
            times.setdefault(f"doc_frequencies {kind}", []).append(
                _ms(lambda k=kind, tt=t: fts.doc_frequencies(k, AGENT, tt))  # type: ignore[misc]
            )
            times.setdefault(f"keyword candidates {kind}", []).append(
                _ms(lambda k=kind, tt=t: fts.search(k, AGENT, tt, 100))  # type: ignore[misc]
            )
            times.setdefault(f"agent_text_stats {kind}", []).append(
                _ms(lambda k=kind: fts.agent_text_stats(k, AGENT))  # type: ignore[misc]
            )
        pg_search.forget_recent()
        sqlite_search.forget_recent()
        times.setdefault("transcript search, PostgreSQL", []).append(
            _ms(lambda qq=q: pg_search.search(AGENT, KIND_TRANSCRIPT, qq, 10))  # type: ignore[misc]
        )
        times.setdefault("transcript search, SQLite", []).append(
            _ms(lambda qq=q: sqlite_search.search(AGENT, KIND_TRANSCRIPT, qq, 10))  # type: ignore[misc]
        )
    print(f"\n  ms p50 / p95 over {len(queries)} queries:")
    for name, values in times.items():
        print(f"    {name}: {_cell(values)}")


def fold_all(twin: Twin) -> int:
    """Every pending delta folded (TermFolder's rounds, back to back), then the counts' table analyzed."""
    moved = fold_deltas(twin.store)
    twin.db.percent_queries().execute(f"ANALYZE {SCHEMA}.{pg_term_stats.TABLE}")
    return moved


def main() -> None:
    per_section = int(os.environ.get("OSAURUS_PROBE_QUERIES", "8"))
    scale = float(os.environ.get("OSAURUS_PROBE_SCALE", "1.0"))
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    home = Path(tempfile.mkdtemp(prefix="pg-twin-probe-"))
    with running_postgres() as pg, inferd_process(home / "inferd") as target:
        (home / "config").mkdir(parents=True)
        (home / "config" / "memory.json").write_text(json.dumps({"embeddingModel": INDEX_MODEL}))
        app = build_app(
            ServiceSettings(listen="127.0.0.1:0", home=home, inferd_addr=target, background_indexing=False)
        )
        client = InferenceClient(target, deadline_s=300.0)
        started = time.perf_counter()
        corpus = make_corpus(random.Random(SEED))
        populate(app, corpus, random.Random(SEED), scale, int(time.time() * 1000))
        app.indexer.run_once()
        twin = pg_twin(app.store, pg.dsn, SCHEMA, INDEX_MODEL, 384, fold=False)
        print(f"seeded in {time.perf_counter() - started:.0f} s (copy {twin.copy_s:.1f} s)", flush=True)
        client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
        embedder = Embedder(RealQueryVectors(client), app.config, query_timeout_s=DEFAULT_READ_BUDGET_S)
        sqlite_search = MemorySearch(app.store, embedder=embedder, vectors=app.vectors)
        pg_search = MemorySearch(twin.store, embedder=embedder, vectors=twin.vectors)
        queries = [q for _, q in make_queries(corpus, random.Random(SEED + 70), per_section)]
        try:
            for q in queries[:4]:  # warm pages and code paths
                pg_search.search(AGENT, KIND_TRANSCRIPT, q, 10)
                sqlite_search.search(AGENT, KIND_TRANSCRIPT, q, 10)
            measure("as pg_twin leaves it", twin, embedder, sqlite_search, pg_search, queries)
            started = time.perf_counter()
            moved = fold_all(twin)
            print(f"\nfolded {moved:,} changes in {time.perf_counter() - started:.1f} s", flush=True)
            measure("deltas folded", twin, embedder, sqlite_search, pg_search, queries)
        finally:
            sqlite_search.close()
            pg_search.close()
            client.close()
            twin.db.close_all()
            app.close()


if __name__ == "__main__":
    main()
