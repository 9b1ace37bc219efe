"""Measure, on the test PostgreSQL, the per-row sizes and scan times that docs/scaling.md's capacity model uses.

Builds one transcript-like table (tenant, agent, conversation, text ~600 B from LoCoMo turns joined five at a time,
a stored english tsvector, a 384-d vector and the same as halfvec), then reports bytes per row of the heap, the
btrees, the GIN on the tsvector and HNSW (m=16, ef_construction=64) on vector and on halfvec, and the time of a
per-agent exact top-10 (the way memoryd's per-agent faiss flat index searches today) and of an HNSW top-10.
Vectors are random unit vectors: index sizes do not depend on the values, recall is not measured here.

    PYTHONPATH=$PWD .venv/bin/python scripts/pg_size_probe.py --rows 100000 --agents 4 [--locomo PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import psycopg

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.postgres import running_postgres  # noqa: E402

DIM = 384


def _texts(locomo: Path, count: int) -> list[str]:
    """`count` texts of about 600 bytes: LoCoMo dialog turns joined five at a time, cycled."""
    turns: list[str] = []
    for conversation in json.loads(locomo.read_text()):
        body = conversation["conversation"]
        for key, value in body.items():
            if key.startswith("session_") and isinstance(value, list):
                turns.extend(f"{t['speaker']}: {t['text']}" for t in value)
    joined = [" ".join(turns[i : i + 5]) for i in range(0, len(turns) - 5, 5)]
    return [joined[i % len(joined)] for i in range(count)]


def _vec(values: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in values) + "]"


def _size(conn: psycopg.Connection[tuple[object, ...]], relation: str) -> int:
    row = conn.execute("SELECT pg_relation_size(%s::regclass)", (relation,)).fetchone()
    assert row is not None
    return int(str(row[0]))


def _timed_ms(conn: psycopg.Connection[tuple[object, ...]], sql: str, params: tuple[object, ...]) -> float:
    started = time.perf_counter()
    conn.execute(sql, params).fetchall()
    return (time.perf_counter() - started) * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--agents", type=int, default=4)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--locomo", type=Path, default=REPO.parent / "shared" / "bench" / "locomo10.json")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    texts = _texts(args.locomo, args.rows)
    report: dict[str, object] = {"rows": args.rows, "agents": args.agents}
    with running_postgres() as pg, psycopg.connect(pg.dsn, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '1GB'")
        conn.execute(
            "CREATE TABLE t (id bigint PRIMARY KEY, tenant_id int NOT NULL, agent_id text NOT NULL,"
            " conversation_id text NOT NULL, content text NOT NULL, created_at_ms bigint NOT NULL,"
            " tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED)"
        )
        conn.execute(
            "CREATE TABLE e (id bigint PRIMARY KEY, agent_id text NOT NULL, v vector(384), h halfvec(384))"
        )
        started = time.perf_counter()
        with conn.cursor() as cur:
            with cur.copy(
                "COPY t (id, tenant_id, agent_id, conversation_id, content, created_at_ms) FROM STDIN"
            ) as cp:
                for i, text in enumerate(texts):
                    agent = f"agent-{i % args.agents:04d}"
                    cp.write_row((i, 1, agent, f"conv-{i // 20:08d}", text, 1_700_000_000_000 + i))
            with cur.copy("COPY e (id, agent_id, v, h) FROM STDIN") as cp:
                for start in range(0, args.rows, 10_000):
                    block = rng.standard_normal((min(10_000, args.rows - start), DIM)).astype(np.float32)
                    block /= np.linalg.norm(block, axis=1, keepdims=True)
                    for j, row in enumerate(block):
                        text = _vec(row)
                        cp.write_row((start + j, f"agent-{(start + j) % args.agents:04d}", text, text))
        report["load_s"] = round(time.perf_counter() - started, 1)
        conn.execute("CREATE INDEX t_agent_conv ON t (agent_id, conversation_id, id)")
        conn.execute("CREATE INDEX t_agent_time ON t (agent_id, created_at_ms)")
        conn.execute("CREATE INDEX e_agent ON e (agent_id, id)")
        started = time.perf_counter()
        conn.execute("CREATE INDEX t_gin ON t USING gin (tsv)")
        report["gin_build_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        conn.execute("CREATE INDEX e_hnsw_v ON e USING hnsw (v vector_cosine_ops)")
        report["hnsw_vector_build_s"] = round(time.perf_counter() - started, 1)
        started = time.perf_counter()
        conn.execute("CREATE INDEX e_hnsw_h ON e USING hnsw (h halfvec_cosine_ops)")
        report["hnsw_halfvec_build_s"] = round(time.perf_counter() - started, 1)
        conn.execute("VACUUM ANALYZE t")
        conn.execute("VACUUM ANALYZE e")
        text_bytes = conn.execute("SELECT avg(octet_length(content)) FROM t").fetchone()
        report["text_bytes_per_row"] = round(float(str(text_bytes[0])) if text_bytes else 0.0)
        per_row = {
            name: round(_size(conn, name) / args.rows)
            for name in ("t", "t_pkey", "t_agent_conv", "t_agent_time", "t_gin", "e", "e_pkey", "e_agent")
        }
        per_row["e_hnsw_v"] = round(_size(conn, "e_hnsw_v") / args.rows)
        per_row["e_hnsw_h"] = round(_size(conn, "e_hnsw_h") / args.rows)
        toast = conn.execute(
            "SELECT coalesce(pg_relation_size(reltoastrelid), 0) FROM pg_class WHERE relname = 'e'"
        ).fetchone()
        per_row["e_toast"] = round(int(str(toast[0])) / args.rows) if toast else 0
        report["bytes_per_row"] = per_row

        queries = [
            _vec(q / np.linalg.norm(q)) for q in rng.standard_normal((args.queries, DIM)).astype(np.float32)
        ]
        exact: list[float] = []
        hnsw: list[float] = []
        exact_half: list[float] = []
        fts: list[float] = []
        words = ["family", "painting", "weekend", "dog", "support", "school", "trip", "music"]
        for n, q in enumerate(queries):
            agent = f"agent-{n % args.agents:04d}"
            with conn.transaction():
                # The per-agent exact scan: the agent's rows by btree, every distance computed (no HNSW).
                conn.execute("SET LOCAL enable_indexscan = off")
                exact.append(
                    _timed_ms(
                        conn,
                        "SELECT id FROM e WHERE agent_id = %s ORDER BY v <=> %s::vector LIMIT 10",
                        (agent, q),
                    )
                )
                exact_half.append(
                    _timed_ms(
                        conn,
                        "SELECT id FROM e WHERE agent_id = %s ORDER BY h <=> %s::halfvec LIMIT 10",
                        (agent, q),
                    )
                )
            hnsw.append(_timed_ms(conn, "SELECT id FROM e ORDER BY h <=> %s::halfvec LIMIT 10", (q,)))
            fts.append(
                _timed_ms(
                    conn,
                    "SELECT id, ts_rank_cd(tsv, query) AS r FROM t, plainto_tsquery('english', %s) query"
                    " WHERE agent_id = %s AND tsv @@ query ORDER BY r DESC LIMIT 10",
                    (words[n % len(words)], agent),
                )
            )

        def summary(values: list[float]) -> dict[str, float]:
            ordered = sorted(values)
            return {
                "p50_ms": round(statistics.median(ordered), 2),
                "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
            }

        report["exact_top10_per_agent_vector"] = summary(exact)
        report["exact_top10_per_agent_halfvec"] = summary(exact_half)
        report["hnsw_top10_whole_table_halfvec"] = summary(hnsw)
        report["fts_top10_per_agent"] = summary(fts)
        report["rows_per_agent"] = args.rows // args.agents
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
