"""BufferTurn across replicas on PostgreSQL: a transaction that stores turns first takes a transaction-level
advisory lock per conversation and per (agent, request id), in one sorted order (so two batches never deadlock).

Without the request-id locks two replicas receiving the same retry at once would both miss the key in
turn_requests (neither has committed), both store the turn, and the second's upsert would overwrite the first's
key: the turn stored twice. With them the second waits until the first commits, and its lookup (a new statement,
READ COMMITTED: a new snapshot) then finds the key and replays the first call's ids. The conversation locks keep
chunk_index (max + 1 per conversation) from being handed out twice by concurrent transactions. SQLite needs none
of this: one process, one writer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol


class _Executes(Protocol):
    def execute(self, sql: str, parameters: Any = (), /) -> Any: ...


def lock_turn_keys(
    connection: _Executes, conversations: Iterable[tuple[str, str]], requests: Iterable[tuple[str, str]]
) -> None:
    """Take the advisory locks for the rest of the caller's write transaction (PostgreSQL only)."""
    names = {f"conversation\x1f{a}\x1f{c}" for a, c in conversations}
    names |= {f"turn_request\x1f{a}\x1f{r}" for a, r in requests}
    for name in sorted(names):
        connection.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (name,))


__all__ = ["lock_turn_keys"]
