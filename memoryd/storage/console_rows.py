"""The Memory Console's row SQL: fetch any row, search across agents, flip status, forget, clear, store vectors.

Deleting a source row fires the schema's triggers, which remove its FTS mirror entry and its stored vector in the
same transaction. Every function is one short transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoryd.domain import (
    KIND_EPISODE,
    KIND_IDENTITY_FACT,
    KIND_PINNED,
    KIND_TRANSCRIPT,
    StoredMatch,
    StoredRow,
    now_ms,
)
from memoryd.storage.embeddings import VECTOR_UPSERT
from memoryd.storage.fts import MIRRORS, like_pattern, match_expression, terms_expression
from memoryd.storage.handle import Database
from memoryd.storage.pg_console_search import term_rows

#: Console kinds and their source tables.
TABLE_OF_KIND = {
    KIND_PINNED: "pinned_facts",
    KIND_EPISODE: "episodes",
    KIND_TRANSCRIPT: "transcript",
    KIND_IDENTITY_FACT: "identity_facts",
}
#: The column holding each kind's main text.
TEXT_COLUMN = {
    KIND_PINNED: "content",
    KIND_EPISODE: "summary",
    KIND_TRANSCRIPT: "content",
    KIND_IDENTITY_FACT: "content",
}
#: Columns never shown as metadata (shown elsewhere, or internal).
_HIDDEN = {"id", "agent_id", "status", "agent_key", "created_at_ms"}
#: Tables ClearAll empties (embeddings first, so they are counted before the source-row triggers remove them).
CLEARED_TABLES = (
    "embeddings",
    "identity_facts",
    "agent_narratives",
    "pinned_facts",
    "episodes",
    "transcript",
    "pending_signals",
)


def fetch_row(db: Database, kind: str, row_id: int) -> StoredRow | None:
    """One row of any console kind with all its columns and its vector's model, or None."""
    table = TABLE_OF_KIND[kind]
    with db.read():
        cursor = db.execute(f"SELECT * FROM {table} WHERE id = ?", (row_id,))
        row = cursor.fetchone()
        if row is None:
            return None
        names = [d[0] for d in cursor.description]
        vector_model = ""
        if kind != KIND_IDENTITY_FACT:
            vector_model = str(
                db.scalar("SELECT model FROM embeddings WHERE kind = ? AND row_id = ?", (kind, row_id)) or ""
            )
    values = dict(zip(names, row, strict=True))
    return StoredRow(
        kind=kind,
        id=int(values["id"]),
        agent_id=str(values["agent_id"]),
        text=str(values[TEXT_COLUMN[kind]]),
        is_disabled=str(values.get("status", "active")) == "disabled",
        created_at_ms=int(values.get("created_at_ms") or 0),
        columns={k: v for k, v in values.items() if k not in _HIDDEN and k != TEXT_COLUMN[kind]},
        vector_model=vector_model,
    )


def search_rows(
    db: Database,
    query: str,
    terms: Sequence[str],
    kinds: Sequence[str],
    agent_id: str | None,
    include_disabled: bool,
    limit: int,
    fts: Any = None,
) -> list[StoredMatch]:
    """Matches across `kinds` in one snapshot, best first: FTS5 bm25 over the mirrors for `terms` (the caller's
    query terms; on PostgreSQL, `fts`'s tsvector query: memoryd/storage/pg_console_search.py); a literal LIKE on
    `query` when there are none. `agent_id` None searches every agent."""
    found: list[StoredMatch] = []
    with db.read():
        for kind in kinds:
            found.extend(_search_kind(db, kind, query, terms, agent_id, include_disabled, limit, fts))
    found.sort(key=lambda m: (-m.score, -m.created_at_ms, m.kind, m.id))
    return found[:limit]


