"""A PostgreSQL copy of a filled SQLite store, for benchmarks that compare the two backends on the same rows.

Every table's rows are copied with their ids (so rankings and evidence map back the same way), the generated
tsvector columns fill themselves, the lexeme counts' deltas the copy appended are folded (as memoryd's TermFolder
folds them on every replica, every 2 s), and the per-agent pgvector partitions are filled from the copied embeddings
table and their HNSW indexes built once, before anything is timed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from memoryd.domain import KINDS
from memoryd.storage.pg_db import PgDatabase
from memoryd.storage.pg_endpoint import pg_endpoint
from memoryd.storage.pg_term_fold import PgTermFold
from memoryd.storage.pg_vectors import pg_vector_store
from memoryd.storage.store import Store, open_store
from memoryd.vectors.pg_registry import PgVectorRegistry

_SKIP = {"schema_version"}
_BATCH = 1000


@dataclass
class Twin:
    """The PostgreSQL store, its vector registry, and what building them took."""

    store: Store
    db: PgDatabase
    vectors: PgVectorRegistry
    copy_s: float
    index_s: float
    rows: dict[str, int]


def copy_rows(src: Store, dst: Store, *, fold: bool = True) -> dict[str, int]:
    """Copy every table's rows (ids included) from `src` into the empty store `dst`; returns rows per table. `fold`
    False leaves the lexeme counts' deltas pending (bench/pg_twin_probe.py measures that state)."""
    assert isinstance(dst.db, PgDatabase)
    out = dst.db.percent_queries()
    copied: dict[str, int] = {}
    for model in dst.tables.models():
        table = model._meta.table_name
        if table in _SKIP:
            continue
        columns = [c for c in dst.db.columns(table) if c in set(src.db.columns(table))]
        if not columns:
            continue  # a table the source does not have yet (made by a later migration or by the service)
        rows = src.db.query(f"SELECT {', '.join(columns)} FROM {table}")
        marks = "(" + ", ".join(["%s"] * len(columns)) + ")"
        with out.transaction():
            out.execute(f"DELETE FROM {table}")
            # One multi-row INSERT per batch, not one statement per row: the lexeme counts' statement trigger
            # (memoryd/storage/pg_term_stats.py) then upserts each lexeme once per batch. Row by row in one
            # transaction, a common lexeme's count row is updated once per row, and every upsert walks the versions
            # the transaction left behind: quadratic (the 100k-turn copy ran for more than 30 minutes).
            for start in range(0, len(rows), _BATCH):
                batch = rows[start : start + _BATCH]
                out.execute(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join([marks] * len(batch))}",
                    [bytes(v) if isinstance(v, memoryview) else v for r in batch for v in r],
                )
        if "id" in columns:
            dst.db.ids_given(table)
        copied[table] = len(rows)
    if fold:
        fold_deltas(dst)
    out.execute("ANALYZE")
    return copied


def fold_deltas(store: Store) -> int:
    """Fold every pending lexeme-count delta of `store` into its counts; returns the changes moved.

    The copy's INSERTs append one delta row per 1,000-row batch, each holding every lexeme of its batch; memoryd's
    TermFolder (started with each replica) folds them within 2 s. A copy nothing folds keeps all of them pending,
    and every reader of the counts (document frequencies, BM25's N, the keyword ranking's match estimate) then
    unnests every lexeme of every batch on every call: bench_pg_search's PostgreSQL cell measured that store, not
    memoryd's (docs/postgres_search.md, eighth pass)."""
    endpoint = pg_endpoint(store)
    assert endpoint is not None
    fold = PgTermFold(endpoint.connect, endpoint.schema)
    moved = 0
    try:
        while done := fold.fold_once():
            moved += done
    finally:
        fold.close()
    return moved


def pg_twin(src: Store, dsn: str, schema: str, model: str, dimension: int, *, fold: bool = True) -> Twin:
    """Open `schema` on the server at `dsn`, copy `src` into it (copy_rows), fill and index every agent's vectors."""
    started = time.perf_counter()
    dst = open_store(dsn, schema=schema)
    rows = copy_rows(src, dst, fold=fold)
    copy_s = time.perf_counter() - started
    vectors = pg_vector_store(dst)
    assert vectors is not None
    registry = PgVectorRegistry(vectors, dst.embeddings)
    started = time.perf_counter()
    # HNSW builds in memory when maintenance_work_mem holds the graph; this thread's connection builds them.
    assert isinstance(dst.db, PgDatabase)
    dst.db.percent_queries().execute("SET maintenance_work_mem = '1GB'")
    agents = [
        str(r[0]) for r in dst.db.query("SELECT DISTINCT agent_id FROM embeddings WHERE model = ?", (model,))
    ]
    probe = np.ones(dimension, dtype=np.float32)
    for agent in agents:
        registry.search(
            agent, KINDS[0], model, probe, 1
        )  # the first search refills the partition from the table
    dst.db.percent_queries().execute("ANALYZE")
    return Twin(dst, dst.db, registry, copy_s, time.perf_counter() - started, rows)
