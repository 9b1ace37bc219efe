"""pgread8's probe (issue #21): per HNSW walk, its recall against the exact scan, its buffers and its time.

bench_assemble's corpus seeded and filled as `pg_settings_probe.seed_and_fill` does (memoryd's partition, its HNSW
per kind as shipped: halfvec, m 16, ef_construction 64). Queries: bench_assemble's generator with a dev seed (SEED +
50: neither its measured nor its warm-up queries), embedded twice: with the real MiniLM (what the bench's queries
are: the corpus vectors are the fake model's, so these two spaces are unrelated) and with the fake model (the
corpus's own space). Per kind and query, the exact nearest 100 (`ORDER BY distance + 0`, every distance, as
memoryd's exact branch) against each walk setting: recall@13 (what the gate reads) and recall@100 (what the section
search fuses), shared buffers hit + read and execution time from `EXPLAIN (ANALYZE, BUFFERS)`.

Also: the order of halfvec cosine against float4 cosine (the embeddings table's vectors, numpy) for the exact scan,
and, with OSAURUS_PROBE_BUILDS (e.g. `8:64,16:128,24:64`), the transcript index rebuilt with other m:ef_construction
inside a transaction that is rolled back (so each variant walks alone, on the same rows).

Run: `python -m bench.pg_hnsw_probe` (OSAURUS_PROBE_QUERIES per intended section, 12 by default; OSAURUS_PROBE_EF,
default `100,200,400`). Not a committed figure: docs/postgres_search.md ("ninth pass").
"""

from __future__ import annotations

import atexit
import json
import os
import random
import shutil
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from bench.assemble_corpus import AGENT, INDEX_MODEL, QUERY_MODEL, SEED, make_corpus, make_queries
from bench.bench_assemble import inferd_process
from bench.pg_settings_probe import seed_and_fill
from inferd.client import InferenceClient
from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage.pg_vectors import vector_text
from tests.support.postgres import running_postgres

KINDS = (KIND_TRANSCRIPT, KIND_PINNED, KIND_EPISODE)
K = 100
GATE = 13


def _walk_sql(schema: str, partition: str, kind: str, exact: bool) -> str:
    distance = "embedding::halfvec(384) <=> %(v)s::halfvec(384)"
    order = f"({distance}) + 0" if exact else distance
    return (
        f"SELECT row_id FROM \"{schema}\".{partition} WHERE agent_id = %(agent)s AND kind = '{kind}' "
        f"ORDER BY {order} LIMIT {K}"
    )


def _walked(node: dict[str, Any]) -> bool:
    """Whether the plan reads an HNSW index (the planner may sort a small kind instead)."""
    if "Index Name" in node and node.get("Node Type") == "Index Scan" and "pkey" not in node["Index Name"]:
        return True
    return any(_walked(child) for child in node.get("Plans", []))


def _explain(conn: psycopg.Connection[Any], sql: str, params: dict[str, str]) -> tuple[int, float, bool]:
    plan = conn.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql, params).fetchone()
    assert plan is not None
    top = plan[0][0]
    node = top["Plan"]
    buffers = int(node.get("Shared Hit Blocks", 0)) + int(node.get("Shared Read Blocks", 0))
    return buffers, float(top["Execution Time"]), _walked(node)


def _ids(conn: psycopg.Connection[Any], sql: str, params: dict[str, str]) -> list[int]:
    return [int(r[0]) for r in conn.execute(sql, params).fetchall()]


def _recall(walk: list[int], exact: list[int], k: int) -> float:
    want = set(exact[:k])
    return len(want & set(walk[:k])) / max(len(want), 1)


def _measure(
    conn: psycopg.Connection[Any],
    schema: str,
    partition: str,
    kinds: tuple[str, ...],
    queries: dict[str, list[np.ndarray]],
    settings: list[tuple[str, int, str]],
    exact: dict[tuple[str, str, int], list[int]],
    agent: str,
) -> dict[str, dict[str, list[float]]]:
    """(label, ef, iterative scan) per setting → kind/space → recall@13, recall@100, buffers, ms lists."""
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for space, vectors in queries.items():
        for qi, vector in enumerate(vectors):
            params = {"v": vector_text(vector), "agent": agent}
            for kind in kinds:
                key = (space, kind, qi)
                if key not in exact:
                    exact[key] = _ids(conn, _walk_sql(schema, partition, kind, True), params)
                order = settings[qi % len(settings) :] + settings[: qi % len(settings)]
                for label, ef, scan in order:
                    conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", (str(ef),))
                    conn.execute("SELECT set_config('hnsw.iterative_scan', %s, false)", (scan,))
                    sql = _walk_sql(schema, partition, kind, False)
                    got = _ids(conn, sql, params)
                    buffers, ms, walked = _explain(conn, sql, params)
                    cell = out[f"{label}|{kind}|{space}"]
                    cell["r13"].append(_recall(got, exact[key], GATE))
                    cell["r100"].append(_recall(got, exact[key], K))
                    cell["buffers"].append(buffers)
                    cell["ms"].append(ms)
                    cell["rows"].append(len(got))
                    cell["walked"].append(float(walked))
    return out


