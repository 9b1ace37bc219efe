"""The APScheduler wiring: interval from consolidationIntervalHours, coalesced, one instance, rescheduled when
memory.json changes, passes logged with trigger "schedule", skipped while memory is disabled."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memoryd.config import ConfigStore
from memoryd.consolidate import Consolidator
from memoryd.consolidate.scheduler import JOB_ID, ConsolidationScheduler
from memoryd.storage.store import Store
from tests.support.consolidate_rows import ManualClock, config_store, consolidator
from tests.support.store_kinds import BACKEND_KINDS, open_kind


@pytest.fixture(params=BACKEND_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = open_kind(tmp_path / "memory.sqlite", request.param)
    yield opened
    opened.close()


@pytest.fixture
def config(tmp_path: Path) -> ConfigStore:
    return config_store(tmp_path, consolidation_interval_hours=6)


@pytest.fixture
def scheduled(store: Store, config: ConfigStore) -> Iterator[tuple[ConsolidationScheduler, Consolidator]]:
    runner = consolidator(store, config, ManualClock())
    scheduler = ConsolidationScheduler(runner, config, startup_delay_s=3600)
    scheduler.start()
    yield scheduler, runner
    scheduler.close()
    runner.close()


def _wait_for_reports(store: Store, count: int, timeout_s: float = 10.0) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        rows = store.db.query("SELECT details FROM processing_log WHERE task_type = 'consolidate'")
        if len(rows) >= count:
            return [r[0] for r in rows]
        time.sleep(0.02)
    raise AssertionError(f"fewer than {count} consolidation reports after {timeout_s}s")


def test_job_uses_the_configured_interval_coalesced_and_single_instance(
    scheduled: tuple[ConsolidationScheduler, Consolidator],
) -> None:
    scheduler, _ = scheduled
    job = scheduler._scheduler.get_job(JOB_ID)
    assert job.trigger.interval == timedelta(hours=6)
    assert job.coalesce is True and job.max_instances == 1
    # The first pass waits for the startup delay, not a whole interval after every restart.
    due = scheduler.next_run_time()
    assert due is not None
    assert timedelta(minutes=59) < due - datetime.now(UTC) <= timedelta(hours=1)


def test_first_pass_is_one_interval_after_the_last_recorded_pass(store: Store, config: ConfigStore) -> None:
    runner = consolidator(store, config, ManualClock(int(time.time() * 1000)))
    runner.run()
    scheduler = ConsolidationScheduler(runner, config, startup_delay_s=0)
    scheduler.start()
    try:
        due = scheduler.next_run_time()
        assert due is not None
        assert timedelta(hours=5, minutes=59) < due - datetime.now(UTC) <= timedelta(hours=6)
    finally:
        scheduler.close()


def test_a_config_change_reschedules(
    scheduled: tuple[ConsolidationScheduler, Consolidator], config: ConfigStore
) -> None:
    scheduler, _ = scheduled
    config.update({"consolidation_interval_hours": 48})
    assert scheduler.interval_hours == 48
    assert scheduler._scheduler.get_job(JOB_ID).trigger.interval == timedelta(hours=48)
    due = scheduler.next_run_time()
    assert due is not None and due - datetime.now(UTC) > timedelta(hours=47)
    config.update({"salience_floor": 0.3})  # another key: the schedule is left alone
    assert scheduler.next_run_time() == due


def test_a_due_job_runs_a_pass_with_the_schedule_trigger(
    scheduled: tuple[ConsolidationScheduler, Consolidator], store: Store
) -> None:
    scheduler, _ = scheduled
    scheduler.run_soon()
    (details,) = _wait_for_reports(store, 1)
    assert '"trigger":"schedule"' in details
    # Still scheduled for the next interval afterwards.
    due = scheduler.next_run_time()
    assert due is not None and due > datetime.now(UTC) + timedelta(hours=5)


def test_disabled_memory_skips_scheduled_passes_but_not_manual_ones(
    scheduled: tuple[ConsolidationScheduler, Consolidator], store: Store, config: ConfigStore
) -> None:
    scheduler, runner = scheduled
    config.update({"enabled": False})
    scheduler.run_soon()
    deadline = time.monotonic() + 10
    while scheduler.ticks == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert scheduler.ticks == 1
    assert store.db.scalar("SELECT count(*) FROM processing_log") == 0
    assert runner.run().trigger == "manual"
