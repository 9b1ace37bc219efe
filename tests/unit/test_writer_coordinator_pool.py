"""The coordinator's bounded worker pool: at most max_concurrent distill threads for any burst, each conversation
distilled exactly once, a held conversation never stalls the others, single-flight joins and follow-ups, close()."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from memoryd.domain import TurnInput
from memoryd.write import coordinator as coordinator_module
from memoryd.write import outcome as oc
from memoryd.write.coordinator import Coordinator
from tests.support.writer_stack import WriterStack, make_writer_stack, wait_for

AGENT = "agent-1"
USER = "I am planning a trip to Lisbon next spring and want to find a quiet neighbourhood to stay in."
ASSISTANT = "Campo de Ourique and Estrela are calm, central and close to good food and trams."
THREAD_NAME = "memoryd-distill"


@dataclass
class Pool:
    """A coordinator of its own over the stack's real distiller (scripted inferd on a real port)."""

    stack: WriterStack
    coordinator: Coordinator
    baseline: set[threading.Thread]
    outcomes: list[oc.Outcome] = field(default_factory=list)

    def workers(self) -> list[threading.Thread]:
        """Live distill threads this test started (other tests' coordinators may leave theirs winding down)."""
        return [t for t in threading.enumerate() if t.name == THREAD_NAME and t not in self.baseline]

    def turn(self, conversation: str) -> None:
        """Store a turn without the writer's hook, so only this coordinator schedules anything."""
        self.stack.store.turns.buffer(
            TurnInput(AGENT, conversation, USER, ASSISTANT, int(time.time() * 1000))
        )

    def pending(self, conversation: str) -> int:
        return self.stack.wstore.count_pending(AGENT, conversation)


@pytest.fixture
def pool(tmp_path: Path) -> Iterator[Pool]:
    stack = make_writer_stack(tmp_path)
    baseline = {t for t in threading.enumerate() if t.name == THREAD_NAME}
    outcomes: list[oc.Outcome] = []
    coordinator = Coordinator(
        stack.writer.distiller, stack.wstore, max_concurrent=2, on_outcome=outcomes.append
    )
    p = Pool(stack, coordinator, baseline, outcomes)
    yield p
    if stack.inferd.hold is not None:
        stack.inferd.hold.set()
    coordinator.close(2)
    stack.close()


