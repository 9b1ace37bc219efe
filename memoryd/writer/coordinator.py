"""Schedules distillations: single-flight per conversation, a small worker pool, SyncNow drain, orphan recovery."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field

from memoryd.writer import outcome as oc
from memoryd.writer.session import SessionDistiller
from memoryd.writer.store import WriterStore

_log = logging.getLogger("memoryd.writer.coordinator")

Key = tuple[str, str]


@dataclass
class _Slot:
    """Per-conversation state: the run lock, the one queued (not yet started) run, and how many hold the slot."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    queued: Future[oc.Outcome] | None = None
    users: int = 0


class Coordinator:
    """At most one distillation per conversation at a time; a request while one is queued joins it, a request
    while one runs queues exactly one follow-up (which picks up turns that arrived during the call).

    `max_concurrent` bounds distillations across conversations (inferd serialises per model anyway).
    """

    def __init__(
        self,
        distiller: SessionDistiller,
        store: WriterStore,
        *,
        max_concurrent: int = 2,
        on_outcome: Callable[[oc.Outcome], None] | None = None,
    ) -> None:
        self._distiller = distiller
        self._store = store
        self._on_outcome = on_outcome
        self._mu = threading.Lock()
        self._slots: dict[Key, _Slot] = {}
        self._running = threading.Semaphore(max_concurrent)
        # Daemon threads, not an executor: a model call in flight must not hold up process exit (its signals stay
        # pending and are recovered at the next start).
        self._threads: set[threading.Thread] = set()
        self._closed = False

    @property
    def cancelled(self) -> threading.Event:
        """Set on close(); in-flight runs end as skipped:cancelled at their next check."""
        return self._distiller.cancelled

    @contextmanager
    def exclusive(self, agent_id: str, conversation_id: str) -> Iterator[None]:
        """Hold the conversation: no distillation of it runs while the block runs (Ingest's replace+distil)."""
        key = (agent_id, conversation_id)
        slot = self._enter(key)
        try:
            with slot.lock:
                yield
        finally:
            self._leave(key)

    def run_now(
        self,
        agent_id: str,
        conversation_id: str,
        *,
        require_resident: bool = False,
        session_time_ms: int | None = None,
    ) -> oc.Outcome:
        """Distil in the calling thread once the conversation is free (EndSession wait, Ingest, SyncNow)."""
        with self.exclusive(agent_id, conversation_id):
            return self._run(agent_id, conversation_id, require_resident, session_time_ms)

    def submit(
        self, agent_id: str, conversation_id: str, *, require_resident: bool = True
    ) -> Future[oc.Outcome]:
        """Schedule a background distillation; joins a queued run of the same conversation."""
        key = (agent_id, conversation_id)
        with self._mu:
            if self._closed:
                done: Future[oc.Outcome] = Future()
                done.set_result(oc.Outcome(agent_id, conversation_id, oc.SKIPPED_CANCELLED))
                return done
            slot = self._slots.setdefault(key, _Slot())
            if slot.queued is not None:
                return slot.queued
            future: Future[oc.Outcome] = Future()
            slot.queued = future
            slot.users += 1
        thread = threading.Thread(
            target=self._background,
            args=(key, slot, future, require_resident),
            name="memoryd-distill",
            daemon=True,
        )
        with self._mu:
            self._threads.add(thread)
        thread.start()
        return future

    def sync_now(
        self,
        agent_id: str | None = None,
        *,
        require_resident: bool = False,
        skip: Collection[Key] = (),
        stop: Callable[[oc.Outcome], bool] | None = None,
    ) -> list[oc.Outcome]:
        """Drain every conversation with pending signals (optionally one agent's), serially; one outcome each.

        `skip`: conversations to leave alone (armed for more turns); `stop`: end the drain after an outcome it
        accepts (a cause that would skip every other conversation too).
        """
        outcomes: list[oc.Outcome] = []
        for agent, conversation in self._store.pending_conversations(agent_id):
            if (agent, conversation) in skip:
                continue
            if self.cancelled.is_set():
                outcomes.append(oc.Outcome(agent, conversation, oc.SKIPPED_CANCELLED))
                continue
            outcomes.append(self.run_now(agent, conversation, require_resident=require_resident))
            if stop is not None and stop(outcomes[-1]):
                break
        return outcomes

    def recover_orphans(self) -> Future[list[oc.Outcome]]:
        """At startup: distil, in the background, every conversation left pending by a crash or a missing model."""
        future: Future[list[oc.Outcome]] = Future()

        def recover() -> None:
            try:
                outcomes = self.sync_now(require_resident=True)
                _log.info("orphan recovery: %d conversation(s) processed", len(outcomes))
                future.set_result(outcomes)
            except Exception as error:
                _log.exception("orphan recovery failed")
                future.set_exception(error)

        threading.Thread(target=recover, name="memoryd-recover", daemon=True).start()
        return future

    def busy(self) -> list[Key]:
        """Conversations with a queued or running distillation."""
        with self._mu:
            return [key for key, slot in self._slots.items() if slot.users]

    def close(self, timeout_s: float = 10.0) -> None:
        """Cancel: queued runs end as skipped:cancelled; waits up to timeout_s for runs in a model call."""
        with self._mu:
            self._closed = True
            threads = list(self._threads)
        self.cancelled.set()
        deadline = time.monotonic() + timeout_s
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _background(self, key: Key, slot: _Slot, future: Future[oc.Outcome], require_resident: bool) -> None:
        try:
            with slot.lock:
                with self._mu:
                    if slot.queued is future:
                        slot.queued = None
                result = self._run(key[0], key[1], require_resident, None)
            future.set_result(result)
        except Exception as error:
            _log.exception("background distillation failed")
            future.set_exception(error)
        finally:
            self._leave(key)
            with self._mu:
                self._threads.discard(threading.current_thread())

    def _run(
        self, agent_id: str, conversation_id: str, require_resident: bool, session_time_ms: int | None
    ) -> oc.Outcome:
        with self._running:
            outcome = self._distiller.run(
                agent_id, conversation_id, require_resident=require_resident, session_time_ms=session_time_ms
            )
        if self._on_outcome is not None:
            try:
                self._on_outcome(outcome)
            except Exception:
                _log.exception("outcome callback failed")
        return outcome

    def _enter(self, key: Key) -> _Slot:
        with self._mu:
            slot = self._slots.setdefault(key, _Slot())
            slot.users += 1
            return slot

    def _leave(self, key: Key) -> None:
        with self._mu:
            slot = self._slots.get(key)
            if slot is not None:
                slot.users -= 1
                if slot.users <= 0 and slot.queued is None:
                    del self._slots[key]


__all__ = ["Coordinator", "Key"]
