"""Debounce deadlines in the database and the claim loop that distils due conversations, one per replica.

It stands in for memoryd.write.debounce.Debouncer (same calls): a buffered turn re-arms its conversation's row
(and makes the agent's previous conversation due now on a switch, whichever replica got that one's turns); a
thread claims due rows with SKIP LOCKED, at most `capacity` in flight so the replicas share the work, hands each to
the writer's coordinator and releases it when the distillation ends. The same thread renews this replica's leases
(`lease_s`/3) and, every `maintenance_s`, arms conversations whose turns were committed by a replica that died
before arming them and deletes foreground holds left by dead replicas.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future

from memoryd.replication.claims import ClaimBook, Key
from memoryd.storage.pg_coordination import REASON_END_SESSION, PgCoordination
from memoryd.write import outcome as oc
from memoryd.write.debounce import ArmResult

_log = logging.getLogger("memoryd.replication.due")

#: Hands a claimed conversation to the writer: (agent, conversation, reason) -> its distillation's outcome.
Submit = Callable[[str, str, str], "Future[oc.Outcome]"]


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
        poll_s: float = 0.25,
        maintenance_s: float = 30.0,
        orphan_idle_s: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._coord = coordination
        self._book = book
        self._submit = submit
        self._lease_s = lease_s
        self._capacity = max(1, capacity)
        self._poll_s = poll_s
        self._maintenance_s = maintenance_s
        self._orphan_idle_s = orphan_idle_s
        self._clock = clock
        self._mu = threading.Lock()
        self._in_flight: set[Key] = set()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Claims taken by this replica so far (tests and status).
        self.claimed = 0

    @property
    def wakeups(self) -> int:
        """Debouncer's counter; the claim loop polls instead, so always 0."""
        return 0

    def turn_buffered(
        self, agent_id: str, conversation_id: str, *, debounce_s: float, automatic: bool
    ) -> ArmResult:
        """(Re)arm the conversation in the database; a switch makes the previous one due now (any replica)."""
        if not automatic:
            self._coord.set_active(agent_id, conversation_id)
            self._coord.disarm(agent_id, conversation_id)
            return ArmResult(False, 0.0, ())
        previous = self._coord.arm(agent_id, conversation_id, debounce_s)
        if previous is None:
            return ArmResult(True, debounce_s, ())
        self._wake.set()
        return ArmResult(True, debounce_s, ((agent_id, previous),))

    def flush_now(self, agent_id: str, conversation_id: str, reason: str = REASON_END_SESSION) -> None:
        """Make the conversation due now; the first replica to look claims it (this one is woken)."""
        self._coord.due_now(agent_id, conversation_id, reason)
        self._wake.set()

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
        claims = self._coord.claim_due(self._book.replica, self._lease_s, free)
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
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memoryd-claims", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the loop; conversations in flight are released by their runs' ends (the coordinator cancels them)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(5)

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

    def _run(self) -> None:
        renew_every_s = self._lease_s / 3
        last_renew = last_maintenance = self._clock()
        while not self._stop.is_set():
            self._wake.clear()
            now = self._clock()
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
            except Exception as error:  # the database is away: try again at the next tick
                _log.warning("claim loop: %s", type(error).__name__)
            self._wake.wait(self._poll_s)


__all__ = ["DbDueQueue", "Submit"]
