"""The replication primitives against a real PostgreSQL (tests/support/postgres.py): claims and leases, debounce
deadlines, the database-backed due queue, holds, NOTIFY/LISTEN invalidation and the consolidation advisory lock.

Each test gets its own schema with the coordination tables (and a minimal pending_signals for orphan adoption),
so tests never see each other's rows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import psycopg
import pytest

from memoryd.replication.changes import ChangeFeed
from memoryd.replication.claims import CONVERSATION_BUSY, ClaimBook
from memoryd.replication.due_queue import DbDueQueue
from memoryd.replication.passes import PassResumer, SharedPassLock
from memoryd.storage.pg_advisory import PgAdvisoryLock
from memoryd.storage.pg_coordination import REASON_DEBOUNCE, REASON_SWITCH, PgCoordination
from memoryd.storage.pg_notify import PgListener, PgNotifier, parse_payload, payloads
from memoryd.write import outcome as oc
from servicekit.errors import AbortedError
from tests.support.coordination_db import autocommit_connect, pending_signals_schema
from tests.support.postgres import PostgresInstance, postgres_or_skip


@pytest.fixture(scope="module")
def pg() -> Iterator[PostgresInstance]:
    with postgres_or_skip() as instance:
        yield instance


@pytest.fixture
def connect(pg: PostgresInstance) -> Callable[[], psycopg.Connection[Any]]:
    return autocommit_connect(pg)


@pytest.fixture
def schema(connect: Callable[[], psycopg.Connection[Any]]) -> str:
    return pending_signals_schema(connect, "repl")


@pytest.fixture
def coord(connect: Callable[[], psycopg.Connection[Any]], schema: str) -> Iterator[PgCoordination]:
    coordination = PgCoordination(connect, schema)
    coordination.ensure_schema()
    coordination.ensure_schema()  # idempotent
    yield coordination
    coordination.close()


def _age(
    coord: PgCoordination, schema: str, connect: Callable[[], psycopg.Connection[Any]], s: float
) -> None:
    """Move every deadline and lease `s` seconds into the past (instead of sleeping)."""
    with connect() as conn:
        conn.execute(
            f"UPDATE {schema}.distill_due SET due_at = due_at - make_interval(secs => %s) "
            f"WHERE due_at <> 'infinity'".encode(),
            (s,),
        )
        conn.execute(
            f"UPDATE {schema}.distill_due SET lease_until = lease_until - make_interval(secs => %s)".encode(),
            (s,),
        )


def test_arm_rearms_and_a_switch_makes_the_previous_conversation_due(coord: PgCoordination) -> None:
    assert coord.arm("a", "c1", 60) is None
    assert coord.arm("a", "c1", 60) is None  # re-armed, not a switch
    assert {(x.agent_id, x.conversation_id) for x in coord.armed()} == {("a", "c1")}
    assert coord.claim_due("r1", 30, 10) == []  # not due yet
    assert coord.arm("a", "c2", 60) == "c1"  # the agent moved on: c1 is due now
    claims = coord.claim_due("r1", 30, 10)
    assert [(c.conversation_id, c.reason) for c in claims] == [("c1", REASON_SWITCH)]
    assert {x.conversation_id for x in coord.armed()} == {"c2"}
    assert coord.arm("b", "c1", 60) is None  # agents are independent


def test_claims_are_exclusive_and_a_lapsed_lease_is_taken_over(
    coord: PgCoordination, schema: str, connect: Callable[[], psycopg.Connection[Any]]
) -> None:
    for i in range(5):
        coord.due_now("a", f"c{i}", REASON_DEBOUNCE)
    first = coord.claim_due("r1", 30, 3)
    second = coord.claim_due("r2", 30, 10)
    assert len(first) == 3 and len(second) == 2
    assert not {c.conversation_id for c in first} & {c.conversation_id for c in second}
    assert coord.claim_due("r2", 30, 10) == []
    _age(coord, schema, connect, 31)  # r1 died: its leases lapse; r2 renews its own
    assert coord.renew("r2", 30) == 2
    taken = coord.claim_due("r2", 30, 10)
    assert {c.conversation_id for c in taken} == {c.conversation_id for c in first}
    assert not coord.release("r1", "a", first[0].conversation_id)  # r1 no longer holds it
    assert coord.release("r2", "a", first[0].conversation_id)


def test_concurrent_claimers_never_share_a_row(
    coord: PgCoordination, connect: Callable[..., Any], schema: str
) -> None:
    for i in range(200):
        coord.due_now(f"a{i % 7}", f"c{i}", REASON_DEBOUNCE)
    replicas = [PgCoordination(connect, schema) for _ in range(4)]
    got: list[list[tuple[str, str]]] = [[] for _ in replicas]

    def drain(index: int) -> None:
        while claims := replicas[index].claim_due(f"r{index}", 30, 3):
            got[index] += [(c.agent_id, c.conversation_id) for c in claims]

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(drain, range(4)))
    every = [key for part in got for key in part]
    assert len(every) == 200 and len(set(every)) == 200
    for replica in replicas:
        replica.close()


def test_a_claimer_skips_rows_another_transaction_has_locked(
    coord: PgCoordination, connect: Callable[..., Any], schema: str
) -> None:
    coord.due_now("a", "locked", REASON_DEBOUNCE)
    coord.due_now("a", "free", REASON_DEBOUNCE)
    with connect() as other:
        other.autocommit = False
        other.execute(
            f"SELECT 1 FROM {schema}.distill_due WHERE conversation_id = 'locked' FOR UPDATE".encode()
        )
        started = time.monotonic()
        assert [c.conversation_id for c in coord.claim_due("r1", 30, 10)] == ["free"]
        assert time.monotonic() - started < 1.0  # skipped, not waited for
        other.rollback()
    assert [c.conversation_id for c in coord.claim_due("r1", 30, 10)] == ["locked"]


def test_release_keeps_a_conversation_rearmed_during_its_run(coord: PgCoordination) -> None:
    coord.due_now("a", "c", REASON_DEBOUNCE)
    assert coord.claim_due("r1", 30, 1)
    coord.arm("a", "c", 60)  # a turn arrived while it was being distilled
    assert coord.release("r1", "a", "c")
    assert [x.conversation_id for x in coord.armed()] == ["c"]  # still armed, unheld
    coord.due_now("a", "d", REASON_DEBOUNCE)
    assert coord.claim_due("r1", 30, 1)
    assert coord.release("r1", "a", "d")
    assert coord.claim_due("r1", 30, 10) == [] and [x.conversation_id for x in coord.armed()] == ["c"]


def test_holds_exclude_other_replicas_and_are_reentrant_for_their_holder(
    coord: PgCoordination, schema: str, connect: Callable[[], psycopg.Connection[Any]]
) -> None:
    assert coord.try_hold("r1", "a", "c", 30)
    assert coord.try_hold("r1", "a", "c", 30)
    assert not coord.try_hold("r2", "a", "c", 30)
    coord.arm("a", "c", 0)  # due now, but held: nobody claims it
    assert coord.claim_due("r2", 30, 10) == []
    assert coord.release("r1", "a", "c")  # re-armed while held: stays due, unheld
    assert [c.conversation_id for c in coord.claim_due("r2", 30, 10)] == ["c"]
    assert coord.try_hold("r3", "x", "y", 30)
    _age(coord, schema, connect, 31)  # r3 died holding x/y
    assert coord.sweep_stale_holds() == 1
    assert coord.try_hold("r2", "x", "y", 30)


def test_disarm_and_orphan_adoption(coord: PgCoordination, schema: str, connect: Callable[..., Any]) -> None:
    coord.arm("a", "c1", 60)
    coord.arm("b", "c1", 60)
    assert coord.disarm("a", "c1") == 1
    assert coord.disarm() == 1
    assert coord.armed() == []
    now_ms = int(time.time() * 1000)
    with connect() as conn:
        conn.execute(
            f"INSERT INTO {schema}.pending_signals (agent_id, conversation_id, status, created_at_ms) VALUES "
            "('a', 'old', 'pending', %s), ('a', 'fresh', 'pending', %s), ('a', 'done', 'processed', %s)".encode(),
            (now_ms - 700_000, now_ms, now_ms - 700_000),
        )
    assert coord.adopt_orphans(600) == 1
    assert [c.conversation_id for c in coord.claim_due("r1", 30, 10)] == ["old"]
    assert coord.adopt_orphans(600) == 0  # it has a row now


class _Distiller:
    """Stands in for the writer's coordinator: records each hand-off and finishes it on a small pool."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds
        self.runs: list[tuple[str, str, str]] = []
        self._mu = threading.Lock()
        self._pool = ThreadPoolExecutor(4)

    def submit(self, agent_id: str, conversation_id: str, reason: str) -> Future[oc.Outcome]:
        with self._mu:
            self.runs.append((agent_id, conversation_id, reason))

        def run() -> oc.Outcome:
            time.sleep(self.seconds)
            return oc.Outcome(agent_id, conversation_id, oc.DISTILLED, 1)

        return self._pool.submit(run)