def _search_kind(
    db: Database,
    kind: str,
    query: str,
    terms: Sequence[str],
    agent_id: str | None,
    include_disabled: bool,
    limit: int,
    fts: Any,
) -> list[StoredMatch]:
    m = MIRRORS[kind]
    text = TEXT_COLUMN[kind]
    status = "s.status" if kind != KIND_TRANSCRIPT else "'active'"
    filters: list[str] = []
    params: list[object] = []
    if agent_id is not None:
        filters.append("s.agent_id = ?")
        params.append(agent_id)
    if not include_disabled and kind != KIND_TRANSCRIPT:
        filters.append("s.status = 'active'")
    where = "".join(f" AND {f}" for f in filters)
    if terms and db.dialect.is_postgres:
        select = f"s.id, s.agent_id, s.{text}, {status}, s.created_at_ms"
        rows = term_rows(db, fts, m, select, terms, where, params, limit)
        return [_match(kind, r, float(r[5])) for r in rows]
    if terms:
        weights = ", ".join(f"{w:g}" for w in (*m.weights, 0.0))
        sql = (
            f"SELECT s.id, s.agent_id, s.{text}, {status}, s.created_at_ms, bm25({m.fts}, {weights}) AS rank "
            f"FROM {m.fts} AS f JOIN {m.source} AS s ON s.id = f.rowid "
            f"WHERE {m.fts} MATCH ?{where} ORDER BY rank LIMIT ?"
        )
        # Every term quoted literally; with an agent, the agent filter runs inside FTS5 too.
        expression = (
            terms_expression(terms, m.columns)
            if agent_id is None
            else match_expression(agent_id, terms, m.columns)
        )
        rows = db.query(sql, (expression, *params, limit))
        return [_match(kind, r, -float(r[5])) for r in rows]
    if not query.strip():
        return []
    likes = " OR ".join(f"s.{c} {db.dialect.like} ? ESCAPE '\\'" for c in m.columns)
    sql = (
        f"SELECT s.id, s.agent_id, s.{text}, {status}, s.created_at_ms FROM {m.source} AS s "
        f"WHERE ({likes}){where} ORDER BY s.created_at_ms DESC, s.id DESC LIMIT ?"
    )
    rows = db.query(sql, (*([like_pattern(query)] * len(m.columns)), *params, limit))
    return [_match(kind, r, 1.0 / (1 + rank)) for rank, r in enumerate(rows)]


def _match(kind: str, r: Sequence[object], score: float) -> StoredMatch:
    return StoredMatch(
        kind=kind,
        id=int(str(r[0])),
        agent_id=str(r[1]),
        text=str(r[2]),
        score=score,
        is_disabled=str(r[3]) == "disabled",
        created_at_ms=int(str(r[4] or 0)),
    )


def set_status(db: Database, kind: str, row_id: int, status: str) -> bool | None:
    """Set a pinned fact's or episode's status; whether it changed, or None when the row does not exist."""
    table = TABLE_OF_KIND[kind]
    touch = ", updated_at_ms = ?" if kind != KIND_EPISODE else ""
    params: tuple[object, ...] = (status, now_ms()) if touch else (status,)
    with db.write():
        changed = db.execute(
            f"UPDATE {table} SET status = ?{touch} WHERE id = ? AND status <> ?",
            (*params, row_id, status),
        ).rowcount
        if changed:
            return True
        exists = db.scalar(f"SELECT 1 FROM {table} WHERE id = ?", (row_id,))
    return False if exists else None


def delete_row(db: Database, kind: str, row_id: int) -> tuple[str, int] | None:
    """Delete a row (its FTS entry and stored vector go with it); (agent_id, vectors deleted) or None."""
    table = TABLE_OF_KIND[kind]
    with db.write():
        agent = db.scalar(f"SELECT agent_id FROM {table} WHERE id = ?", (row_id,))
        if agent is None:
            return None
        vectors = 0
        if kind != KIND_IDENTITY_FACT:
            vectors = db.execute(
                "DELETE FROM embeddings WHERE kind = ? AND row_id = ?", (kind, row_id)
            ).rowcount
        db.execute(f"DELETE FROM {table} WHERE id = ?", (row_id,))
    return str(agent), int(vectors)


