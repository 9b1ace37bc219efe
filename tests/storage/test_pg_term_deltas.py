"""PostgreSQL's lexeme counts as append-only deltas folded in the background (storage/pg_term_stats.py,
replication/term_fold.py): after any mix of inserts, updates, forgets and deletes from two connections with
transactions open side by side, and folds between them, every (agent, table, lexeme) count equals counting the rows;
a fold moves every committed delta and none of an open transaction's; one replica folds at a time; a store whose
counts the upserting triggers kept gets the delta table and keeps its counts. Also the write side's cheaper language
rule (pg_search_schema.search_language): the same answers, and older stores get it when opened."""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

import psycopg

from memoryd.replication.term_fold import TermFolder
from memoryd.storage import pg_term_stats
from memoryd.storage.fts import MIRRORS
from memoryd.storage.pg_advisory import lock_key
from memoryd.storage.pg_coordination import Connect
from memoryd.storage.pg_sql import PgSql
from memoryd.storage.pg_term_fold import TERM_FOLD
from memoryd.storage.store import open_store
from tests.support.pg_search import new_search_schema, pg, postgres  # noqa: F401  (fixtures)

_WORDS = [
    "heron",
    "pond",
    "herons",
    "ponds",
    "the",
    "stood",
    "étang",
    "bleu",
    "zebra",
    "grazed",
    "river",
    "rivers",
    "walked",
    "walking",
    "a",
    "of",
    "and",
]
_AGENTS = ("a", "b")
#: Chunk indices never repeat (a unique key two open transactions could otherwise wait on each other for).
_CHUNKS = itertools.count()


def _autocommit(dsn: str) -> Connect:
    def connect() -> psycopg.Connection[Any]:
        return psycopg.connect(dsn, autocommit=True)

    return connect


def _mismatches(conn: psycopg.Connection[Any], schema: str, *, rows: bool = True) -> int:
    """(agent, source, lexeme) keys whose kept count differs from counting the rows, in ONE statement (one
    snapshot, so a fold committing meanwhile cannot make the two sides disagree). rows: the per-agent active-row
    counts (pg_term_stats.ROWS) too, against counting the active rows; else they are left out of both sides."""
    counted = " UNION ALL ".join(
        f"SELECT r.agent_id, '{source}' AS source, l.lexeme, count(*) AS rows FROM \"{schema}\".{source} AS r "
        f"CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_vector)) AS l(lexeme) GROUP BY r.agent_id, l.lexeme"
        + (
            f" UNION ALL SELECT r.agent_id, '{source}', '{pg_term_stats.ROWS}', count(*) FROM \"{schema}\".{source} "
            f"AS r WHERE {pg_term_stats.ACTIVE[source]} GROUP BY r.agent_id"
            if rows
            else ""
        )
        for source in pg_term_stats.SOURCES
    )
    kept = (
        f'SELECT agent_id, source, lexeme, sum(rows) AS rows FROM "{schema}".{pg_term_stats.COUNTS} '
        f"{'' if rows else f'WHERE lexeme <> {pg_term_stats.ROWS!r} '}"
        f"GROUP BY agent_id, source, lexeme HAVING sum(rows) <> 0"
    )
    row = conn.execute(
        f"WITH c AS ({counted}), k AS ({kept}) SELECT (SELECT count(*) FROM (SELECT * FROM c EXCEPT SELECT * FROM k) "
        f"AS x) + (SELECT count(*) FROM (SELECT * FROM k EXCEPT SELECT * FROM c) AS y)".encode()
    ).fetchone()
    assert row is not None
    return int(row[0])


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 9)))


