"""pgvector storage of memory vectors: one LIST partition per agent, HNSW (cosine, halfvec) per kind inside it.

Layout. `vectors` is partitioned BY LIST (agent_id); an agent's partition is created the first time it gets a
vector (or a model) and dropped with the agent. Every statement here names the agent's partition itself (and still
filters on agent_id), so no query for one agent can read a page of another's rows: isolation is structural, not a
filter the planner might reorder. Inside a partition each kind has a partial HNSW index
(`WHERE kind = '<kind>'`) on `embedding::halfvec(<dimension>)`, so a pinned-facts search never walks the agent's
transcript graph (as vectors/agent_index.py keeps one faiss index per kind).

Why halfvec: memoryd's faiss index already stores fp16 (agent_index.py); halfvec halves the heap and the HNSW
against vector (docs/scaling.md: 1,170 vs 2,048 B per vector in the HNSW at 384-d) and keeps the row narrow enough
to stay out of TOAST.

Model. A partition holds one model's vectors; `vector_agents` records which (and its dimension, fixed by the
index's typmod). Switching an agent to another model empties its partition and rebuilds the indexes for the new
dimension (pg_registry.py refills it from the embeddings table). All of it lives in the database: replicas share it.
"""

from __future__ import annotations

import operator
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import psycopg

from memoryd.domain import KINDS, MemoryRow, now_ms
from memoryd.storage.pg_db import PgDatabase
from memoryd.storage.pg_halfvec import HalfvecParam, halfvec_param
from memoryd.storage.pg_names import literal, partition_name, quoted_schema
from memoryd.storage.pg_sql import PgQueries
from memoryd.storage.rows import row_by_id_sql, row_from_record
from memoryd.storage.tables import VECTOR_KINDS

if TYPE_CHECKING:
    from memoryd.storage.store import Store

#: HNSW build parameters (pgvector's defaults; docs/scaling.md measured sizes with them).
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
#: Kinds of an agent with at most this many vectors are scanned exactly instead of through HNSW.
EXACT_ROWS = 2000
#: How long a kind's size class (exact scan or HNSW) is reused before it is counted again. It was counted inside
#: every search (one statement with both branches: ~0.4 ms of a 3.5 ms 100k-row search, and a plan holding both).
SIZE_TTL_S = 30.0
#: Candidates HNSW keeps while searching; a search for k rows uses max(this, k), so memoryd's searches (k = 100)
#: walk with ef_search = k. 200 (the earlier setting) cost ~1.3-1.6x the time per 100k-row search for ~12 points
#: more recall@100 on bench_assemble's fake-model vectors (bench_pg_search, part assemble, measures both).
EF_SEARCH = 100
#: kind → the most rows an HNSW walk of that kind returns, whatever k the caller asks for (ef_search follows it);
#: kinds not named return k. Exact scans are not capped (their cost does not depend on k). Empty: capping the
#: transcript or every kind at 50 changed placed blocks that k = 100 places (docs/postgres_search.md, sixth pass);
#: bench/pg_walk_probe.py compares caps.
WALK_ROWS: dict[str, int] = {}
#: pgvector 0.8's iterative scans, per walk. A walk runs without them (`off`): it returns the ef_search nearest
#: candidates it found, in order, which are all of its rows whenever it finds k of them. Only a walk that returns
#: fewer than k rows (dead or invisible tuples among its candidates) is run again with `strict_order`, which resumes
#: the walk, in order, until it has k: the same rows as a `strict_order` walk every time, without its cost on every
#: walk (it keeps every candidate the walk discards in a heap, in case it must resume: at k = ef = 100 the 100k-row
#: transcript walk cost ~1.25x as much; docs/postgres_search.md, seventh pass).
ITERATIVE_SCAN = "off"
RESUMED_SCAN = "strict_order"
#: After a walk of a kind fell short, that kind walks with RESUMED_SCAN at once for this long: deleted vectors stay
#: in the graph as dead tuples until a vacuum, and then many walks would fall short and run twice.
SHORT_TTL_S = 30.0
#: Session settings of the connections that search (pg_session.py sends each once per connection). Parallel query is
#: off: the exact branch of nearest_sql (a Sort over a Seq Scan of a large kind) was planned as a Gather Merge, and
#: its two workers were launched on every HNSW search although the branch's one-time filter is false (~16 ms per
#: 100k-row search in EXPLAIN ANALYZE, and two more processes on the cores the other searches need).
SEARCH_SETTINGS: tuple[tuple[str, str], ...] = (("max_parallel_workers_per_gather", "0"),)
#: The query vector is bound in halfvec's binary form (pg_halfvec.py: the same half-precision values the text form
#: gave, without formatting 384 floats as text under the GIL: ~6 µs against ~215 µs per search). False: the text.
BINARY_QUERY = True


