"""One consolidation pass at a time across replicas, and the resumption of a pass whose replica died.

SharedPassLock is the Consolidator's PassLock: a session advisory lock on a dedicated connection (released by
PostgreSQL when a killed replica's connection closes) plus a started/finished marker per pass. PassResumer checks
the marker every `check_s`: a pass that started and never finished, with nobody holding the lock, is run again
here; its steps continue from their committed batches and watermarks (memoryd.consolidate.state).
"""

from __future__ import annotations

import logging
from typing import Protocol

from memoryd.consolidate.report import TRIGGER_SCHEDULE, PassReport
from memoryd.replication.worker import Worker
from memoryd.storage.pg_advisory import PgAdvisoryLock
from memoryd.storage.pg_coordination import PgCoordination

_log = logging.getLogger("memoryd.replication.passes")

#: The advisory lock's name and the marker's row.
CONSOLIDATION = "memoryd.consolidation"


class SharedPassLock:
    """memoryd.consolidate.pass_lock.PassLock over PostgreSQL."""

    def __init__(self, lock: PgAdvisoryLock, coordination: PgCoordination, replica: str) -> None:
        self._lock = lock
        self._coord = coordination
        self._replica = replica

    def try_acquire(self) -> bool:
        return self._lock.try_acquire()

    def release(self) -> None:
        self._lock.release()

    def begin(self, now_ms: int) -> None:
        self._coord.pass_started(CONSOLIDATION, self._replica, now_ms)

    def end(self, now_ms: int) -> None:
        self._coord.pass_finished(CONSOLIDATION, now_ms)

    def close(self) -> None:
        """Release the lock and close its connection."""
        self._lock.close()


class PassRunner(Protocol):
    """What the resumer drives (memoryd.consolidate.Consolidator)."""

    @property
    def is_running(self) -> bool: ...

    def try_run(self, trigger: str) -> PassReport | None: ...


class PassResumer:
    """Resumes an interrupted pass; start() once serving, close() on shutdown."""

    def __init__(
        self, consolidator: PassRunner, coordination: PgCoordination, *, check_s: float = 30.0
    ) -> None:
        self._consolidator = consolidator
        self._coord = coordination
        self._check_s = check_s
        self._worker = Worker("memoryd-pass-resume", self._run)
        #: Passes this resumer ran.
        self.resumed = 0

    def check(self) -> PassReport | None:
        """One check: run the pass again if the last one was interrupted and nobody is running it."""
        if self._consolidator.is_running or not self._coord.pass_interrupted(CONSOLIDATION):
            return None
        report = self._consolidator.try_run(TRIGGER_SCHEDULE)
        if report is not None:
            self.resumed += 1
            _log.info("resumed an interrupted consolidation pass")
        return report

    def start(self) -> None:
        """Start the checking thread."""
        self._worker.start()

    def close(self) -> None:
        """Stop checking."""
        self._worker.close()

    def _run(self) -> None:
        while not self._worker.stop.wait(self._check_s):
            try:
                self.check()
            except Exception as error:
                _log.warning("checking for an interrupted pass failed: %s", type(error).__name__)


__all__ = ["CONSOLIDATION", "PassResumer", "PassRunner", "SharedPassLock"]
