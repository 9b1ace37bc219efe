"""benchvec's probe (issues 17, 21): what bench_assemble's corpus vectors do to the vector searches, for the bench's
real-MiniLM queries: the corpus rows embedded by inferd's fake model (`fake`, the bench before benchvec) against the
same rows embedded by the real all-MiniLM-L6-v2 (`minilm`, the queries' own model, as in a deployment).

Rows: the first N transcript turns of bench_assemble's corpus (the transcript is the first kind of the `minilm`
cache: bench/assemble_vectors.corpus_texts), their MiniLM vectors read from the cache file or, while a fill is under
way, from its checked partial chunks; their fake vectors from inferd's fake model. Queries: bench_assemble's
generator with a dev seed (SEED + 50: neither its measured nor its warm-up queries), embedded by the real MiniLM
(and by the fake model, for the fake rows' own space as a reference).

PostgreSQL 18 + pgvector (tests/support/postgres.py), one table per row set, the HNSW index as memoryd builds it
(storage/pg_vectors.py: `embedding::halfvec(384)` with halfvec_cosine_ops, m HNSW_M, ef_construction
HNSW_EF_CONSTRUCTION, partial on the kind), walked with ef_search = k = 100 as memoryd's searches: per query the
walk's shared buffers and execution time (EXPLAIN (ANALYZE, BUFFERS)) and its recall@13 / @100 against the exact
order (`ORDER BY distance + 0`). SQLite's side: memoryd's own faiss IVF (vectors/approx.py, lists and probes as
shipped for N vectors) on the same vectors: recall@13 / @100 against the exact fp32 scan, the vectors its probed
lists hold (the scan's work) and the search's time.

Run: `python -m bench.pg_vectors_probe` (OSAURUS_PROBE_ROWS, default: every transcript vector the cache holds, at
most 100,000; OSAURUS_PROBE_QUERIES per intended section, 16). Not a committed figure: docs/postgres_search.md
(eleventh pass) and bench_assemble's PostgreSQL note.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg

from bench.assemble_corpus import SEED, make_corpus, make_queries, populate, write_config
from bench.assemble_vectors import (
    FAKE_MODEL,
    REAL_MODEL,
    PartialFile,
    cache_dir,
    cache_key,
    cache_path,
    corpus_texts,
    read_cache,
)
from bench.bench_assemble import inferd_process
from inferd.client import InferenceClient
from memoryd.storage.pg_halfvec import halfvec_param
from memoryd.storage.pg_vectors import EF_SEARCH, HNSW_EF_CONSTRUCTION, HNSW_M
from memoryd.vectors.approx import ApproxIndex
from tests.support.postgres import running_postgres

K = 100
GATE = 13
Vectors = npt.NDArray[np.float32]


def _corpus_texts(home: Path, target: str) -> list[str]:
    """bench_assemble's corpus texts at scale 1, in the cache's order (a scratch SQLite store, rows only)."""
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    write_config(home)
    app = build_app(
        ServiceSettings(listen="127.0.0.1:0", home=home, inferd_addr=target, background_indexing=False)
    )
    try:
        rng = random.Random(SEED)
        populate(app, make_corpus(rng), rng, 1.0, int(time.time() * 1000))
        return corpus_texts(app.store)
    finally:
        app.close()


def _minilm_rows(texts: list[str]) -> Vectors:
    """The MiniLM vectors the cache (or the fill's partial file) holds, from the first text on."""
    key = cache_key(texts, REAL_MODEL)
    path = cache_path(cache_dir(), key)
    full, _ = read_cache(path, key, REAL_MODEL, len(texts))
    if full is not None:
        return full
    if not path.with_suffix(".partial").exists():
        raise SystemExit(f"no cache or partial file at {path}")
    held = PartialFile(path.with_suffix(".partial"), key, REAL_MODEL).read_only()
    return np.concatenate(held) if held else np.zeros((0, 384), dtype=np.float32)


def _embed(client: InferenceClient, texts: list[str], model: str) -> Vectors:
    out = []
    for start in range(0, len(texts), 256):
        out.append(client.embed(texts[start : start + 256], model=model, timeout_s=600.0).vectors)
    return np.concatenate(out).astype(np.float32)


def _unit(v: Vectors) -> Vectors:
    return (v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def _load(conn: psycopg.Connection[Any], table: str, vectors: Vectors) -> float:
    """A table of `kind`-tagged vectors with memoryd's HNSW index; seconds the index took to build."""
    conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.execute(f"CREATE TABLE {table} (row_id int PRIMARY KEY, kind text NOT NULL, embedding vector(384))")
    with conn.cursor().copy(f"COPY {table} (row_id, kind, embedding) FROM STDIN") as copy:
        for i, v in enumerate(vectors):
            copy.write_row((i + 1, "transcript", "[" + ",".join(f"{x:.7g}" for x in v) + "]"))
    started = time.perf_counter()
    conn.execute(
        f"CREATE INDEX {table}_hnsw ON {table} USING hnsw ((embedding::halfvec(384)) halfvec_cosine_ops)"
        f" WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) WHERE kind = 'transcript'"
    )
    seconds = time.perf_counter() - started
    conn.execute(f"VACUUM ANALYZE {table}")
    return seconds


def _walk_sql(table: str, exact: bool) -> str:
    distance = "embedding::halfvec(384) <=> %(v)b::halfvec(384)"
    order = f"({distance}) + 0" if exact else distance
    return f"SELECT row_id FROM {table} WHERE kind = 'transcript' ORDER BY {order} LIMIT {K}"


def _recall(got: list[int] | npt.NDArray[Any], exact: list[int] | npt.NDArray[Any], k: int) -> float:
    want = {int(x) for x in exact[:k]}
    return len(want & {int(x) for x in got[:k]}) / max(len(want), 1)


def _pg(conn: psycopg.Connection[Any], table: str, queries: Vectors) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"r13": [], "r100": [], "buffers": [], "ms": []}
    conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", (str(max(EF_SEARCH, K)),))
    for q in queries:
        params = {"v": halfvec_param(q)}
        exact = [int(r[0]) for r in conn.execute(_walk_sql(table, True), params).fetchall()]
        got = [int(r[0]) for r in conn.execute(_walk_sql(table, False), params).fetchall()]
        plan = conn.execute(
            "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + _walk_sql(table, False), params
        ).fetchone()
        assert plan is not None
        top = plan[0][0]
        node = top["Plan"]
        out["buffers"].append(int(node.get("Shared Hit Blocks", 0)) + int(node.get("Shared Read Blocks", 0)))
        out["ms"].append(float(top["Execution Time"]))
        out["r13"].append(_recall(got, exact, GATE))
        out["r100"].append(_recall(got, exact, K))
    return out


def _ivf(rows: Vectors, queries: Vectors) -> dict[str, list[float]]:
    import faiss

    ids = np.arange(1, len(rows) + 1, dtype=np.int64)
    index = ApproxIndex.build(ids, rows)
    inner = index._index
    invlists = inner.invlists
    sizes = np.array([invlists.list_size(i) for i in range(inner.nlist)])
    out: dict[str, list[float]] = {"r13": [], "r100": [], "scanned": [], "ms": []}
    rows16 = rows.astype(np.float16).astype(np.float32)
    for q in queries:
        q1 = np.ascontiguousarray(q.reshape(1, -1))
        started = time.perf_counter()
        _, got = index.search(q1, K)
        out["ms"].append((time.perf_counter() - started) * 1000)
        exact = ids[np.argsort(-(rows16 @ q), kind="stable")[:K]]
        out["r13"].append(_recall(got[0], exact, GATE))
        out["r100"].append(_recall(got[0], exact, K))
        _, lists = inner.quantizer.search(q1, index.nprobe)
        out["scanned"].append(float(sizes[lists[0]].sum()))
    del faiss
    out["lists"] = [float(inner.nlist), float(index.nprobe), float(sizes.max()), float(np.median(sizes))]
    return out


def _line(name: str, c: dict[str, list[float]], cost: str) -> str:
    return (
        f"| {name} | {statistics.fmean(c['r13']):.3f} | {statistics.fmean(c['r100']):.3f} |"
        f" {statistics.median(c[cost]):,.0f} / {statistics.fmean(c[cost]):,.0f} |"
        f" {statistics.median(c['ms']):.2f} / {statistics.fmean(c['ms']):.2f} |"
    )


def main() -> None:
    per_section = int(os.environ.get("OSAURUS_PROBE_QUERIES", "16"))
    home = Path(tempfile.mkdtemp(prefix="pg-vectors-probe-"))
    try:
        with inferd_process(home / "inferd") as target:
            texts = _corpus_texts(home / "store", target)
            minilm = _minilm_rows(texts)
            n = min(int(os.environ.get("OSAURUS_PROBE_ROWS", "100000")), len(minilm), 100_000)
            minilm = _unit(minilm[:n])
            client = InferenceClient(target, deadline_s=600.0)
            try:
                fake = _unit(_embed(client, texts[:n], FAKE_MODEL))
                corpus = make_corpus(random.Random(SEED))
                qtexts = [q for _, q in make_queries(corpus, random.Random(SEED + 50), per_section)]
                q_minilm = _unit(_embed(client, qtexts, REAL_MODEL))
                q_fake = _unit(_embed(client, qtexts, FAKE_MODEL))
            finally:
                client.close()
        print(f"{n:,} transcript rows, {len(qtexts)} queries, load {os.getloadavg()[0]:.1f}", flush=True)
        arms = (
            ("MiniLM rows, MiniLM queries (minilm mode, a deployment)", "rows_minilm", minilm, q_minilm),
            ("fake rows, MiniLM queries (fake mode, the bench before)", "rows_fake", fake, q_minilm),
            ("fake rows, fake queries (the fake rows' own space)", "rows_fake", fake, q_fake),
        )
        with running_postgres() as pg, psycopg.connect(pg.dsn, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("SET maintenance_work_mem = '1GB'")
            conn.execute("SET max_parallel_workers_per_gather = 0")
            conn.execute("SET max_parallel_maintenance_workers = 0")
            built = {t: _load(conn, t, v) for t, v in (("rows_minilm", minilm), ("rows_fake", fake))}
            print(f"HNSW build s: {', '.join(f'{t} {s:.1f}' for t, s in built.items())}", flush=True)
            for _, table, _, queries in arms:  # warm: every page the walks and exact scans read
                _pg(conn, table, queries[:4])
            # Interleaved by query, so a busy moment of the shared machine hits every arm alike.
            cells: dict[str, dict[str, list[float]]] = {name: {} for name, *_ in arms}
            for i in range(len(qtexts)):
                for name, table, _, queries in arms[i % 3 :] + arms[: i % 3]:
                    for key, values in _pg(conn, table, queries[i : i + 1]).items():
                        cells[name].setdefault(key, []).extend(values)
        print("\nPostgreSQL HNSW (ef_search 100, k 100)")
        print("| rows, queries | recall@13 | recall@100 | buffers p50 / mean | ms p50 / mean |")
        print("| --- | --- | --- | --- | --- |")
        for name, *_ in arms:
            print(_line(name, cells[name], "buffers"))
        print("\nSQLite faiss IVF (memoryd/vectors/approx.py as shipped)")
        print("| rows, queries | recall@13 | recall@100 | vectors scanned p50 / mean | ms p50 / mean |")
        print("| --- | --- | --- | --- | --- |")
        for name, _, rows, queries in arms:
            ivf = _ivf(rows, queries)
            print(_line(name, ivf, "scanned"))
            lists, nprobe, biggest, median = ivf["lists"]
            print(
                f"|   lists {lists:.0f}, probes {nprobe:.0f}, list size max {biggest:.0f} / median {median:.0f} | | | | |"
            )
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
