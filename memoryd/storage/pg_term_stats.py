"""Per-agent lexeme counts on PostgreSQL, kept by the database: BM25's document frequencies without reading rows.

A source table's (pinned_facts, episodes, transcript) count of rows whose `search_vector` holds a lexeme, per agent,
is `search_terms.rows` (the folded count) plus the `n` of every row of `search_term_deltas` with the same (agent,
source, lexeme) (the pending changes); `search_term_counts` is the UNION ALL of both, and every reader sums it for the
lexemes it wants (an index on each table's (agent_id, source, lexeme)). Rows of any status count, as the SQLite
mirrors count them.

Statement-level triggers with transition tables write the deltas, so every writer (whichever replica, whatever code
path) keeps the counts in step inside its own transaction: an INSERT appends +1 per new row and lexeme, a DELETE -1
per old row and lexeme, an UPDATE only for the rows whose tsvector (or agent) changed, each statement's changes
summed per (agent, lexeme) first; a TRUNCATE forgets the table's counts and deltas. The deltas are append-only:
no row is ever updated in a writer's transaction. (The triggers used to upsert `search_terms` directly: a common
lexeme's row then got a new version per statement, and a long transaction of single-row INSERTs walked its own
ever longer chain of dead versions on every upsert: 1.41 ms per row at 2,000 rows, 14 minutes for 116k rows.)

A background fold (`fold_sql`, memoryd.replication.term_fold: one replica at a time, under an advisory lock) moves
committed deltas into `search_terms` in one statement (`DELETE … RETURNING` summed and upserted), a bounded batch at
a time, so the delta table stays small and each folded count is updated once per batch rather than once per write.
A reader's snapshot sees either a batch's deltas or their folded sum, never both or neither.

A query term's document frequency is the sum over its distinct stems under the five configurations (pg_fts.py ORs
them in the match). Counting the rows instead (what this replaces) read every matching row from the heap, ~14 ms
for a term in 9,600 of 100k turns (docs/postgres_search.md). The sum equals that count unless one row holds two
different stems of the same term (a French and an English stem of one query word in the same row), where it counts
the row twice: a rare over-count, never an under-count.

The same deltas keep each agent's number of active rows per source (what BM25 takes as N, and what
`PgFtsIndex.agent_text_stats` used to count: ~100k rows read after every write): the pseudo-lexeme `ROWS` (the empty
string; no tsvector holds an empty lexeme, and no query term stems to one) gets +1 per row that becomes active for an
agent (inserted active, un-forgotten, moved to it) and -1 per row that stops being one, each statement's marks summed
per agent with its lexemes (an UPDATE that leaves activity and agent alone sums to zero and appends nothing). A
row is active by the kind's filter (`fts.MIRRORS`: pinned facts and episodes `status = 'active'`, every transcript
row).

Existing stores get the tables, view and triggers in place, once, under the schema's advisory lock
(pg_search_schema.upgrade): a store without counts is filled from its rows with the source tables locked against
writers until that transaction commits (`fill_statements`); a store with the upsert triggers keeps its counts and
gets the delta table and the new trigger functions.
"""

from __future__ import annotations

from memoryd.storage.fts import MIRRORS
from memoryd.storage.pg_names import quoted_schema

#: The source tables counted (pg_search_schema.SEARCH_COLUMNS's keys).
SOURCES = ("pinned_facts", "episodes", "transcript")
#: Folded counts, pending deltas, and the view readers sum.
TABLE = "search_terms"
DELTAS = "search_term_deltas"
COUNTS = "search_term_counts"
#: The pseudo-lexeme whose count is an agent's active rows of the source (tsvector lexemes are never empty).
ROWS = ""
#: Marks the trigger functions that keep ROWS (rows_missing_sql looks for it in the function's source).
ROWS_TAG = "keeps agent rows"
#: Each source's active-row condition on a row `r` (fts.MIRRORS' filters, written for alias `s` there).
ACTIVE = {m.source: m.active_filter.replace("s.", "r.") for m in MIRRORS.values()}
#: Delta rows (one per statement and agent) moved into search_terms per fold statement (one transaction each:
#: bounded however large a bulk load; a row of a 250-row INSERT holds a few thousand lexemes).
FOLD_BATCH = 5_000
#: The delta table is insert-then-delete: vacuumed after a few hundred dead rows rather than 20% of the table.
DELTA_AUTOVACUUM = (
    "autovacuum_vacuum_threshold = 500, autovacuum_vacuum_scale_factor = 0, "
    "autovacuum_vacuum_insert_threshold = -1"
)


