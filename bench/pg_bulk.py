"""bench_write's bulk-load case on PostgreSQL (issue 21): transcript rows written in ONE transaction, under the
lexeme-count triggers memoryd ships (append-only deltas, memoryd/storage/pg_term_stats.py) and under the upserting
triggers they replaced (`upsert_trigger_statements`, kept here as the before arm), in one run on one server.

- Single-row INSERTs in one transaction (an Import or a seeding script row by row): time per row over the first and
  the last 10% of the rows. Flat means bounded: the upserting triggers walked the transaction's own dead versions of
  every common lexeme's count row on each statement, so their per-row time grows with the transaction. The
  deltas arm writes BULK_ROWS rows; the upsert arm UPSERT_ROWS (its end is already far slower).
- Ingest's shape: INGEST_ROWS rows in one transaction as single-row statements (the old Ingest) or multi-row
  INSERTs of memoryd.storage.transcript.INSERT_BATCH rows (Ingest now), under each trigger design.
- The fold: the seconds TermFolder takes to move the bulk load's deltas into search_terms after its commit.
- The row language rule (pg_search_schema's search_language, inside every row's generated tsvector): the rule as
  shipped against the one before it (`OLD_LANGUAGE_ORDER`), over the same rows, interleaved: ms per row and whether
  any row's answer differs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from memoryd.replication.term_fold import TermFolder
from memoryd.storage import pg_term_stats
from memoryd.storage.pg_names import quoted_schema
from memoryd.storage.store import open_store
from memoryd.storage.transcript import INSERT_BATCH

BULK_ROWS = 20_000
UPSERT_ROWS = 3_000
INGEST_ROWS = 2_000
INGEST_ROUNDS = 2
#: One row's text: a user turn of a typical length with a number that makes some lexemes rare.
TEXT = "Can you remind me which Postgres index type suits prefix search on product codes in our catalog, item {i}?"
DELTAS, UPSERT = "append-only deltas (now)", "upserting triggers (before)"
#: The language rule's ORDER BY before and now (search_language's body is otherwise the same).
NEW_LANGUAGE_ORDER = "ORDER BY length(to_tsvector(v.stop, t)), v.ord"
OLD_LANGUAGE_ORDER = (
    "ORDER BY length(to_tsvector('pg_catalog.simple', t)) - length(to_tsvector(v.stop, t)) DESC, v.ord"
)
LANGUAGE_ROUNDS = 3


def upsert_trigger_statements(schema: str) -> list[str]:
    """The trigger functions memoryd shipped before the deltas: each statement's changes upserted straight into
    search_terms (the before arm; the triggers themselves keep their names and call these)."""
    s = quoted_schema(schema)
    upsert = (
        f"INSERT INTO {s}.{pg_term_stats.TABLE} AS t (agent_id, source, lexeme, rows) "
        f"SELECT d.agent_id, TG_TABLE_NAME, d.lexeme, sum(d.n) FROM ({{changes}}) AS d GROUP BY d.agent_id, "
        f"d.lexeme HAVING sum(d.n) <> 0 ORDER BY d.agent_id, d.lexeme "
        f"ON CONFLICT (agent_id, source, lexeme) DO UPDATE SET rows = t.rows + excluded.rows"
    )
    lexemes = (
        "SELECT r.agent_id, l.lexeme, {sign} AS n FROM {table} AS r "
        "CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_vector)) AS l(lexeme)"
    )
    bodies = {
        "search_terms_added": upsert.format(changes=lexemes.format(sign=1, table="added")),
        "search_terms_gone": upsert.format(changes=lexemes.format(sign=-1, table="gone")),
    }
    return [
        f"CREATE OR REPLACE FUNCTION {s}.{name}() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN {body}; "
        f"RETURN NULL; END $fn$"
        for name, body in bodies.items()
    ]


@dataclass(frozen=True)
class BulkFigures:
    """Per-row ms at the start and end of the single-row loads, Ingest-shaped loads' ms/row, the fold's seconds."""

    single: dict[str, tuple[int, float, float]]
    ingest: dict[tuple[str, str], float]
    fold_s: float
    folded: int
    #: ms per row of the language rule (before, now), and the rows whose answer differs.
    language_ms: tuple[float, float] = (0.0, 0.0)
    language_rows: int = 0
    language_differ: int = -1


def _store(dsn: str, schema: str, design: str) -> None:
    open_store(dsn, schema=schema).close()
    if design == UPSERT:
        with psycopg.connect(dsn, autocommit=True) as conn:
            for statement in upsert_trigger_statements(schema):
                conn.execute(statement.encode())


def _insert(conn: psycopg.Connection[Any], rows: Sequence[int]) -> None:
    marks = ", ".join(["('bulk', 'c', %s, 'user', %s, 1)"] * len(rows))
    conn.execute(
        "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
        f"VALUES {marks}".encode(),
        [v for i in rows for v in (i, TEXT.format(i=i))],
    )


def _load(dsn: str, schema: str, rows: int, batch: int) -> list[float]:
    """Seconds per statement, `rows` rows in `batch`-row INSERTs, all in one transaction."""
    times: list[float] = []
    with psycopg.connect(dsn) as conn:
        conn.execute(f"SET search_path TO {quoted_schema(schema)}, public".encode())
        with conn.transaction():
            for start in range(0, rows, batch):
                began = time.perf_counter()
                _insert(conn, range(start, min(rows, start + batch)))
                times.append(time.perf_counter() - began)
    return times


def measure(dsn: str) -> BulkFigures:
    """Every arm on fresh schemas of the server at `dsn`."""
    single: dict[str, tuple[int, float, float]] = {}
    ingest: dict[tuple[str, str], float] = {}
    fold_s, folded = 0.0, 0
    for number, (design, rows) in enumerate(((DELTAS, BULK_ROWS), (UPSERT, UPSERT_ROWS))):
        schema = f"bulk_{number}"
        _store(dsn, schema, design)
        times = _load(dsn, schema, rows, 1)
        tenth = rows // 10
        single[design] = (rows, sum(times[:tenth]) / tenth * 1e3, sum(times[-tenth:]) / tenth * 1e3)
        if design == DELTAS:
            folder = TermFolder(lambda: psycopg.connect(dsn, autocommit=True), schema)
            began = time.perf_counter()
            while folder.fold_once():
                pass
            fold_s, folded = time.perf_counter() - began, folder.folded
            folder.close()
    shapes = (("one row per statement", 1), (f"{INSERT_BATCH} rows per statement", INSERT_BATCH))
    for rnd in range(INGEST_ROUNDS):  # the designs' order alternates between rounds; the figure is their mean
        for design in (DELTAS, UPSERT) if rnd % 2 == 0 else (UPSERT, DELTAS):
            for shape, batch in shapes:
                schema = f"ingest_{rnd}_{(DELTAS, UPSERT).index(design)}_{batch}"
                _store(dsn, schema, design)
                ms = sum(_load(dsn, schema, INGEST_ROWS, batch)) / INGEST_ROWS * 1e3
                ingest[(design, shape)] = ingest.get((design, shape), 0.0) + ms / INGEST_ROUNDS
    before, now, rows, differ = _language(dsn, "ingest_0_0_1")
    return BulkFigures(single, ingest, fold_s, folded, (before, now), rows, differ)


def _language(dsn: str, schema: str) -> tuple[float, float, int, int]:
    """(ms per row before, now, rows, rows whose answer differs) of the language rule over `schema`'s transcript
    rows plus the frozen five-language set's documents (bench/languages/queries.jsonl), rounds interleaved."""
    import json
    from pathlib import Path

    s = quoted_schema(schema)
    docs = [
        doc
        for line in (Path(__file__).parent / "languages" / "queries.jsonl").read_text().splitlines()
        for doc in json.loads(line)["docs"]
    ]
    with psycopg.connect(dsn, autocommit=True) as conn:
        body = conn.execute(
            "SELECT prosrc FROM pg_proc WHERE proname = 'search_language' AND pronamespace = to_regnamespace(%s)",
            (schema,),
        ).fetchone()
        assert body is not None and NEW_LANGUAGE_ORDER in str(body[0])
        old = str(body[0]).replace(NEW_LANGUAGE_ORDER, OLD_LANGUAGE_ORDER)
        conn.execute(
            f"CREATE OR REPLACE FUNCTION {s}.search_language_before(t text) RETURNS text LANGUAGE sql IMMUTABLE "
            f"STRICT PARALLEL SAFE AS $fn${old}$fn$".encode()
        )
        conn.execute(f"CREATE TABLE {s}.language_texts AS SELECT content FROM {s}.transcript".encode())
        with conn.cursor().copy(f"COPY {s}.language_texts (content) FROM STDIN".encode()) as copy:
            for doc in docs:
                copy.write_row((doc,))
        rows = int(conn.execute(f"SELECT count(*) FROM {s}.language_texts".encode()).fetchone()[0])  # type: ignore[index]
        differ = int(
            conn.execute(  # type: ignore[index]
                f"SELECT count(*) FROM {s}.language_texts WHERE {s}.search_language(content) "
                f"IS DISTINCT FROM {s}.search_language_before(content)".encode()
            ).fetchone()[0]
        )
        spent = {"search_language_before": 0.0, "search_language": 0.0}
        for _ in range(LANGUAGE_ROUNDS):
            for function in spent:
                began = time.perf_counter()
                conn.execute(
                    f"SELECT count(*) FROM {s}.language_texts WHERE {s}.{function}(content) <> ''".encode()
                ).fetchall()
                spent[function] += time.perf_counter() - began
    per_row = [spent[f] / LANGUAGE_ROUNDS / rows * 1e3 for f in ("search_language_before", "search_language")]
    return per_row[0], per_row[1], rows, differ


