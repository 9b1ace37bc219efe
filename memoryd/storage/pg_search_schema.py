"""PostgreSQL DDL for full text (tsvector + GIN) and vectors (pgvector): what pgstore's schema creation runs.

Full text, per source table: a stored generated `search_vector tsvector` column and a GIN index on it, so every
writer (whatever inserts or updates the row) keeps it in step with no trigger. A row's text is folded the way
SQLite's `unicode61 remove_diacritics 2` folds it (lower case, NFKD, combining marks dropped, every run of
non-letters/digits a separator: `search_fold`), then stemmed with the snowball stemmer of the row's language
(`search_config`): porter for English (the algorithm SQLite's FTS5 and the Python re-scorer use, so English document
frequencies are the same on both backends), french, spanish, german, portuguese for the others. None of the five
configurations drops stop words (FTS5 indexes every token, and a query of stop words only must still match).

A row's language is the one whose snowball stop-word list covers most of its distinct words (`search_language`;
English on a tie, e.g. a row with no stop word at all): the configuration that leaves the fewest distinct lexemes.
(It used to subtract that from the row's distinct words under `simple`, computed once per candidate: the same order,
five more parses of the row per write.) The query side does not guess: each query term becomes the
OR of its five stemmed forms (pg_fts.py), so it meets a row in whichever language the row was indexed.

Ranking: on the tables whose text has one weight (transcript, pinned facts) a second GIN indexes each row's repeated
lexemes (`search_repeats(search_vector)`, an expression index), so a large match is ranked from its strong rows
(pg_fts.py). Document frequencies: pg_term_stats.ddl (per-agent lexeme counts: deltas appended by statement triggers,
folded in the background). `upgrade` adds them to a store created before them.

Vectors: pg_vectors.vector_ddl (one LIST-partitioned table, a partition per agent) — part of the same list so one
call creates everything.
"""

from __future__ import annotations

from memoryd.storage import pg_term_stats
from memoryd.storage.pg_names import quoted_schema
from memoryd.storage.pg_sql import PgQueries
from memoryd.storage.pg_vectors import vector_ddl

#: Language code → (stemmer of the snowball template, PostgreSQL's stop-word configuration used to detect it).
LANGUAGES: dict[str, tuple[str, str]] = {
    "en": ("porter", "english"),
    "fr": ("french", "french"),
    "es": ("spanish", "spanish"),
    "de": ("german", "german"),
    "pt": ("portuguese", "portuguese"),
}
#: The parser's token types that hold words or numbers; others (email, url, host, file, …) cannot occur once
#: search_fold has turned every non-letter/digit into a space, but are mapped too, to the same stemmer.
_TOKEN_TYPES = (
    "asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart, "
    "email, protocol, url, host, url_path, file, sfloat, float, int, uint, version, tag, entity"
)
#: Combining marks of the diacritic blocks (what NFKD separates from é, ñ, ü, ç, ã …).
_COMBINING = r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"

#: source table → (text columns, weight letter of each): episodes' topics and entities count 1.5 × the summary
#: (fts.MIRRORS): ts_rank weights {D, C, B, A} = {0, 0, 0.6667, 1} in pg_fts.py.
SEARCH_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "pinned_facts": (("content", "B"),),
    "episodes": (("summary", "B"), ("topics_csv", "A"), ("entities_csv", "A")),
    "transcript": (("content", "B"),),
}
#: Tables whose text has one weight: their rows' repeated lexemes are indexed too (`search_repeats`), so a large
#: match is ranked without reading every row (pg_fts.py).
SINGLE_WEIGHT = tuple(table for table, columns in SEARCH_COLUMNS.items() if len({w for _, w in columns}) == 1)