def vector_ddl(schema: str) -> list[str]:
    """The catalog and the partitioned parent table (partitions come with each agent)."""
    s = quoted_schema(schema)
    return [
        f"CREATE TABLE IF NOT EXISTS {s}.vector_agents (agent_id text PRIMARY KEY, partition text NOT NULL UNIQUE, "
        f"model text NOT NULL DEFAULT '', dimension integer NOT NULL DEFAULT 0, updated_at_ms bigint NOT NULL "
        f"DEFAULT 0)",
        f"CREATE TABLE IF NOT EXISTS {s}.vectors (agent_id text NOT NULL, kind text NOT NULL, row_id bigint NOT "
        f"NULL, embedding halfvec NOT NULL, PRIMARY KEY (agent_id, kind, row_id)) PARTITION BY LIST (agent_id)",
        # Deleting source rows deletes their vectors, whoever deletes them (as the embeddings table's triggers do).
        f"CREATE OR REPLACE FUNCTION {s}.search_delete_vectors() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN DELETE FROM {s}.vectors v USING gone g WHERE v.agent_id = g.agent_id AND v.kind = TG_ARGV[0] "
        f"AND v.row_id = g.id; RETURN NULL; END $fn$",
        *(
            f"CREATE OR REPLACE TRIGGER {source}_vectors_ad AFTER DELETE ON {s}.{source} REFERENCING OLD TABLE AS "
            f"gone FOR EACH STATEMENT EXECUTE FUNCTION {s}.search_delete_vectors('{kind}')"
            for source, kind in VECTOR_KINDS.items()
        ),
    ]


@dataclass(frozen=True)
class AgentVectors:
    """The catalog entry of one agent: its partition, and the model and dimension its vectors are in."""

    agent_id: str
    partition: str
    model: str
    dimension: int


def _check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    return kind


def _check_limit(k: int) -> int:
    """k as a literal LIMIT: a positive integer (numpy's included), never anything else in the statement's text."""
    limit = operator.index(k)
    if limit < 1:
        raise ValueError("k must be a positive integer")
    return limit


def vector_text(vector: npt.NDArray[np.float32]) -> str:
    """pgvector's text form, rounded to 6 decimals (halfvec keeps ~3 significant digits)."""
    return "[" + ",".join(str(x) for x in np.round(vector.astype(np.float64), 6).tolist()) + "]"


def query_param(vector: npt.NDArray[np.float32], *, binary: bool = BINARY_QUERY) -> HalfvecParam | str:
    """The query vector as nearest_sql's `v` parameter: halfvec's binary form (pg_halfvec.py), or the text form
    when `binary` is off or the vector is not a valid halfvec (the server then refuses it as before: a
    DataException, which _search answers as before)."""
    flat = vector.reshape(-1)
    if binary:
        try:
            return halfvec_param(flat)
        except ValueError:
            pass
    return vector_text(flat)


