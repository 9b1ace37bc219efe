"""pgread9's probe (issue #21): the transcript kind through pgvector's IVFFlat instead of HNSW, recall and cost.

On pg_read9_probe's seeded store (bench_assemble's corpus, memoryd's partition with its HNSW per kind as shipped):
the transcript's HNSW walk (ef_search 100, as shipped) against an IVFFlat index on the same expression and predicate
(`lists` = 2 × sqrt(n), as memoryd's faiss IVF on SQLite, vectors/approx.py), built in a transaction that is rolled
back (the HNSW index dropped inside it, so the planner has only the IVF), at several `ivfflat.probes`. Queries as
pg_hnsw_probe: bench_assemble's generator with a dev seed (SEED + 50), embedded with the real MiniLM and with the
fake model (the corpus's own space). Per query: the exact nearest 100 (memoryd's exact branch), recall@13 and
recall@100 of each index, its execution time and buffers from EXPLAIN (ANALYZE, BUFFERS).

Run: `python -m bench.pg_ivf_probe` (OSAURUS_PROBE_QUERIES per intended section, 12; OSAURUS_PROBE_PROBES,
`8,16,32,48`; OSAURUS_PROBE_LISTS, 632). Not a committed figure: docs/postgres_search.md (tenth pass).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from psycopg.conninfo import make_conninfo

from bench.assemble_corpus import INDEX_MODEL, QUERY_MODEL, SEED, make_corpus, make_queries
from bench.bench_assemble import inferd_process
from bench.pg_hnsw_probe import GATE, K, _explain, _ids, _partition, _recall, _walk_sql
from bench.pg_read9_probe import DIR
from bench.pg_server_settings import DEPLOYMENT_SETTINGS, pg_ctl_start, pg_ctl_stop, write_settings
from inferd.client import InferenceClient
from memoryd.domain import KIND_TRANSCRIPT
from memoryd.storage.pg_vectors import vector_text


def _cell(
    conn: psycopg.Connection[Any],
    sql: str,
    params: dict[str, str],
    exact: list[int],
    out: dict[str, list[float]],
) -> None:
    got = _ids(conn, sql, params)
    buffers, ms, _ = _explain(conn, sql, params)
    out["r13"].append(_recall(got, exact, GATE))
    out["r100"].append(_recall(got, exact, K))
    out["buffers"].append(buffers)
    out["ms"].append(ms)
    out["rows"].append(len(got))


def _print(out: dict[str, dict[str, list[float]]]) -> None:
    print("index | space | recall@13 | recall@100 | buffers p50 | ms p50 / mean | short")
    for name in sorted(out):
        c = out[name]
        print(
            f"{name} | {statistics.fmean(c['r13']):.3f} | {statistics.fmean(c['r100']):.3f} |"
            f" {statistics.median(c['buffers']):.0f} | {statistics.median(c['ms']):.2f} /"
            f" {statistics.fmean(c['ms']):.2f} | {sum(r < K for r in c['rows'])}",
            flush=True,
        )


def main() -> None:
    per_section = int(os.environ.get("OSAURUS_PROBE_QUERIES", "12"))
    probes = [int(x) for x in os.environ.get("OSAURUS_PROBE_PROBES", "8,16,32,48").split(",") if x]
    lists = int(os.environ.get("OSAURUS_PROBE_LISTS", "632"))
    saved = json.loads((DIR / "dsn.json").read_text())
    home = Path(tempfile.mkdtemp(prefix="pg-ivf-probe-"))
    pgdata = home / "pgdata"
    subprocess.run(["cp", "-a", str(DIR / "pgdata"), str(pgdata)], check=True)
    shutil.chown(home, "pgserver")
    os.chmod(home, 0o755)
    write_settings(pgdata, DEPLOYMENT_SETTINGS)
    pg_ctl_start(pgdata, str(pgdata))
    dsn = make_conninfo(saved["dsn"], host=str(pgdata))
    corpus = make_corpus(random.Random(SEED))
    texts = [q for _, q in make_queries(corpus, random.Random(SEED + 50), per_section)]
    try:
        with inferd_process(home / "inferd") as target:
            client = InferenceClient(target, deadline_s=300.0)
            try:
                vectors: dict[str, list[np.ndarray]] = {}
                for space, model in (("minilm", QUERY_MODEL), ("fake", INDEX_MODEL)):
                    reply = client.embed(texts, model=model, timeout_s=300.0)
                    vectors[space] = [np.asarray(v, dtype=np.float32) for v in reply.vectors]
            finally:
                client.close()
        with psycopg.connect(dsn, autocommit=True) as conn:
            schema, partition, agent = _partition(conn)
            conn.execute("SET max_parallel_workers_per_gather = 0")
            conn.execute("SET hnsw.ef_search = 100")
            conn.execute("SET maintenance_work_mem = '1GB'")
            walk = _walk_sql(schema, partition, KIND_TRANSCRIPT, False)
            exact_sql = _walk_sql(schema, partition, KIND_TRANSCRIPT, True)
            params = {s: [{"v": vector_text(v), "agent": agent} for v in vs] for s, vs in vectors.items()}
            exact = {s: [_ids(conn, exact_sql, p) for p in ps] for s, ps in params.items()}
            out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
            for _ in range(2):  # warm the graph's pages
                for p in params["fake"][:5]:
                    _ids(conn, walk, p)
            for s, ps in params.items():
                for p, ex in zip(ps, exact[s], strict=True):
                    _cell(conn, walk, p, ex, out[f"hnsw m16 ef100 | {s}"])
            conn.execute("BEGIN")
            conn.execute(f'DROP INDEX "{schema}".{partition}_{KIND_TRANSCRIPT}')
            started = time.perf_counter()
            conn.execute(
                f'CREATE INDEX probe_ivf ON "{schema}".{partition} USING ivfflat ((embedding::halfvec(384))'
                f" halfvec_cosine_ops) WITH (lists = {lists}) WHERE kind = '{KIND_TRANSCRIPT}'"
            )
            size = conn.execute(f"SELECT pg_relation_size('\"{schema}\".probe_ivf') / 1048576.0").fetchone()
            print(
                f"ivfflat lists {lists}: built in {time.perf_counter() - started:.0f} s,"
                f" {float(size[0]) if size else 0:.0f} MB",
                flush=True,
            )
            for _ in range(2):
                for p in params["fake"][:5]:
                    conn.execute("SET ivfflat.probes = 48")
                    _ids(conn, walk, p)
            for s, ps in params.items():
                for i, (p, ex) in enumerate(zip(ps, exact[s], strict=True)):
                    order = probes[i % len(probes) :] + probes[: i % len(probes)]
                    for n in order:
                        conn.execute(f"SET ivfflat.probes = {n}")
                        _cell(conn, walk, p, ex, out[f"ivf lists {lists} probes {n:02d} | {s}"])
            conn.execute("ROLLBACK")
            _print(out)
    finally:
        pg_ctl_stop(pgdata)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