def _delta_sql(s: str) -> str:
    """The append of one statement's changes, inside the trigger function (`added`/`gone` transition tables): one
    row per agent, its lexemes and their summed changes as two parallel arrays."""
    return (
        f"INSERT INTO {s}.{DELTAS} (agent_id, source, lexemes, ns) "
        f"SELECT d.agent_id, TG_TABLE_NAME, array_agg(d.lexeme ORDER BY d.lexeme), array_agg(d.n ORDER BY d.lexeme) "
        f"FROM (SELECT c.agent_id, c.lexeme, sum(c.n) AS n FROM ({{changes}}) AS c GROUP BY c.agent_id, c.lexeme "
        f"HAVING sum(c.n) <> 0) AS d GROUP BY d.agent_id"
    )


def _lexemes(table: str, sign: int, where: str = "") -> str:
    return (
        f"SELECT r.agent_id, l.lexeme, {sign} AS n FROM {table} AS r "
        f"CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_vector)) AS l(lexeme){where}"
    )


def _marks(table: str, sign: int, source: str) -> str:
    """The ROWS pseudo-lexeme's change for every active row of the transition table (summed with the lexemes: an
    UPDATE's +1 and -1 of a row that stays active, with the same agent, cancel out)."""
    return f"SELECT r.agent_id, '{ROWS}' AS lexeme, {sign} AS n FROM {table} AS r WHERE {ACTIVE[source]}"


def _per_source(body: dict[str, str]) -> str:
    """A trigger function's statements, one branch per source table: plpgsql plans a branch the first time it
    runs, so a source's active-row condition is never planned for a table without its columns."""
    branches = " ELSIF ".join(f"TG_TABLE_NAME = '{source}' THEN {sql};" for source, sql in body.items())
    return f"IF {branches} END IF;"


def ddl(schema: str) -> list[str]:
    """The tables, the view, the trigger functions and the triggers (safe to run again; fills nothing)."""
    s = quoted_schema(schema)
    append = _delta_sql(s)
    changed = (
        " WHERE NOT EXISTS (SELECT 1 FROM {other} AS o WHERE o.id = r.id AND o.agent_id = r.agent_id "
        "AND o.search_vector IS NOT DISTINCT FROM r.search_vector)"
    )
    inserted = _per_source(
        {
            src: append.format(changes=f"{_lexemes('added', 1)} UNION ALL {_marks('added', 1, src)}")
            for src in SOURCES
        }
    )
    deleted = _per_source(
        {
            src: append.format(changes=f"{_lexemes('gone', -1)} UNION ALL {_marks('gone', -1, src)}")
            for src in SOURCES
        }
    )
    updated = _per_source(
        {
            src: append.format(
                changes=_lexemes("added", 1, changed.format(other="gone"))
                + " UNION ALL "
                + _lexemes("gone", -1, changed.format(other="added"))
                + f" UNION ALL {_marks('added', 1, src)} UNION ALL {_marks('gone', -1, src)}"
            )
            for src in SOURCES
        }
    )
    statements = [
        f"CREATE TABLE IF NOT EXISTS {s}.{TABLE} (agent_id text NOT NULL, source text NOT NULL, lexeme text NOT "
        f"NULL, rows bigint NOT NULL, PRIMARY KEY (agent_id, source, lexeme))",
        f"CREATE TABLE IF NOT EXISTS {s}.{DELTAS} (agent_id text NOT NULL, source text NOT NULL, lexemes text[] "
        f"NOT NULL, ns bigint[] NOT NULL) WITH ({DELTA_AUTOVACUUM})",
        f"CREATE INDEX IF NOT EXISTS {DELTAS}_agent ON {s}.{DELTAS} (agent_id, source)",
        f"CREATE OR REPLACE VIEW {s}.{COUNTS} AS SELECT agent_id, source, lexeme, rows FROM {s}.{TABLE} "
        f"UNION ALL SELECT d.agent_id, d.source, u.lexeme, u.n FROM {s}.{DELTAS} AS d "
        f"CROSS JOIN LATERAL unnest(d.lexemes, d.ns) AS u(lexeme, n)",
        f"CREATE OR REPLACE FUNCTION {s}.search_terms_added() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN /* {ROWS_TAG} */ {inserted} RETURN NULL; END $fn$",
        f"CREATE OR REPLACE FUNCTION {s}.search_terms_gone() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN {deleted} RETURN NULL; END $fn$",
        f"CREATE OR REPLACE FUNCTION {s}.search_terms_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN {updated} RETURN NULL; END $fn$",
        f"CREATE OR REPLACE FUNCTION {s}.search_terms_truncated() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN DELETE FROM {s}.{TABLE} WHERE source = TG_TABLE_NAME; "
        f"DELETE FROM {s}.{DELTAS} WHERE source = TG_TABLE_NAME; RETURN NULL; END $fn$",
    ]
    for source in SOURCES:
        table = f"{s}.{source}"
        statements += [
            f"CREATE OR REPLACE TRIGGER {source}_terms_ai AFTER INSERT ON {table} REFERENCING NEW TABLE AS added "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {s}.search_terms_added()",
            f"CREATE OR REPLACE TRIGGER {source}_terms_ad AFTER DELETE ON {table} REFERENCING OLD TABLE AS gone "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {s}.search_terms_gone()",
            f"CREATE OR REPLACE TRIGGER {source}_terms_au AFTER UPDATE ON {table} REFERENCING OLD TABLE AS gone "
            f"NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION {s}.search_terms_changed()",
            f"CREATE OR REPLACE TRIGGER {source}_terms_at AFTER TRUNCATE ON {table} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {s}.search_terms_truncated()",
        ]
    return statements