def config_name(schema: str, language: str) -> str:
    """The text search configuration of one language in this schema, e.g. "tenant_a".search_fr."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}")
    return f"{quoted_schema(schema)}.search_{language}"


def _once(statement: str) -> str:
    """Run a CREATE that has no IF NOT EXISTS form, ignoring 'already exists'."""
    return f"DO $ddl$ BEGIN {statement}; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $ddl$"


def _text_search_ddl(schema: str) -> list[str]:
    s = quoted_schema(schema)
    statements: list[str] = []
    for code, (stemmer, _stop) in LANGUAGES.items():
        dictionary = f"{s}.search_stem_{code}"
        config = config_name(schema, code)
        statements.append(
            _once(f"CREATE TEXT SEARCH DICTIONARY {dictionary} (TEMPLATE = snowball, Language = {stemmer})")
        )
        statements.append(
            _once(
                f"CREATE TEXT SEARCH CONFIGURATION {config} (COPY = pg_catalog.simple); "
                f"ALTER TEXT SEARCH CONFIGURATION {config} ALTER MAPPING FOR {_TOKEN_TYPES} WITH {dictionary}"
            )
        )
    statements.append(
        f"CREATE OR REPLACE FUNCTION {s}.search_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT "
        f"PARALLEL SAFE AS $fn$ SELECT regexp_replace(regexp_replace(normalize(lower(t), NFKD), "
        f"E'{_COMBINING}', '', 'g'), '[^[:alnum:]]+', ' ', 'g') $fn$"
    )
    candidates = ", ".join(
        f"({order}, '{code}', '{stop}'::regconfig)"
        for order, (code, (_stem, stop)) in enumerate(LANGUAGES.items())
    )
    statements.append(
        f"CREATE OR REPLACE FUNCTION {s}.search_language(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT "
        f"PARALLEL SAFE AS $fn$ SELECT v.code FROM (VALUES {candidates}) AS v(ord, code, stop) "
        f"ORDER BY length(to_tsvector(v.stop, t)), v.ord LIMIT 1 $fn$"
    )
    statements.append(
        f"CREATE OR REPLACE FUNCTION {s}.search_repeats(v tsvector) RETURNS tsvector LANGUAGE sql IMMUTABLE STRICT "
        f"PARALLEL SAFE AS $fn$ SELECT coalesce(array_to_tsvector(array_agg(u.lexeme)), ''::tsvector) "
        f"FROM unnest(v) AS u WHERE cardinality(u.positions) >= 2 $fn$"
    )
    cases = " ".join(f"WHEN '{code}' THEN '{config_name(schema, code)}'::regconfig" for code in LANGUAGES)
    statements.append(
        f"CREATE OR REPLACE FUNCTION {s}.search_config(code text) RETURNS regconfig LANGUAGE sql IMMUTABLE "
        f"PARALLEL SAFE AS $fn$ SELECT CASE code {cases} ELSE '{config_name(schema, 'en')}'::regconfig END $fn$"
    )
    return statements


def document_expression(schema: str, table: str) -> str:
    """The tsvector of one row of `table` (columns unqualified): what the generated column stores."""
    s = quoted_schema(schema)
    columns = SEARCH_COLUMNS[table]
    whole = " || ' ' || ".join(f"coalesce({c}, '')" for c, _ in columns)
    config = f"{s}.search_config({s}.search_language({whole}))"
    parts = [
        f"setweight(to_tsvector({config}, {s}.search_fold(coalesce({c}, ''))), '{w}')" for c, w in columns
    ]
    return " || ".join(parts)


def search_ddl(schema: str) -> list[str]:
    """Every statement full text and vectors need in `schema`, after the tables exist; safe to run again."""
    s = quoted_schema(schema)
    statements = _text_search_ddl(schema)
    for table in SEARCH_COLUMNS:
        statements.append(
            f"ALTER TABLE {s}.{table} ADD COLUMN IF NOT EXISTS search_vector tsvector "
            f"GENERATED ALWAYS AS ({document_expression(schema, table)}) STORED"
        )
        statements.append(
            f"CREATE INDEX IF NOT EXISTS {table}_search_gin ON {s}.{table} USING gin (search_vector)"
        )
    statements += _repeats_ddl(schema)
    return statements + pg_term_stats.ddl(schema) + vector_ddl(schema)


def _repeats_ddl(schema: str) -> list[str]:
    """A GIN on each single-weight table's repeated lexemes (an expression index: no column, no table rewrite)."""
    s = quoted_schema(schema)
    return [
        f"CREATE INDEX IF NOT EXISTS {table}_repeats_gin ON {s}.{table} USING gin ({s}.search_repeats(search_vector))"
        for table in SINGLE_WEIGHT
    ]


def upgrade(db: PgQueries, schema: str) -> list[str]:
    """Bring a store created by an earlier memoryd up to search_ddl inside the caller's transaction (which holds the
    schema's advisory lock): the term statistics, filled from the rows. The names of the steps applied."""
    applied: list[str] = []
    # Trigger functions from before the per-agent row counts (None: no functions yet, filled below with the rest).
    rows_missing = bool(db.scalar(pg_term_stats.rows_missing_sql(), (schema,)))
    if db.scalar(pg_term_stats.missing_sql(), (schema,)):
        for statement in pg_term_stats.ddl(schema) + pg_term_stats.fill_statements(schema):
            db.execute(statement)
        applied.append("search_terms")
    elif db.scalar(pg_term_stats.missing_sql(pg_term_stats.DELTAS), (schema,)):
        # Counts kept by the upserting triggers: still exact; the triggers now append deltas instead.
        for statement in pg_term_stats.ddl(schema):
            db.execute(statement)
        applied.append("search_term_deltas")
    elif db.scalar(pg_term_stats.per_lexeme_sql(), (schema,)):
        # Deltas of the first layout (a row per lexeme): folded, and the table made again as a row per statement.
        for statement in pg_term_stats.relayout_statements(schema) + pg_term_stats.ddl(schema):
            db.execute(statement)
        applied.append("search_term_deltas arrays")
    if rows_missing:
        # The functions that keep the counts; the tables locked until this transaction commits, then counted.
        for statement in pg_term_stats.ddl(schema) + pg_term_stats.row_statements(schema):
            db.execute(statement)
        applied.append("agent rows")
    if any(
        db.scalar(
            "SELECT to_regclass(format('%%I.%%I', %s::text, %s::text)) IS NULL", (schema, f"{t}_repeats_gin")
        )
        for t in SINGLE_WEIGHT
    ):
        for statement in _text_search_ddl(schema) + _repeats_ddl(schema):  # search_repeats() first
            db.execute(statement)
        applied.append("repeats_gin")
    elif db.scalar(
        "SELECT position('pg_catalog.simple' IN prosrc) > 0 FROM pg_proc WHERE proname = 'search_language' "
        "AND pronamespace = to_regnamespace(%s)",
        (schema,),
    ):
        # The language rule that parsed each row five more times: the same answers, so no row changes.
        for statement in _text_search_ddl(schema):
            db.execute(statement)
        applied.append("search_language")
    return applied
