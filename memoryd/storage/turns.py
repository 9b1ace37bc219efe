"""The hot-path write: transcript rows and a pending signal per turn; concurrent turns share one transaction.

Plain SQL, written by one writer thread with group commit: turns that arrive while a commit is in flight go into
the next transaction together, so the commit and the FTS5 segment flush are paid once per batch. A batch costs at
most four statements whatever its size (the agents' toggles, the new agents, every transcript row, every signal):
each statement step releases and re-takes the GIL, which under load means a thread switch, so per-turn statements
were the writer's main cost. A turn is acknowledged only after its transaction committed.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoryd.domain import BufferedTurn, TurnInput, now_ms
from memoryd.storage.agents import AgentStore
from memoryd.storage.db import Database
from memoryd.storage.group_commit import GroupCommit
from memoryd.storage.tables import Tables

#: One turn in a batch's VALUES list: its position, agent, conversation, user text and tokens, assistant text and
#: tokens, occurred-at, and its chunk offset after the earlier turns of the same conversation in the batch.
_BATCH = "batch(i, a, c, u, ut, s, st, at, off)"
_TURN_PARAMS = "(?, ?, ?, ?, ?, ?, ?, ?, ?)"


@functools.lru_cache(maxsize=128)
def _disabled_sql(agents: int) -> str:
    marks = ",".join("?" * agents)
    return f"SELECT agent_id FROM agents WHERE memory_enabled = 0 AND agent_id IN ({marks})"


@functools.lru_cache(maxsize=128)
def _new_agents_sql(agents: int) -> str:
    rows = ", ".join(["(?, '', 1, 0, ?, ?)"] * agents)
    return (
        "INSERT INTO agents (agent_id, display_name, memory_enabled, search_memory_enabled, created_at_ms, "
        f"updated_at_ms) VALUES {rows} ON CONFLICT (agent_id) DO NOTHING"
    )


@functools.lru_cache(maxsize=128)
def _transcript_sql(turns: int) -> str:
    # Every row of the batch in one statement, inserted in (turn, role) order, so their AUTOINCREMENT ids are
    # consecutive in that order (the write lock is held). The SELECT reads transcript, so SQLite materialises it
    # before the first insert: `base` is each conversation's next chunk before the batch.
    # (The statement starts with INSERT so that the driver reports its row count.)
    return f"""
INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, created_at_ms)
WITH {_BATCH} AS (VALUES {", ".join([_TURN_PARAMS] * turns)}),
based AS (
    SELECT batch.*, (
        SELECT coalesce(max(chunk_index), -1) + 1 FROM transcript
        WHERE agent_id = batch.a AND conversation_id = batch.c
    ) AS base FROM batch
)
SELECT a, c, chunk, role, content, tokens, at FROM (
    SELECT a, c, base + off AS chunk, 'user' AS role, u AS content, ut AS tokens, at, i * 2 AS o FROM based
    UNION ALL
    SELECT a, c, base + off + 1, 'assistant', s, st, at, i * 2 + 1 FROM based WHERE s != ''
) ORDER BY o
"""


@functools.lru_cache(maxsize=128)
def _signals_sql(turns: int) -> str:
    return f"""
INSERT INTO pending_signals (agent_id, conversation_id, user_message, assistant_message, status, attempts,
    occurred_at_ms, created_at_ms, updated_at_ms)