def _step(conn: psycopg.Connection[Any], schema: str, rng: random.Random) -> None:
    """One random write: an insert (one row or several), a text change, a move to the other agent, a forget
    (status only: the text stays counted), or a delete; rows the other writer's open transaction holds are
    skipped (one thread drives both writers: waiting for the other would never end)."""
    s = f'"{schema}"'
    agent = rng.choice(_AGENTS)
    op = rng.random()
    if op < 0.35:
        rows = [(agent, next(_CHUNKS), _text(rng)) for _ in range(rng.choice((1, 1, 3)))]
        marks = ", ".join(["(%s, 'c', %s, 'user', %s, 1)"] * len(rows))
        conn.execute(
            f"INSERT INTO {s}.transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
            f"VALUES {marks}".encode(),
            [v for r in rows for v in r],
        )
    elif op < 0.45:
        conn.execute(
            f"INSERT INTO {s}.pinned_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES (%s, %s, 1, 1)".encode(),
            (agent, _text(rng)),
        )
    elif op < 0.55:
        conn.execute(
            f"INSERT INTO {s}.episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, "
            f"conversation_at_ms, created_at_ms) VALUES (%s, 'c', %s, %s, %s, 1, 1)".encode(),
            (agent, _text(rng), rng.choice(_WORDS), rng.choice(_WORDS)),
        )
    elif op < 0.7:
        table = rng.choice(("transcript", "pinned_facts"))
        conn.execute(
            f"UPDATE {s}.{table} SET content = %s WHERE id = (SELECT id FROM {s}.{table} WHERE agent_id = %s "
            f"ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED)".encode(),
            (_text(rng), agent),
        )
    elif op < 0.75:
        conn.execute(
            f"UPDATE {s}.transcript SET agent_id = %s WHERE id = (SELECT id FROM {s}.transcript ORDER BY random() "
            f"LIMIT 1 FOR UPDATE SKIP LOCKED)".encode(),
            (agent,),
        )
    elif op < 0.85:
        conn.execute(
            f"UPDATE {s}.pinned_facts SET status = 'forgotten' WHERE id = (SELECT id FROM {s}.pinned_facts "
            f"WHERE agent_id = %s ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED)".encode(),
            (agent,),
        )
    else:
        table = rng.choice(pg_term_stats.SOURCES)
        conn.execute(
            f"DELETE FROM {s}.{table} WHERE id IN (SELECT id FROM {s}.{table} WHERE agent_id = %s "
            f"ORDER BY random() LIMIT %s FOR UPDATE SKIP LOCKED)".encode(),
            (agent, rng.choice((1, 1, 2))),
        )


def test_random_writes_on_two_connections_and_folds_keep_every_count_exact(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    rng = random.Random(2121)
    connect = _autocommit(pg.dsn)
    folder = TermFolder(connect, schema, batch=37)  # small batches: a fold takes several
    first, second = (
        psycopg.connect(pg.dsn),
        psycopg.connect(pg.dsn),
    )  # two writers, each in its own transactions
    try:
        for _ in range(400):
            conn = rng.choice((first, second))
            _step(conn, schema, rng)
            roll = rng.random()
            if roll < 0.1:
                conn.commit()
            elif roll < 0.12:
                conn.rollback()
            elif roll < 0.18:
                folder.fold_once()  # the other writer's transaction stays open through it
            if rng.random() < 0.05:  # what a writer sees inside its open transaction is exact too
                assert _mismatches(conn, schema) == 0
        first.commit()
        second.commit()
        with connect() as check:
            assert _mismatches(check, schema) == 0
            assert check.execute(pg_term_stats.pending_sql(schema).encode()).fetchone() != (0,)
            folder.fold_once()
            assert check.execute(pg_term_stats.pending_sql(schema).encode()).fetchone() == (0,)
            assert _mismatches(check, schema) == 0
    finally:
        first.close()
        second.close()
        folder.close()
    assert folder.folded > 0


def test_a_fold_leaves_an_open_transactions_deltas_and_waits_for_no_one(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    connect = _autocommit(pg.dsn)
    folder = TermFolder(connect, schema)
    writer = psycopg.connect(pg.dsn)
    try:
        writer.execute(
            f'INSERT INTO "{schema}".transcript (agent_id, conversation_id, chunk_index, role, content, '
            "created_at_ms) VALUES ('a', 'c', 0, 'user', 'the heron stood', 1)".encode()
        )
        assert folder.fold_once() == 0  # nothing committed yet
        writer.commit()
        writer.execute(
            f'INSERT INTO "{schema}".transcript (agent_id, conversation_id, chunk_index, role, content, '
            "created_at_ms) VALUES ('a', 'c', 1, 'user', 'a heron again', 1)".encode()
        )
        assert (
            folder.fold_once() == 4
        )  # the committed row's three lexemes and its row count; the open one's stay
        writer.commit()
        with connect() as other:  # another replica folding: this one skips the round
            with other.transaction():
                other.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(f"{TERM_FOLD}:{schema}"),))
                assert folder.fold_once() is None
            assert folder.fold_once() == 4
            assert _mismatches(other, schema) == 0
            folded = other.execute(
                f"SELECT rows FROM \"{schema}\".search_terms WHERE agent_id = 'a' AND lexeme = 'heron'".encode()
            ).fetchone()
            assert folded == (2,)
    finally:
        writer.close()
        folder.close()


