"""Console row operations: fetch any row, search across agents, flip status, forget, clear everything.

A thin face over memoryd.storage.console_rows.ConsoleRowStore (which holds the SQL); here the search query
becomes its terms.
"""

from __future__ import annotations

from collections.abc import Sequence

from memoryd.console.records import StoredMatch, StoredRow
from memoryd.retrieval.terms import query_terms
from memoryd.storage.console_rows import ConsoleRowStore


class ConsoleStore:
    """Row-level console queries; every method is one short transaction."""

    def __init__(self, rows: ConsoleRowStore) -> None:
        self._rows = rows

    def fetch(self, kind: str, row_id: int) -> StoredRow | None:
        """One row of any console kind with all its columns, or None."""
        return self._rows.fetch(kind, row_id)

    def search(
        self, query: str, kinds: Sequence[str], agent_id: str | None, include_disabled: bool, limit: int
    ) -> list[StoredMatch]:
        """Matches across `kinds`, best first: FTS5 bm25 over the mirrors; literal LIKE when the query has no terms."""
        terms = query_terms(query)
        return self._rows.search(query, terms, kinds, agent_id, include_disabled, limit)

    def set_status(self, kind: str, row_id: int, status: str) -> bool | None:
        """Set a pinned fact's or episode's status; whether it changed, or None when the row does not exist."""
        return self._rows.set_status(kind, row_id, status)

    def delete(self, kind: str, row_id: int) -> tuple[str, int] | None:
        """Delete a row (its FTS entry and stored vector go with it); (agent_id, vectors deleted) or None."""
        return self._rows.delete(kind, row_id)

    def clear_all(self) -> tuple[int, list[str]]:
        """Delete all memory but agents and processing_log; (rows deleted, agent ids that had any row or vector)."""
        return self._rows.clear_all()

    def put_vectors(
        self, kind: str, agent_id: str, model: str, dimension: int, items: Sequence[tuple[int, bytes, int]]
    ) -> int:
        """Store imported vectors (row id, blob, created_at_ms) of rows that exist, keeping their timestamps."""
        return self._rows.put_vectors(kind, agent_id, model, dimension, items)


__all__ = ["ConsoleStore"]
