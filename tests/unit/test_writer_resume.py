"""The resume sweeper: stranded outcomes schedule one sweep at a time with back-off; a success brings it forward."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from memoryd.write import outcome as oc
from memoryd.write.resume import ResumeSweeper, is_blocking, is_resumable


class RecordingSweep:
    """A sweep that answers from a script and records when it ran."""

    def __init__(self, *answers: list[oc.Outcome]) -> None:
        self.answers = list(answers)
        self.ran_at: list[float] = []
        self.ran = threading.Event()

    def __call__(self, stop: Callable[[oc.Outcome], bool]) -> list[oc.Outcome]:
        self.ran_at.append(time.monotonic())
        self.ran.set()
        return self.answers.pop(0) if self.answers else []


def _outcome(token: str) -> oc.Outcome:
    return oc.Outcome("a", "c", token)


def _wait_for(predicate: Callable[[], bool], timeout_s: float = 3.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline
        time.sleep(0.005)


def test_classification() -> None:
    assert is_resumable(oc.SKIPPED_CORE_MODEL_UNAVAILABLE) and is_resumable(oc.SKIPPED_BREAKER_OPEN)
    assert is_resumable(oc.SKIPPED_CORE_MODEL_UNSET) and is_resumable(oc.error("timeout"))
    for final in (oc.DISTILLED, oc.NO_SIGNALS, oc.SKIPPED_CANCELLED, oc.dead_letter(3), oc.EMPTY_SUMMARY):
        assert not is_resumable(final), final
    assert is_blocking(_outcome(oc.SKIPPED_BREAKER_OPEN)) and not is_blocking(_outcome(oc.error("x")))


def test_a_stranded_outcome_schedules_one_sweep() -> None:
    sweep = RecordingSweep()
    sweeper = ResumeSweeper(sweep, first_s=0.05, max_s=1.0)
    started = time.monotonic()
    for _ in range(5):
        sweeper.observe(_outcome(oc.SKIPPED_CORE_MODEL_UNAVAILABLE))
    assert sweep.ran.wait(2)
    time.sleep(0.2)
    assert len(sweep.ran_at) == 1 and sweep.ran_at[0] - started >= 0.05
    assert not sweeper.is_scheduled  # the sweep met nothing stranded: done


def test_final_outcomes_schedule_nothing() -> None:
    sweep = RecordingSweep()
    sweeper = ResumeSweeper(sweep, first_s=0.01, max_s=1.0)
    for token in (oc.DISTILLED, oc.NO_SIGNALS, oc.dead_letter(3), oc.SKIPPED_CANCELLED):
        sweeper.observe(_outcome(token))
    time.sleep(0.1)
    assert sweep.ran_at == [] and not sweeper.is_scheduled


def test_sweeps_back_off_while_work_stays_stranded_then_reset() -> None:
    stranded = [_outcome(oc.SKIPPED_CORE_MODEL_UNAVAILABLE)]
    sweep = RecordingSweep(stranded, stranded, stranded, [])
    sweeper = ResumeSweeper(sweep, first_s=0.05, max_s=0.2)
    sweeper.observe(stranded[0])
    _wait_for(lambda: len(sweep.ran_at) == 4)
    gaps = [b - a for a, b in zip(sweep.ran_at, sweep.ran_at[1:], strict=False)]
    assert gaps[0] >= 0.09 and gaps[1] >= 0.19 and gaps[2] >= 0.19, gaps  # 0.1, 0.2, capped at 0.2
    time.sleep(0.3)
    assert len(sweep.ran_at) == 4 and not sweeper.is_scheduled


def test_a_success_brings_a_far_sweep_forward() -> None:
    sweep = RecordingSweep()
    breaker_cooldown_s = [10.0]
    sweeper = ResumeSweeper(sweep, first_s=0.05, max_s=10.0, hold_s=lambda: breaker_cooldown_s[0])
    sweeper.observe(_outcome(oc.SKIPPED_BREAKER_OPEN))  # scheduled in 10 s
    assert sweeper.is_scheduled and not sweep.ran.wait(0.2)
    breaker_cooldown_s[0] = 0.0  # a probe for another conversation succeeded: the breaker closed
    sweeper.observe(_outcome(oc.DISTILLED))
    assert sweep.ran.wait(1.0)


def test_hold_waits_out_the_breaker_and_close_cancels() -> None:
    sweep = RecordingSweep()
    sweeper = ResumeSweeper(sweep, first_s=0.01, max_s=1.0, hold_s=lambda: 0.3)
    sweeper.observe(_outcome(oc.SKIPPED_BREAKER_OPEN))
    assert not sweep.ran.wait(0.15)
    sweeper.close()
    assert not sweep.ran.wait(0.3) and not sweeper.is_scheduled


def test_a_failing_sweep_is_retried_with_back_off() -> None:
    calls: list[float] = []

    def broken(stop: Callable[[oc.Outcome], bool]) -> list[oc.Outcome]:
        calls.append(time.monotonic())
        raise RuntimeError("store closed")

    sweeper = ResumeSweeper(broken, first_s=0.02, max_s=0.05)
    sweeper.observe(_outcome(oc.error("timeout")))
    _wait_for(lambda: len(calls) >= 3)
    sweeper.close()
    assert calls[2] - calls[1] >= 0.045
