"""Schedules distillations: single-flight per conversation, a bounded worker pool, SyncNow drain, orphan recovery."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import NamedTuple

from memoryd.write import outcome as oc
from memoryd.write.session import SessionDistiller
from memoryd.write.store_protocol import WriterStore

_log = logging.getLogger("memoryd.writer.coordinator")

Key = tuple[str, str]
#: Holds a conversation beyond this process for a foreground run (memoryd.replication.claims.ClaimBook.hold).
Guard = Callable[[str, str], AbstractContextManager[None]]


def no_guard(agent_id: str, conversation_id: str) -> AbstractContextManager[None]:
    """One process: the per-conversation lock is all the exclusion there is."""
    return nullcontext()


#: A worker with nothing queued for this long exits (the next submit starts one again), so an idle memoryd has none.
_IDLE_EXIT_S = 10.0


@dataclass
class _Slot:
    """Per-conversation state: the run lock, the one queued (not yet started) run and the residency rule it was
    submitted with, and how many hold the slot (a queued or running run, each exclusive() block)."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    queued: Future[oc.Outcome] | None = None
    require_resident: bool = True
    users: int = 0


class _Job(NamedTuple):
    """A queued run a worker took: its slot's lock is held by that worker."""

    key: Key
    slot: _Slot
    future: Future[oc.Outcome]
    require_resident: bool


