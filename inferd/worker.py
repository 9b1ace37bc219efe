"""One inference thread per loaded model, fed by a bounded queue; results flow back through a per-job channel."""

from __future__ import annotations

import collections
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from inferd.backends.base import BackendRequestError, ShouldStop
from servicekit.errors import (
    CancelledError,
    DeadlineExceededError,
    FieldViolation,
    InvalidArgumentError,
    ResourceExhaustedError,
    ServiceError,
    UnavailableError,
)

_log = logging.getLogger("inferd.worker")

#: The work a job does on the inference thread: it yields results and polls should_stop between steps.
Work = Callable[[ShouldStop], Iterable[Any]]

_ITEM, _ERROR, _DONE = "item", "error", "done"


class Job:
    """One queued request: its work, its deadline (monotonic seconds) and the channel its results come back on."""

    def __init__(self, work: Work, deadline_s: float | None) -> None:
        self.work = work
        self.deadline_s = deadline_s
        self.cancelled = threading.Event()
        self._out: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()

    def is_expired(self) -> bool:
        return self.deadline_s is not None and time.monotonic() >= self.deadline_s

    def put(self, kind: str, value: Any = None) -> None:
        self._out.put((kind, value))

    def results(self, poll_s: float = 0.1, is_active: Callable[[], bool] | None = None) -> Iterator[Any]:
        """Yield results as they arrive; raise the job's error; give up when the deadline or the caller goes."""
        while True:
            wait_s = poll_s
            if self.deadline_s is not None:
                wait_s = min(poll_s, max(0.0, self.deadline_s - time.monotonic()))
            try:
                kind, value = self._out.get(timeout=wait_s)
            except queue.Empty:
                if is_active is not None and not is_active():
                    self.cancelled.set()
                    raise CancelledError("CANCELLED", "the caller went away") from None
                if self.is_expired():
                    self.cancelled.set()
                    raise DeadlineExceededError("DEADLINE_EXCEEDED", "the deadline passed") from None
                continue
            if kind == _ITEM:
                yield value
            elif kind == _ERROR:
                raise value
            else:
                return


class InferenceWorker:
    """Runs jobs for one model on one thread, in order. A full queue raises RESOURCE_EXHAUSTED with RetryInfo.

    A job that is cancelled or expires while waiting leaves the queue at once; a running job sees should_stop()
    turn True. An exception inside the model becomes UNAVAILABLE / MODEL_CRASHED for that caller only.
    """

    def __init__(self, name: str, capacity: int) -> None:
        self.name = name
        self.capacity = capacity
        self._pending: collections.deque[Job] = collections.deque()
        self._cond = threading.Condition()
        self._running: Job | None = None
        self._stopping = False
        self._stop_error: ServiceError | None = None
        self._avg_job_s = 1.0
        self.last_used_s = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name=f"inferd-{name}", daemon=True)
        self._thread.start()

    @property
    def depth(self) -> int:
        """Jobs waiting (not counting the one running)."""
        with self._cond:
            return len(self._pending)

    @property
    def is_busy(self) -> bool:
        with self._cond:
            return self._running is not None or bool(self._pending)

    def submit(self, work: Work, deadline_s: float | None) -> Job:
        """Queue work; raises ResourceExhaustedError (QUEUE_FULL) or UnavailableError when stopping."""
        job = Job(work, deadline_s)
        with self._cond:
            if self._stopping:
                raise self._stop_error or UnavailableError(
                    "MODEL_UNLOADED", f"model {self.name} was unloaded"
                )
            if len(self._pending) >= self.capacity:
                retry_s = round(min(30.0, max(0.5, self._avg_job_s * (len(self._pending) + 1))), 1)
                raise ResourceExhaustedError(
                    "QUEUE_FULL",
                    f"model {self.name} has {len(self._pending)} requests waiting (capacity {self.capacity})",
                    metadata={"model": self.name, "queue_capacity": str(self.capacity)},
                    retry_after_s=retry_s,
                )
            self._pending.append(job)
            self.last_used_s = time.monotonic()
            self._cond.notify()
        return job

    def cancel(self, job: Job) -> None:
        """Cancel a job: drop it from the queue if it is waiting, or ask the running model to stop."""
        job.cancelled.set()
        with self._cond:
            try:
                self._pending.remove(job)
            except ValueError:
                return
        job.put(_ERROR, CancelledError("CANCELLED", "the request was cancelled"))

    def stop(self, error: ServiceError, join_s: float = 30.0) -> None:
        """Fail every waiting job with `error`, stop the running one, and end the thread."""
        with self._cond:
            self._stopping = True
            self._stop_error = error
            waiting = list(self._pending)
            self._pending.clear()
            running = self._running
            self._cond.notify_all()
        for job in waiting:
            job.put(_ERROR, error)
        if running is not None:
            running.cancelled.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(join_s)

    def _next(self) -> Job | None:
        with self._cond:
            while not self._pending and not self._stopping:
                self._cond.wait()
            if self._stopping:
                return None
            job = self._pending.popleft()
            self._running = job
            return job

    def _loop(self) -> None:
        job: Job | None = None
        try:
            while (job := self._next()) is not None:
                self._run(job)
                with self._cond:
                    self._running = None
                job = None
        except BaseException as error:
            _log.error("inference thread of %s stopped: %s", self.name, type(error).__name__)
        finally:
            # Only a BaseException (not a model error) gets here with work left: fail it rather than hang callers.
            crashed = UnavailableError("MODEL_CRASHED", f"the inference thread of {self.name} stopped")
            with self._cond:
                self._stopping = True
                self._stop_error = self._stop_error or crashed
                leftover = ([job] if job is not None else []) + list(self._pending)
                self._pending.clear()
                self._running = None
            for item in leftover:
                item.put(_ERROR, self._stop_error)

    def _run(self, job: Job) -> None:
        if job.cancelled.is_set():
            job.put(_ERROR, CancelledError("CANCELLED", "the request was cancelled"))
            return
        if job.is_expired():
            job.put(_ERROR, DeadlineExceededError("DEADLINE_EXCEEDED", "the deadline passed while queued"))
            return

        def should_stop() -> bool:
            return job.cancelled.is_set() or self._stopping or job.is_expired()

        started = time.monotonic()
        try:
            for item in job.work(should_stop):
                job.put(_ITEM, item)
            if self._stopping and self._stop_error is not None:
                job.put(_ERROR, self._stop_error)
            else:
                job.put(_DONE)
        except ServiceError as error:
            job.put(_ERROR, error)
        except BackendRequestError as error:
            violations = [FieldViolation(error.field, str(error), error.reason)] if error.field else []
            job.put(_ERROR, InvalidArgumentError(error.reason, str(error), field_violations=violations))
        except Exception as error:
            _log.error("model %s crashed: %s", self.name, type(error).__name__)
            _log.debug("model %s crash traceback", self.name, exc_info=error)
            job.put(
                _ERROR,
                UnavailableError("MODEL_CRASHED", f"model {self.name} failed while serving the request"),
            )
        finally:
            elapsed = time.monotonic() - started
            self._avg_job_s = 0.8 * self._avg_job_s + 0.2 * elapsed
            self.last_used_s = time.monotonic()