def _print(out: dict[str, dict[str, list[float]]]) -> None:
    print(
        "setting | kind | query space | recall@13 mean / min | recall@100 mean / min | buffers p50 | ms p50 / mean"
    )
    for name in sorted(out):
        c = out[name]
        print(
            f"{name.replace('|', ' | ')} | {statistics.fmean(c['r13']):.3f} / {min(c['r13']):.2f} |"
            f" {statistics.fmean(c['r100']):.3f} / {min(c['r100']):.2f} | {statistics.median(c['buffers']):.0f} |"
            f" {statistics.median(c['ms']):.2f} / {statistics.fmean(c['ms']):.2f} | short walks"
            f" {sum(r < K for r in c['rows'])}, HNSW walked {sum(c['walked']):.0f}/{len(c['walked'])}",
            flush=True,
        )


def _halfvec_order(
    conn: psycopg.Connection[Any], schema: str, agent: str, vectors: dict[str, list[np.ndarray]]
) -> None:
    """Exact top-13 / top-100 of the transcript by halfvec cosine (the stored vectors) against float4 cosine (the
    embeddings table's vectors)."""
    rows = conn.execute(
        f'SELECT row_id, vector FROM "{schema}".embeddings WHERE agent_id = %s AND kind = %s ORDER BY row_id',
        (agent, KIND_TRANSCRIPT),
    ).fetchall()
    ids = np.array([int(r[0]) for r in rows])
    f32 = np.stack([np.frombuffer(bytes(r[1]), dtype="<f4") for r in rows]).astype(np.float32)
    f32 /= np.linalg.norm(f32, axis=1, keepdims=True)
    f16 = f32.astype(np.float16).astype(np.float32)
    f16n = f16 / np.linalg.norm(f16, axis=1, keepdims=True)
    for space, qs in vectors.items():
        same13, same100, equal_order13 = [], [], 0
        for q in qs:
            q32 = q / np.linalg.norm(q)
            q16 = q32.astype(np.float16).astype(np.float32)
            a = ids[np.argsort(-(f32 @ q32), kind="stable")[:K]]
            b = ids[np.argsort(-(f16n @ (q16 / np.linalg.norm(q16))), kind="stable")[:K]]
            same13.append(len(set(a[:GATE]) & set(b[:GATE])) / GATE)
            same100.append(len(set(a) & set(b)) / K)
            equal_order13 += bool((a[:GATE] == b[:GATE]).all())
        print(
            f"halfvec vs float4 exact transcript ({space}, {len(qs)} queries, {len(ids):,} vectors): top-13 overlap"
            f" {statistics.fmean(same13):.3f} (min {min(same13):.2f}), same top-13 order {equal_order13}/{len(qs)},"
            f" top-100 overlap {statistics.fmean(same100):.3f} (min {min(same100):.2f})",
            flush=True,
        )


def _round_trip(conn: psycopg.Connection[Any]) -> None:
    """What one statement's round trip costs on the Unix socket, prepared (as the read path's are after 5 runs)."""
    times = []
    for _ in range(2000):
        t0 = time.perf_counter()
        conn.execute("SELECT 1", prepare=True)
        times.append((time.perf_counter() - t0) * 1000)
    tail = sorted(times[500:])
    print(
        f"round trip of a prepared SELECT 1: p50 {statistics.median(tail):.3f} ms,"
        f" p95 {tail[int(0.95 * len(tail))]:.3f} ms",
        flush=True,
    )