def report(figures: BulkFigures) -> str:
    """The markdown section bench_write appends."""
    single = "\n".join(
        f"| {design} | {rows:,} | {start:.2f} | {end:.2f} | {end / start:.1f}× |"
        for design, (rows, start, end) in figures.single.items()
    )
    shapes = sorted({shape for _, shape in figures.ingest}, reverse=True)
    ingest = "\n".join(
        f"| {design} | " + " | ".join(f"{figures.ingest[(design, shape)]:.2f}" for shape in shapes) + " |"
        for design in (DELTAS, UPSERT)
    )
    return f"""### Bulk loads on PostgreSQL: the lexeme-count triggers in one long transaction

Same PostgreSQL, same run (`bench/pg_bulk.py`), fresh store schemas; rows of {len(TEXT.format(i=0))} characters for
one agent. "Before" is the same store with the trigger functions memoryd shipped until this change (each statement's
lexeme counts upserted into `search_terms`); "now" appends them to `search_term_deltas`, folded in the background.

Single-row INSERTs, all in one transaction (ms per row over the first and the last 10% of the rows):

| triggers | rows | first 10% ms/row | last 10% ms/row | end / start |
| --- | --- | --- | --- | --- |
{single}

After the {BULK_ROWS:,}-row load committed, the fold moved its {figures.folded:,} deltas into `search_terms` in
{figures.fold_s:.1f} s (batches of {pg_term_stats.FOLD_BATCH:,} delta rows, one per statement and agent, each its own transaction).

Ingest's write shape, {INGEST_ROWS:,} rows in one transaction (ms per row; the mean of {INGEST_ROUNDS} rounds, the
designs' order alternating):

| triggers | {" | ".join(shapes)} |
| --- | --- | --- |
{ingest}

The row language rule, {figures.language_rows:,} rows ({INGEST_ROWS:,} of the above and the five-language set's
documents), {LANGUAGE_ROUNDS} interleaved rounds: {figures.language_ms[0]:.3f} ms per row before (each of the five
candidates parsed the row under `simple` too), {figures.language_ms[1]:.3f} ms now; rows whose language differs:
**{figures.language_differ}**."""


__all__ = ["BULK_ROWS", "BulkFigures", "measure", "report", "upsert_trigger_statements"]
