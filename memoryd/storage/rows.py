"""Loading searchable rows (pinned facts, episodes, transcript turns) by id, always filtered by agent.

`+agent_id` (dialect.unindexed) keeps SQLite on the primary key: with the agent index it would scan all of the agent's rows.
On PostgreSQL the ids go as one `bigint[]` parameter (`id = ANY(?)`) instead of a list of placeholders: one statement
text per kind whatever the number of ids, so psycopg prepares it once per connection (an `IN` list of a new length was
parsed and planned again), and no batch is ever split.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT, MemoryRow
from memoryd.storage.handle import Database

#: Per kind: the columns of a MemoryRow (row_from_record's order), the table, and the active-rows condition.
_SOURCE = {
    KIND_PINNED: (
        "id, agent_id, content, coalesce(source_conversation_id, ''), created_at_ms, '', salience, tags_csv, 0, ''",
        "pinned_facts",
        " AND status = 'active'",
    ),
    KIND_EPISODE: (
        "id, agent_id, summary, conversation_id, conversation_at_ms, '', salience, topics_csv, 0, entities_csv",
        "episodes",
        " AND status = 'active'",
    ),
    KIND_TRANSCRIPT: (
        "id, agent_id, content, conversation_id, created_at_ms, role, 0.0, '', chunk_index, ''",
        "transcript",
        "",
    ),
}

_SELECT = {
    kind: f"SELECT {columns} FROM {table} WHERE id IN ({{ids}}){active} AND {{agent}} = ?"
    for kind, (columns, table, active) in _SOURCE.items()
}


def row_by_id_sql(kind: str, id_sql: str, agent_sql: str) -> str:
    """A statement selecting one active row of `kind` (row_from_record's columns) whose id is the SQL expression
    `id_sql` and whose agent is `agent_sql` (a placeholder): the LATERAL join of pg_vectors.nearest_rows."""
    columns, table, active = _SOURCE[kind]
    return f"SELECT {columns} FROM {table} WHERE id = {id_sql}{active} AND agent_id = {agent_sql}"


def row_from_record(kind: str, r: Sequence[Any]) -> MemoryRow:
    """The MemoryRow of one record of `kind`'s columns (_SOURCE's order)."""
    return MemoryRow(
        kind=kind,
        id=int(r[0]),
        agent_id=r[1],
        text=r[2],
        conversation_id=r[3],
        occurred_at_ms=int(r[4] or 0),
        role=r[5],
        salience=float(r[6] or 0.0),
        topics=split_csv(r[7] or ""),
        chunk_index=int(r[8] or 0),
        entities=split_csv(r[9] or "") if kind == KIND_EPISODE else (),
    )


#: Text embedded for a row (episodes: summary + topics, as the reference app does).
EMBED_TEXT_SQL = {
    KIND_PINNED: "SELECT id, content FROM pinned_facts",
    KIND_EPISODE: "SELECT id, summary || CASE WHEN topics_csv <> '' THEN ' — ' || topics_csv ELSE '' END "
    "FROM episodes",
    KIND_TRANSCRIPT: "SELECT id, content FROM transcript",
}

_CHUNK = 500


def split_csv(value: str) -> tuple[str, ...]:
    """Comma-separated list → trimmed, non-empty items."""
    if (
        not value
    ):  # every transcript turn's topics: 0.4 instead of 3 us, for each of a search's few hundred rows
        return ()
    return tuple(item.strip() for item in value.split(",") if item.strip())


class RowStore:
    """Fetches rows for search hits; rows of other agents, disabled rows and deleted rows never come back."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def fetch(self, kind: str, agent_id: str, ids: Sequence[int]) -> dict[int, MemoryRow]:
        """Rows by id (missing ids are simply absent)."""
        found: dict[int, MemoryRow] = {}
        unique = list(dict.fromkeys(int(i) for i in ids))
        for sql, params in self._fetch_statements(kind, agent_id, unique):
            for r in self._db.query(sql, params):
                found[int(r[0])] = row_from_record(kind, r)
        return found

    def _fetch_statements(
        self, kind: str, agent_id: str, unique: list[int]
    ) -> list[tuple[str, tuple[object, ...]]]:
        """(statement, parameters) loading `unique` ids: one on PostgreSQL (an array), one per _CHUNK on SQLite."""
        if not unique:
            return []
        if self._db.dialect.is_postgres:
            return [
                (
                    _SELECT[kind].replace("IN ({ids})", "= ANY(?::bigint[])").format(agent="agent_id"),
                    (unique, agent_id),
                )
            ]
        out: list[tuple[str, tuple[object, ...]]] = []
        for start in range(0, len(unique), _CHUNK):
            chunk = unique[start : start + _CHUNK]
            sql = _SELECT[kind].format(
                ids=", ".join("?" * len(chunk)), agent=self._db.dialect.unindexed("agent_id")
            )
            out.append((sql, (*chunk, agent_id)))
        return out

    def after(self, kind: str, after_id: int, limit: int) -> list[MemoryRow]:
        """Active rows of `kind` of every agent with an id above `after_id`, by id, at most `limit` (the line-count
        filler walks them, read/line_token_filler.py)."""
        columns, table, active = _SOURCE[kind]
        sql = f"SELECT {columns} FROM {table} WHERE id > ?{active} ORDER BY id LIMIT ?"
        return [row_from_record(kind, r) for r in self._db.query(sql, (int(after_id), int(limit)))]

    def neighbours(self, agent_id: str, conversation_id: str, chunk_index: int, radius: int) -> list[int]:
        """Ids of the transcript turns within `radius` places of `chunk_index` in one conversation of one agent
        (the turn itself left out), nearest first and, at equal distance, the earlier one first."""
        if radius <= 0:
            return []
        rows = self._db.query(
            "SELECT id FROM transcript WHERE agent_id = ? AND conversation_id = ? AND chunk_index BETWEEN ? AND ? "
            "AND chunk_index <> ? ORDER BY abs(chunk_index - ?), chunk_index",
            (agent_id, conversation_id, chunk_index - radius, chunk_index + radius, chunk_index, chunk_index),
        )
        return [int(r[0]) for r in rows]

    def texts_to_embed(self, kind: str, agent_id: str, ids: Sequence[int]) -> list[tuple[int, str]]:
        """(id, text to embed) for the given rows of one agent."""
        result: list[tuple[int, str]] = []
        unique = list(dict.fromkeys(int(i) for i in ids))
        for start in range(0, len(unique), _CHUNK):
            chunk = unique[start : start + _CHUNK]
            agent = self._db.dialect.unindexed("agent_id")
            sql = f"{EMBED_TEXT_SQL[kind]} WHERE id IN ({', '.join('?' * len(chunk))}) AND {agent} = ?"
            result.extend((int(r[0]), str(r[1])) for r in self._db.query(sql, (*chunk, agent_id)))
        return result
