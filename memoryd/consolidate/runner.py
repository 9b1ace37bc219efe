"""The Consolidator: runs one pass (the steps of jobs.py in order) at a time, and records its report."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from memoryd.config import ConfigStore, MemoryConfig
from memoryd.consolidate import jobs
from memoryd.consolidate.pacing import Pacer
from memoryd.consolidate.pass_lock import LOCAL, PassLock
from memoryd.consolidate.report import (
    STEP_DECAY,
    TASK_TYPE,
    TRIGGER_MANUAL,
    PassReport,
    StepReport,
    StepResult,
)
from memoryd.consolidate.wal import WalCheckpointer
from memoryd.domain import now_ms
from memoryd.storage.consolidation import ConsolidationStore
from memoryd.storage.faults import is_database_error
from servicekit.errors import AbortedError, ServiceError

_log = logging.getLogger("memoryd.consolidate")

#: Reason of the ABORTED error when a pass is already running.
CONSOLIDATION_RUNNING = "CONSOLIDATION_RUNNING"
#: Reason of the ABORTED error once memoryd is shutting down.
CONSOLIDATION_STOPPED = "CONSOLIDATION_STOPPED"

#: Exceptions from these modules carry SQLite's message, which never holds row content (values are bound).

Clock = Callable[[], int]
#: Called with an agent id (or None for "every agent") after a pass changed memory: cache invalidation.
AgentsChanged = Callable[[str | None], None]
Step = tuple[str, Callable[[jobs.JobContext], StepResult]]


def pass_settings(config: MemoryConfig) -> jobs.PassSettings:
    """The consolidator's view of memory.json."""
    return jobs.PassSettings(
        salience_floor=config.salience_floor,
        episode_retention_days=config.episode_retention_days,
        core_model=config.core_model,
        embedding_model=None if config.embedding_backend == "none" else config.embedding_model,
    )


def _error_text(error: BaseException) -> str:
    """What the report says about a failure: the type, plus SQLite's or a ServiceError's own (content-free) text."""
    if isinstance(error, ServiceError) or is_database_error(error):
        return f"{type(error).__name__}: {error}"[:300]
    return type(error).__name__


@dataclass
class ConsolidatorOptions:
    """Pacing and hooks; defaults suit a live server."""

    #: None: a Pacer that watches memoryd's commit counter to tell busy from quiet.
    pacer_factory: Callable[[], Pacer] | None = None
    on_batch: Callable[[str], None] | None = None
    steps: Sequence[Step] = jobs.STEPS
    #: Across processes sharing the database (memoryd.replication); in one process the in-process lock suffices.
    pass_lock: PassLock = LOCAL


