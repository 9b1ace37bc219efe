"""Circuit breaker closed → open → half-open → closed with a fake clock; bounded retries with backoff."""

from __future__ import annotations

import threading

import pytest

from memoryd.write.breaker import CLOSED, HALF_OPEN, OPEN, CircuitBreaker
from memoryd.write.retry import (
    InvalidOutputError,
    RetryCancelledError,
    RetryPolicy,
    call_with_retries,
    is_model_unavailable,
    is_retryable,
    skip_reason,
)
from servicekit.errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    UnavailableError,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_opens_after_threshold_and_half_opens_after_cooldown() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(threshold=3, base_cooldown_s=60, clock=clock)
    for _ in range(2):
        assert breaker.allow()
        breaker.record_failure()
    assert breaker.snapshot().state == CLOSED
    assert breaker.allow()
    breaker.record_failure()
    assert breaker.snapshot().state == OPEN
    assert not breaker.allow()
    clock.now = 59.9
    assert not breaker.allow()
    clock.now = 60.0
    assert breaker.snapshot().state == HALF_OPEN
    assert breaker.allow()  # the one probe
    assert not breaker.allow()  # nobody else while the probe runs
    breaker.record_success()
    assert breaker.snapshot().state == CLOSED
    assert breaker.allow() and breaker.allow()


def test_failed_probe_reopens_with_a_longer_cooldown_capped() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(threshold=1, base_cooldown_s=60, max_cooldown_s=200, clock=clock)
    breaker.record_failure()
    assert breaker.snapshot().open_until_s == 60
    cooldowns = []
    for _ in range(4):
        clock.now = breaker.snapshot().open_until_s
        assert breaker.allow()
        start = clock.now
        breaker.record_failure()
        cooldowns.append(breaker.snapshot().open_until_s - start)
    assert cooldowns == [120, 200, 200, 200]


def test_released_probe_lets_the_next_caller_probe() -> None:
    clock = FakeClock()
    breaker = CircuitBreaker(threshold=1, base_cooldown_s=10, clock=clock)
    breaker.record_failure()
    clock.now = 10
    assert breaker.allow()
    breaker.release_probe()
    assert breaker.allow()


def test_success_resets_the_failure_count() -> None:
    breaker = CircuitBreaker(threshold=2, clock=FakeClock())
    breaker.record_failure()
    breaker.record_success()
    breaker.record_failure()
    assert breaker.snapshot().state == CLOSED


def test_retries_transient_errors_with_backoff_then_succeeds() -> None:
    sleeps: list[float] = []
    attempts = iter([DeadlineExceededError("DEADLINE_EXCEEDED"), InvalidOutputError("x"), "ok"])

    def call() -> str:
        value = next(attempts)
        if isinstance(value, Exception):
            raise value
        return value

    result, calls = call_with_retries(
        call,
        RetryPolicy(max_calls=3, base_delay_s=1, factor=2),
        cancelled=threading.Event(),
        sleep=sleeps.append,
    )
    assert (result, calls) == ("ok", 3)
    assert sleeps == [1, 2]


def test_gives_up_after_max_calls() -> None:
    calls = 0

    def call() -> str:
        nonlocal calls
        calls += 1
        raise UnavailableError("MODEL_CRASHED")

    with pytest.raises(UnavailableError):
        call_with_retries(call, RetryPolicy(max_calls=3), cancelled=threading.Event(), sleep=lambda s: None)
    assert calls == 3


def test_non_retryable_errors_propagate_at_once() -> None:
    calls = 0

    def call() -> str:
        nonlocal calls
        calls += 1
        raise NotFoundError("MODEL_NOT_FOUND")

    with pytest.raises(NotFoundError):
        call_with_retries(call, RetryPolicy(max_calls=3), cancelled=threading.Event(), sleep=lambda s: None)
    assert calls == 1


def test_retry_info_hint_lengthens_the_backoff() -> None:
    assert RetryPolicy(base_delay_s=1).delay_s(1, hint_s=3.0) == 3.0
    assert RetryPolicy(base_delay_s=1, max_delay_s=8).delay_s(1, hint_s=100.0) == 8.0
    assert RetryPolicy(base_delay_s=1, factor=2, max_delay_s=8).delay_s(5) == 8.0


def test_cancellation_interrupts_the_backoff() -> None:
    cancelled = threading.Event()

    def call() -> str:
        cancelled.set()
        raise ResourceExhaustedError("QUEUE_FULL")

    with pytest.raises(RetryCancelledError):
        call_with_retries(call, RetryPolicy(max_calls=3, base_delay_s=30), cancelled=cancelled)


def test_error_classification() -> None:
    assert is_model_unavailable(NotFoundError("MODEL_NOT_FOUND"))
    assert is_model_unavailable(FailedPreconditionError("MODEL_UNAVAILABLE"))
    assert is_model_unavailable(UnavailableError("UNAVAILABLE"))  # inferd unreachable
    assert not is_model_unavailable(UnavailableError("MODEL_CRASHED"))
    assert not is_model_unavailable(DeadlineExceededError("DEADLINE_EXCEEDED"))
    assert is_retryable(ResourceExhaustedError("QUEUE_FULL"))
    assert not is_retryable(InvalidArgumentError("INVALID_JSON_SCHEMA"))
    assert skip_reason(FailedPreconditionError("MODEL_NOT_RESIDENT")) == "not_resident"
    assert skip_reason(NotFoundError("MODEL_NOT_FOUND")) == "core_model_unavailable"
