"""Full-text search on PostgreSQL (tsvector + GIN), always inside one agent: FtsIndex's methods and contract.

Each query term (a surface word from retrieval.terms, letters and digits only) becomes the OR of its five stemmed
forms (folded, then `to_tsvector` under each language's configuration), so it meets a row indexed in any of the five
languages (pg_search_schema.py). The term is always a bound parameter that only to_tsvector reads, and the tsquery
is assembled from the resulting lexemes, each quoted: no tsquery operator (&, |, !, <->, :*, quotes) in user text is
ever interpreted. A query matches
rows holding any of its terms (OR, as the SQLite mirrors are queried), ranked by ts_rank with episodes' topics and
entities weighted 1.5 × the summary; read/search.py re-scores the candidates with the agent's own BM25 statistics
(agent_text_stats, doc_frequencies) exactly as on SQLite. Document frequencies come from the per-agent lexeme counts
the database keeps (pg_term_stats.py), not from counting rows.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

from memoryd.domain import KIND_EPISODE
from memoryd.storage.fts import MIRRORS, like_pattern
from memoryd.storage.pg_names import quoted_schema
from memoryd.storage.pg_search_schema import LANGUAGES, SEARCH_COLUMNS, SINGLE_WEIGHT, config_name
from memoryd.storage.pg_sql import PgQueries
from memoryd.storage.pg_term_stats import COUNTS, agent_rows_sql, frequencies_sql

#: ts_rank's weights for {D, C, B, A} (each at most 1): B holds summaries and contents, A topics and entities, 1.5 × B.
_RANK_WEIGHTS = "'{0, 0, 0.6667, 1.0}'"
#: A match of more rows than this (the query's lexemes' counts summed, pg_term_stats.py) is ranked from its strong
#: rows (search()); a smaller one is ranked whole, which is cheaper at that size.
LARGE_MATCH = 1000
#: A large match's weak rows (the newest `limit` of the others) are looked for first among the table's newest ids: a
#: window of WEAK_WINDOW × limit × max(id) / (the match's estimated rows) ids, where about WEAK_WINDOW × limit of the
#: match's rows are expected; only when it holds fewer than `limit` are the older rows read too. The same rows either
#: way (the newest `limit` of a set are the newest of its newest ids when those hold `limit`), without reading the
#: heap page of every row of the match for its id (~1,450 pages for 1,400 rows of 100k turns: the GIN holds tuple ids,
#: not row ids), as a BitmapAnd of the GIN's and the primary key's bitmaps reads only the window's (~280 pages).
#: docs/postgres_search.md, eighth pass. None: every row of the match is read (the earlier statement).
WEAK_WINDOW: float | None = 2.0


def _check_limit(limit: int) -> int:
    """The limit as a literal of the statement's text (one generic plan per limit): an integer only, never anything
    else in the text (numpy's integers included); below 1 it is 0."""
    return max(operator.index(limit), 0)


class PgFtsIndex:
    """Runs the per-agent tsvector and LIKE queries; returns (row id, score) with higher scores better."""

    def __init__(self, db: PgQueries, schema: str, *, weak_window: float | None = WEAK_WINDOW) -> None:
        self._db = db
        self._weak_window = weak_window
        self._schema = quoted_schema(schema)
        self._schema_name = schema
        self._configs = ", ".join(f"'{config_name(schema, code)}'" for code in LANGUAGES)

    def _table(self, kind: str) -> tuple[str, str]:
        """(qualified source table, its active-row filter) of a kind."""
        m = MIRRORS[kind]
        return f"{self._schema}.{m.source}", m.active_filter

    def term_query(self, count: int) -> str:
        """A tsquery expression for `count` bound terms (a text[] parameter each): any of them, each in any of the
        five languages. The terms' lexemes come from to_tsvector, never from parsing user text as a tsquery, and
        are OR'ed once each (five stemmers often agree: a repeated lexeme made ts_rank 5x slower)."""
        if count < 1:
            raise ValueError("no terms")
        return (
            f"(SELECT string_agg(DISTINCT quote_literal(l), ' | ')::tsquery "
            f"FROM unnest(ARRAY[{', '.join(['%s'] * count)}]::text[]) AS t(term), "
            f"unnest(ARRAY[{self._configs}]::regconfig[]) AS c(cfg), "
            f"unnest(tsvector_to_array(to_tsvector(c.cfg, {self._schema}.search_fold(t.term)))) AS l)"
        )

    def _lexemes(self) -> str:
        """The distinct lexemes of the terms (one text[] parameter: one statement text whatever their number, so
        psycopg prepares it) under the five configurations."""
        return (
            "SELECT DISTINCT l FROM unnest(%s::text[]) AS t(term), "
            f"unnest(ARRAY[{self._configs}]::regconfig[]) AS c(cfg), "
            f"unnest(tsvector_to_array(to_tsvector(c.cfg, {self._schema}.search_fold(t.term)))) AS l"
        )

    def search(
        self, kind: str, agent_id: str, terms: Sequence[str], limit: int, *, agent_in_match: bool = True
    ) -> list[tuple[int, float]]:
        """Top rows of this agent by ts_rank (agent_in_match is accepted for FtsIndex's signature; PostgreSQL's
        planner chooses between the GIN and the agent's btree itself).

        Every match is read from the heap to be ranked (~4.5 us a row: the row, its tsvector, ts_rank), which made a
        query of common terms only (candidate_terms keeps the two rarest) cost 75-230 ms at 100k turns. Where every
        column has one weight w (transcript, pinned facts), ts_rank gives each present lexeme between w/1.645 (once)
        and w (ever more often), so every row holding two of the query's lexemes, or one lexeme more than once (the
        strong rows), outranks every row holding one lexeme once, and those all score alike. A large match (its
        lexemes' counts, pg_term_stats.py, sum over LARGE_MATCH) is therefore ranked from its strong rows only (a GIN
        AND, and the GIN on search_repeats(search_vector)), the newest of the other rows filling the limit (equal
        scores: ties go to the higher id, as in the full ranking): scores and order are those of ranking the whole
        match. The newest of the other rows come from a window of the newest ids first (WEAK_WINDOW). A smaller
        match, and episodes (two weights), are ranked whole. One statement either way; the limit is part of its
        text.
        """
        del agent_in_match
        table, active = self._table(kind)
        if not terms:
            raise ValueError("no terms")
        lim = _check_limit(limit)
        if lim == 0:
            return []  # as FTS5's LIMIT 0
        lexemes = self._lexemes().replace("%s", "%(terms)s")
        ranked = (
            f"SELECT s.id, ts_rank({_RANK_WEIGHTS}, s.search_vector, (SELECT any_of FROM q)) AS score "
            f"FROM {table} AS s WHERE s.agent_id = %(agent)s AND {active} AND s.search_vector @@ (SELECT MATCH FROM q) "
            f"ORDER BY score DESC, s.id DESC LIMIT {lim}"
        )
        head = (
            f"WITH lx AS MATERIALIZED ({lexemes}), q AS MATERIALIZED (SELECT "
            f"(SELECT string_agg(quote_literal(l), ' | ') FROM lx)::tsquery AS any_of, "
            f"(SELECT string_agg('(' || quote_literal(a.l) || ' & ' || quote_literal(b.l) || ')', ' | ') "
            f"FROM lx AS a JOIN lx AS b ON a.l < b.l)::tsquery AS two_of)"
        )
        params = {"terms": list(terms), "agent": agent_id}
        if MIRRORS[kind].source not in SINGLE_WEIGHT:
            rows = self._db.query(f"{head} {ranked.replace('MATCH', 'any_of')}", params)
            return [(int(r[0]), float(r[1])) for r in rows]
        large = f"(SELECT est FROM n) > {LARGE_MATCH}"
        strong = ranked.replace(
            "s.search_vector @@ (SELECT MATCH FROM q)",
            f"{large} AND (s.search_vector @@ (SELECT two_of FROM q) OR "
            f"{self._schema}.search_repeats(s.search_vector) @@ (SELECT any_of FROM q))",
        )
        whole = ranked.replace("WHERE ", f"WHERE NOT {large} AND ", 1).replace("MATCH", "any_of")
        sql = (
            f"{head}, n AS MATERIALIZED (SELECT coalesce(sum(c.rows), 0) AS est FROM {self._schema}.{COUNTS} "
            f"AS c WHERE c.agent_id = %(agent)s AND c.source = '{MIRRORS[kind].source}' AND c.lexeme IN "
            f"(SELECT l FROM lx)), strong AS MATERIALIZED ({strong}), {self._weak(table, active, large, lim)} "
            f"SELECT id, score FROM (SELECT id, score FROM strong UNION ALL "
            f"SELECT s.id, ts_rank({_RANK_WEIGHTS}, s.search_vector, (SELECT any_of FROM q)) FROM {table} AS s "
            f"WHERE s.id IN (SELECT id FROM weak) AND s.agent_id = %(agent)s UNION ALL ({whole})) AS r "
            f"ORDER BY score DESC, id DESC LIMIT {lim}"
        )
        self._db.setting("max_parallel_workers_per_gather", "0")
        rows = self._db.query(sql, params)
        return [(int(r[0]), float(r[1])) for r in rows]

    def _weak(self, table: str, active: str, large: str, lim: int) -> str:
        """The `weak` CTE of search() (after `strong`): the ids of the newest `lim` rows of a large match that are not
        strong, from a window of the newest ids first (WEAK_WINDOW), or from the whole match."""
        others = (
            f"{large} AND (SELECT count(*) FROM strong) < {lim} AND s.agent_id = %(agent)s AND {active} "
            f"AND s.search_vector @@ (SELECT any_of FROM q) AND s.id NOT IN (SELECT id FROM strong)"
        )
        if self._weak_window is None:
            return f"weak AS MATERIALIZED (SELECT s.id FROM {table} AS s WHERE {others} ORDER BY s.id DESC LIMIT {lim})"
        span = f"ceil({float(self._weak_window)!r} * {lim} * m.top / (SELECT est FROM n))::bigint"
        return (
            f"lo AS MATERIALIZED (SELECT CASE WHEN {large} THEN m.top - {span} END AS id "
            f"FROM (SELECT max(id) AS top FROM {table}) AS m), "
            f"recent AS MATERIALIZED (SELECT s.id FROM {table} AS s WHERE {others} AND s.id > (SELECT id FROM lo) "
            f"ORDER BY s.id DESC LIMIT {lim}), "
            f"older AS MATERIALIZED (SELECT s.id FROM {table} AS s WHERE (SELECT count(*) FROM recent) < {lim} "
            f"AND {others} AND s.id <= (SELECT id FROM lo) ORDER BY s.id DESC LIMIT {lim}), "
            f"weak AS MATERIALIZED (SELECT id FROM (SELECT id FROM recent UNION ALL SELECT id FROM older) AS w "
            f"ORDER BY id DESC LIMIT {lim})"
        )

    def table_rows(self, kind: str) -> int:
        """Rows of the source table across all agents: the planner's estimate (pg_class.reltuples), counted only
        while the table has none yet. Its one reader (read/search.py) chooses with it how FTS5 restricts a match to
        the agent, which search() here ignores; counting 100k turns took 35 ms, redone in the background after
        writes (keyword_stats.py), on the cores the foreground searches need."""
        table, _ = self._table(kind)
        return int(
            self._db.scalar(
                f"SELECT CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint ELSE (SELECT count(*) FROM {table}) END "
                f"FROM pg_class AS c WHERE c.oid = %s::regclass",
                (table,),
            )
            or 0
        )

    def doc_frequency(self, kind: str, agent_id: str, term: str) -> int:
        """Rows of this agent containing `term` (the per-agent df used to re-score)."""
        return self.doc_frequencies(kind, agent_id, [term])[term]

    def doc_frequencies(self, kind: str, agent_id: str, terms: Sequence[str]) -> dict[str, int]:
        """doc_frequency of each term, in one statement over the agent's lexeme counts (rows of any status, as the
        SQLite mirrors count them; a term's stems summed, pg_term_stats.py)."""
        if not terms:
            return {}
        unique = list(dict.fromkeys(terms))
        sql = frequencies_sql(self._schema_name, MIRRORS[kind].source, self._configs)
        counted = {str(term): int(n) for term, n in self._db.query(sql, (unique, agent_id))}
        return {term: counted.get(term, 0) for term in terms}

    def counted_doc_frequencies(self, kind: str, agent_id: str, terms: Sequence[str]) -> dict[str, int]:
        """doc_frequencies by counting the matching rows (reads every one from the heap): the reference the lexeme
        counts are checked against (tests, bench_pg_search)."""
        if not terms:
            return {}
        table, _ = self._table(kind)
        count = f"(SELECT count(*) FROM {table} AS s WHERE s.agent_id = %s AND s.search_vector @@ {self.term_query(1)})"
        sql = "SELECT " + ", ".join(count for _ in terms)
        params: list[str] = []
        for term in terms:
            params += [agent_id, term]
        row = self._db.query(sql, params)[0]
        return {term: int(n or 0) for term, n in zip(terms, row, strict=True)}

    def like(self, kind: str, agent_id: str, query: str, limit: int) -> list[tuple[int, float]]:
        """Last resort when the query has no searchable token (e.g. only punctuation): literal substring, case-
        insensitive like SQLite's LIKE."""
        table, active = self._table(kind)
        columns = MIRRORS[kind].columns
        clauses = " OR ".join(f"s.{c} ILIKE %s ESCAPE '\\'" for c in columns)
        order = "s.created_at_ms DESC" if kind != KIND_EPISODE else "s.conversation_at_ms DESC"
        sql = (
            f"SELECT s.id FROM {table} AS s WHERE s.agent_id = %s AND {active} AND ({clauses}) "
            f"ORDER BY {order}, s.id DESC LIMIT %s"
        )
        pattern = like_pattern(query)
        rows = self._db.query(sql, (agent_id, *([pattern] * len(columns)), limit))
        return [(int(r[0]), 1.0 / (1 + rank)) for rank, r in enumerate(rows)]

    def agent_text_stats(self, kind: str, agent_id: str, sample: int = 2000) -> tuple[int, float]:
        """(rows, mean characters of indexed text) of one agent; the mean comes from its newest `sample` rows. The
        rows are the agent's active-row count kept by the lexeme-count triggers (pg_term_stats.ROWS): counting them
        read every one of the agent's rows (~15-35 ms at 100k, after every write)."""
        table, active = self._table(kind)
        length = " + ".join(f"length(s.{c})" for c in MIRRORS[kind].columns)
        rows, mean = self._db.query(
            f"SELECT ({agent_rows_sql(self._schema_name, MIRRORS[kind].source)}), "
            f"(SELECT avg(n) FROM (SELECT {length} AS n FROM {table} AS s WHERE s.agent_id = %s "
            f"AND {active} ORDER BY s.id DESC LIMIT %s) AS recent)",
            (agent_id, agent_id, sample),
        )[0]
        return int(rows or 0), float(mean or 0.0)

    def health(self) -> list[tuple[str, str, int, int, bool]]:
        """(GIN index, source, source rows, rows with a tsvector, healthy) per table: healthy when the index is
        valid and ready and every row has its tsvector."""
        report = []
        for source in SEARCH_COLUMNS:
            index = f"{source}_search_gin"
            table = f"{self._schema}.{source}"
            source_rows = int(self._db.scalar(f"SELECT count(*) FROM {table}") or 0)
            indexed = int(self._db.scalar(f"SELECT count(search_vector) FROM {table}") or 0)
            valid = self._db.scalar(
                "SELECT i.indisvalid AND i.indisready FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid "
                "JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE c.relname = %s AND n.nspname = %s",
                (index, self._schema.strip('"')),
            )
            report.append((index, source, source_rows, indexed, bool(valid) and source_rows == indexed))
        return report

    def rebuild(self) -> None:
        """Rebuild every GIN index (memoryctl reindex); the tsvectors are generated columns, always current."""
        for source in SEARCH_COLUMNS:
            self._db.execute(f"REINDEX INDEX {self._schema}.{source}_search_gin")
        for source in SINGLE_WEIGHT:
            self._db.execute(f"REINDEX INDEX {self._schema}.{source}_repeats_gin")