class Consolidator:
    """Runs consolidation passes. Never two at once: a second caller gets ABORTED (CONSOLIDATION_RUNNING)."""

    def __init__(
        self,
        storage: ConsolidationStore,
        config: ConfigStore,
        *,
        vectors: jobs.VectorRemover | None = None,
        inference: jobs.NarrativeModel | None = None,
        clock: Clock = now_ms,
        on_changed: Sequence[AgentsChanged] = (),
        options: ConsolidatorOptions | None = None,
    ) -> None:
        self._storage = storage
        self._config = config
        self._vectors = vectors
        self._inference = inference
        self._clock = clock
        self._on_changed = list(on_changed)
        self._options = options or ConsolidatorOptions()
        self._state = storage.state()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        # Passes run on one dedicated thread: its own SQLite connection, whose pragmas the pass may change.
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memoryd-consolidate")

    @property
    def is_running(self) -> bool:
        """Whether a pass is in progress."""
        return self._lock.locked()

    def run(self, trigger: str = TRIGGER_MANUAL) -> PassReport:
        """Run one pass now; raises AbortedError(CONSOLIDATION_RUNNING) if one is already running."""
        if self._closing.is_set():
            raise AbortedError(CONSOLIDATION_STOPPED, "memoryd is shutting down")
        if not self._lock.acquire(blocking=False):
            raise AbortedError(CONSOLIDATION_RUNNING, "a consolidation pass is already running")
        try:
            shared = self._options.pass_lock
            if not shared.try_acquire():
                raise AbortedError(
                    CONSOLIDATION_RUNNING, "a consolidation pass is running on another replica"
                )
            try:
                return self._worker.submit(self._run, trigger).result()
            finally:
                shared.release()
        finally:
            self._lock.release()

    def try_run(self, trigger: str) -> PassReport | None:
        """Run one pass unless one is running (then None): what the scheduler calls."""
        try:
            return self.run(trigger)
        except AbortedError:
            _log.info("consolidation (%s) skipped: a pass is already running", trigger)
            return None

    def close(self, timeout_s: float = 30.0) -> None:
        """Stop accepting passes; a running pass stops before its next batch. Waits for it up to `timeout_s`."""
        self._closing.set()
        if self._lock.acquire(timeout=timeout_s):
            self._lock.release()
        else:
            _log.warning("a consolidation pass did not stop within %.0f s", timeout_s)
        self._worker.shutdown(wait=False)

    def last_pass_ms(self) -> int | None:
        """When the most recent recorded pass finished (epoch ms), or None."""
        return self._storage.pass_log(TASK_TYPE).last_finished_ms()

    def last_report(self) -> PassReport | None:
        """The most recent pass's report as kept in processing_log."""
        return latest_report(self._storage)

    def _pacer(self) -> Pacer:
        if self._options.pacer_factory is not None:
            return self._options.pacer_factory()
        storage = self._storage
        return Pacer(commits=lambda: storage.commits)

    def _run(self, trigger: str) -> PassReport:
        start_ms = self._clock()
        started = time.perf_counter()
        pacer = self._pacer()
        ctx = jobs.JobContext(
            storage=self._storage,
            state=self._state,
            settings=pass_settings(self._config.get()),
            now_ms=start_ms,
            vectors=self._vectors,
            inference=self._inference,
            pacer=pacer,
            on_batch=self._options.on_batch,
            should_stop=self._closing.is_set,
            checkpointer=WalCheckpointer(self._storage.wal, busy=lambda: pacer.is_busy),
        )
        steps: list[StepReport] = []
        changed: set[str] = set()
        checkpointer = ctx.checkpointer
        assert checkpointer is not None
        checkpointer.begin()
        self._options.pass_lock.begin(start_ms)
        try:
            model = self._steps(ctx, steps, changed)
        finally:
            try:
                checkpointer.end()
            except Exception as error:
                _log.warning("final checkpoint failed: %s", type(error).__name__)
        report = PassReport(start_ms, _ms_since(started), tuple(steps), trigger, model)
        self._record(report)
        if (
            not self._closing.is_set()
        ):  # a pass stopped by shutdown stays "interrupted": another replica resumes it
            self._options.pass_lock.end(report.start_ms + report.duration_ms)
        self._notify(report, changed)
        _log.info(
            "consolidation (%s) done in %d ms: %s",
            trigger,
            report.duration_ms,
            ", ".join(
                f"{s.name}={'error' if s.error else s.skip_reason or s.rows_changed}" for s in report.steps
            ),
        )
        return report

    def _steps(self, ctx: jobs.JobContext, steps: list[StepReport], changed: set[str]) -> str:
        """Run the steps in order, appending their reports; returns the model the narrative used ("" if none)."""
        model = ""
        for name, job in self._options.steps:
            step_started = time.perf_counter()
            if self._closing.is_set():
                break
            try:
                result = job(ctx)
            except jobs.PassStoppedError:
                steps.append(
                    StepReport(name, duration_ms=_ms_since(step_started), error="stopped: shutting down")
                )
                break
            except Exception as error:
                _log.error("consolidation step %s failed: %s", name, type(error).__name__)
                _log.debug("consolidation step failure", exc_info=error)
                steps.append(StepReport(name, duration_ms=_ms_since(step_started), error=_error_text(error)))
                continue
            changed.update(result.agents)
            model = result.model or model
            steps.append(
                StepReport(
                    name,
                    rows_changed=result.rows_changed,
                    vectors_deleted=result.vectors_deleted,
                    duration_ms=_ms_since(step_started),
                    skip_reason=result.skip_reason,
                    counts=dict(result.counts),
                )
            )
        return model

    def _record(self, report: PassReport) -> None:
        """Keep the report in processing_log (task_type consolidate), stamped by the pass's clock."""
        try:
            self._storage.pass_log(TASK_TYPE).record(
                model=report.model,
                failed=bool(report.errors),
                details=report.to_details(),
                duration_ms=report.duration_ms,
                finished_ms=report.start_ms + report.duration_ms,
            )
        except Exception as error:
            _log.error("could not record the consolidation report: %s", type(error).__name__)

    def _notify(self, report: PassReport, agents: set[str]) -> None:
        """Tell caches what changed: every agent after decay (salience moved everywhere) or a failed step, else the
        touched ones (an identity narrative is one agent's, so the identity step names its agents too)."""
        everywhere = any(s.name == STEP_DECAY and s.rows_changed for s in report.steps)
        everyone = everywhere or any(s.error for s in report.steps)
        targets: list[str | None] = [None]
        if not everyone:
            targets = [*sorted(agents)]
        for callback in self._on_changed:
            for agent_id in targets:
                try:
                    callback(agent_id)
                except Exception as error:
                    _log.warning("consolidation callback failed: %s", type(error).__name__)


def latest_report(storage: ConsolidationStore) -> PassReport | None:
    """The most recent pass's report as kept in processing_log (Diagnose shows it), or None before the first."""
    logged = storage.pass_log(TASK_TYPE).latest()
    return (
        None if logged is None else PassReport.from_details(logged.details, logged.duration_ms, logged.model)
    )


def _ms_since(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)
