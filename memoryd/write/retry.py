"""Bounded retries with exponential backoff for one distillation's model call."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from servicekit.errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    NotFoundError,
    ResourceExhaustedError,
    ServiceError,
    UnavailableError,
)

T = TypeVar("T")

#: UNAVAILABLE reasons that mean "the model itself failed", worth another try on the same model.
_MODEL_FAILURE_REASONS = frozenset({"MODEL_CRASHED", "MODEL_UNLOADED"})


@dataclass(frozen=True)
class RetryPolicy:
    """At most max_calls calls; between them sleep base × factor^n seconds, capped at max_delay_s."""

    max_calls: int = 3
    base_delay_s: float = 1.0
    factor: float = 2.0
    max_delay_s: float = 8.0

    def delay_s(self, failed_calls: int, hint_s: float | None = None) -> float:
        """Sleep before the next call after `failed_calls` failures; a server RetryInfo hint wins if longer."""
        delay = min(self.base_delay_s * self.factor ** (failed_calls - 1), self.max_delay_s)
        return max(delay, min(hint_s, self.max_delay_s)) if hint_s else delay


class InvalidOutputError(Exception):
    """The model's reply could not be parsed into a valid digest."""


class ModelUnavailableError(Exception):
    """The core model cannot be reached or loaded; the session stays pending and is not counted as a failure."""


class RetryCancelledError(Exception):
    """The writer is shutting down; the session stays pending."""


def is_model_unavailable(error: BaseException) -> bool:
    """Errors that leave signals pending without counting an attempt: unknown or unloadable model, no inferd."""
    if isinstance(error, ModelUnavailableError):
        return True
    if isinstance(error, (NotFoundError, FailedPreconditionError)):
        return True
    return isinstance(error, UnavailableError) and error.reason not in _MODEL_FAILURE_REASONS


def skip_reason(error: BaseException) -> str:
    """The skipped:<reason> of a model-unavailable error: not_resident when inferd refused a cold load."""
    if isinstance(error, ServiceError) and error.reason == "MODEL_NOT_RESIDENT":
        return "not_resident"
    return "core_model_unavailable"


def is_retryable(error: BaseException) -> bool:
    """Transient failures worth another call: timeouts, full queues, crashes, unreachable inferd, bad output."""
    if isinstance(
        error, (InvalidOutputError, DeadlineExceededError, ResourceExhaustedError, UnavailableError)
    ):
        return True
    return isinstance(error, ServiceError) and error.reason in _MODEL_FAILURE_REASONS


def call_with_retries(
    call: Callable[[], T],
    policy: RetryPolicy,
    *,
    cancelled: threading.Event,
    sleep: Callable[[float], object] | None = None,
) -> tuple[T, int]:
    """Run `call` until it succeeds or the policy is exhausted; returns (result, calls made).

    Non-retryable errors propagate at once. `sleep` defaults to waiting on `cancelled`, so a shutdown interrupts
    the backoff and raises RetryCancelledError.
    """
    calls = 0
    while True:
        if cancelled.is_set():
            raise RetryCancelledError("writer is shutting down")
        calls += 1
        try:
            return call(), calls
        except Exception as error:
            if not is_retryable(error) or calls >= policy.max_calls:
                raise
            hint = error.retry_after_s if isinstance(error, ServiceError) else None
            delay = policy.delay_s(calls, hint)
            if sleep is not None:
                sleep(delay)
            elif cancelled.wait(delay):
                raise RetryCancelledError("writer is shutting down") from error


__all__ = [
    "InvalidOutputError",
    "ModelUnavailableError",
    "RetryCancelledError",
    "RetryPolicy",
    "call_with_retries",
    "is_model_unavailable",
    "is_retryable",
    "skip_reason",
]
