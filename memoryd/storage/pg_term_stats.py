"""Per-agent lexeme counts on PostgreSQL, kept by the database: BM25's document frequencies without reading rows.

`search_terms(agent_id, source, lexeme, rows)` holds, for each agent and source table (pinned_facts, episodes,
transcript), how many rows' `search_vector` hold each lexeme (rows of any status, as the SQLite mirrors count them).
Statement-level triggers with transition tables keep it, so every writer (whichever replica, whatever code path) keeps
it in step inside its own transaction: an INSERT adds the new rows' lexemes, a DELETE subtracts the old rows', an
UPDATE only the rows whose tsvector (or agent) changed, a TRUNCATE forgets the table's counts. Each statement's
changes go in as one upsert in key order (concurrent writers of one agent take the same rows in the same order).

A query term's document frequency is the sum over its distinct stems under the five configurations (pg_fts.py ORs
them in the match). Counting the rows instead (what this replaces) read every matching row from the heap, ~14 ms
for a term in 9,600 of 100k turns (docs/postgres_search.md). The sum equals that count unless one row holds two
different stems of the same term (a French and an English stem of one query word in the same row), where it counts
the row twice: a rare over-count, never an under-count.

Existing stores get the table, its triggers and its counts (filled from the rows) in place, once, under the schema's
advisory lock, with the three tables locked against writers until that transaction commits (`upgrade_statements`).
"""

from __future__ import annotations

from memoryd.storage.pg_names import quoted_schema

#: The source tables counted (pg_search_schema.SEARCH_COLUMNS's keys).
SOURCES = ("pinned_facts", "episodes", "transcript")
TABLE = "search_terms"


def _delta_sql(s: str) -> str:
    """The upsert of one statement's changes, inside the trigger function (`added`/`gone` transition tables)."""
    return (
        f"INSERT INTO {s}.{TABLE} AS t (agent_id, source, lexeme, rows) "
        f"SELECT d.agent_id, TG_TABLE_NAME, d.lexeme, sum(d.n) FROM ("
        f"{{changes}}) AS d GROUP BY d.agent_id, d.lexeme HAVING sum(d.n) <> 0 ORDER BY d.agent_id, d.lexeme "
        f"ON CONFLICT (agent_id, source, lexeme) DO UPDATE SET rows = t.rows + excluded.rows"
    )


def _lexemes(table: str, sign: int, where: str = "") -> str:
    return (
        f"SELECT r.agent_id, l.lexeme, {sign} AS n FROM {table} AS r "
        f"CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_vector)) AS l(lexeme){where}"
    )


def ddl(schema: str) -> list[str]:
    """The table, the trigger functions and the triggers (safe to run again; fills nothing)."""
    s = quoted_schema(schema)
    upsert = _delta_sql(s)
    changed = (
        " WHERE NOT EXISTS (SELECT 1 FROM {other} AS o WHERE o.id = r.id AND o.agent_id = r.agent_id "
        "AND o.search_vector IS NOT DISTINCT FROM r.search_vector)"
    )
    inserted = upsert.format(changes=_lexemes("added", 1))
    deleted = upsert.format(changes=_lexemes("gone", -1))
    updated = upsert.format(
        changes=_lexemes("added", 1, changed.format(other="gone"))
        + " UNION ALL "
        + _lexemes("gone", -1, changed.format(other="added"))
    )
    statements = [
        f"CREATE TABLE IF NOT EXISTS {s}.{TABLE} (agent_id text NOT NULL, source text NOT NULL, lexeme text NOT "
        f"NULL, rows bigint NOT NULL, PRIMARY KEY (agent_id, source, lexeme))",
        f"CREATE OR REPLACE FUNCTION {s}.search_terms_added() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN {inserted}; RETURN NULL; END $fn$",
        f"CREATE OR REPLACE FUNCTION {s}.search_terms_gone() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN {deleted}; RETURN NULL; END $fn$",
        f"CREATE OR REPLACE FUNCTION {s}.search_terms_changed() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN {updated}; RETURN NULL; END $fn$",
        f"CREATE OR REPLACE FUNCTION {s}.search_terms_truncated() RETURNS trigger LANGUAGE plpgsql AS $fn$ "
        f"BEGIN DELETE FROM {s}.{TABLE} WHERE source = TG_TABLE_NAME; RETURN NULL; END $fn$",
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


def fill_statements(schema: str) -> list[str]:
    """Recount every agent's lexemes from the rows (an upgrade, or a repair): the tables are locked against
    writers first (until the caller's transaction ends), so no row is counted twice or missed."""
    s = quoted_schema(schema)
    statements = [
        f"LOCK TABLE {', '.join(f'{s}.{source}' for source in SOURCES)} IN SHARE ROW EXCLUSIVE MODE",
        f"DELETE FROM {s}.{TABLE}",
    ]
    for source in SOURCES:
        statements.append(
            f"INSERT INTO {s}.{TABLE} (agent_id, source, lexeme, rows) SELECT r.agent_id, '{source}', l.lexeme, "
            f"count(*) FROM {s}.{source} AS r CROSS JOIN LATERAL unnest(tsvector_to_array(r.search_vector)) "
            f"AS l(lexeme) GROUP BY r.agent_id, l.lexeme"
        )
    return statements


def missing_sql() -> str:
    """A statement (one `%s`: the schema name) that is true when the store has no term statistics yet."""
    return f"SELECT to_regclass(format('%%I.%%I', %s::text, '{TABLE}')) IS NULL"


def frequencies_sql(schema: str, source: str, configs: str) -> str:
    """Document frequency of each query term (params: text[] of terms, agent id) from the counts: (term, rows)."""
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}")
    s = quoted_schema(schema)
    return (
        f"SELECT t.term, coalesce(sum(c.rows), 0) FROM unnest(%s::text[]) AS t(term) "
        f"LEFT JOIN LATERAL (SELECT DISTINCT l.lexeme FROM unnest(ARRAY[{configs}]::regconfig[]) AS g(cfg), "
        f"unnest(tsvector_to_array(to_tsvector(g.cfg, {s}.search_fold(t.term)))) AS l(lexeme)) AS x ON true "
        f"LEFT JOIN {s}.{TABLE} AS c ON c.agent_id = %s AND c.source = '{source}' AND c.lexeme = x.lexeme "
        f"GROUP BY t.term"
    )