def test_a_store_kept_by_the_upserting_triggers_gets_the_deltas_and_keeps_its_counts(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    for i, text in enumerate(("The heron stood in the pond", "Two herons", "Ponds everywhere")):
        pg.execute(
            f'INSERT INTO "{schema}".transcript (agent_id, conversation_id, chunk_index, role, content, '
            "created_at_ms) VALUES ('a', 'c', %s, 'user', %s, 1)",
            (i, text),
        )
    folder = TermFolder(_autocommit(pg.dsn), schema)
    folder.fold_once()
    folder.close()
    # What a store from before the deltas looks like: folded counts only, no delta table (the triggers are
    # replaced by the upgrade in the same transaction, so no write comes in between).
    pg.execute(f'DROP TABLE "{schema}".{pg_term_stats.DELTAS} CASCADE')
    store = open_store(pg.dsn, schema=schema)  # the upgrade
    store.close()
    assert pg.scalar("SELECT to_regclass(%s) IS NOT NULL", (f'"{schema}".{pg_term_stats.COUNTS}',))
    pg.execute(
        f'INSERT INTO "{schema}".transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) '
        "VALUES ('a', 'c', 9, 'user', 'one more heron', 1)"
    )
    assert pg.scalar(pg_term_stats.pending_sql(schema)) == 4  # three lexemes and the row count
    with psycopg.connect(pg.dsn, autocommit=True) as check:
        assert _mismatches(check, schema) == 0


def test_a_store_with_a_delta_row_per_lexeme_gets_a_row_per_statement_and_keeps_its_counts(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    s = f'"{schema}"'
    insert = (
        f"INSERT INTO {s}.transcript (agent_id, conversation_id, chunk_index, role, content, created_at_ms) "
        "VALUES (%s, 'c', %s, 'user', %s, 1)"
    )
    pg.execute(insert, ("a", 0, "The heron stood in the pond"))
    folder = TermFolder(_autocommit(pg.dsn), schema)
    folder.fold_once()
    folder.close()
    # The first delta layout (one row per agent, source and lexeme), with deltas pending in it.
    pg.execute(f"DROP TABLE {s}.{pg_term_stats.DELTAS} CASCADE")
    pg.execute(
        f"CREATE TABLE {s}.{pg_term_stats.DELTAS} (agent_id text NOT NULL, source text NOT NULL, lexeme text NOT "
        "NULL, n bigint NOT NULL)"
    )
    pg.execute(
        f"CREATE VIEW {s}.{pg_term_stats.COUNTS} AS SELECT agent_id, source, lexeme, rows FROM "
        f"{s}.{pg_term_stats.TABLE} UNION ALL SELECT agent_id, source, lexeme, n FROM {s}.{pg_term_stats.DELTAS}"
    )
    pg.execute(
        f"CREATE OR REPLACE FUNCTION {s}.search_terms_added() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN "
        f"INSERT INTO {s}.{pg_term_stats.DELTAS} (agent_id, source, lexeme, n) SELECT r.agent_id, TG_TABLE_NAME, "
        "l.lexeme, count(*) FROM added AS r CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_vector)) "
        "AS l(lexeme) GROUP BY r.agent_id, l.lexeme; RETURN NULL; END $fn$"
    )
    for i, (agent, text) in enumerate((("a", "Two herons"), ("b", "Ponds everywhere"), ("a", "heron again"))):
        pg.execute(insert, (agent, i + 1, text))
    assert pg.scalar(f"SELECT count(*) FROM {s}.{pg_term_stats.DELTAS}") == 6
    with psycopg.connect(pg.dsn, autocommit=True) as check:
        assert _mismatches(check, schema, rows=False) == 0  # that function kept no row counts
    open_store(pg.dsn, schema=schema).close()  # the upgrade folds them and makes the table again
    assert not pg.scalar(pg_term_stats.per_lexeme_sql(), (schema,))
    assert pg.scalar(pg_term_stats.pending_sql(schema)) == 0
    with psycopg.connect(pg.dsn, autocommit=True) as check:
        assert _mismatches(check, schema) == 0
    pg.execute(insert, ("a", 9, "one more heron"))
    assert pg.scalar(f"SELECT count(*) FROM {s}.{pg_term_stats.DELTAS}") == 1  # one row for the statement
    assert pg.scalar(pg_term_stats.pending_sql(schema)) == 4  # three lexemes and the row count
    with psycopg.connect(pg.dsn, autocommit=True) as check:
        assert _mismatches(check, schema) == 0


def test_a_store_with_the_old_language_rule_gets_the_cheaper_one_with_the_same_answers(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    texts = [
        "Les élèves mangeaient des pommes dans la cour de l'école",
        "Die Kinder aßen die Äpfel auf dem Hof der Schule",
        "The children were eating apples in the school yard",
        "As crianças comiam maçãs no pátio da escola",
        "Los niños comían manzanas en el patio de la escuela",
        "heron 42",
    ]
    new = [pg.scalar(f'SELECT "{schema}".search_language(%s)', (t,)) for t in texts]
    body = str(
        pg.scalar(
            "SELECT prosrc FROM pg_proc WHERE proname = 'search_language' AND pronamespace = to_regnamespace(%s)",
            (schema,),
        )
    )
    old = body.replace(
        "ORDER BY length(to_tsvector(v.stop, t)), v.ord",
        "ORDER BY length(to_tsvector('pg_catalog.simple', t)) - length(to_tsvector(v.stop, t)) DESC, v.ord",
    )
    assert old != body
    pg.execute(
        f'CREATE OR REPLACE FUNCTION "{schema}".search_language(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT '
        f"PARALLEL SAFE AS $fn${old}$fn$"
    )
    assert [pg.scalar(f'SELECT "{schema}".search_language(%s)', (t,)) for t in texts] == new
    assert new == ["fr", "de", "en", "pt", "es", "en"]
    open_store(pg.dsn, schema=schema).close()  # the upgrade
    upgraded = pg.scalar(
        "SELECT prosrc FROM pg_proc WHERE proname = 'search_language' AND pronamespace = to_regnamespace(%s)",
        (schema,),
    )
    assert upgraded == body
    assert [pg.scalar(f'SELECT "{schema}".search_language(%s)', (t,)) for t in texts] == new


def _without_row_counts(body: str) -> str:
    """A trigger function's source as stores had it before the per-agent row counts."""
    without = re.sub(
        r" UNION ALL SELECT r\.agent_id, '' AS lexeme, -?1 AS n FROM (added|gone) AS r WHERE [^)]*?(?=\) AS c| UNION)",
        "",
        body,
    ).replace(f"/* {pg_term_stats.ROWS_TAG} */ ", "")
    assert without != body and "'' AS lexeme" not in without
    return without


def test_a_store_from_before_the_row_counts_gets_them_and_they_stay_exact(pg: PgSql) -> None:  # noqa: F811
    schema = new_search_schema(pg)
    s = f'"{schema}"'
    rng = random.Random(77)
    with psycopg.connect(pg.dsn, autocommit=True) as conn:
        for _ in range(60):
            _step(conn, schema, rng)
        folder = TermFolder(_autocommit(pg.dsn), schema)
        folder.fold_once()
        # What such a store looks like: trigger functions that append lexemes only, and no row counts.
        for name in ("search_terms_added", "search_terms_gone", "search_terms_changed"):
            body = str(
                conn.execute(
                    "SELECT prosrc FROM pg_proc WHERE proname = %s AND pronamespace = to_regnamespace(%s)",
                    (name, schema),
                ).fetchone()[0]  # type: ignore[index]
            )
            conn.execute(
                f"CREATE OR REPLACE FUNCTION {s}.{name}() RETURNS trigger LANGUAGE plpgsql AS "
                f"$fn${_without_row_counts(body)}$fn$".encode()
            )
        conn.execute(f"DELETE FROM {s}.{pg_term_stats.TABLE} WHERE lexeme = ''".encode())
        for _ in range(30):  # writes under the old functions: pending lexeme deltas, no row marks
            _step(conn, schema, rng)
        assert conn.execute(pg_term_stats.rows_missing_sql().encode(), (schema,)).fetchone() == (True,)
        assert _mismatches(conn, schema, rows=False) == 0
        assert _mismatches(conn, schema) > 0
        store = open_store(pg.dsn, schema=schema)  # the upgrade counts them and installs the functions
        assert conn.execute(pg_term_stats.rows_missing_sql().encode(), (schema,)).fetchone() == (False,)
        assert _mismatches(conn, schema) == 0
        for _ in range(100):  # and they stay exact through inserts, forgets, moves and deletes, folded or not
            _step(conn, schema, rng)
            if rng.random() < 0.1:
                folder.fold_once()
        assert _mismatches(conn, schema) == 0
        folder.fold_once()
        assert _mismatches(conn, schema) == 0
        # The read side's corpus size is the kept count: counting the active rows, per agent and kind.
        fts = store.fts
        for kind, mirror in MIRRORS.items():
            for agent in _AGENTS:
                counted = conn.execute(
                    f"SELECT count(*) FROM {s}.{mirror.source} AS s WHERE s.agent_id = %s AND "
                    f"{mirror.active_filter}".encode(),
                    (agent,),
                ).fetchone()
                assert counted is not None and counted[0] > 0
                assert fts.agent_text_stats(kind, agent)[0] == counted[0]
        folder.close()
        store.db.close_all()
