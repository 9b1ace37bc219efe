"""Unit tests for inferd.worker: bounded queue, cancellation, expiry, crashes and shutdown never hang a caller."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from inferd.backends.base import BackendRequestError, ShouldStop
from inferd.worker import InferenceWorker
from servicekit.errors import (
    CancelledError,
    DeadlineExceededError,
    InvalidArgumentError,
    ResourceExhaustedError,
    UnavailableError,
)


def _later(s: float = 10.0) -> float:
    return time.monotonic() + s


class _Gate:
    """Work that blocks on an event, so tests control when the inference thread is busy."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.saw_stop = threading.Event()

    def work(self, should_stop: ShouldStop) -> Iterator[str]:
        self.started.set()
        while not self.release.wait(0.01):
            if should_stop():
                self.saw_stop.set()
                return
        yield "released"


@pytest.fixture
def worker() -> Iterator[InferenceWorker]:
    w = InferenceWorker("test", capacity=2)
    yield w
    w.stop(UnavailableError("MODEL_UNLOADED", "test over"), join_s=5)


def test_runs_jobs_in_order_and_streams_items(worker: InferenceWorker) -> None:
    jobs = [worker.submit(lambda _s, i=i: iter([i, i * 10]), _later()) for i in range(2)]
    assert [list(job.results()) for job in jobs] == [[0, 0], [1, 10]]


def test_full_queue_is_resource_exhausted_with_retry_info(worker: InferenceWorker) -> None:
    gate = _Gate()
    running = worker.submit(gate.work, _later())
    assert gate.started.wait(5)
    waiting = [worker.submit(lambda _s: iter(["ok"]), _later()) for _ in range(2)]
    with pytest.raises(ResourceExhaustedError) as caught:
        worker.submit(lambda _s: iter(["never"]), _later())
    assert caught.value.reason == "QUEUE_FULL"
    assert caught.value.retry_after_s is not None and caught.value.retry_after_s > 0
    gate.release.set()
    assert list(running.results()) == ["released"]
    assert [list(j.results()) for j in waiting] == [["ok"], ["ok"]]


def test_cancelled_job_leaves_the_queue_and_frees_its_slot(worker: InferenceWorker) -> None:
    gate = _Gate()
    worker.submit(gate.work, _later())
    assert gate.started.wait(5)
    first = worker.submit(lambda _s: iter(["first"]), _later())
    worker.submit(lambda _s: iter(["second"]), _later())
    assert worker.depth == 2
    worker.cancel(first)
    assert worker.depth == 1
    with pytest.raises(CancelledError):
        list(first.results())
    third = worker.submit(lambda _s: iter(["third"]), _later())  # the freed slot is usable at once
    gate.release.set()
    assert list(third.results()) == ["third"]


def test_expired_job_is_skipped_and_caller_gets_deadline_exceeded(worker: InferenceWorker) -> None:
    gate = _Gate()
    worker.submit(gate.work, _later())
    assert gate.started.wait(5)
    ran = threading.Event()

    def work(_s: ShouldStop) -> Iterator[str]:
        ran.set()
        yield "late"

    expiring = worker.submit(work, time.monotonic() + 0.2)
    started = time.monotonic()
    with pytest.raises(DeadlineExceededError):
        list(expiring.results())
    assert time.monotonic() - started < 2
    assert worker.depth == 0 or expiring.cancelled.is_set()
    gate.release.set()
    time.sleep(0.1)
    assert not ran.is_set()


def test_running_job_sees_should_stop_on_cancel(worker: InferenceWorker) -> None:
    gate = _Gate()
    job = worker.submit(gate.work, _later())
    assert gate.started.wait(5)
    worker.cancel(job)
    assert gate.saw_stop.wait(5)


def test_model_crash_reaches_the_caller_and_the_worker_keeps_serving(worker: InferenceWorker) -> None:
    def crash(_s: ShouldStop) -> Iterator[str]:
        yield "partial"
        raise RuntimeError("segfault-ish")

    job = worker.submit(crash, _later())
    results = job.results()
    assert next(results) == "partial"
    with pytest.raises(UnavailableError) as caught:
        next(results)
    assert caught.value.reason == "MODEL_CRASHED"
    assert "segfault" not in caught.value.message
    assert list(worker.submit(lambda _s: iter(["alive"]), _later()).results()) == ["alive"]


def test_backend_request_error_is_invalid_argument(worker: InferenceWorker) -> None:
    def bad(_s: ShouldStop) -> Iterator[str]:
        raise BackendRequestError("PROMPT_TOO_LONG", "too long", "messages")
        yield ""  # pragma: no cover

    with pytest.raises(InvalidArgumentError) as caught:
        list(worker.submit(bad, _later()).results())
    assert caught.value.reason == "PROMPT_TOO_LONG"
    assert caught.value.field_violations[0].field == "messages"


def test_stop_fails_waiting_jobs_and_refuses_new_ones() -> None:
    worker = InferenceWorker("stopping", capacity=4)
    gate = _Gate()
    running = worker.submit(gate.work, _later())
    assert gate.started.wait(5)
    waiting = worker.submit(lambda _s: iter(["never"]), _later())
    worker.stop(UnavailableError("MODEL_UNLOADED", "unloaded"), join_s=5)
    for job in (running, waiting):
        with pytest.raises(UnavailableError) as caught:
            list(job.results())
        assert caught.value.reason == "MODEL_UNLOADED"
    with pytest.raises(UnavailableError):
        worker.submit(lambda _s: iter([]), _later())


def test_thread_death_fails_everything_instead_of_hanging() -> None:
    worker = InferenceWorker("dying", capacity=4)
    release = threading.Event()

    def die(_s: ShouldStop) -> Iterator[str]:
        release.wait(5)
        raise SystemExit("thread killed")
        yield ""  # pragma: no cover

    dying = worker.submit(die, _later())
    queued = worker.submit(lambda _s: iter(["never"]), _later())
    release.set()
    for job in (dying, queued):
        with pytest.raises(UnavailableError) as caught:
            list(job.results())
        assert caught.value.reason == "MODEL_CRASHED"
