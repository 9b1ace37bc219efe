"""The Consolidator: steps in order, a failing step reported while later steps run, the report kept in
processing_log, never two passes at once (ABORTED CONSOLIDATION_RUNNING), caches told what changed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.consolidate import CONSOLIDATION_RUNNING, Consolidator, ConsolidatorOptions
from memoryd.consolidate.jobs import STEPS, JobContext
from memoryd.consolidate.report import STEP_ORDER, StepResult
from memoryd.storage.maintenance import Selection
from memoryd.storage.store import Store
from servicekit.errors import AbortedError
from tests.support.consolidate_rows import ManualClock, config_store, consolidator, fixed_pacer, insert_fact
from tests.support.store_kinds import BACKEND_KINDS, open_kind


@pytest.fixture(params=BACKEND_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = open_kind(tmp_path / "memory.sqlite", request.param)
    yield opened
    opened.close()


def test_a_pass_runs_every_step_in_the_spec_order_and_is_logged(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    insert_fact(store, "a", "The user likes jazz", created_ms=clock.now_ms)
    clock.advance_days(1)
    runner = consolidator(store, config_store(tmp_path), clock)
    report = runner.run()
    assert tuple(s.name for s in report.steps) == STEP_ORDER
    assert report.trigger == "manual" and report.start_ms == clock.now_ms
    assert report.step("decay").rows_changed == 1
    assert report.step("identity").skip_reason == "no_identity_facts"
    rows = store.db.query("SELECT task_type, status, agent_id FROM processing_log")
    assert rows == [("consolidate", "success", "")]
    assert runner.last_report() == report
    assert runner.last_pass_ms() == report.start_ms + report.duration_ms
    # Consolidation rows never count as distillation calls in GetStats.
    assert store.stats.collect().total_calls == 0


def test_a_failing_step_is_reported_and_later_steps_still_run(store: Store, tmp_path: Path) -> None:
    def broken(ctx: JobContext) -> StepResult:
        ctx.store.matching_ids(Selection("no_such_table", None, "1", ()), 0, 10)  # a real SQLite failure
        return StepResult()

    steps = [(name, broken if name == "merge" else job) for name, job in STEPS]
    runner = Consolidator(
        store.consolidation,
        config_store(tmp_path),
        clock=ManualClock(),
        options=ConsolidatorOptions(pacer_factory=fixed_pacer, steps=steps),
    )
    report = runner.run()
    expected = {  # the database's own error class and words
        "sqlite": "OperationalError: no such table",
        "postgres": 'ProgrammingError: relation "no_such_table" does not exist',
    }[store.dialect]
    assert report.step("merge").error.startswith(expected)
    assert [s.name for s in report.steps] == list(STEP_ORDER)
    assert not report.step("purge").error
    assert report.errors == (report.step("merge").name + ": " + report.step("merge").error,)
    assert store.db.scalar("SELECT status FROM processing_log WHERE task_type = 'consolidate'") == "error"


def _running(runner: Consolidator) -> bool:
    return runner.is_running


def test_two_passes_never_overlap(store: Store, tmp_path: Path) -> None:
    for i in range(30):
        insert_fact(store, "a", f"fact {i}", created_ms=ManualClock().now_ms)
    inside, release = threading.Event(), threading.Event()

    def hold(step: str) -> None:
        inside.set()
        release.wait(10)

    clock = ManualClock()
    clock.advance_days(1)
    runner = consolidator(store, config_store(tmp_path), clock, batch_rows=5, on_batch=hold)
    first = threading.Thread(target=runner.run, args=("schedule",))
    first.start()
    assert inside.wait(10)
    assert _running(runner)
    with pytest.raises(AbortedError) as caught:
        runner.run()
    assert caught.value.reason == CONSOLIDATION_RUNNING
    assert runner.try_run("schedule") is None
    release.set()
    first.join(10)
    assert not _running(runner)
    assert runner.run().trigger == "manual"  # free again
    assert store.db.scalar("SELECT count(*) FROM processing_log WHERE task_type = 'consolidate'") == 2


def test_callbacks_hear_about_changed_agents(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    heard: list[str | None] = []
    runner = Consolidator(
        store.consolidation,
        config_store(tmp_path),
        clock=clock,
        on_changed=[heard.append],
        options=ConsolidatorOptions(pacer_factory=fixed_pacer),
    )
    runner.run()
    assert heard == []  # nothing changed
    insert_fact(store, "a", "The user likes jazz", created_ms=clock.now_ms)
    clock.advance_days(1)
    runner.run()
    assert heard == [None]  # decay moved salience everywhere: every agent's caches


def test_close_stops_a_running_pass_between_batches(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    for i in range(50):
        insert_fact(store, "a", f"fact {i}", created_ms=clock.now_ms)
    clock.advance_days(1)
    inside, release = threading.Event(), threading.Event()

    def hold(step: str) -> None:
        inside.set()
        release.wait(10)

    runner = consolidator(store, config_store(tmp_path), clock, batch_rows=5, on_batch=hold)
    worker = threading.Thread(target=runner.run)
    worker.start()
    assert inside.wait(10)
    closer = threading.Thread(target=runner.close)
    closer.start()
    release.set()
    closer.join(10)
    worker.join(10)
    report = runner.last_report()
    assert report is not None and report.steps[-1].error == "stopped: shutting down"
    assert report.step("decay").error  # stopped in the first step
    with pytest.raises(AbortedError):
        runner.run()