def fold_sql(schema: str, batch: int = FOLD_BATCH) -> str:
    """One fold step: up to `batch` committed delta rows deleted and their sums added to search_terms, in one
    statement (so no snapshot sees them in both places or in neither). Returns one row: the delta rows moved and
    the (agent, source, lexeme) changes they held. The caller runs it under the fold's advisory lock, repeating
    while a full batch moved."""
    s = quoted_schema(schema)
    return (
        f"WITH moved AS (DELETE FROM {s}.{DELTAS} WHERE ctid = ANY(ARRAY(SELECT ctid FROM {s}.{DELTAS} "
        f"LIMIT {int(batch)})) RETURNING agent_id, source, lexemes, ns), "
        f"folded AS (INSERT INTO {s}.{TABLE} AS t (agent_id, source, lexeme, rows) SELECT m.agent_id, m.source, "
        f"u.lexeme, sum(u.n) FROM moved AS m CROSS JOIN LATERAL unnest(m.lexemes, m.ns) AS u(lexeme, n) "
        f"GROUP BY m.agent_id, m.source, u.lexeme HAVING sum(u.n) <> 0 "
        f"ORDER BY m.agent_id, m.source, u.lexeme ON CONFLICT (agent_id, source, lexeme) DO UPDATE "
        f"SET rows = t.rows + excluded.rows) "
        f"SELECT count(*), coalesce(sum(cardinality(lexemes)), 0) FROM moved"
    )


def pending_sql(schema: str) -> str:
    """The number of (agent, source, lexeme) changes not yet folded (exact, for tests and the bench)."""
    return f"SELECT coalesce(sum(cardinality(lexemes)), 0) FROM {quoted_schema(schema)}.{DELTAS}"


def per_lexeme_sql() -> str:
    """A statement (one `%s`: the schema name) that is true when the store's delta table is the first layout, one
    row per (agent, source, lexeme) (`relayout_statements` replaces it)."""
    return (
        "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = %s::text "
        f"AND table_name = '{DELTAS}' AND column_name = 'lexeme')"
    )


def relayout_statements(schema: str) -> list[str]:
    """A delta table of the first layout folded into search_terms and dropped, with the source tables locked
    against writers until the caller's transaction ends (no delta is appended to the old table meanwhile); ddl()
    then creates the new one."""
    s = quoted_schema(schema)
    return [
        f"LOCK TABLE {', '.join(f'{s}.{source}' for source in (*SOURCES, TABLE, DELTAS))} "
        f"IN SHARE ROW EXCLUSIVE MODE",
        f"INSERT INTO {s}.{TABLE} AS t (agent_id, source, lexeme, rows) SELECT agent_id, source, lexeme, sum(n) "
        f"FROM {s}.{DELTAS} GROUP BY agent_id, source, lexeme HAVING sum(n) <> 0 ORDER BY agent_id, source, lexeme "
        f"ON CONFLICT (agent_id, source, lexeme) DO UPDATE SET rows = t.rows + excluded.rows",
        f"DROP VIEW IF EXISTS {s}.{COUNTS}",
        f"DROP TABLE {s}.{DELTAS}",
    ]