def _wait_for(predicate: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def test_two_due_queues_distil_each_conversation_once(connect: Callable[..., Any], schema: str) -> None:
    queues: list[DbDueQueue] = []
    distillers = [_Distiller(0.01), _Distiller(0.01)]
    coordinations = [PgCoordination(connect, schema) for _ in distillers]
    for index, (distiller, coordination) in enumerate(zip(distillers, coordinations, strict=True)):
        coordination.ensure_schema()
        book = ClaimBook(coordination, f"r{index}", lease_s=30)
        queues.append(DbDueQueue(coordination, book, distiller.submit, capacity=2, poll_s=0.05))
    for i in range(60):  # turns spread over both replicas, deadlines 0.3 s ahead
        queues[i % 2].turn_buffered(f"agent{i % 5}", f"conv{i}", debounce_s=0.3, automatic=True)
    for queue in queues:
        queue.start()
    _wait_for(lambda: sum(len(d.runs) for d in distillers) >= 60 and not queues[0].armed())
    time.sleep(0.3)
    runs = [(a, c) for d in distillers for a, c, _ in d.runs]
    assert len(runs) == 60 and len(set(runs)) == 60
    assert all(d.runs for d in distillers)
    # Every agent switched conversation at each turn: all but each agent's last conversation flushed as a switch.
    reasons = [r for d in distillers for _, _, r in d.runs]
    assert reasons.count(REASON_SWITCH) == 55
    for queue in queues:
        queue.close()
    for coordination in coordinations:
        coordination.close()


def test_end_session_on_one_replica_is_distilled_once(connect: Callable[..., Any], schema: str) -> None:
    coordination = [PgCoordination(connect, schema) for _ in range(2)]
    coordination[0].ensure_schema()
    distillers = [_Distiller(), _Distiller()]
    queues = [
        DbDueQueue(c, ClaimBook(c, f"r{i}", lease_s=30), d.submit, poll_s=0.05)
        for i, (c, d) in enumerate(zip(coordination, distillers, strict=True))
    ]
    queues[0].turn_buffered("a", "c", debounce_s=300, automatic=True)
    for queue in queues:
        queue.start()
    queues[1].flush_now("a", "c", "end_session")  # EndSession arrived at the other replica
    _wait_for(lambda: sum(len(d.runs) for d in distillers) == 1)
    time.sleep(0.3)
    assert [r for d in distillers for r in d.runs] == [("a", "c", "end_session")]
    assert queues[0].armed() == {}
    for queue in queues:
        queue.close()
    for item in coordination:
        item.close()


def test_manual_mode_arms_nothing_and_cancel_disarms(coord: PgCoordination) -> None:
    queue = DbDueQueue(coord, ClaimBook(coord, "r1", lease_s=30), _Distiller().submit)
    assert not queue.turn_buffered("a", "c", debounce_s=60, automatic=False).scheduled
    assert queue.armed() == {}
    result = queue.turn_buffered("a", "c", debounce_s=60, automatic=True)
    assert result.scheduled and result.flushed == ()
    assert set(queue.armed()) == {("a", "c")}
    assert queue.cancel("a", "c") and not queue.cancel("a", "c")


def test_claim_book_waits_for_the_other_replica_and_shares_within_its_own(coord: PgCoordination) -> None:
    ours = ClaimBook(coord, "r1", lease_s=30, poll_s=0.02)
    theirs = ClaimBook(coord, "r2", lease_s=30, poll_s=0.02, wait_s=0.2)
    order: list[str] = []
    with ours.hold("a", "c"):
        with ours.hold("a", "c"):  # a second local holder shares the claim
            order.append("nested")
        with pytest.raises(AbortedError) as busy, theirs.hold("a", "c"):
            order.append("never")
        assert busy.value.reason == CONVERSATION_BUSY
        patient = ClaimBook(coord, "r2", lease_s=30, poll_s=0.02)

        def later() -> None:
            with patient.hold("a", "c"):
                order.append("theirs")

        waiter = threading.Thread(target=later)
        waiter.start()
        time.sleep(0.2)
        order.append("ours done")
    waiter.join(5)
    assert order == ["nested", "ours done", "theirs"]


def test_change_feed_reaches_the_other_replica_within_a_second(
    connect: Callable[..., Any], schema: str
) -> None:
    seen: list[tuple[str, str | None]] = []
    feeds: list[ChangeFeed] = []
    listeners: list[PgListener] = []
    for name in ("r1", "r2"):
        feed = ChangeFeed(
            PgNotifier(connect), schema, name, [lambda agent, name=name: seen.append((name, agent))]
        )
        listener = PgListener(connect, feed.receive, feed.missed, wait_s=0.1)
        feed.start()
        listener.start()
        feeds.append(feed)
        listeners.append(listener)
    # Another schema (another tenant) on the same database is not ours.
    stranger = PgNotifier(connect)
    stranger.notify(payloads("other_schema", "r9", ["agent-x"]))
    stranger.close()
    started = time.monotonic()
    feeds[0].publish("agent-1")
    _wait_for(lambda: ("r2", "agent-1") in seen, timeout_s=1.0)
    assert time.monotonic() - started < 1.0
    feeds[1].publish(None)
    _wait_for(lambda: ("r1", None) in seen, timeout_s=1.0)
    time.sleep(0.2)
    assert ("r1", "agent-1") not in seen and ("r2", None) not in seen  # a replica ignores its own changes
    assert all(agent != "agent-x" for _, agent in seen)
    for item in (*listeners, *feeds):
        item.close()


def test_listener_reconnect_invalidates_everything(pg: PostgresInstance, connect: Callable[..., Any]) -> None:
    missed = threading.Event()
    listener = PgListener(connect, lambda payload: None, missed.set, wait_s=0.1, retry_s=0.1)
    listener.start()
    with psycopg.connect(pg.dsn_for("postgres"), autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%%' "
            "AND pid <> pg_backend_pid()"
        )
    assert missed.wait(5)
    listener.close()


def test_payloads_split_long_agent_lists_and_round_trip() -> None:
    agents = [f"agent-{i:04d}-{'x' * 40}" for i in range(400)]
    messages = payloads("s", "r", agents)
    assert len(messages) > 1 and all(len(m.encode()) < 8000 for m in messages)
    parsed = [parse_payload(m) for m in messages]
    assert sorted(a for p in parsed if p is not None for a in p.agents) == sorted(agents)
    assert payloads("s", "r", ["a", "*"]) == ["s\tr\t*"]
    assert parse_payload("garbage") is None


class _Consolidator:
    """A pass runner whose pass takes the shared lock like Consolidator.run does."""

    def __init__(self, lock: SharedPassLock) -> None:
        self.lock = lock
        self.passes = 0
        self.is_running = False

    def try_run(self, trigger: str) -> Any:
        if not self.lock.try_acquire():
            return None
        try:
            self.lock.begin(1)
            self.passes += 1
            self.lock.end(2)
            return object()
        finally:
            self.lock.release()


def test_one_pass_at_a_time_and_an_interrupted_pass_is_resumed(
    connect: Callable[..., Any], schema: str
) -> None:
    coordination = PgCoordination(connect, schema)
    coordination.ensure_schema()
    dead = PgAdvisoryLock(connect, "memoryd.consolidation")
    alive = SharedPassLock(PgAdvisoryLock(connect, "memoryd.consolidation"), coordination, "r2")
    assert dead.try_acquire()
    SharedPassLock(dead, coordination, "r1").begin(1)  # r1 starts a pass ...
    assert not alive.try_acquire()  # ... so r2 cannot start one
    runner = _Consolidator(alive)
    resumer = PassResumer(runner, coordination)
    assert resumer.check() is None and runner.passes == 0
    dead.close()  # r1's connection closes: the lock goes with it, the pass stays unfinished
    assert coordination.pass_interrupted("memoryd.consolidation")
    assert resumer.check() is not None and runner.passes == 1 and resumer.resumed == 1
    assert not coordination.pass_interrupted("memoryd.consolidation")
    assert resumer.check() is None  # nothing left to resume
    alive.close()
    coordination.close()
