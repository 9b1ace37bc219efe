"""APScheduler wiring only: a BackgroundScheduler runs a pass every consolidationIntervalHours.

Coalesced, one instance at a time, rescheduled when memory.json changes. The first pass comes one interval after
the previous recorded pass (at least STARTUP_DELAY_S after launch), so a daily restart does not starve it.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger

from memoryd.config import ConfigStore, MemoryConfig
from memoryd.consolidate.report import TRIGGER_SCHEDULE, PassReport

_log = logging.getLogger("memoryd.consolidate.scheduler")

JOB_ID = "consolidation"
#: Never run a pass in the first minutes after launch: startup (recovery, index loads) comes first.
STARTUP_DELAY_S = 300.0


class PassRunner(Protocol):
    """What the scheduler drives (memoryd.consolidate.runner.Consolidator)."""

    def try_run(self, trigger: str) -> PassReport | None: ...

    def last_pass_ms(self) -> int | None: ...


class ConsolidationScheduler:
    """Owns the BackgroundScheduler; start() once serving, close() on shutdown."""

    def __init__(
        self, consolidator: PassRunner, config: ConfigStore, *, startup_delay_s: float = STARTUP_DELAY_S
    ) -> None:
        self._consolidator = consolidator
        self._config = config
        self._startup_delay_s = startup_delay_s
        self._scheduler = BackgroundScheduler(timezone=UTC, daemon=True)
        self._lock = threading.Lock()
        self._interval_h = config.get().consolidation_interval_hours
        #: Scheduled ticks finished so far, including skipped ones (diagnostics).
        self.ticks = 0
        config.subscribe(self._config_changed)

    @property
    def interval_hours(self) -> int:
        """The interval in force."""
        return self._interval_h

    def start(self) -> None:
        """Schedule the job and start the scheduler thread."""
        now = datetime.now(UTC)
        last_ms = self._consolidator.last_pass_ms()
        first = now + timedelta(seconds=self._startup_delay_s)
        if last_ms is not None:
            first = max(
                first, datetime.fromtimestamp(last_ms / 1000, UTC) + timedelta(hours=self._interval_h)
            )
        self._scheduler.add_job(
            self._tick,
            IntervalTrigger(hours=self._interval_h, start_date=first, timezone=UTC),
            id=JOB_ID,
            name="memory consolidation",
            coalesce=True,
            max_instances=1,
            misfire_grace_time=None,
            next_run_time=first,
            replace_existing=True,
        )
        self._scheduler.start()
        _log.info(
            "consolidation every %d h; next pass at %s", self._interval_h, first.isoformat(timespec="seconds")
        )

    def next_run_time(self) -> datetime | None:
        """When the next scheduled pass is due (None before start or after close)."""
        job = self._scheduler.get_job(JOB_ID)
        return None if job is None else job.next_run_time

    def run_soon(self) -> None:
        """Make the scheduled job due now (the scheduler thread runs it; tests and admin tools)."""
        self._scheduler.modify_job(JOB_ID, next_run_time=datetime.now(UTC))

    def _tick(self) -> None:
        try:
            if not self._config.get().enabled:
                _log.info("scheduled consolidation skipped: memory is disabled")
                return
            self._consolidator.try_run(TRIGGER_SCHEDULE)
        except Exception as error:
            _log.error("scheduled consolidation failed: %s", type(error).__name__)
        finally:
            self.ticks += 1

    def _config_changed(self, config: MemoryConfig) -> None:
        with self._lock:
            if config.consolidation_interval_hours == self._interval_h:
                return
            self._interval_h = config.consolidation_interval_hours
            if self._scheduler.running and self._scheduler.get_job(JOB_ID) is not None:
                self._scheduler.reschedule_job(
                    JOB_ID, trigger=IntervalTrigger(hours=self._interval_h, timezone=UTC)
                )
                _log.info("consolidation interval changed to %d h", self._interval_h)

    def close(self) -> None:
        """Stop the scheduler; a pass in progress finishes its current batch's transaction first."""
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
