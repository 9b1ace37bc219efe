"""Debounce per (agent, conversation) with an injectable clock: arm, re-arm, expiry, switch, manual mode."""

from __future__ import annotations

import math
import threading
import time

from memoryd.write.debounce import Debouncer


class FakeClock:
    """Monotonic seconds that only move when told."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Recorder:
    def __init__(self) -> None:
        self.flushes: list[tuple[str, str, str]] = []
        self.event = threading.Event()

    def __call__(self, agent: str, conversation: str, reason: str) -> None:
        self.flushes.append((agent, conversation, reason))
        self.event.set()


def test_fires_only_after_the_debounce_of_inactivity() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    result = deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)
    assert result.scheduled and result.delay_s == 60
    clock.advance(59.9)
    assert deb.fire_due() == []
    clock.advance(0.1)
    assert deb.fire_due() == [("a", "c1")]
    assert rec.flushes == [("a", "c1", "debounce")]
    assert deb.armed() == {}


def test_each_turn_re_arms_the_timer() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)
    clock.advance(50)
    deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)
    clock.advance(50)
    assert deb.fire_due() == []
    clock.advance(10)
    assert deb.fire_due() == [("a", "c1")]
    assert len(rec.flushes) == 1


def test_same_agent_switching_conversation_flushes_the_old_one_at_once() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)
    result = deb.turn_buffered("a", "c2", debounce_s=60, automatic=True)
    assert result.flushed == (("a", "c1"),)
    assert rec.flushes == [("a", "c1", "switch")]
    assert set(deb.armed()) == {("a", "c2")}


def test_another_agent_does_not_flush() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)
    deb.turn_buffered("b", "c2", debounce_s=60, automatic=True)
    assert rec.flushes == []
    assert set(deb.armed()) == {("a", "c1"), ("b", "c2")}


def test_manual_mode_arms_nothing_and_a_switch_flushes_nothing() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    assert not deb.turn_buffered("a", "c1", debounce_s=60, automatic=False).scheduled
    assert not deb.turn_buffered("a", "c2", debounce_s=60, automatic=False).scheduled
    clock.advance(10_000)
    assert deb.fire_due() == []
    assert rec.flushes == []


def test_cancel_disarms() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)
    assert deb.cancel("a", "c1")
    assert not deb.cancel("a", "c1")
    clock.advance(120)
    assert deb.fire_due() == []


def test_background_thread_fires_when_the_fake_clock_moves() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    deb.start()
    try:
        deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)
        deb.poke()
        assert not rec.event.wait(0.2)
        clock.advance(61)
        deb.poke()
        assert rec.event.wait(5)
        assert rec.flushes == [("a", "c1", "debounce")]
    finally:
        deb.close()


def test_background_thread_with_the_real_clock() -> None:
    rec = Recorder()
    deb = Debouncer(rec)
    deb.start()
    try:
        deb.turn_buffered("a", "c1", debounce_s=0.15, automatic=True)
        assert not rec.event.wait(0.05)
        assert rec.event.wait(5)
    finally:
        deb.close()


def test_a_failing_flush_does_not_stop_the_timer() -> None:
    clock = FakeClock()
    calls: list[str] = []

    def flaky(agent: str, conversation: str, reason: str) -> None:
        calls.append(conversation)
        if conversation == "c1":
            raise RuntimeError("boom")

    deb = Debouncer(flaky, clock=clock)
    deb.turn_buffered("a", "c1", debounce_s=1, automatic=True)
    deb.turn_buffered("b", "c2", debounce_s=1, automatic=True)
    clock.advance(2)
    assert sorted(deb.fire_due()) == [("a", "c1"), ("b", "c2")]
    assert sorted(calls) == ["c1", "c2"]


def _wait_until_sleeping(deb: Debouncer) -> None:
    """Until the background thread sleeps on its earliest deadline (it then has a finite wake time)."""
    deadline = time.monotonic() + 5
    while deb._wake_at == -math.inf and time.monotonic() < deadline:
        time.sleep(0.005)


def test_re_arming_does_not_wake_the_thread_and_the_heap_stays_one_entry_per_conversation() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    deb.start()
    try:
        _wait_until_sleeping(deb)  # on its idle wait
        deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)  # earlier than the idle wait: one wake-up
        _wait_until_sleeping(deb)
        for _ in range(500):
            clock.advance(0.01)
            deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)  # later deadline: no wake-up
            deb.turn_buffered("b", "c2", debounce_s=60, automatic=True)  # b's first arm is later too
        assert deb.wakeups == 1
        assert len(deb._heap) == 2
        clock.advance(59)  # c1's first deadline passed, its real one (5 s later) not yet
        deb.poke()
        assert not rec.event.wait(0.2)
        clock.advance(6)
        deb.poke()
        assert rec.event.wait(5)
        deadline = time.monotonic() + 5
        while len(rec.flushes) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sorted(rec.flushes) == [("a", "c1", "debounce"), ("b", "c2", "debounce")]
        assert deb.armed() == {} and not deb._entry
    finally:
        deb.close()


def test_an_earlier_deadline_wakes_the_sleeping_thread_with_the_real_clock() -> None:
    rec = Recorder()
    deb = Debouncer(rec)
    deb.start()
    try:
        deb.turn_buffered("a", "long", debounce_s=30, automatic=True)
        _wait_until_sleeping(deb)
        started = time.monotonic()
        deb.turn_buffered(
            "b", "short", debounce_s=0.1, automatic=True
        )  # earlier than what the thread sleeps on
        assert rec.event.wait(5)
        assert time.monotonic() - started < 2
        assert rec.flushes == [("b", "short", "debounce")]
        assert set(deb.armed()) == {("a", "long")}
    finally:
        deb.close()


def test_a_shorter_debounce_moves_an_armed_deadline_earlier() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    deb.turn_buffered("a", "c1", debounce_s=3600, automatic=True)
    deb.turn_buffered("a", "c1", debounce_s=10, automatic=True)  # summaryDebounceSeconds lowered meanwhile
    clock.advance(10)
    assert deb.fire_due() == [("a", "c1")]
    clock.advance(3600)
    assert deb.fire_due() == []  # the superseded entry is stale, not a second flush
    assert rec.flushes == [("a", "c1", "debounce")]


def test_cancel_then_re_arm_fires_once_at_the_new_deadline() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)
    deb.cancel("a", "c1")
    clock.advance(30)
    deb.turn_buffered("a", "c1", debounce_s=60, automatic=True)
    clock.advance(31)  # the cancelled deadline passed
    assert deb.fire_due() == []
    clock.advance(29)
    assert deb.fire_due() == [("a", "c1")]
    clock.advance(600)
    assert deb.fire_due() == []
    assert len(rec.flushes) == 1


def test_deadlines_fire_earliest_first_and_cancel_all_clears_the_heap() -> None:
    clock, rec = FakeClock(), Recorder()
    deb = Debouncer(rec, clock=clock)
    deb.turn_buffered("a", "late", debounce_s=30, automatic=True)
    deb.turn_buffered("b", "early", debounce_s=10, automatic=True)
    clock.advance(40)
    assert deb.fire_due() == [("b", "early"), ("a", "late")]
    deb.turn_buffered("c", "x", debounce_s=10, automatic=True)
    assert deb.cancel_all() == 1
    assert not deb._heap and not deb._entry
    clock.advance(40)
    assert deb.fire_due() == []