class Coordinator:
    """At most one distillation per conversation at a time; a request while one is queued joins it, a request
    while one runs queues exactly one follow-up (which picks up turns that arrived during the call).

    `max_concurrent` bounds distillations across conversations (inferd serialises per model anyway). Background
    runs are served by at most `max_concurrent` worker threads, started on demand, from a FIFO of conversations:
    a burst of thousands of flushes costs queue entries, not threads. A worker skips a conversation whose lock is
    held (exclusive(), run_now(), or its own run on another worker) and sleeps when only such remain.
    """

    def __init__(
        self,
        distiller: SessionDistiller,
        store: WriterStore,
        *,
        max_concurrent: int = 2,
        on_outcome: Callable[[oc.Outcome], None] | None = None,
        guard: Guard = no_guard,
    ) -> None:
        self._distiller = distiller
        self._guard = guard
        self._store = store
        self._on_outcome = on_outcome
        self._mu = threading.Lock()
        self._wake = threading.Condition(self._mu)  # a run was queued, a conversation was freed, or close()
        self._slots: dict[Key, _Slot] = {}
        self._ready: deque[Key] = deque()  # conversations whose slot has a queued run, oldest first
        self._running = threading.Semaphore(max_concurrent)
        # Daemon threads, not an executor: a model call in flight must not hold up process exit (its signals stay
        # pending and are recovered at the next start).
        self._workers: set[threading.Thread] = set()
        self._max_workers = max(1, max_concurrent)
        self._idle = 0  # workers waiting on _wake
        self._closed = False

    @property
    def cancelled(self) -> threading.Event:
        """Set on close(); in-flight runs end as skipped:cancelled at their next check."""
        return self._distiller.cancelled

    @contextmanager
    def exclusive(self, agent_id: str, conversation_id: str) -> Iterator[None]:
        """Hold the conversation: no distillation of it runs while the block runs (Ingest's replace+distil).

        With a guard (several replicas), the block also waits until no other replica holds the conversation."""
        key = (agent_id, conversation_id)
        slot = self._enter(key)
        try:
            with slot.lock, self._guard(agent_id, conversation_id):
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
            slot.require_resident = require_resident
            slot.users += 1
            self._ready.append(key)
            self._wake.notify()
            if len(self._ready) > self._idle and len(self._workers) < self._max_workers:
                worker = threading.Thread(target=self._work, name="memoryd-distill", daemon=True)
                self._workers.add(worker)
                worker.start()
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

    def recover_orphans(self, skip: Collection[Key] = ()) -> Future[list[oc.Outcome]]:
        """At startup: distil, in the background, every conversation left pending by a crash or a missing model
        (except `skip`: conversations armed for more turns)."""
        future: Future[list[oc.Outcome]] = Future()

        def recover() -> None:
            try:
                outcomes = self.sync_now(require_resident=True, skip=skip)
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
        dropped: list[tuple[Key, Future[oc.Outcome]]] = []
        with self._mu:
            self._closed = True
            while self._ready:
                key = self._ready.popleft()
                slot = self._slots[key]
                if slot.queued is not None:
                    dropped.append((key, slot.queued))
                    slot.queued = None
                slot.users -= 1
                if slot.users <= 0:
                    del self._slots[key]
            workers = list(self._workers)
            self._wake.notify_all()
        self.cancelled.set()
        for (agent_id, conversation_id), future in dropped:
            outcome = oc.Outcome(agent_id, conversation_id, oc.SKIPPED_CANCELLED)
            self._observe(outcome)
            future.set_result(outcome)
        deadline = time.monotonic() + timeout_s
        for worker in workers:
            worker.join(max(0.0, deadline - time.monotonic()))

    def _work(self) -> None:
        """A worker: run the oldest free queued conversation, repeat; exit when closed or idle for _IDLE_EXIT_S."""
        try:
            while True:
                with self._mu:
                    job = self._take()
                    while job is None:
                        if self._closed and not self._ready:
                            break
                        self._idle += 1
                        woken = self._wake.wait(_IDLE_EXIT_S)
                        self._idle -= 1
                        job = self._take()
                        if job is None and not woken and not self._ready:
                            break
                    if job is None:
                        # Leave the pool while still holding _mu: a submit that comes after this sees the worker
                        # gone and starts another, so a queued run never waits for a worker that is exiting.
                        self._workers.discard(threading.current_thread())
                        return
                self._execute(job)
        finally:
            with self._mu:
                self._workers.discard(threading.current_thread())

    def _take(self) -> _Job | None:
        """Caller holds _mu. Dequeue the oldest conversation whose lock is free, taking its lock; busy ones stay
        queued in place (their holder's _leave wakes a worker)."""
        for index, key in enumerate(self._ready):
            slot = self._slots[key]
            if slot.lock.acquire(blocking=False):
                del self._ready[index]
                future = slot.queued
                assert future is not None, "a queued conversation has a queued run"
                slot.queued = None  # from here on a submit queues a follow-up
                return _Job(key, slot, future, slot.require_resident)
        return None

    def _execute(self, job: _Job) -> None:
        try:
            try:
                result = self._run(job.key[0], job.key[1], job.require_resident, None)
            finally:
                job.slot.lock.release()
                self._leave(job.key)
        except Exception as error:
            _log.exception("background distillation failed")
            job.future.set_exception(error)
        else:
            job.future.set_result(result)

    def _run(
        self, agent_id: str, conversation_id: str, require_resident: bool, session_time_ms: int | None
    ) -> oc.Outcome:
        with self._running:
            outcome = self._distiller.run(
                agent_id, conversation_id, require_resident=require_resident, session_time_ms=session_time_ms
            )
        self._observe(outcome)
        return outcome

    def _observe(self, outcome: oc.Outcome) -> None:
        if self._on_outcome is not None:
            try:
                self._on_outcome(outcome)
            except Exception:
                _log.exception("outcome callback failed")

    def _enter(self, key: Key) -> _Slot:
        with self._mu:
            slot = self._slots.setdefault(key, _Slot())
            slot.users += 1
            return slot

    def _leave(self, key: Key) -> None:
        """Drop one hold on the slot; its lock is already released, so a worker may now take the conversation."""
        with self._mu:
            slot = self._slots.get(key)
            if slot is not None:
                slot.users -= 1
                if slot.users <= 0 and slot.queued is None:
                    del self._slots[key]
            if self._ready:
                self._wake.notify_all()


__all__ = ["Coordinator", "Guard", "Key", "no_guard"]