class PeakSampler:
    """Samples the pool's live distill threads every millisecond and keeps the peak."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="test-sampler", daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.001):
            self.peak = max(self.peak, len(self._pool.workers()))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(5)
        return self.peak


def test_an_idle_coordinator_has_no_threads(pool: Pool) -> None:
    assert pool.workers() == []
    assert pool.coordinator.busy() == []


def test_200_conversations_use_at_most_max_concurrent_threads_and_each_completes_once(pool: Pool) -> None:
    conversations = [f"c{i}" for i in range(200)]
    for conversation in conversations:
        pool.turn(conversation)
    pool.stack.inferd.hold = threading.Event()
    sampler = PeakSampler(pool)
    with ThreadPoolExecutor(8) as submitters:
        futures = list(submitters.map(lambda c: pool.coordinator.submit(AGENT, c), conversations))
    wait_for(lambda: pool.stack.inferd.generate_calls == 2)  # both workers in a model call, 198 queued
    assert len(pool.workers()) == 2
    assert len(pool.coordinator.busy()) == 200
    pool.stack.inferd.hold.set()
    tokens = [f.result(60).token for f in futures]
    assert sampler.stop() <= 2
    assert tokens == [oc.DISTILLED] * 200
    assert sorted(o.conversation_id for o in pool.outcomes) == sorted(conversations)  # exactly once each
    assert pool.stack.inferd.generate_calls == 200
    assert pool.stack.q("SELECT count(*) FROM episodes") == [(200,)]
    assert pool.stack.q("SELECT count(*) FROM pending_signals WHERE status = 'pending'") == [(0,)]
    wait_for(lambda: pool.coordinator.busy() == [])


def test_a_conversation_held_by_exclusive_does_not_stop_the_others(pool: Pool) -> None:
    for conversation in ("held", "c1", "c2", "c3"):
        pool.turn(conversation)
    with pool.coordinator.exclusive(AGENT, "held"):
        held = pool.coordinator.submit(AGENT, "held")  # first in the queue
        others = [pool.coordinator.submit(AGENT, c) for c in ("c1", "c2", "c3")]
        assert [f.result(10).token for f in others] == [oc.DISTILLED] * 3
        # only the held conversation is queued now: the workers sleep instead of spinning on it
        cpu_before = time.process_time()
        time.sleep(0.5)
        assert time.process_time() - cpu_before < 0.04  # idle: ~0.001 s; a spinning worker: ~0.5 s
        assert not held.done() and pool.pending("held") == 1
        assert len(pool.workers()) <= 2
    assert held.result(10).token == oc.DISTILLED
    assert pool.pending("held") == 0


def test_run_now_blocks_background_runs_of_its_conversation_only(pool: Pool) -> None:
    for conversation in ("c1", "c2"):
        pool.turn(conversation)
    pool.stack.inferd.hold = threading.Event()
    with ThreadPoolExecutor(1) as caller:
        waited = caller.submit(pool.coordinator.run_now, AGENT, "c1")
        assert pool.stack.inferd.entered.wait(10)
        background = pool.coordinator.submit(AGENT, "c1")
        other = pool.coordinator.submit(AGENT, "c2")
        wait_for(lambda: pool.stack.inferd.generate_calls == 2)  # c2 runs beside c1, not behind it
        assert not background.done()
        pool.stack.inferd.hold.set()
        assert waited.result(10).token == oc.DISTILLED
    assert other.result(10).token == oc.DISTILLED
    assert background.result(10).token == oc.NO_SIGNALS  # it ran after run_now, not during it
    assert pool.stack.inferd.generate_calls == 2


def test_a_busy_conversations_follow_up_does_not_hold_a_worker(pool: Pool) -> None:
    for conversation in ("c1", "c2"):
        pool.turn(conversation)
    pool.stack.inferd.hold = threading.Event()
    running = pool.coordinator.submit(AGENT, "c1")
    assert pool.stack.inferd.entered.wait(10)
    follow_up = pool.coordinator.submit(AGENT, "c1")
    other = pool.coordinator.submit(AGENT, "c2")
    wait_for(lambda: pool.stack.inferd.generate_calls == 2)  # the second worker skipped c1 and took c2
    assert not follow_up.done()
    pool.stack.inferd.hold.set()
    assert [f.result(10).token for f in (running, other, follow_up)] == [
        oc.DISTILLED,
        oc.DISTILLED,
        oc.NO_SIGNALS,
    ]


def test_submits_join_a_queued_run_and_queue_one_follow_up_behind_a_running_one(pool: Pool) -> None:
    for conversation in ("a", "b", "c1"):
        pool.turn(conversation)
    pool.stack.inferd.hold = threading.Event()
    blockers = [pool.coordinator.submit(AGENT, c) for c in ("a", "b")]
    wait_for(lambda: pool.stack.inferd.generate_calls == 2)  # both workers busy: c1 stays queued
    queued = [pool.coordinator.submit(AGENT, "c1") for _ in range(3)]
    assert all(f is queued[0] for f in queued)
    pool.stack.inferd.hold.set()
    assert [f.result(10).token for f in (*blockers, queued[0])] == [oc.DISTILLED] * 3

    pool.turn("c1")
    pool.stack.inferd.hold = threading.Event()
    pool.stack.inferd.entered.clear()
    running = pool.coordinator.submit(AGENT, "c1")
    assert pool.stack.inferd.entered.wait(10)
    pool.turn("c1")  # arrives during the call
    follow_ups = [pool.coordinator.submit(AGENT, "c1") for _ in range(5)]
    assert follow_ups[0] is not running and all(f is follow_ups[0] for f in follow_ups)
    pool.stack.inferd.hold.set()
    assert running.result(10).token == oc.DISTILLED
    assert follow_ups[0].result(10).token == oc.DISTILLED  # picked up the mid-call turn
    assert pool.pending("c1") == 0
    assert pool.stack.inferd.generate_calls == 5
    assert len([o for o in pool.outcomes if o.conversation_id == "c1"]) == 3


def test_close_cancels_queued_runs_and_does_not_wait_for_model_calls(pool: Pool) -> None:
    conversations = [f"c{i}" for i in range(10)]
    for conversation in conversations:
        pool.turn(conversation)
    pool.stack.inferd.hold = threading.Event()
    futures = [pool.coordinator.submit(AGENT, c) for c in conversations]
    wait_for(lambda: pool.stack.inferd.generate_calls == 2)
    started = time.monotonic()
    pool.coordinator.close(0.3)
    assert time.monotonic() - started < 2
    queued = [f for f in futures if f.done()]
    assert len(queued) == 8
    assert all(f.result(0).token == oc.SKIPPED_CANCELLED for f in queued)
    cancelled = [o.conversation_id for o in pool.outcomes if o.token == oc.SKIPPED_CANCELLED]
    assert sorted(cancelled) == sorted(f.result(0).conversation_id for f in queued)
    assert all(pool.pending(o) == 1 for o in cancelled)
    assert pool.coordinator.submit(AGENT, "c0").result(0).token == oc.SKIPPED_CANCELLED
    pool.stack.inferd.hold.set()
    in_flight: list[Future[oc.Outcome]] = [f for f in futures if f not in queued]
    for future in in_flight:
        future.result(10)  # the late reply may still commit; either way nothing is lost or doubled
    wait_for(lambda: pool.workers() == [])
    assert pool.coordinator.busy() == []


def test_idle_workers_exit_and_a_later_submit_starts_one_again(
    pool: Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(coordinator_module, "_IDLE_EXIT_S", 0.1)
    pool.turn("c1")
    assert pool.coordinator.submit(AGENT, "c1").result(10).token == oc.DISTILLED
    wait_for(lambda: pool.workers() == [])
    pool.turn("c1")
    assert pool.coordinator.submit(AGENT, "c1").result(10).token == oc.DISTILLED
