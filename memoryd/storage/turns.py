"""The hot-path write: transcript rows and a pending signal per turn; concurrent turns share one transaction.

Plain SQL, three statements a turn (peewee's query builder cost more than the statements themselves), written by
one writer thread with group commit: turns that arrive while a commit is in flight go into the next transaction
together, so the commit and the FTS5 segment flush are paid once per batch. A turn is acknowledged only after its
transaction committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoryd.domain import BufferedTurn, TurnInput, now_ms
from memoryd.storage.agents import AgentStore
from memoryd.storage.db import Database
from memoryd.storage.group_commit import GroupCommit
from memoryd.storage.tables import Tables

_AGENT_SQL = "SELECT memory_enabled FROM agents WHERE agent_id = ?"
_NEW_AGENT_SQL = (
    "INSERT INTO agents (agent_id, display_name, memory_enabled, search_memory_enabled, created_at_ms, "
    "updated_at_ms) VALUES (?, '', 1, 0, ?, ?) ON CONFLICT (agent_id) DO NOTHING"
)
# Both transcript rows in one statement (each statement releases and re-takes the GIL, which under load means a
# thread switch): chunk indexes continue the conversation; the assistant row only when there is a reply.
_TRANSCRIPT_SQL = """
WITH base(chunk) AS (
    SELECT coalesce(max(chunk_index), -1) + 1 FROM transcript WHERE agent_id = ?1 AND conversation_id = ?2
)
INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, created_at_ms)
SELECT ?1, ?2, chunk, 'user', ?3, ?4, ?7 FROM base
UNION ALL
SELECT ?1, ?2, chunk + 1, 'assistant', ?5, ?6, ?7 FROM base WHERE ?5 != ''
RETURNING chunk_index, id
"""
_SIGNAL_SQL = (
    "INSERT INTO pending_signals (agent_id, conversation_id, user_message, assistant_message, status, attempts, "
    "occurred_at_ms, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?)"
)


def estimate_tokens(text: str) -> int:
    """Token estimate used for stored rows (chars / 4, rounded up)."""
    return (len(text) + 3) // 4


class AgentMemoryDisabledError(Exception):
    """The agent exists with its Memory toggle off; nothing was written."""


@dataclass(frozen=True)
class _Job:
    turn: TurnInput
    is_toggle_checked: bool


class TurnStore:
    """Writes buffered turns; the agent is created on first use inside the same transaction."""

    def __init__(self, db: Database, tables: Tables, agents: AgentStore) -> None:
        # tables and agents are accepted for the Store's wiring; the hot path uses plain SQL only.
        del tables, agents
        self._db = db
        self._group: GroupCommit[_Job, BufferedTurn] = GroupCommit(
            self._write_batch, name="memoryd-turn-writer", on_exit=db.close
        )

    def buffer(self, turn: TurnInput) -> BufferedTurn:
        """Insert transcript row(s) and one pending signal atomically; returns their ids."""
        return self._submit(_Job(turn, is_toggle_checked=False))

    def buffer_if_enabled(self, turn: TurnInput) -> BufferedTurn:
        """Like buffer, but reads the agent's Memory toggle in the same transaction: AgentMemoryDisabledError when
        it is off. An unknown agent counts as enabled and is created."""
        return self._submit(_Job(turn, is_toggle_checked=True))

    def _submit(self, job: _Job) -> BufferedTurn:
        if self._db.pw.in_transaction():
            # Inside the caller's transaction, which holds the write lock: the writer thread would wait for it
            # forever, and this turn must commit (or roll back) with the caller's work anyway.
            with self._db.write():  # a savepoint
                return self._write_one(self._connection(), job)
        return self._group.submit(job)

    def _connection(self) -> Any:
        """This thread's DB-API connection (sqlite3, or sqlcipher3 for an encrypted store)."""
        return self._db.pw.connection()  # type: ignore[no-untyped-call]

    def _write_batch(self, jobs: Sequence[_Job]) -> list[BufferedTurn | BaseException]:
        """One transaction for the whole batch; if it fails, each turn gets its own so one cannot sink the rest."""
        try:
            with self._db.write():
                connection = self._connection()
                return [self._write_or_refuse(connection, job) for job in jobs]
        except Exception as error:
            if len(jobs) == 1:
                return [error]
        outcomes: list[BufferedTurn | BaseException] = []
        for job in jobs:
            try:
                with self._db.write():
                    outcomes.append(self._write_or_refuse(self._connection(), job))
            except Exception as error:
                outcomes.append(error)
        return outcomes

    def _write_or_refuse(self, connection: Any, job: _Job) -> BufferedTurn | AgentMemoryDisabledError:
        try:
            return self._write_one(connection, job)
        except AgentMemoryDisabledError as refused:
            return refused  # nothing was written for this turn; the rest of the batch commits

    def _write_one(self, connection: Any, job: _Job) -> BufferedTurn:
        turn = job.turn
        stamp = now_ms()
        enabled = connection.execute(_AGENT_SQL, (turn.agent_id,)).fetchone()
        if enabled is None:
            connection.execute(_NEW_AGENT_SQL, (turn.agent_id, stamp, stamp))
        elif job.is_toggle_checked and not enabled[0]:
            raise AgentMemoryDisabledError(turn.agent_id)
        rows = connection.execute(
            _TRANSCRIPT_SQL,
            (
                turn.agent_id,
                turn.conversation_id,
                turn.user_message,
                estimate_tokens(turn.user_message),
                turn.assistant_message,
                estimate_tokens(turn.assistant_message),
                turn.occurred_at_ms,
            ),
        ).fetchall()
        ids = tuple(int(row_id) for _, row_id in sorted(rows))  # RETURNING order is unspecified
        cursor = connection.execute(
            _SIGNAL_SQL,
            (
                turn.agent_id,
                turn.conversation_id,
                turn.user_message,
                turn.assistant_message,
                turn.occurred_at_ms,
                stamp,
                stamp,
            ),
        )
        return BufferedTurn(signal_id=int(cursor.lastrowid or 0), transcript_ids=ids)
