"""Cross-replica cache invalidation: local writes are announced with NOTIFY, other replicas' are heard with LISTEN.

`publish(agent_id)` is called wherever this replica drops an agent's cached blocks after a write (Forget, disable,
edits, new turns and distilled rows, supersession, consolidation, deletion; None for every agent). Announcements
are coalesced for `coalesce_s` and sent by one thread, so a burst of turns costs a few NOTIFYs, not one each. A
received change from another replica runs this replica's invalidators for those agents. When the listening
connection was lost, changes may have been missed: every invalidator runs for every agent.

The same thread and channel carry debounce deadlines (deadlines.py): `announce_deadline(due_in_s)` queues one for
the next batch, and a deadline another replica announced goes to `on_deadline` (the claim loop's wake-up).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

from memoryd.replication.deadlines import deadline_payloads, parse_deadlines
from memoryd.replication.worker import Worker
from memoryd.storage.pg_notify import EVERY_AGENT, PgNotifier, parse_payload, payloads

_log = logging.getLogger("memoryd.replication.changes")

#: Drops one agent's cached state (None: every agent's).
Invalidate = Callable[[str | None], None]
#: Hears a deadline another replica set, in seconds from now.
OnDeadline = Callable[[float], None]


class ChangeFeed:
    """Publishes this replica's changes and applies the others' (thread-safe)."""

    def __init__(
        self,
        notifier: PgNotifier,
        schema: str,
        replica: str,
        invalidators: Sequence[Invalidate],
        *,
        coalesce_s: float = 0.02,
        retry_s: float = 0.5,
    ) -> None:
        self._notifier = notifier
        self._schema = schema
        self._replica = replica
        self._invalidators = list(invalidators)
        self._coalesce_s = coalesce_s
        self._retry_s = retry_s
        self._mu = threading.Lock()
        self._pending: set[str] = set()
        self._deadlines: list[tuple[float, float]] = []  # (due_in_s, monotonic time it was queued)
        #: Where deadlines other replicas announce go (the claim loop's, set by the wiring); None: ignored.
        self.on_deadline: OnDeadline | None = None
        self._worker = Worker("memoryd-notify", self._run)
        self._wake, self._stop = self._worker.wake, self._worker.stop
        #: Changes received from other replicas and applied (tests and status).
        self.applied = 0
        #: NOTIFYs sent.
        self.sent = 0

    def publish(self, agent_id: str | None) -> None:
        """Announce that an agent's rows changed (None: every agent's); returns at once."""
        with self._mu:
            self._pending.add(EVERY_AGENT if agent_id is None else agent_id)
        self._wake.set()

    def announce_deadline(self, due_in_s: float) -> None:
        """Tell the other replicas a conversation is due in `due_in_s` seconds; returns at once."""
        with self._mu:
            self._deadlines.append((due_in_s, time.monotonic()))
        self._wake.set()

    def broadcasting(self, local: Invalidate) -> Invalidate:
        """`local` followed by publish: what this replica's write paths call instead of `local` alone."""

        def invalidate(agent_id: str | None = None) -> None:
            local(agent_id)
            self.publish(agent_id)

        return invalidate

    def receive(self, payload: str) -> None:
        """A notification arrived (the listener's callback): invalidate for another replica's change here, or pass
        another replica's deadlines to on_deadline."""
        announced = parse_deadlines(payload)
        if announced is not None:
            if announced.schema == self._schema and announced.sender != self._replica and self.on_deadline:
                for due_in_s in announced.due_in_s:
                    self.on_deadline(due_in_s)
            return
        change = parse_payload(payload)
        if change is None or change.schema != self._schema or change.sender == self._replica:
            return
        targets: list[str | None] = [None] if EVERY_AGENT in change.agents else list(change.agents)
        for agent_id in targets:
            self._invalidate(agent_id)
        self.applied += 1

    def missed(self) -> None:
        """The listener reconnected: anything may have changed meanwhile."""
        self._invalidate(None)

    def start(self) -> None:
        """Start the sending thread."""
        self._worker.start()

    def close(self) -> None:
        """Send what is pending (best effort) and stop."""
        self._worker.close()
        self._notifier.close()

    def _invalidate(self, agent_id: str | None) -> None:
        for invalidate in self._invalidators:
            try:
                invalidate(agent_id)
            except Exception:
                _log.exception("invalidation callback failed")

    def _run(self) -> None:
        while True:
            self._wake.wait()
            if not self._stop.is_set():
                self._stop.wait(self._coalesce_s)  # let a burst gather
            self._wake.clear()
            with self._mu:
                agents, self._pending = self._pending, set()
                deadlines, self._deadlines = self._deadlines, []
            if agents or deadlines:
                now = time.monotonic()
                messages = payloads(self._schema, self._replica, agents) if agents else []
                # Deadlines as seconds from the moment they are sent (the batch waited coalesce_s).
                due = [max(0.0, due_in - (now - queued)) for due_in, queued in deadlines]
                messages += deadline_payloads(self._schema, self._replica, due) if due else []
                try:
                    self._notifier.notify(messages)
                    self.sent += len(messages)
                except Exception as error:  # keep them for the next try; other replicas' TTL bounds staleness
                    _log.warning("announcing changes failed: %s", type(error).__name__)
                    with self._mu:
                        self._pending |= agents
                        # Deadlines are not retried: the other replicas' slow poll finds them.
                    if not self._stop.is_set():
                        self._stop.wait(self._retry_s)
                        self._wake.set()
            if self._stop.is_set():
                return


__all__ = ["ChangeFeed", "Invalidate", "OnDeadline"]
