"""Transcript rows are written here only: the hot-path write (a pending signal per turn; concurrent turns share one
transaction), Ingest's whole conversations (insert_transcript_rows) and Import's rows (insert_imported_row). (The
one other INSERT INTO transcript is migration 3's, storage/v1_import.py: history, frozen.)

Plain SQL, written by one writer thread with group commit: turns that arrive while a commit is in flight go into
the next transaction together, so the commit and the FTS5 segment flush are paid once per batch. A batch costs at
most four statements whatever its size (the agents' toggles, the new agents, every transcript row, every signal):
each statement step releases and re-takes the GIL, which under load means a thread switch, so per-turn statements
were the writer's main cost. A turn is acknowledged only after its transaction committed.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from memoryd.domain import BufferedTurn, TurnInput, now_ms
from memoryd.storage.agents import AgentStore
from memoryd.storage.group_commit import GroupCommit
from memoryd.storage.handle import Database
from memoryd.storage.pg_request_keys import lock_turn_keys
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
    # Every row of the batch in one statement, inserted in (turn, role) order, so their ids ascend in that order
    # (RETURNING gives them; sorted, they are the rows in order, even where another PostgreSQL session's inserts
    # interleave). The SELECT reads transcript, so it is materialised before the first insert: `base` is each
    # conversation's next chunk before the batch.
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
RETURNING id
"""


@functools.lru_cache(maxsize=128)
def _signals_sql(turns: int) -> str:
    return f"""
INSERT INTO pending_signals (agent_id, conversation_id, user_message, assistant_message, status, attempts,
    occurred_at_ms, created_at_ms, updated_at_ms)
WITH {_BATCH} AS (VALUES {", ".join([_TURN_PARAMS] * turns)})
SELECT a, c, u, s, 'pending', 0, at, ?, ? FROM batch ORDER BY i
RETURNING id
"""


#: One transcript row: agent, conversation, chunk index, role, content, token count, created-at (epoch ms).
TranscriptRow = tuple[str, str, int, str, str, int, int]


#: Rows per multi-row INSERT of insert_transcript_rows (7 parameters each: well under either backend's limit).
INSERT_BATCH = 250


@functools.lru_cache(maxsize=8)
def _rows_sql(count: int) -> str:
    return (
        "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, created_at_ms)"
        f" VALUES {', '.join(['(?, ?, ?, ?, ?, ?, ?)'] * count)}"
    )


def insert_transcript_rows(connection: Any, rows: Sequence[TranscriptRow]) -> None:
    """Insert whole transcript rows with their chunk indices given (Ingest writes a conversation at once), one
    multi-row INSERT per INSERT_BATCH rows, in order (ids follow the rows); the caller holds the write transaction.
    One statement per batch, not per row: on PostgreSQL each statement is a round trip and fires the lexeme-count
    trigger once (storage/pg_term_stats.py), which then sums the batch's lexemes before appending them. BufferTurn's
    batches go through write_turns, which numbers the chunks."""
    for start in range(0, len(rows), INSERT_BATCH):
        batch = rows[start : start + INSERT_BATCH]
        connection.execute(_rows_sql(len(batch)), [value for row in batch for value in row])


def insert_imported_row(db: Database, values: Mapping[str, Any]) -> int:
    """Insert one transcript row of an import file with the columns it carries (stored columns of the live schema,
    checked by the import; its id when free, its title); the caller holds the write transaction. The new row's id."""
    names = list(values)
    return db.insert(
        f"INSERT INTO transcript ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        tuple(values.values()),
    )


def estimate_tokens(text: str) -> int:
    """Token estimate used for stored rows (chars / 4, rounded up)."""
    return (len(text) + 3) // 4


class AgentMemoryDisabledError(Exception):
    """The agent exists with its Memory toggle off; nothing was written."""


class RequestIdReusedError(Exception):
    """A request id within its window named a different turn (other conversation or text); nothing was written."""


#: How long a BufferTurn request id answers retries (proto: 24 hours); older keys are deleted.
REQUEST_WINDOW_MS = 24 * 3_600_000
#: Expired keys are swept at most this often (one indexed DELETE inside a batch's transaction).
_SWEEP_EVERY_MS = 60_000


