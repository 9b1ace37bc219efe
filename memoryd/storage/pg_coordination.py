"""PostgreSQL rows that coordinate distillation across memoryd replicas: debounce deadlines, claims and leases.

One row per armed (agent, conversation) in `distill_due`: its deadline (`due_at`, the database's clock, so the
replicas' clocks never matter), why it is due, `arm_seq` (bumped by every arm), and the claim: which replica holds
it (`claimed_by`), the `arm_seq` it saw when it took it (`claimed_seq`) and until when (`lease_until`). A replica
takes due rows with `FOR UPDATE SKIP LOCKED`, renews its leases while it works and releases each when done: the
row goes if nothing re-armed it meanwhile, else it stays with its new deadline and no claim. A dead replica stops
renewing; once its leases pass, another replica takes the rows over. `active_conversations` keeps each agent's
current conversation, so a switch seen by one replica flushes a conversation whose turns went to another.

The claim grants exclusivity; exactly-once comes from it plus the distillation commit itself, which marks the
snapshot's signals processed only if they are all still pending (a run after a lapsed lease commits nothing).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql

#: Opens a new autocommit-capable psycopg connection to the memory database.
Connect = Callable[[], "psycopg.Connection[Any]"]

#: Why a row is due (kept on the row; the claimer hands it to the distillation's log).
REASON_DEBOUNCE = "debounce"
REASON_SWITCH = "switch"
REASON_END_SESSION = "end_session"
REASON_ORPHAN = "orphan"
#: A row that exists only because a replica holds the conversation for a foreground run (never due by itself).
REASON_HOLD = "hold"


def coordination_ddl(schema: str) -> list[str]:
    """The tables and index, idempotent (CREATE … IF NOT EXISTS), for pgstore's schema creation or ensure_schema."""
    s = sql.Identifier(schema).as_string(None)
    return [
        f"CREATE TABLE IF NOT EXISTS {s}.distill_due ("
        " agent_id text NOT NULL,"
        " conversation_id text NOT NULL,"
        " due_at timestamptz NOT NULL,"
        " reason text NOT NULL,"
        " arm_seq bigint NOT NULL DEFAULT 1,"
        " claimed_by text,"
        " claimed_seq bigint,"
        " lease_until timestamptz,"
        " PRIMARY KEY (agent_id, conversation_id))",
        f"CREATE INDEX IF NOT EXISTS distill_due_due_at ON {s}.distill_due (due_at)",
        f"CREATE TABLE IF NOT EXISTS {s}.active_conversations ("
        " agent_id text PRIMARY KEY,"
        " conversation_id text NOT NULL)",
        f"CREATE TABLE IF NOT EXISTS {s}.replica_passes ("
        " name text PRIMARY KEY,"
        " started_at_ms bigint NOT NULL,"
        " finished_at_ms bigint,"
        " replica text NOT NULL)",
    ]


@dataclass(frozen=True)
class Claim:
    """A due conversation this replica now holds."""

    agent_id: str
    conversation_id: str
    reason: str


@dataclass(frozen=True)
class Armed:
    """An armed conversation nobody holds, and how long until it is due (seconds, by the database's clock)."""

    agent_id: str
    conversation_id: str
    due_in_s: float