def clear_all(db: Database) -> tuple[int, list[str]]:
    """Delete identity, facts, episodes, transcript, signals and stored vectors in one transaction.

    Agents (their settings) and processing_log (statistics, no content) stay. Returns (rows deleted, agent ids
    that had any row or vector) so the caller can drop their vector indexes.
    """
    with db.write():
        agents = [
            str(r[0])
            for r in db.query(
                "SELECT agent_id FROM agents UNION SELECT agent_id FROM embeddings "
                "UNION SELECT agent_id FROM pinned_facts UNION SELECT agent_id FROM episodes "
                "UNION SELECT agent_id FROM transcript"
            )
        ]
        deleted = 0
        for table in CLEARED_TABLES:
            deleted += db.execute(f"DELETE FROM {table}").rowcount
        db.execute("DELETE FROM turn_requests")  # BufferTurn keys: not memory, not counted
        deleted += db.execute(
            "UPDATE identity SET content = '', overrides = '[]', token_count = 0, version = 0, model = '', "
            "generated_at_ms = 0 WHERE id = 1 AND (content <> '' OR overrides NOT IN ('', '[]'))"
        ).rowcount
    return deleted, agents


def put_vectors(
    db: Database,
    kind: str,
    agent_id: str,
    model: str,
    dimension: int,
    items: Sequence[tuple[int, bytes, int]],
) -> int:
    """Store imported vectors (row id, blob, created_at_ms) of rows that exist, keeping their timestamps."""
    table = TABLE_OF_KIND[kind]
    stored = 0
    with db.write():
        for row_id, blob, created_at_ms in items:
            stored += db.execute(
                "INSERT INTO embeddings (kind, row_id, agent_id, model, dimension, vector, created_at_ms) "
                f"SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM {table} WHERE id = ? AND agent_id = ?) "
                f"{VECTOR_UPSERT}",
                (kind, row_id, agent_id, model, dimension, blob, created_at_ms, row_id, agent_id),
            ).rowcount
    return stored


class ConsoleRowStore:
    """The console's row-level statements on one store (the functions above, bound to its Database)."""

    def __init__(self, db: Database, fts: Any = None) -> None:
        self._db = db
        self._fts = fts

    def fetch(self, kind: str, row_id: int) -> StoredRow | None:
        """One row of any console kind with all its columns, or None."""
        return fetch_row(self._db, kind, row_id)

    def search(
        self,
        query: str,
        terms: Sequence[str],
        kinds: Sequence[str],
        agent_id: str | None,
        include_disabled: bool,
        limit: int,
    ) -> list[StoredMatch]:
        """Matches across `kinds`, best first (search_rows)."""
        return search_rows(self._db, query, terms, kinds, agent_id, include_disabled, limit, self._fts)

    def set_status(self, kind: str, row_id: int, status: str) -> bool | None:
        """Set a pinned fact's or episode's status; whether it changed, None when the row does not exist."""
        return set_status(self._db, kind, row_id, status)

    def delete(self, kind: str, row_id: int) -> tuple[str, int] | None:
        """Delete a row with its FTS entry and stored vector; (agent_id, vectors deleted) or None."""
        return delete_row(self._db, kind, row_id)

    def clear_all(self) -> tuple[int, list[str]]:
        """Delete all memory but agents and processing_log; (rows deleted, agents that had any row or vector)."""
        return clear_all(self._db)

    def put_vectors(
        self, kind: str, agent_id: str, model: str, dimension: int, items: Sequence[tuple[int, bytes, int]]
    ) -> int:
        """Store imported vectors (row id, blob, created_at_ms) of rows that exist; how many were stored."""
        return put_vectors(self._db, kind, agent_id, model, dimension, items)


__all__ = [
    "CLEARED_TABLES",
    "TABLE_OF_KIND",
    "TEXT_COLUMN",
    "ConsoleRowStore",
    "clear_all",
    "delete_row",
    "fetch_row",
    "put_vectors",
    "search_rows",
    "set_status",
]