def main() -> None:
    per_section = int(os.environ.get("OSAURUS_PROBE_QUERIES", "12"))
    scale = float(os.environ.get("OSAURUS_PROBE_SCALE", "1.0"))
    efs = [int(x) for x in os.environ.get("OSAURUS_PROBE_EF", "100,200,400").split(",") if x]
    builds = [
        tuple(int(y) for y in x.split(":"))
        for x in os.environ.get("OSAURUS_PROBE_BUILDS", "").split(",")
        if x
    ]
    home = Path(tempfile.mkdtemp(prefix="pg-hnsw-probe-"))
    atexit.register(shutil.rmtree, home, True)  # the seeded homes are ~90 MB each
    corpus = make_corpus(random.Random(SEED))
    with running_postgres() as pg, inferd_process(home / "inferd") as target:
        with psycopg.connect(pg.dsn_for("postgres"), autocommit=True) as conn:
            conn.execute("ALTER SYSTEM SET maintenance_work_mem = '1GB'")
            conn.execute("SELECT pg_reload_conf()")
        t0 = time.perf_counter()
        seed_and_fill(pg.dsn, home, target, scale)
        print(f"seeded in {time.perf_counter() - t0:.0f} s", flush=True)
        texts = [q for _, q in make_queries(corpus, random.Random(SEED + 50), per_section)]
        client = InferenceClient(target, deadline_s=300.0)
        try:
            vectors: dict[str, list[np.ndarray]] = {}
            for space, model in (("minilm", QUERY_MODEL), ("fake", INDEX_MODEL)):
                reply = client.embed(texts, model=model, timeout_s=300.0)
                vectors[space] = [np.asarray(v, dtype=np.float32) for v in reply.vectors]
        finally:
            client.close()
        with psycopg.connect(pg.dsn, autocommit=True) as conn:
            schema, partition, agent = _partition(conn)
            conn.execute("SET max_parallel_workers_per_gather = 0")
            conn.execute("SET jit = off")
            _halfvec_order(conn, schema, agent, vectors)
            _round_trip(conn)
            settings = [(f"ef{ef}/off", ef, "off") for ef in efs] + [
                ("ef100/strict_order", 100, "strict_order")
            ]
            exact: dict[tuple[str, str, int], list[int]] = {}
            for _ in range(
                2
            ):  # warm: every page the walks and exact scans read, in shared buffers or the OS cache
                warm = {k: v[:3] for k, v in vectors.items()}
                _measure(conn, schema, partition, KINDS, warm, settings, exact, agent)
            exact.clear()
            _print(_measure(conn, schema, partition, KINDS, vectors, settings, exact, agent))
            for m, efc in builds:
                started = time.perf_counter()
                conn.execute("BEGIN")
                conn.execute(f'DROP INDEX "{schema}".{partition}_{KIND_TRANSCRIPT}')
                conn.execute(
                    f'CREATE INDEX probe_variant ON "{schema}".{partition} USING hnsw ((embedding::halfvec(384))'
                    f" halfvec_cosine_ops) WITH (m = {m}, ef_construction = {efc}) WHERE kind = '{KIND_TRANSCRIPT}'"
                )
                size = conn.execute(
                    f"SELECT pg_relation_size('\"{schema}\".probe_variant') / 1048576.0"
                ).fetchone()
                print(
                    f"transcript index m {m} ef_construction {efc}: built in {time.perf_counter() - started:.0f} s,"
                    f" {float(size[0]) if size else 0:.0f} MB",
                    flush=True,
                )
                variant = [(f"m{m}/efc{efc}/ef{ef}", ef, "off") for ef in efs]
                _measure(
                    conn,
                    schema,
                    partition,
                    (KIND_TRANSCRIPT,),
                    {k: v[:3] for k, v in vectors.items()},
                    variant,
                    exact,
                    agent,
                )
                _print(_measure(conn, schema, partition, (KIND_TRANSCRIPT,), vectors, variant, exact, agent))
                conn.execute("ROLLBACK")
    print(json.dumps({"queries": len(texts), "efs": efs, "builds": builds}))


def _partition(conn: psycopg.Connection[Any]) -> tuple[str, str, str]:
    row = conn.execute(
        "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relname = 'vector_agents'"
    ).fetchone()
    assert row is not None
    schema = str(row[0])
    rows = conn.execute(f'SELECT agent_id, partition FROM "{schema}".vector_agents').fetchall()
    # the stored agent id may carry the tenant (the default tenant's is the bare id)
    found = [(str(a), str(p)) for a, p in rows if str(a) == AGENT or str(a).endswith(AGENT)]
    assert found, rows
    return schema, found[0][1], found[0][0]


if __name__ == "__main__":
    main()