WITH {_BATCH} AS (VALUES {", ".join([_TURN_PARAMS] * turns)})
SELECT a, c, u, s, 'pending', 0, at, ?, ? FROM batch ORDER BY i
"""


def estimate_tokens(text: str) -> int:
    """Token estimate used for stored rows (chars / 4, rounded up)."""
    return (len(text) + 3) // 4


class AgentMemoryDisabledError(Exception):
    """The agent exists with its Memory toggle off; nothing was written."""


class BatchIdsError(RuntimeError):
    """SQLite reported a different number of inserted rows than the batch holds (the batch is rolled back)."""


@dataclass(frozen=True)
class _Job:
    turn: TurnInput
    is_toggle_checked: bool


Outcome = BufferedTurn | AgentMemoryDisabledError


def write_turns(connection: Any, jobs: Sequence[_Job]) -> list[Outcome]:
    """Write a batch inside the caller's open write transaction; one outcome per job, in order.

    A job whose agent has its Memory toggle off (checked only for `is_toggle_checked` jobs) writes nothing and gets
    AgentMemoryDisabledError; unknown agents are created enabled.
    """
    stamp = now_ms()
    agents = list(dict.fromkeys(job.turn.agent_id for job in jobs))
    checked = list(dict.fromkeys(job.turn.agent_id for job in jobs if job.is_toggle_checked))
    disabled: set[str] = set()
    if checked:
        disabled = {row[0] for row in connection.execute(_disabled_sql(len(checked)), checked).fetchall()}
    accepted = [job for job in jobs if not (job.is_toggle_checked and job.turn.agent_id in disabled)]
    if accepted:
        new_agent_params: list[Any] = []
        for agent in agents:
            if agent not in disabled:
                new_agent_params += (agent, stamp, stamp)
        if new_agent_params:
            connection.execute(_new_agents_sql(len(new_agent_params) // 3), new_agent_params)
    written = _insert_rows(connection, [job.turn for job in accepted], stamp) if accepted else []
    outcomes: list[Outcome] = []
    rows = iter(written)
    for job in jobs:
        if job.is_toggle_checked and job.turn.agent_id in disabled:
            outcomes.append(AgentMemoryDisabledError(job.turn.agent_id))
        else:
            outcomes.append(next(rows))
    return outcomes


def _insert_rows(connection: Any, turns: Sequence[TurnInput], stamp: int) -> list[BufferedTurn]:
    params: list[Any] = []
    offsets: dict[tuple[str, str], int] = {}
    row_count = 0
    for index, turn in enumerate(turns):
        key = (turn.agent_id, turn.conversation_id)
        offset = offsets.get(key, 0)
        rows = 2 if turn.assistant_message else 1
        offsets[key] = offset + rows
        row_count += rows
        params += (
            index,
            turn.agent_id,
            turn.conversation_id,
            turn.user_message,
            estimate_tokens(turn.user_message),
            turn.assistant_message,
            estimate_tokens(turn.assistant_message),
            turn.occurred_at_ms,
            offset,
        )
    cursor = connection.execute(_transcript_sql(len(turns)), params)
    last_row = int(cursor.lastrowid or 0)
    if cursor.rowcount != row_count:
        raise BatchIdsError(f"transcript: {cursor.rowcount} rows inserted, {row_count} expected")
    cursor = connection.execute(_signals_sql(len(turns)), [*params, stamp, stamp])
    last_signal = int(cursor.lastrowid or 0)
    if cursor.rowcount != len(turns):
        raise BatchIdsError(f"pending_signals: {cursor.rowcount} rows inserted, {len(turns)} expected")
    next_row = last_row - row_count + 1
    first_signal = last_signal - len(turns) + 1
    stored: list[BufferedTurn] = []
    for index, turn in enumerate(turns):
        rows = 2 if turn.assistant_message else 1
        stored.append(BufferedTurn(first_signal + index, tuple(range(next_row, next_row + rows))))
        next_row += rows
    return stored


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
                outcome = write_turns(self._connection(), [job])[0]
            if isinstance(outcome, AgentMemoryDisabledError):
                raise outcome
            return outcome
        return self._group.submit(job)

    def _connection(self) -> Any:
        """This thread's DB-API connection (sqlite3, or sqlcipher3 for an encrypted store)."""
        return self._db.pw.connection()  # type: ignore[no-untyped-call]

    def _write_batch(self, jobs: Sequence[_Job]) -> list[BufferedTurn | BaseException]:
        """One transaction for the whole batch; if it fails, each turn gets its own so one cannot sink the rest."""
        try:
            with self._db.write():
                return list(write_turns(self._connection(), jobs))
        except Exception as error:
            if len(jobs) == 1:
                return [error]
        outcomes: list[BufferedTurn | BaseException] = []
        for job in jobs:
            try:
                with self._db.write():
                    outcomes.extend(write_turns(self._connection(), [job]))
            except Exception as error:
                outcomes.append(error)
        return outcomes
