"""Rows of one agent whose time falls in a window (the date prior of search); uses the (agent, time) indexes."""

from __future__ import annotations

from memoryd.domain import KIND_EPISODE, KIND_TRANSCRIPT
from memoryd.storage.handle import Database

_SQL = {
    KIND_TRANSCRIPT: (
        "SELECT id FROM transcript WHERE agent_id = ? AND created_at_ms >= ? AND created_at_ms < ? "
        "ORDER BY created_at_ms DESC LIMIT ?"
    ),
    KIND_EPISODE: (
        "SELECT id FROM episodes WHERE agent_id = ? AND status = 'active' AND conversation_at_ms >= ? "
        "AND conversation_at_ms < ? ORDER BY conversation_at_ms DESC LIMIT ?"
    ),
}

#: Kinds whose rows carry the time the conversation happened (a pinned fact's time is when it was pinned).
DATED_KINDS = frozenset(_SQL)


def rows_in_window(
    db: Database, kind: str, agent_id: str, start_ms: int, end_ms: int, limit: int
) -> list[int]:
    """Ids of the agent's rows of `kind` with start_ms <= time < end_ms, newest first, at most `limit`."""
    if kind not in _SQL or limit <= 0:
        return []
    return [int(row[0]) for row in db.query(_SQL[kind], (agent_id, start_ms, end_ms, limit))]
