"""The console's term search on PostgreSQL (SQLite's is FTS5 bm25 over the mirrors: console_rows._search_kind).

With full text installed (pgsearch's generated `search_vector` column and the full-text index's `term_query`), a
row matches when its tsvector meets any term in any of the five languages, ranked by ts_rank. Without it, a row
matches when its text columns contain any term (case- and accent-insensitive is full text's job; this is the plain
ILIKE fallback), ranked by how many terms it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoryd.storage.fts import Mirror, like_pattern
from memoryd.storage.handle import Database

#: The generated tsvector column full text adds to each searchable table.
SEARCH_COLUMN = "search_vector"


def term_rows(
    db: Database,
    fts: Any,
    m: Mirror,
    select: str,
    terms: Sequence[str],
    where: str,
    params: Sequence[object],
    limit: int,
) -> list[tuple[Any, ...]]:
    """Rows `select`ed from `m.source AS s` matching any of `terms` under `where`, best first, the score last."""
    term_query = getattr(fts, "term_query", None)
    if term_query is not None and SEARCH_COLUMN in db.columns(m.source):
        per_term = len(getattr(fts, "_term_params")(terms[:1]))  # noqa: B009 - the index's own parameter layout
        query = str(term_query(len(terms))).replace("%s", "?")
        sql = (
            f"SELECT {select}, ts_rank(s.{SEARCH_COLUMN}, q.q) AS score FROM {m.source} AS s, "
            f"(SELECT {query} AS q) AS q WHERE s.{SEARCH_COLUMN} @@ q.q{where} ORDER BY score DESC, s.id DESC "
            f"LIMIT ?"
        )
        expanded = [term for term in terms for _ in range(per_term)]
        return db.query(sql, (*expanded, *params, limit))
    hits = " + ".join(
        f"(CASE WHEN {' OR '.join(f's.{c} ILIKE ?' for c in m.columns)} THEN 1 ELSE 0 END)" for _ in terms
    )
    patterns = [like_pattern(term) for term in terms for _ in m.columns]
    sql = (
        f"SELECT * FROM (SELECT {select}, ({hits}) AS score FROM {m.source} AS s WHERE 1 = 1{where}) AS found "
        f"WHERE score > 0 ORDER BY score DESC, created_at_ms DESC LIMIT ?"
    )
    return db.query(sql, (*patterns, *params, limit))


__all__ = ["SEARCH_COLUMN", "term_rows"]
