"""The conversations this replica holds in the database, counted per holder inside the process.

Two paths hold a conversation: the claim loop (a due conversation it took, released when its distillation ends)
and foreground runs (EndSession with wait, Ingest, SyncNow, the resume sweep), which wait until no other replica
holds it. Inside one process the Coordinator's per-conversation lock already serialises runs, so a second local
holder shares the database claim instead of waiting for itself; the row is released when the last one leaves.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from memoryd.storage.pg_coordination import PgCoordination
from servicekit.errors import AbortedError

_log = logging.getLogger("memoryd.replication.claims")

Key = tuple[str, str]

#: Reason of the ABORTED error when another replica held a conversation for longer than a foreground run waits.
CONVERSATION_BUSY = "CONVERSATION_BUSY"


class ClaimBook:
    """Reference-counted holds over PgCoordination's claims (thread-safe; the SQL runs under the book's lock so a
    release and a new hold of the same conversation never interleave)."""

    def __init__(
        self,
        coordination: PgCoordination,
        replica: str,
        *,
        lease_s: float,
        poll_s: float = 0.1,
        wait_s: float = 900.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._coord = coordination
        self._replica = replica
        self._lease_s = lease_s
        self._poll_s = poll_s
        self._wait_s = wait_s
        self._clock = clock
        self._mu = threading.Lock()
        self._counts: dict[Key, int] = {}
        self._stop = threading.Event()

    @property
    def replica(self) -> str:
        """This replica's name."""
        return self._replica

    def held(self) -> list[Key]:
        """Conversations held now."""
        with self._mu:
            return list(self._counts)

    def adopt(self, key: Key) -> None:
        """Count a claim the claim loop just took in the database."""
        with self._mu:
            self._counts[key] = self._counts.get(key, 0) + 1

    def release(self, key: Key, *, is_done: bool = True) -> None:
        """One holder leaves; the last one releases the row (`is_done` False: the work was not done, the row stays
        due for any replica)."""
        with self._mu:
            count = self._counts.get(key, 0) - 1
            if count > 0:
                self._counts[key] = count
                return
            self._counts.pop(key, None)
            try:
                if is_done:
                    self._coord.release(self._replica, *key)
                else:
                    self._coord.unclaim(self._replica, *key)
            except Exception as error:  # the lease lapses by itself; another replica then takes the row over
                _log.warning("releasing a claim failed: %s", type(error).__name__)

    @contextmanager
    def hold(self, agent_id: str, conversation_id: str) -> Iterator[None]:
        """Hold the conversation for the block, waiting while another replica holds it."""
        key = (agent_id, conversation_id)
        give_up_at = self._clock() + self._wait_s
        while not self._try_enter(key):
            if self._clock() >= give_up_at or self._stop.is_set():
                raise AbortedError(CONVERSATION_BUSY, "another replica is distilling this conversation")
            time.sleep(self._poll_s)
        try:
            yield
        finally:
            self.release(key)

    def close(self) -> None:
        """Stop waiting holds (they end ABORTED)."""
        self._stop.set()

    def _try_enter(self, key: Key) -> bool:
        with self._mu:
            if key in self._counts:
                self._counts[key] += 1
                return True
            if self._coord.try_hold(self._replica, key[0], key[1], self._lease_s):
                self._counts[key] = 1
                return True
            return False


__all__ = ["CONVERSATION_BUSY", "ClaimBook", "Key"]
