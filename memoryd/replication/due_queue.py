"""Debounce deadlines in the database and the claim loop that distils due conversations, one per replica.

It stands in for memoryd.write.debounce.Debouncer (same calls): a buffered turn re-arms its conversation's row
(and makes the agent's previous conversation due now on a switch, whichever replica got that one's turns); a
thread claims due rows with SKIP LOCKED, at most `capacity` in flight so the replicas share the work, hands each to
the writer's coordinator and releases it when the distillation ends. The same thread renews this replica's leases
(`lease_s`/3) and, every `maintenance_s`, arms conversations whose turns were committed by a replica that died
before arming them and deletes foreground holds left by dead replicas.

The loop sleeps until the earliest deadline it knows (deadlines.DeadlineBoard): the ones this replica sets, and the
ones other replicas announce with NOTIFY (`announce`, heard through `heard`), so a conversation is claimed as its
deadline passes, by whichever replica wakes first. Claim rounds are at least `min_gap_s` apart (deadlines closer
than that are claimed together), and every `poll_s` it claims anyway: the safety net for an announcement lost
with the listening connection, a row another replica could not take, or a replica that does not announce.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

from memoryd.replication.claims import ClaimBook, Key
from memoryd.replication.deadlines import DeadlineBoard
from memoryd.replication.worker import Worker
from memoryd.storage.pg_coordination import REASON_END_SESSION, PgCoordination
from memoryd.write import outcome as oc
from memoryd.write.debounce import ArmResult

_log = logging.getLogger("memoryd.replication.due")

#: Hands a claimed conversation to the writer: (agent, conversation, reason) -> its distillation's outcome.
Submit = Callable[[str, str, str], "Future[oc.Outcome]"]
#: Tells the other replicas a conversation is due in so many seconds (ChangeFeed.announce_deadline).
Announce = Callable[[float], None]
#: The safety-net poll: how late a deadline no announcement reached is claimed at worst.
SAFETY_POLL_S = 2.0
#: Claim rounds woken by deadlines are at least this far apart (bounds the claim queries under a stream of turns).
MIN_GAP_S = 0.05


def _no_announce(due_in_s: float) -> None:
    """Announce nothing (a single replica, or tests)."""


class DbDueQueue:
    """Database-backed debounce + claim loop (thread-safe)."""

    def __init__(
        self,
        coordination: PgCoordination,
        book: ClaimBook,
        submit: Submit,
        *,
        lease_s: float = 30.0,
        capacity: int = 2,
        poll_s: float = SAFETY_POLL_S,
        min_gap_s: float = MIN_GAP_S,
        maintenance_s: float = 30.0,
        orphan_idle_s: float = 600.0,
        announce: Announce = _no_announce,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._coord = coordination
        self._book = book
        self._submit = submit
        self._lease_s = lease_s
        self._capacity = max(1, capacity)
        self._poll_s = poll_s
        self._min_gap_s = min_gap_s
        self._announce = announce
        self._board = DeadlineBoard()
        self._maintenance_s = maintenance_s
        self._orphan_idle_s = orphan_idle_s
        self._clock = clock
        self._mu = threading.Lock()
        self._in_flight: set[Key] = set()
        self._worker = Worker("memoryd-claims", self._run)
        self._wake, self._stop = self._worker.wake, self._worker.stop
        #: Claims taken by this replica so far (tests and status).
        self.claimed = 0
        #: Claim queries run so far (tests and the bench: what waking on deadlines saves over polling).
        self.claim_rounds = 0

    @property
    def wakeups(self) -> int:
        """Debouncer's counter; the claim loop counts claim_rounds instead, so always 0."""
        return 0

    def heard(self, due_in_s: float) -> None:
        """Another replica set a deadline `due_in_s` from now (ChangeFeed.on_deadline)."""
        self._board.note(self._clock() + due_in_s)
        self._wake.set()

    def _deadline(self, due_in_s: float) -> None:
        """This replica set a deadline: wake its own loop for it and tell the others."""
        self._board.note(self._clock() + due_in_s)
        self._wake.set()
        try:
            self._announce(due_in_s)
        except Exception as error:  # the others' safety poll finds it
            _log.warning("announcing a deadline failed: %s", type(error).__name__)

    def turn_buffered(
        self, agent_id: str, conversation_id: str, *, debounce_s: float, automatic: bool
    ) -> ArmResult:
        """(Re)arm the conversation in the database; a switch makes the previous one due now (any replica)."""
        if not automatic:
            self._coord.set_active(agent_id, conversation_id)
            self._coord.disarm(agent_id, conversation_id)
            return ArmResult(False, 0.0, ())
        previous = self._coord.arm(agent_id, conversation_id, debounce_s)
        if previous is not None:
            self._deadline(0.0)  # the switch made the previous conversation due now
        self._deadline(debounce_s)
        if previous is None:
            return ArmResult(True, debounce_s, ())
        return ArmResult(True, debounce_s, ((agent_id, previous),))

    def flush_now(self, agent_id: str, conversation_id: str, reason: str = REASON_END_SESSION) -> None:
        """Make the conversation due now; the first replica to look claims it (this one is woken)."""
        self._coord.due_now(agent_id, conversation_id, reason)
        self._deadline(0.0)

    def cancel(self, agent_id: str, conversation_id: str) -> bool:
        """Disarm one conversation's deadline; True if one was armed."""
        return self._coord.disarm(agent_id, conversation_id) > 0

    def cancel_all(self) -> int:
        """Disarm every deadline of the database."""
        return self._coord.disarm()

    def armed(self) -> dict[Key, float]:
        """Armed, unheld conversations and their deadlines on this process's clock."""
        now = self._clock()
        return {(a.agent_id, a.conversation_id): now + a.due_in_s for a in self._coord.armed()}

    def fire_due(self) -> list[Key]:
        """Claim due conversations up to the free capacity and hand them over; returns them."""
        with self._mu:
            free = self._capacity - len(self._in_flight)
        if free <= 0:
            return []
        started = self._clock()
        self.claim_rounds += 1
        claims = self._coord.claim_due(self._book.replica, self._lease_s, free)
        if len(claims) < free:
            # Every row due when the query ran was taken (here or by another replica) or is held: the deadlines
            # known up to then are dealt with. With the capacity used up, more may be due: kept for the next round.
            self._board.settle(started)
        for claim in claims:
            key = (claim.agent_id, claim.conversation_id)
            self._book.adopt(key)
            with self._mu:
                self._in_flight.add(key)
            self.claimed += 1
            try:
                future = self._submit(claim.agent_id, claim.conversation_id, claim.reason)
            except Exception:
                _log.exception("handing a claimed conversation over failed")
                self._finished(key, is_done=False)
                continue
            future.add_done_callback(self._when_done(key))
        return [(c.agent_id, c.conversation_id) for c in claims]

    def poke(self) -> None:
        """Wake the loop now."""
        self._wake.set()

    def start(self) -> None:
        """Start the claim loop."""
        self._worker.start()

    def close(self) -> None:
        """Stop the loop; conversations in flight are released by their runs' ends (the coordinator cancels them)."""
        self._worker.close()

    def _when_done(self, key: Key) -> Callable[[Future[oc.Outcome]], None]:
        def done(future: Future[oc.Outcome]) -> None:
            cancelled = future.cancelled() or (
                future.exception() is None and future.result().token == oc.SKIPPED_CANCELLED
            )
            self._finished(key, is_done=not cancelled)

        return done

    def _finished(self, key: Key, *, is_done: bool) -> None:
        with self._mu:
            self._in_flight.discard(key)
        self._book.release(key, is_done=is_done)
        self._wake.set()

    def _next_round_at(self, last_round: float, last_renew: float) -> float:
        """When the loop must run next: the earliest known deadline (not sooner than min_gap_s after the last claim
        round; ignored while the capacity is used up, since a finished run wakes the loop), the safety poll, or the
        next lease renewal, whichever comes first."""
        with self._mu:
            full = len(self._in_flight) >= self._capacity
        at = min(last_round + self._poll_s, last_renew + self._lease_s / 3)
        earliest = None if full else self._board.earliest()
        if earliest is not None:
            at = min(at, max(earliest, last_round + self._min_gap_s))
        return at

    def _run(self) -> None:
        renew_every_s = self._lease_s / 3
        last_renew = last_maintenance = self._clock()
        last_round = last_renew - self._poll_s  # claim at once on start
        while not self._stop.is_set():
            wait_s = self._next_round_at(last_round, last_renew) - self._clock()
            if wait_s > 0:
                self._wake.wait(wait_s)
                self._wake.clear()
                continue  # woken early (a new deadline, a finished run, close) or on time: look again
            now = last_round = self._clock()
            try:
                if now - last_renew >= renew_every_s:
                    self._coord.renew(self._book.replica, self._lease_s)
                    last_renew = now
                if now - last_maintenance >= self._maintenance_s:
                    last_maintenance = now
                    adopted = self._coord.adopt_orphans(self._orphan_idle_s)
                    if adopted:
                        _log.info("armed %d conversation(s) left pending by a replica that died", adopted)
                    self._coord.sweep_stale_holds()
                if not self._stop.is_set():
                    self.fire_due()
            except Exception as error:  # the database is away: try again at the next safety poll
                _log.warning("claim loop: %s", type(error).__name__)
                self._board.settle(now)


__all__ = ["MIN_GAP_S", "SAFETY_POLL_S", "Announce", "DbDueQueue", "Submit"]
