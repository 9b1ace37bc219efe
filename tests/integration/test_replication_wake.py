"""The claim loop wakes on deadlines (LISTEN/NOTIFY) instead of polling, against a real PostgreSQL.

Two replicas share a schema, each with its change feed, listener and due queue wired as memoryd/wiring does. The
safety poll is set far beyond the test so that only deadlines (its own, or announced by the other replica) can
wake a loop: a conversation armed on one replica is claimed by the other as its deadline passes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest

from memoryd.replication.changes import ChangeFeed
from memoryd.replication.claims import ClaimBook
from memoryd.replication.deadlines import DeadlineBoard, deadline_payloads, parse_deadlines
from memoryd.replication.due_queue import DbDueQueue
from memoryd.storage.pg_coordination import PgCoordination
from memoryd.storage.pg_notify import PgListener, PgNotifier, parse_payload
from memoryd.write import outcome as oc
from tests.support.coordination_db import autocommit_connect, pending_signals_schema
from tests.support.postgres import PostgresInstance, postgres_or_skip

NO_POLL_S = 60.0


@pytest.fixture(scope="module")
def pg() -> Iterator[PostgresInstance]:
    with postgres_or_skip() as instance:
        yield instance


@pytest.fixture
def connect(pg: PostgresInstance) -> Callable[[], psycopg.Connection[Any]]:
    return autocommit_connect(pg)


@pytest.fixture
def schema(connect: Callable[[], psycopg.Connection[Any]]) -> str:
    return pending_signals_schema(connect, "wake", coordination=True)


@dataclass
class Replica:
    queue: DbDueQueue
    feed: ChangeFeed
    claims: list[tuple[str, str, float]]


def _replica(stack: ExitStack, connect: Callable[..., Any], schema: str, name: str, poll_s: float) -> Replica:
    coordination = PgCoordination(connect, schema)
    stack.callback(coordination.close)
    claims: list[tuple[str, str, float]] = []
    lock = threading.Lock()

    def submit(agent_id: str, conversation_id: str, reason: str) -> Future[oc.Outcome]:
        with lock:
            claims.append((agent_id, conversation_id, time.monotonic()))
        done: Future[oc.Outcome] = Future()
        done.set_result(oc.Outcome(agent_id, conversation_id, oc.DISTILLED, 1))
        return done

    feed = ChangeFeed(PgNotifier(connect), schema, name, [])
    queue = DbDueQueue(
        coordination, ClaimBook(coordination, name, lease_s=30), submit, poll_s=poll_s,
        announce=feed.announce_deadline,
    )  # fmt: skip
    feed.on_deadline = queue.heard
    listener = PgListener(connect, feed.receive, feed.missed, wait_s=0.1)
    feed.start()
    listener.start()
    stack.callback(feed.close)
    stack.callback(listener.close)
    stack.callback(queue.close)
    return Replica(queue, feed, claims)


def _wait_for(predicate: Callable[[], bool], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def test_a_deadline_set_on_one_replica_wakes_the_other(connect: Callable[..., Any], schema: str) -> None:
    with ExitStack() as stack:
        armer = _replica(stack, connect, schema, "r1", NO_POLL_S)  # its loop never runs: only r2 can claim
        claimer = _replica(stack, connect, schema, "r2", NO_POLL_S)
        claimer.queue.start()
        time.sleep(0.2)  # the start-up round is done
        rounds = claimer.queue.claim_rounds
        lateness: list[float] = []
        for i in range(5):
            armed_at = time.monotonic()
            armer.queue.turn_buffered(f"agent{i}", "conv", debounce_s=0.4, automatic=True)
            _wait_for(lambda: len(claimer.claims) == len(lateness) + 1, timeout_s=5.0)
            lateness.append(claimer.claims[-1][2] - (armed_at + 0.4))
        # Each claimed as its deadline passed (a poll of 60 s could not have), not before it.
        assert all(-0.01 < late < 0.3 for late in lateness), lateness
        assert [a for a, _, _ in claimer.claims] == [f"agent{i}" for i in range(5)]
        assert claimer.queue.claim_rounds - rounds <= 15  # a few rounds per deadline, not a poll every 0.25 s


def test_end_session_elsewhere_is_claimed_at_once(connect: Callable[..., Any], schema: str) -> None:
    with ExitStack() as stack:
        armer = _replica(stack, connect, schema, "r1", NO_POLL_S)
        claimer = _replica(stack, connect, schema, "r2", NO_POLL_S)
        armer.queue.turn_buffered("agent", "conv", debounce_s=300, automatic=True)
        claimer.queue.start()
        time.sleep(0.2)
        assert claimer.claims == []
        flushed_at = time.monotonic()
        armer.queue.flush_now("agent", "conv")
        _wait_for(lambda: len(claimer.claims) == 1, timeout_s=2.0)
        assert claimer.claims[0][2] - flushed_at < 0.3


def test_the_safety_poll_claims_what_no_announcement_reached(
    connect: Callable[..., Any], schema: str
) -> None:
    with ExitStack() as stack:
        silent = PgCoordination(connect, schema)  # a replica that announces nothing
        stack.callback(silent.close)
        claimer = _replica(stack, connect, schema, "r2", 0.5)
        claimer.queue.start()
        silent.arm("agent", "conv", 0.1)
        _wait_for(lambda: len(claimer.claims) == 1, timeout_s=2.0)


def test_deadline_payloads_round_trip_and_are_not_changes() -> None:
    (payload,) = deadline_payloads("tenant_acme", "r1", [0.4, 0.0, 0.4004, 12.5])
    announced = parse_deadlines(payload)
    assert announced is not None
    assert (announced.schema, announced.sender, announced.due_in_s) == ("tenant_acme", "r1", (0.0, 0.4, 12.5))
    change = parse_payload(
        payload
    )  # what an older replica's change feed makes of it: another schema, ignored
    assert change is not None and change.schema != "tenant_acme"
    assert parse_deadlines("tenant_acme\tr1\tagent") is None and parse_deadlines("!due\ts\tr\tx") is None
    many = deadline_payloads("s", "r", [i / 1000 for i in range(1200)])
    assert len(many) == 3 and all(len(p.encode()) < 8000 for p in many)


def test_the_board_keeps_the_earliest_deadline_until_settled() -> None:
    board = DeadlineBoard()
    assert board.earliest() is None
    for due in (5.0, 1.0, 3.0):
        board.note(due)
    assert board.earliest() == 1.0
    assert board.settle(3.0) == 2 and board.earliest() == 5.0 and len(board) == 1