def fill_statements(schema: str) -> list[str]:
    """Recount every agent's lexemes from the rows (an upgrade, or a repair): the tables are locked against
    writers first (until the caller's transaction ends), so no row is counted twice or missed."""
    s = quoted_schema(schema)
    statements = [
        f"LOCK TABLE {', '.join(f'{s}.{source}' for source in (*SOURCES, TABLE, DELTAS))} "
        f"IN SHARE ROW EXCLUSIVE MODE",
        f"DELETE FROM {s}.{TABLE}",
        f"DELETE FROM {s}.{DELTAS}",
    ]
    for source in SOURCES:
        statements.append(
            f"INSERT INTO {s}.{TABLE} (agent_id, source, lexeme, rows) SELECT r.agent_id, '{source}', l.lexeme, "
            f"count(*) FROM {s}.{source} AS r CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_vector)) "
            f"AS l(lexeme) GROUP BY r.agent_id, l.lexeme"
        )
    return statements + _row_fill(s)


def _row_fill(s: str) -> list[str]:
    """Every agent's active rows per source as the folded ROWS count (the source tables locked by the caller)."""
    return [
        f"INSERT INTO {s}.{TABLE} (agent_id, source, lexeme, rows) SELECT r.agent_id, '{source}', '{ROWS}', "
        f"count(*) FROM {s}.{source} AS r WHERE {ACTIVE[source]} GROUP BY r.agent_id"
        for source in SOURCES
    ]


def rows_missing_sql() -> str:
    """A statement (one `%s`: the schema name) that is true when the store's trigger functions keep no ROWS counts
    yet (a store made before them): `row_statements` then counts them once."""
    return (
        f"SELECT position('{ROWS_TAG}' IN prosrc) = 0 FROM pg_proc WHERE proname = 'search_terms_added' "
        "AND pronamespace = to_regnamespace(%s)"
    )


def row_statements(schema: str) -> list[str]:
    """The ROWS counts of a store made before them: the source tables locked against writers until the caller's
    transaction ends (which installs the trigger functions that keep them, ddl()), any ROWS count and delta dropped,
    and every agent's active rows counted."""
    s = quoted_schema(schema)
    return [
        f"LOCK TABLE {', '.join(f'{s}.{source}' for source in (*SOURCES, TABLE, DELTAS))} "
        f"IN SHARE ROW EXCLUSIVE MODE",
        f"DELETE FROM {s}.{TABLE} WHERE lexeme = '{ROWS}'",
        *_row_fill(s),
    ]


def agent_rows_sql(schema: str, source: str) -> str:
    """An agent's active rows of `source` (params: agent id) from the ROWS counts, folded and pending."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}")
    return (
        f"SELECT coalesce(sum(c.rows), 0) FROM {quoted_schema(schema)}.{COUNTS} AS c WHERE c.agent_id = %s "
        f"AND c.source = '{source}' AND c.lexeme = '{ROWS}'"
    )


def missing_sql(table: str = TABLE) -> str:
    """A statement (one `%s`: the schema name) that is true when the store has no `table` yet (TABLE: no term
    statistics at all; DELTAS: the counts kept by upserting triggers, before the delta table)."""
    return f"SELECT to_regclass(format('%%I.%%I', %s::text, '{table}')) IS NULL"


def frequencies_sql(schema: str, source: str, configs: str) -> str:
    """Document frequency of each query term (params: text[] of terms, agent id) from the counts: (term, rows)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}")
    s = quoted_schema(schema)
    return (
        f"SELECT t.term, coalesce(sum(c.rows), 0) FROM unnest(%s::text[]) AS t(term) "
        f"LEFT JOIN LATERAL (SELECT DISTINCT l.lexeme FROM unnest(ARRAY[{configs}]::regconfig[]) AS g(cfg), "
        f"unnest(tsvector_to_array(to_tsvector(g.cfg, {s}.search_fold(t.term)))) AS l(lexeme)) AS x ON true "
        f"LEFT JOIN {s}.{COUNTS} AS c ON c.agent_id = %s AND c.source = '{source}' AND c.lexeme = x.lexeme "
        f"GROUP BY t.term"
    )