def fingerprint(turn: TurnInput) -> str:
    """What a retry must repeat: the conversation and both texts (a hash: the key table holds no content)."""
    digest = hashlib.blake2b(digest_size=16)
    for part in (turn.conversation_id, turn.user_message, turn.assistant_message):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest.hexdigest()


def _known_requests(
    connection: Any, keys: Sequence[tuple[str, str]], since_ms: int
) -> dict[tuple[str, str], tuple[str, BufferedTurn]]:
    """(agent, request id) → (fingerprint, the first call's result) for keys stored since `since_ms`."""
    found: dict[tuple[str, str], tuple[str, BufferedTurn]] = {}
    for agent_id, request_id in keys:
        row = connection.execute(
            "SELECT fingerprint, signal_id, transcript_ids FROM turn_requests "
            "WHERE agent_id = ? AND request_id = ? AND created_at_ms >= ?",
            (agent_id, request_id, since_ms),
        ).fetchone()
        if row is not None:
            ids = tuple(int(i) for i in str(row[2]).split(",") if i)
            found[(agent_id, request_id)] = (str(row[0]), BufferedTurn(int(row[1]), ids, replayed=True))
    return found


class BatchIdsError(RuntimeError):
    """SQLite reported a different number of inserted rows than the batch holds (the batch is rolled back)."""


@dataclass(frozen=True)
class _Job:
    turn: TurnInput
    is_toggle_checked: bool


Outcome = BufferedTurn | AgentMemoryDisabledError | RequestIdReusedError


def write_turns(
    connection: Any, jobs: Sequence[_Job], *, sweep: bool = False, lock_keys: bool = False
) -> list[Outcome]:
    """Write a batch inside the caller's open write transaction; one outcome per job, in order.

    A job whose agent has its Memory toggle off (checked only for `is_toggle_checked` jobs) writes nothing and gets
    AgentMemoryDisabledError; unknown agents are created enabled. A job whose request id was stored within the
    window (or earlier in this batch) writes nothing and gets the first result, `replayed`; with another turn's
    fingerprint it gets RequestIdReusedError. `sweep` also deletes expired keys.
    """
    stamp = now_ms()
    if lock_keys:
        # Several replicas on PostgreSQL: the same retry or conversation may be in another replica's transaction.
        lock_turn_keys(
            connection,
            ((j.turn.agent_id, j.turn.conversation_id) for j in jobs),
            ((j.turn.agent_id, j.turn.request_id) for j in jobs if j.turn.request_id),
        )
    if not any(job.turn.request_id for job in jobs):
        plain = _write_new(connection, jobs, stamp)
        if sweep:
            connection.execute(
                "DELETE FROM turn_requests WHERE created_at_ms < ?", (stamp - REQUEST_WINDOW_MS,)
            )
        return plain
    keys = list(dict.fromkeys((j.turn.agent_id, j.turn.request_id) for j in jobs if j.turn.request_id))
    known = _known_requests(connection, keys, stamp - REQUEST_WINDOW_MS)
    # Decided before writing: replays of a stored key, repeats of a key first seen earlier in this batch, and the
    # jobs that write.
    early: dict[int, Outcome] = {}
    repeat_of: dict[int, int] = {}
    first_seen: dict[tuple[str, str], int] = {}
    for index, job in enumerate(jobs):
        if not job.turn.request_id:
            continue
        key = (job.turn.agent_id, job.turn.request_id)
        print_ = fingerprint(job.turn)
        if key in known:
            stored_print, result = known[key]
            early[index] = result if stored_print == print_ else RequestIdReusedError(key[1])
        elif key in first_seen:
            first = first_seen[key]
            same = fingerprint(jobs[first].turn) == print_
            if same:
                repeat_of[index] = first
            else:
                early[index] = RequestIdReusedError(key[1])
        else:
            first_seen[key] = index
    writing = [i for i in range(len(jobs)) if i not in early and i not in repeat_of]
    written = dict(zip(writing, _write_new(connection, [jobs[i] for i in writing], stamp), strict=True))
    for key, index in first_seen.items():
        outcome = written[index]
        if isinstance(outcome, BufferedTurn):
            connection.execute(
                "INSERT INTO turn_requests (agent_id, request_id, fingerprint, signal_id, transcript_ids, "
                "created_at_ms) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (agent_id, request_id) DO UPDATE SET "
                "fingerprint = excluded.fingerprint, signal_id = excluded.signal_id, "
                "transcript_ids = excluded.transcript_ids, created_at_ms = excluded.created_at_ms",
                (
                    key[0],
                    key[1],
                    fingerprint(jobs[index].turn),
                    outcome.signal_id,
                    ",".join(str(i) for i in outcome.transcript_ids),
                    stamp,
                ),
            )
    if sweep:
        connection.execute("DELETE FROM turn_requests WHERE created_at_ms < ?", (stamp - REQUEST_WINDOW_MS,))
    outcomes: list[Outcome] = []
    for index in range(len(jobs)):
        if index in early:
            outcomes.append(early[index])
        elif index in repeat_of:
            first_outcome = written[repeat_of[index]]
            outcomes.append(
                replace(first_outcome, replayed=True)
                if isinstance(first_outcome, BufferedTurn)
                else first_outcome
            )
        else:
            outcomes.append(written[index])
    return outcomes


