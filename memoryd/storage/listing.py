"""ListItems' SQL: one agent's pinned facts or episodes a page at a time, in the Memory view's orders.

Pinned facts go by salience, then use count (both descending), then id; episodes by conversation time, then id,
newest first. Paging is by keyset (the last row's sort values), so a page costs the same wherever it starts and
rows written between two pages neither repeat nor shift the next one. Both orders ride the tables' (agent_id,
status, …) indexes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memoryd.domain import KIND_EPISODE, KIND_PINNED
from memoryd.storage.handle import Database

#: Kinds ListItems lists.
LISTED_KINDS = (KIND_PINNED, KIND_EPISODE)

_PINNED = "SELECT id, content, salience, use_count, status, created_at_ms, 0, '' FROM pinned_facts WHERE agent_id = ?"
_PINNED_AFTER = " AND (salience < ? OR (salience = ? AND (use_count < ? OR (use_count = ? AND id > ?))))"
_PINNED_ORDER = " ORDER BY salience DESC, use_count DESC, id ASC LIMIT ?"
_EPISODES = (
    "SELECT id, summary, salience, 0, status, created_at_ms, conversation_at_ms, topics_csv FROM episodes "
    "WHERE agent_id = ?"
)
_EPISODES_AFTER = " AND (conversation_at_ms < ? OR (conversation_at_ms = ? AND id < ?))"
_EPISODES_ORDER = " ORDER BY conversation_at_ms DESC, id DESC LIMIT ?"
_ACTIVE = " AND status = 'active'"


@dataclass(frozen=True)
class ListedRow:
    """One row as stored (text in clear: the console redacts it before it leaves memoryd)."""

    kind: str
    id: int
    text: str
    salience: float
    use_count: int
    status: str
    created_at_ms: int
    occur_at_ms: int
    """Episodes: conversation_at_ms; pinned facts: 0."""
    topics_csv: str
    """Episodes: their topics, comma-separated; pinned facts: empty."""

    @property
    def position(self) -> tuple[float, ...]:
        """Sort values of this row: where the next page starts after it."""
        if self.kind == KIND_PINNED:
            return (self.salience, float(self.use_count), float(self.id))
        return (float(self.occur_at_ms), float(self.id))


@dataclass(frozen=True)
class ListedPage:
    """Up to `limit` rows, the position after the last one when more follow, and the filtered total."""

    rows: tuple[ListedRow, ...]
    next_position: tuple[float, ...] | None
    total: int


class ListingStore:
    """Read-only paged listings; each page is one read transaction."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def page(
        self,
        agent_id: str,
        kind: str,
        limit: int,
        *,
        include_disabled: bool,
        after: tuple[float, ...] | None = None,
    ) -> ListedPage:
        """Rows of `agent_id` and `kind` (pinned or episode) after `after` (a row's position; None: the start)."""
        if kind not in LISTED_KINDS:
            raise ValueError(f"not a listed kind: {kind}")
        pinned = kind == KIND_PINNED
        sql = _PINNED if pinned else _EPISODES
        table = "pinned_facts" if pinned else "episodes"
        params: list[Any] = [agent_id]
        if not include_disabled:
            sql += _ACTIVE
        if after is not None:
            if pinned:
                salience, uses, last_id = after
                sql += _PINNED_AFTER
                params += [salience, salience, int(uses), int(uses), int(last_id)]
            else:
                at_ms, last_id = after
                sql += _EPISODES_AFTER
                params += [int(at_ms), int(at_ms), int(last_id)]
        sql += _PINNED_ORDER if pinned else _EPISODES_ORDER
        params.append(limit + 1)  # one more than asked: whether another page follows
        count_sql = f"SELECT count(*) FROM {table} WHERE agent_id = ?" + ("" if include_disabled else _ACTIVE)
        with self._db.read():
            found = self._db.execute(sql, params).fetchall()
            total = int(self._db.scalar(count_sql, (agent_id,)) or 0)
        rows = tuple(
            ListedRow(
                kind,
                int(r[0]),
                str(r[1]),
                float(r[2]),
                int(r[3]),
                str(r[4]),
                int(r[5]),
                int(r[6]),
                str(r[7] or ""),
            )
            for r in found[:limit]
        )
        more = len(found) > limit and rows
        return ListedPage(rows, rows[-1].position if more else None, total)


__all__ = ["LISTED_KINDS", "ListedPage", "ListedRow", "ListingStore"]
