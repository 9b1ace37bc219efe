"""The writer facade memoryd.app builds: the BufferTurn hook, EndSession, Ingest, SyncNow, startup and shutdown."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

from memoryd.write import outcome as oc
from memoryd.write.breaker import CircuitBreaker
from memoryd.write.coordinator import Coordinator, Guard, no_guard
from memoryd.write.debounce import ArmResult, Debouncer, DueQueue
from memoryd.write.ingest import Ingestor, IngestResult
from memoryd.write.model import Inference, WriterSettings
from memoryd.write.resume import ResumeSweeper
from memoryd.write.session import DEFAULT_POLICY, DistillPolicy, SessionDistiller, WriterHooks
from memoryd.write.store_protocol import IngestTurn, WriterStore

#: Builds the deadlines from the writer's hand-off (agent, conversation, reason) -> the distillation's future.
DueQueueFactory = Callable[[Callable[[str, str, str], "Future[oc.Outcome]"]], DueQueue]


@dataclass(frozen=True)
class EndSessionResult:
    """EndSessionResponse's fields: outcome is empty unless the caller waited."""

    signals_flushed: int
    outcome: str
    episode_id: int


class Writer:
    """Owns the debouncer, the coordinator and the ingestor. Thread-safe; gRPC handlers call it directly.

    `clock` (monotonic seconds) drives the debounce and the breaker; tests pass a fake one. `due_queue` and
    `guard` replace the in-process debounce and add a cross-process hold around foreground runs (memoryd.replication,
    several replicas on one PostgreSQL database); by default everything stays in this process.
    """

    def __init__(
        self,
        store: WriterStore,
        inference: Inference,
        settings: Callable[[], WriterSettings],
        *,
        hooks: WriterHooks | None = None,
        policy: DistillPolicy = DEFAULT_POLICY,
        breaker: CircuitBreaker | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], object] | None = None,
        max_concurrent: int = 2,
        due_queue: DueQueueFactory | None = None,
        guard: Guard = no_guard,
    ) -> None:
        self._store = store
        self._settings = settings
        self.breaker = breaker or CircuitBreaker(clock=clock)
        self.distiller = SessionDistiller(
            store, inference, settings, self.breaker, policy=policy, hooks=hooks, sleep=sleep
        )
        self.coordinator = Coordinator(
            self.distiller, store, max_concurrent=max_concurrent, on_outcome=self._observe, guard=guard
        )
        self.debouncer: DueQueue = (
            Debouncer(self._flush, clock=clock) if due_queue is None else due_queue(self._flush)
        )
        self.resume = ResumeSweeper(
            self._sweep,
            first_s=policy.resume_first_s,
            max_s=policy.resume_max_s,
            hold_s=lambda: max(0.0, self.breaker.snapshot().open_until_s - clock()),
        )
        self.ingestor = Ingestor(store, self.coordinator, self.debouncer, settings, self.distiller.hooks)
        self._recovery: Future[list[oc.Outcome]] | None = None

    def start(self, *, recover: bool = True, timer_thread: bool = True) -> Future[list[oc.Outcome]] | None:
        """Start the debounce thread and, unless told not to, recover orphaned signals in the background."""
        if timer_thread:
            self.debouncer.start()
        if recover:
            # Conversations armed for more turns (by another replica, or by a turn already here) are left to their
            # deadlines.
            self._recovery = self.coordinator.recover_orphans(skip=set(self.debouncer.armed()))
        return self._recovery

    def on_turn_buffered(self, agent_id: str, conversation_id: str) -> ArmResult:
        """The BufferTurn seam: called after the turn's transaction committed. Never calls a model."""
        settings = self._settings()
        if not settings.enabled:
            return ArmResult(False, 0.0, ())
        return self.debouncer.turn_buffered(
            agent_id, conversation_id, debounce_s=settings.summary_debounce_s, automatic=settings.is_automatic
        )

    def end_session(self, agent_id: str, conversation_id: str, *, wait: bool) -> EndSessionResult:
        """Flush now. In manual extraction mode nothing is distilled automatically, so nothing is flushed."""
        if not self._settings().is_automatic:
            self.debouncer.cancel(agent_id, conversation_id)
            return EndSessionResult(0, "", 0)
        if not wait:
            flushed = self._store.count_pending(agent_id, conversation_id)
            self.debouncer.flush_now(agent_id, conversation_id, "end_session")
            return EndSessionResult(flushed, "", 0)
        self.debouncer.cancel(agent_id, conversation_id)
        flushed = self._store.count_pending(agent_id, conversation_id)
        result = self.coordinator.run_now(agent_id, conversation_id, require_resident=False)
        return EndSessionResult(flushed, result.token, result.episode_id)

    def ingest(
        self,
        agent_id: str,
        conversation_id: str,
        turns: Sequence[IngestTurn],
        *,
        session_time_ms: int | None = None,
        skip_extraction: bool = False,
    ) -> IngestResult:
        """Idempotent bulk load + synchronous distillation (see Ingestor)."""
        return self.ingestor.ingest(
            agent_id, conversation_id, turns, session_time_ms=session_time_ms, skip_extraction=skip_extraction
        )

    def sync_now(self, agent_id: str | None = None) -> list[oc.Outcome]:
        """Drain every pending conversation now (cold-loading the model if needed); one outcome each."""
        for agent, conversation in list(self.debouncer.armed()):
            if agent_id is None or agent == agent_id:
                self.debouncer.cancel(agent, conversation)
        return self.coordinator.sync_now(agent_id, require_resident=False)

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop timers and cancel queued work; pending signals stay in the store for the next start."""
        self.resume.close()
        self.debouncer.close()
        self.coordinator.close(timeout_s)

    def _flush(self, agent_id: str, conversation_id: str, reason: str) -> Future[oc.Outcome]:
        return self.coordinator.submit(agent_id, conversation_id, require_resident=True)

    def _observe(self, outcome: oc.Outcome) -> None:
        """Every distillation's outcome: stranded work schedules a resume sweep."""
        self.resume.observe(outcome)

    def _sweep(self, stop: Callable[[oc.Outcome], bool]) -> list[oc.Outcome]:
        """Retry every pending conversation that is not armed for more turns (the debounce decides those)."""
        if not self._settings().is_automatic:
            return []
        armed = set(self.debouncer.armed())
        return self.coordinator.sync_now(require_resident=True, skip=armed, stop=stop)


__all__ = ["DueQueueFactory", "EndSessionResult", "Writer"]