def _write_new(connection: Any, jobs: Sequence[_Job], stamp: int) -> list[Outcome]:
    """The batch's turns that do write (or meet a disabled agent), in order."""
    if not jobs:
        return []
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
    row_ids = sorted(int(r[0]) for r in connection.execute(_transcript_sql(len(turns)), params).fetchall())
    if len(row_ids) != row_count:
        raise BatchIdsError(f"transcript: {len(row_ids)} rows inserted, {row_count} expected")
    signal_ids = sorted(
        int(r[0]) for r in connection.execute(_signals_sql(len(turns)), [*params, stamp, stamp]).fetchall()
    )
    if len(signal_ids) != len(turns):
        raise BatchIdsError(f"pending_signals: {len(signal_ids)} rows inserted, {len(turns)} expected")
    stored: list[BufferedTurn] = []
    next_row = 0
    for index, turn in enumerate(turns):
        rows = 2 if turn.assistant_message else 1
        stored.append(BufferedTurn(signal_ids[index], tuple(row_ids[next_row : next_row + rows])))
        next_row += rows
    return stored


class TurnStore:
    """Writes buffered turns; the agent is created on first use inside the same transaction."""

    def __init__(self, db: Database, tables: Tables, agents: AgentStore) -> None:
        # tables and agents are accepted for the Store's wiring; the hot path uses plain SQL only.
        del tables, agents
        self._db = db
        self._swept_at_ms = 0
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
                outcome = write_turns(self._connection(), [job], lock_keys=self._db.dialect.is_postgres)[0]
            if isinstance(outcome, (AgentMemoryDisabledError, RequestIdReusedError)):
                raise outcome
            return outcome
        return self._group.submit(job)

    def _connection(self) -> Any:
        """This thread's connection (sqlite3, sqlcipher3 for an encrypted store, or PostgreSQL's)."""
        return self._db.connection()

    def _write_batch(self, jobs: Sequence[_Job]) -> list[BufferedTurn | BaseException]:
        """One transaction for the whole batch; if it fails, each turn gets its own so one cannot sink the rest."""
        sweep = now_ms() - self._swept_at_ms >= _SWEEP_EVERY_MS
        try:
            with self._db.write():
                written: list[BufferedTurn | BaseException] = list(
                    write_turns(self._connection(), jobs, sweep=sweep, lock_keys=self._db.dialect.is_postgres)
                )
            if sweep:
                self._swept_at_ms = now_ms()
            return written
        except Exception as error:
            if len(jobs) == 1:
                return [error]
        outcomes: list[BufferedTurn | BaseException] = []
        for job in jobs:
            try:
                with self._db.write():
                    outcomes.extend(
                        write_turns(self._connection(), [job], lock_keys=self._db.dialect.is_postgres)
                    )
            except Exception as error:
                outcomes.append(error)
        return outcomes