class PgVectorStore:
    """The SQL of the per-agent vector partitions."""

    def __init__(
        self,
        db: PgQueries,
        schema: str,
        *,
        ef_search: int = EF_SEARCH,
        walk_rows: Mapping[str, int] | None = None,
        binary_query: bool = BINARY_QUERY,
    ) -> None:
        self._db = db
        #: Bind the query vector in halfvec's binary form (BINARY_QUERY), else as text.
        self.binary_query = binary_query
        self._s = quoted_schema(schema)
        self._schema = schema
        self._ef_search = ef_search
        #: kind → at most this many rows from an HNSW walk (WALK_ROWS); exact scans return all k asked for.
        self._walk_rows = dict(WALK_ROWS if walk_rows is None else walk_rows)
        #: (partition, kind) → (scanned exactly, when counted): _is_exact's memo.
        self._sizes: dict[tuple[str, str], tuple[bool, float]] = {}
        self._sizes_lock = threading.Lock()
        #: (partition, kind) → when a walk of it last returned fewer than k rows (SHORT_TTL_S).
        self._short: dict[tuple[str, str], float] = {}

    def _lock(self, agent_id: str) -> None:
        """Serialise partition DDL of one agent across replicas (inside a transaction)."""
        self._db.execute("SELECT pg_advisory_xact_lock(hashtextextended('vectors:' || %s, 0))", (agent_id,))

    def agent(self, agent_id: str) -> AgentVectors | None:
        """The agent's catalog entry, or None when it never had vectors."""
        rows = self._db.query(
            f"SELECT partition, model, dimension FROM {self._s}.vector_agents WHERE agent_id = %s",
            (agent_id,),
        )
        if not rows:
            return None
        partition, model, dimension = rows[0]
        return AgentVectors(agent_id, str(partition), str(model), int(dimension))

    def switch_model(
        self, agent_id: str, model: str, dimension: int, *, with_indexes: bool = True
    ) -> AgentVectors:
        """Make `model` (vectors of `dimension`) the agent's model: creates its partition if needed; when the
        model or dimension changes, the partition is emptied and its indexes rebuilt for the new dimension."""
        if dimension < 1 or dimension > 4000:
            raise ValueError("halfvec HNSW indexes take 1 to 4000 dimensions")
        part = partition_name(agent_id)
        with self._db.transaction():
            self._lock(agent_id)
            current = self.agent(agent_id)
            if current is not None and current.model == model and current.dimension == dimension:
                return current
            self._db.execute(
                f"CREATE TABLE IF NOT EXISTS {self._s}.{part} PARTITION OF {self._s}.vectors "
                f"FOR VALUES IN ({literal(agent_id)})"
            )
            self._db.execute(f"TRUNCATE {self._s}.{part}")
            for kind in KINDS:
                self._db.execute(f"DROP INDEX IF EXISTS {self._s}.{part}_{kind}")
            self._db.execute(
                f"INSERT INTO {self._s}.vector_agents (agent_id, partition, model, dimension, updated_at_ms) "
                f"VALUES (%s, %s, %s, %s, %s) ON CONFLICT (agent_id) DO UPDATE SET model = excluded.model, "
                f"dimension = excluded.dimension, updated_at_ms = excluded.updated_at_ms",
                (agent_id, part, model, dimension, now_ms()),
            )
            if with_indexes:
                self.create_indexes(agent_id)
        return AgentVectors(agent_id, part, model, dimension)

    def create_indexes(self, agent_id: str) -> None:
        """The partial HNSW index of each kind on the agent's partition (no-op for those that exist)."""
        current = self.agent(agent_id)
        if current is None:
            return
        d = current.dimension
        for kind in KINDS:
            self._db.execute(
                f"CREATE INDEX IF NOT EXISTS {current.partition}_{kind} ON {self._s}.{current.partition} "
                f"USING hnsw ((embedding::halfvec({d})) halfvec_cosine_ops) "
                f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) WHERE kind = '{kind}'"
            )

    def analyze(self, agent_id: str) -> None:
        """Planner statistics of the agent's partition, at once. A partition filled in bulk has none until
        autovacuum gets to it (up to a minute, longer while it works through other tables after the same load), and
        without them the planner takes `agent_id = …` for a 0.5% match and orders the kind by distance through a
        btree and a Sort: an exact scan of every vector of the kind on every search (~100 ms at 100k vectors, and
        exact rows where the walk's are expected), custom and generic plans alike (docs/postgres_search.md,
        seventh pass). Run after a refill, and by _is_exact when a kind to be walked finds none."""
        current = self.agent(agent_id)
        if current is not None:
            self._db.execute(f"ANALYZE {self._s}.{current.partition}")

    def put(
        self, agent: AgentVectors, kind: str, row_ids: Sequence[int], vectors: npt.NDArray[np.float32]
    ) -> int:
        """Insert or replace vectors of rows of one kind (the agent's model and dimension); returns how many."""
        _check_kind(kind)
        if len(row_ids) != len(vectors):
            raise ValueError("one vector per row id")
        if len(row_ids) and int(vectors.shape[1]) != agent.dimension:
            raise ValueError("vector dimension differs from the agent's model")
        # halfvec's binary form when every vector has one (the same stored values as their text, pg_halfvec.py:
        # ~6 µs against ~215 µs of Python a vector); else the text, which the server refuses as before.
        embeddings: list[HalfvecParam | str] = [query_param(v, binary=self.binary_query) for v in vectors]
        binary = all(isinstance(e, HalfvecParam) for e in embeddings)
        if not binary:
            embeddings = [vector_text(v) for v in vectors]
        rows = [(agent.agent_id, kind, int(i), e) for i, e in zip(row_ids, embeddings, strict=True)]
        if rows:
            self._db.executemany(
                f"INSERT INTO {self._s}.{agent.partition} (agent_id, kind, row_id, embedding) "
                f"VALUES (%s, %s, %s, {'%b' if binary else '%s'}::halfvec) ON CONFLICT (agent_id, kind, row_id) "
                f"DO UPDATE SET embedding = excluded.embedding",
                rows,
            )
        return len(rows)

    def delete(self, agent: AgentVectors, kind: str, row_ids: Sequence[int]) -> int:
        """Delete vectors of rows of one kind; returns how many were there."""
        _check_kind(kind)
        if not row_ids:
            return 0
        return self._db.execute(
            f"DELETE FROM {self._s}.{agent.partition} WHERE agent_id = %s AND kind = %s AND row_id = ANY(%s)",
            (agent.agent_id, kind, [int(i) for i in row_ids]),
        )

    def nearest_sql(
        self, agent: AgentVectors, kind: str, *, exact: bool = False, k: int | None = None
    ) -> str:
        """The nearest-rows statement of one agent and kind (named params v: the query vector, query_param()'s;
        agent; and k unless `k` is given): an exact scan (every distance computed, as faiss does) or the walk of the
        kind's HNSW index. `v` is a binary placeholder (`%(v)b`) when binary_query is on: a HalfvecParam binds with
        no type and the cast names it, so the server reads it once (halfvec_recv). With it off, `%(v)s` as before
        (a text of unknown type, read once by halfvec_in). A text bound at `%(v)b` is typed text and cast through
        halfvec_in wherever the statement evaluates it (every row's distance: ~6 ms more server CPU per assembly,
        pgread9's probe), so only a vector the server refuses anyway goes that way (query_param).

        With `k` given the limit is part of the text, so PostgreSQL can keep one generic plan of the prepared
        statement (psycopg prepares it after a few runs): with the limit a parameter, the generic plan's estimate
        (10% of the rows) never beat the custom plan's, and every run planned again (~0.3 ms of the server's CPU
        per search with the joined rows, docs/postgres_search.md, seventh pass)."""
        limit = "%(k)s" if k is None else str(_check_limit(k))
        d = agent.dimension
        where = f"agent_id = %(agent)s AND kind = '{_check_kind(kind)}'"
        v = "%(v)b" if self.binary_query else "%(v)s"
        distance = f"embedding::halfvec({d}) <=> {v}::halfvec({d})"
        order = f"({distance}) + 0" if exact else distance  # + 0: not an index order, so no HNSW walk
        return (
            f"SELECT row_id, {distance} AS distance FROM {self._s}.{agent.partition} WHERE {where} "
            f"ORDER BY {order} LIMIT {limit}"
        )

    def _is_exact(self, agent: AgentVectors, kind: str) -> bool:
        """Whether the kind is small enough (at most EXACT_ROWS vectors) to be scanned exactly: as fast as the graph
        at that size, and exact, where a small HNSW graph can return fewer than k rows. Counted (at most
        EXACT_ROWS + 1 index entries) once per SIZE_TTL_S per agent and kind: a stale answer only costs time (an
        exact scan of a kind that just grew, or an HNSW walk of one that shrank, which walks again with its iterative
        scan resumed). A kind to be walked in a partition without planner statistics gets them first (analyze())."""
        key = (agent.partition, kind)
        with self._sizes_lock:
            held = self._sizes.get(key)
        if held is not None and time.monotonic() - held[1] < SIZE_TTL_S:
            return held[0]
        counted, analyzed = self._db.query(
            f"SELECT (SELECT count(*) FROM (SELECT 1 FROM {self._s}.{agent.partition} WHERE agent_id = %s AND "
            f"kind = %s LIMIT {EXACT_ROWS + 1}) AS x), EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = %s AND "
            f"tablename = %s AND attname = 'agent_id')",
            (agent.agent_id, _check_kind(kind), self._schema, agent.partition),
        )[0]
        count = int(counted or 0)
        if count > EXACT_ROWS and not analyzed:
            self.analyze(agent.agent_id)
        with self._sizes_lock:
            self._sizes[key] = (count <= EXACT_ROWS, time.monotonic())
        return count <= EXACT_ROWS

    def nearest_rows_sql(
        self, agent: AgentVectors, kind: str, k: int, rows: int, *, exact: bool = False
    ) -> str:
        """nearest_sql (its `k` nearest) joined to the kind's table in the same statement: each nearest row's id and
        distance, then, for the first `rows` of them, its active row's columns (storage/rows.py:row_from_record's;
        NULLs for a row no longer active or further down), in the order of the nearest-rows statement. k and rows
        are part of the text (nearest_sql: one generic plan)."""
        near = self.nearest_sql(agent, kind, exact=exact, k=k)
        # The id is NULL past the first `rows`: an index condition no key matches, so those cost no probe (a filter
        # on `place` was applied after probing all k, as a join filter).
        row = row_by_id_sql(
            kind, f"(CASE WHEN n.place <= {max(int(rows), 0)} THEN n.row_id END)", "%(agent)s"
        )
        return (
            f"SELECT n.row_id, n.distance, r.* FROM (SELECT row_id, distance, row_number() OVER () AS place "
            f"FROM ({near}) AS q) AS n LEFT JOIN LATERAL ({row}) AS r ON true ORDER BY n.place"
        )

    def _search(
        self, agent: AgentVectors, kind: str, vector: npt.NDArray[np.float32], k: int, *, rows: int | None
    ) -> list[tuple[Any, ...]] | None:
        """The records of nearest() (rows None) or nearest_rows(); None when the partition no longer exists."""
        try:
            exact = self._is_exact(agent, kind)
            if not exact:
                k = min(k, self._walk_rows.get(kind, k))
            params = {"v": query_param(vector, binary=self.binary_query), "agent": agent.agent_id}
            # Session-level, not SET LOCAL: a transaction here would take the store's write lock on every search.
            # They only concern HNSW scans, and each one makes them first (a round trip only when they change).
            self._db.setting("hnsw.ef_search", str(max(self._ef_search, k)))
            for name, value in SEARCH_SETTINGS:
                self._db.setting(name, value)
            sql = (
                self.nearest_rows_sql(agent, kind, k, rows, exact=exact)
                if rows is not None
                else self.nearest_sql(agent, kind, exact=exact, k=k)
            )
            if exact:
                return self._db.query(sql, params)
            key = (agent.partition, kind)
            with self._sizes_lock:
                resumed = time.monotonic() - self._short.get(key, -SHORT_TTL_S) < SHORT_TTL_S
            self._db.setting("hnsw.iterative_scan", RESUMED_SCAN if resumed else ITERATIVE_SCAN)
            records = self._db.query(sql, params)
            if not resumed and len(records) < k:
                # The walk ended short of k rows: walk again, resuming until k (ITERATIVE_SCAN's comment).
                with self._sizes_lock:
                    self._short[key] = time.monotonic()
                self._db.setting("hnsw.iterative_scan", RESUMED_SCAN)
                records = self._db.query(sql, params)
            return records
        except (psycopg.errors.UndefinedTable, psycopg.errors.DataException):
            with self._sizes_lock:
                self._sizes.pop((agent.partition, kind), None)
            return None

    def nearest(
        self, agent: AgentVectors, kind: str, vector: npt.NDArray[np.float32], k: int
    ) -> list[tuple[int, float]] | None:
        """(row id, cosine similarity) of the agent's `k` nearest rows of `kind`, nearest first; None when the
        partition no longer exists (the agent was deleted, or switched model, since `agent` was read)."""
        if k < 1 or int(vector.shape[-1]) != agent.dimension:
            return []
        records = self._search(agent, kind, vector, k, rows=None)
        if records is None:
            return None
        return [(int(r[0]), 1.0 - float(r[1])) for r in records]

    def nearest_rows(
        self, agent: AgentVectors, kind: str, vector: npt.NDArray[np.float32], k: int, rows: int
    ) -> tuple[list[tuple[int, float]], dict[int, MemoryRow]] | None:
        """nearest()'s ranking and, from the same statement, the active rows among its first `rows` (what
        RowStore.fetch(kind, agent, ids) returns for those ids): one round trip instead of two. Only the rows the
        caller reads at once are joined: joining all k = 100 (transcript 10.4 → 12.2 ms p50 against the search and
        a separate 13-row load, interleaved at load ~8) cost more than the round trip it saves."""
        if k < 1 or int(vector.shape[-1]) != agent.dimension:
            return [], {}
        records = self._search(agent, kind, vector, k, rows=max(rows, 0))
        if records is None:
            return None
        ranking = [(int(r[0]), 1.0 - float(r[1])) for r in records]
        found = {int(r[0]): row_from_record(kind, r[2:]) for r in records if r[2] is not None}
        return ranking, found

    def count(self, agent_id: str) -> int:
        """Vectors held for the agent (0 without a partition)."""
        current = self.agent(agent_id)
        if current is None:
            return 0
        return int(
            self._db.scalar(
                f"SELECT count(*) FROM {self._s}.{current.partition} WHERE agent_id = %s", (agent_id,)
            )
            or 0
        )

    def drop_agent(self, agent_id: str) -> int:
        """Drop the agent's partition and catalog entry; returns how many vectors it held."""
        with self._db.transaction():
            self._lock(agent_id)
            current = self.agent(agent_id)
            if current is None:
                return 0
            held = self.count(agent_id)
            self._db.execute(f"DROP TABLE IF EXISTS {self._s}.{current.partition}")
            self._db.execute(f"DELETE FROM {self._s}.vector_agents WHERE agent_id = %s", (agent_id,))
        return held

    def table_bytes(self) -> int:
        """Bytes of every vector partition with its indexes."""
        return int(
            self._db.scalar(
                "SELECT coalesce(sum(pg_total_relation_size(relid)), 0) FROM pg_partition_tree(%s::regclass)",
                (f"{self._s}.vectors",),
            )
            or 0
        )


def pg_vector_store(store: Store) -> PgVectorStore | None:
    """The vector partitions of a store on PostgreSQL (in its schema, on its connections); None on SQLite."""
    if not isinstance(store.db, PgDatabase):
        return None
    return PgVectorStore(store.db.percent_queries(), store.db.schema)