class PgCoordination:
    """The SQL of the claim protocol on one dedicated autocommit connection (statements are short and serialised
    by a lock; a broken connection is reopened on the next call).

    The connection commits without waiting for the WAL flush (synchronous_commit off): every row here can be lost
    in a database crash without harm — a lost arm is adopted as an orphan, a lost claim is taken again, a lost
    release lapses — and BufferTurn, which arms on every turn, then pays one flush per turn (its own), not two."""

    def __init__(self, connect: Connect, schema: str = "public") -> None:
        self._connect = connect
        self._schema = schema
        self._mu = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        s = sql.Identifier(schema).as_string(None)
        self._due = f"{s}.distill_due"
        self._active = f"{s}.active_conversations"
        self._signals = f"{s}.pending_signals"
        self._passes = f"{s}.replica_passes"

    def ensure_schema(self) -> None:
        """Create the coordination tables if the schema does not have them yet."""
        with self._cursor() as cur:
            for statement in coordination_ddl(self._schema):
                cur.execute(statement.encode())

    def close(self) -> None:
        """Close the connection."""
        with self._mu:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def arm(self, agent_id: str, conversation_id: str, debounce_s: float) -> str | None:
        """A turn was buffered: (re)arm the conversation's deadline and, if the agent was on another conversation,
        make that one due now. Returns the conversation flushed by the switch, or None. One statement, atomic."""
        query = f"""
            WITH prev AS (
                SELECT conversation_id FROM {self._active} WHERE agent_id = %(a)s FOR UPDATE
            ), active AS (
                INSERT INTO {self._active} AS t (agent_id, conversation_id) VALUES (%(a)s, %(c)s)
                ON CONFLICT (agent_id) DO UPDATE SET conversation_id = EXCLUDED.conversation_id
            ), switched AS (
                INSERT INTO {self._due} AS d (agent_id, conversation_id, due_at, reason)
                SELECT %(a)s, p.conversation_id, now(), '{REASON_SWITCH}' FROM prev p WHERE p.conversation_id <> %(c)s
                ON CONFLICT (agent_id, conversation_id) DO UPDATE
                SET due_at = now(), reason = '{REASON_SWITCH}', arm_seq = d.arm_seq + 1
            ), armed AS (
                INSERT INTO {self._due} AS d (agent_id, conversation_id, due_at, reason)
                VALUES (%(a)s, %(c)s, now() + make_interval(secs => %(s)s), '{REASON_DEBOUNCE}')
                ON CONFLICT (agent_id, conversation_id) DO UPDATE
                SET due_at = EXCLUDED.due_at, reason = '{REASON_DEBOUNCE}', arm_seq = d.arm_seq + 1
            )
            SELECT conversation_id FROM prev WHERE conversation_id <> %(c)s
        """
        rows = self._fetch(query, {"a": agent_id, "c": conversation_id, "s": debounce_s})
        return str(rows[0][0]) if rows else None

    def set_active(self, agent_id: str, conversation_id: str) -> None:
        """Record the agent's current conversation without arming anything (manual extraction mode)."""
        self._fetch(
            f"INSERT INTO {self._active} (agent_id, conversation_id) VALUES (%s, %s) "
            "ON CONFLICT (agent_id) DO UPDATE SET conversation_id = EXCLUDED.conversation_id RETURNING 1",
            (agent_id, conversation_id),
        )

    def due_now(self, agent_id: str, conversation_id: str, reason: str) -> None:
        """Make the conversation due now (EndSession without waiting, a switch): whichever replica claims it."""
        self._fetch(
            f"INSERT INTO {self._due} AS d (agent_id, conversation_id, due_at, reason) VALUES (%s, %s, now(), %s) "
            "ON CONFLICT (agent_id, conversation_id) DO UPDATE "
            "SET due_at = now(), reason = EXCLUDED.reason, arm_seq = d.arm_seq + 1 RETURNING 1",
            (agent_id, conversation_id, reason),
        )

    def disarm(self, agent_id: str | None = None, conversation_id: str | None = None) -> int:
        """Cancel deadlines (one conversation, one agent's, or all): unheld rows go; a held row stays held but is
        no longer due (its holder's release then removes it). Returns how many were armed."""
        where, params = _scope(agent_id, conversation_id)
        gone = self._fetch(
            f"DELETE FROM {self._due} WHERE {where} AND due_at <> 'infinity' "
            "AND (claimed_by IS NULL OR lease_until < now()) RETURNING 1",
            params,
        )
        kept = self._fetch(
            f"UPDATE {self._due} SET due_at = 'infinity', arm_seq = arm_seq + 1 "
            f"WHERE {where} AND due_at <> 'infinity' AND claimed_by IS NOT NULL RETURNING 1",
            params,
        )
        return len(gone) + len(kept)

    def armed(self, agent_id: str | None = None) -> list[Armed]:
        """Conversations with a deadline still ahead that nobody holds."""
        where, params = _scope(agent_id, None)
        rows = self._fetch(
            f"SELECT agent_id, conversation_id, extract(epoch FROM due_at - now())::float8 FROM {self._due} "
            f"WHERE {where} AND due_at > now() AND due_at <> 'infinity' AND claimed_by IS NULL",
            params,
        )
        return [Armed(str(a), str(c), float(s)) for a, c, s in rows]

    def claim_due(self, replica: str, lease_s: float, limit: int) -> list[Claim]:
        """Take up to `limit` due rows nobody holds (or whose holder's lease lapsed), oldest deadline first."""
        if limit <= 0:
            return []
        rows = self._fetch(
            f"""
            WITH due AS (
                SELECT agent_id, conversation_id FROM {self._due}
                WHERE due_at <= now() AND (claimed_by IS NULL OR lease_until < now())
                ORDER BY due_at LIMIT %(n)s
                FOR UPDATE SKIP LOCKED
            )
            UPDATE {self._due} d SET claimed_by = %(me)s, claimed_seq = d.arm_seq,
                lease_until = now() + make_interval(secs => %(lease)s)
            FROM due WHERE d.agent_id = due.agent_id AND d.conversation_id = due.conversation_id
            RETURNING d.agent_id, d.conversation_id, d.reason
            """,
            {"n": limit, "me": replica, "lease": lease_s},
        )
        return [Claim(str(a), str(c), str(r)) for a, c, r in rows]

    def try_hold(self, replica: str, agent_id: str, conversation_id: str, lease_s: float) -> bool:
        """Hold the conversation for a foreground run (EndSession wait, Ingest, SyncNow) unless another live
        replica holds it; a row is created (never due by itself) when none exists. True when held."""
        rows = self._fetch(
            f"""
            INSERT INTO {self._due} AS d (agent_id, conversation_id, due_at, reason, arm_seq, claimed_by,
                claimed_seq, lease_until)
            VALUES (%(a)s, %(c)s, 'infinity', '{REASON_HOLD}', 0, %(me)s, 0,
                now() + make_interval(secs => %(lease)s))
            ON CONFLICT (agent_id, conversation_id) DO UPDATE
            SET claimed_by = EXCLUDED.claimed_by, claimed_seq = d.arm_seq, lease_until = EXCLUDED.lease_until
            WHERE d.claimed_by IS NULL OR d.lease_until < now() OR d.claimed_by = EXCLUDED.claimed_by
            RETURNING 1
            """,
            {"a": agent_id, "c": conversation_id, "me": replica, "lease": lease_s},
        )
        return bool(rows)

    def renew(self, replica: str, lease_s: float) -> int:
        """Extend every lease this replica holds (its heartbeat); returns how many."""
        return len(
            self._fetch(
                f"UPDATE {self._due} SET lease_until = now() + make_interval(secs => %s) "
                "WHERE claimed_by = %s RETURNING 1",
                (lease_s, replica),
            )
        )

    def release(self, replica: str, agent_id: str, conversation_id: str) -> bool:
        """Done with a held conversation: the row goes unless it was re-armed since the claim (then it stays, due
        at its new deadline, unheld). False when this replica no longer held it (its lease lapsed and was taken)."""
        key = (agent_id, conversation_id, replica)
        gone = self._fetch(
            f"DELETE FROM {self._due} WHERE agent_id = %s AND conversation_id = %s AND claimed_by = %s "
            "AND (arm_seq = claimed_seq OR due_at = 'infinity') RETURNING 1",
            key,
        )
        if gone:
            return True
        kept = self._fetch(
            f"UPDATE {self._due} SET claimed_by = NULL, claimed_seq = NULL, lease_until = NULL "
            "WHERE agent_id = %s AND conversation_id = %s AND claimed_by = %s RETURNING 1",
            key,
        )
        return bool(kept)

    def unclaim(self, replica: str, agent_id: str, conversation_id: str) -> bool:
        """Give a claim back without doing the work (shutdown): the row stays due for any replica."""
        return bool(
            self._fetch(
                f"UPDATE {self._due} SET claimed_by = NULL, claimed_seq = NULL, lease_until = NULL "
                "WHERE agent_id = %s AND conversation_id = %s AND claimed_by = %s RETURNING 1",
                (agent_id, conversation_id, replica),
            )
        )

    def adopt_orphans(self, idle_s: float) -> int:
        """Arm (due now) conversations with pending signals, no row here, and no new turn for `idle_s`: turns whose
        replica died between committing them and arming them. Returns how many were adopted."""
        return len(
            self._fetch(
                f"""
                INSERT INTO {self._due} (agent_id, conversation_id, due_at, reason)
                SELECT s.agent_id, s.conversation_id, now(), '{REASON_ORPHAN}' FROM {self._signals} s
                WHERE s.status = 'pending'
                GROUP BY s.agent_id, s.conversation_id
                HAVING max(s.created_at_ms) < (extract(epoch FROM now()) * 1000)::bigint - %s
                ON CONFLICT (agent_id, conversation_id) DO NOTHING
                RETURNING 1
                """,
                (int(idle_s * 1000),),
            )
        )

    def sweep_stale_holds(self) -> int:
        """Delete hold rows whose holder died (never due, lease lapsed); returns how many."""
        return len(
            self._fetch(
                f"DELETE FROM {self._due} WHERE due_at = 'infinity' AND lease_until < now() RETURNING 1"
            )
        )

    def pass_started(self, name: str, replica: str, now_ms: int) -> None:
        """Record that a pass (of the job `name`) started on `replica` (call with the pass's lock held)."""
        self._fetch(
            f"INSERT INTO {self._passes} (name, started_at_ms, finished_at_ms, replica) VALUES (%s, %s, NULL, %s) "
            "ON CONFLICT (name) DO UPDATE SET started_at_ms = EXCLUDED.started_at_ms, finished_at_ms = NULL, "
            "replica = EXCLUDED.replica RETURNING 1",
            (name, now_ms, replica),
        )

    def pass_finished(self, name: str, now_ms: int) -> None:
        """Record that the pass finished."""
        self._fetch(
            f"UPDATE {self._passes} SET finished_at_ms = %s WHERE name = %s RETURNING 1", (now_ms, name)
        )

    def pass_interrupted(self, name: str) -> bool:
        """Whether the last pass of `name` started and never finished (its replica died or stopped mid-pass)."""
        rows = self._fetch(f"SELECT finished_at_ms IS NULL FROM {self._passes} WHERE name = %s", (name,))
        return bool(rows and rows[0][0])

    def _fetch(self, query: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        with self._cursor() as cur:
            cur.execute(query.encode(), params)
            return list(cur.fetchall()) if cur.description is not None else []

    @contextmanager
    def _cursor(self) -> Iterator[psycopg.Cursor[Any]]:
        with self._mu:
            if self._conn is None or self._conn.closed:
                self._conn = self._connect()
                self._conn.autocommit = True
                self._conn.execute("SET synchronous_commit = off")
            try:
                with self._conn.cursor() as cur:
                    yield cur
            except psycopg.OperationalError:
                self._conn.close()  # reopened by the next call
                self._conn = None
                raise


def _scope(agent_id: str | None, conversation_id: str | None) -> tuple[str, tuple[str, ...]]:
    """A WHERE clause (and its parameters) for all rows, one agent's, or one conversation's."""
    if agent_id is None:
        return "TRUE", ()
    if conversation_id is None:
        return "agent_id = %s", (agent_id,)
    return "agent_id = %s AND conversation_id = %s", (agent_id, conversation_id)


__all__ = [
    "REASON_DEBOUNCE",
    "REASON_END_SESSION",
    "REASON_HOLD",
    "REASON_ORPHAN",
    "REASON_SWITCH",
    "Armed",
    "Claim",
    "Connect",
    "PgCoordination",
    "coordination_ddl",
]
