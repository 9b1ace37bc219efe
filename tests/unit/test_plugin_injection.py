"""Pure parts of the supervisor: backoff and the command watchdog."""

from __future__ import annotations

import time

from plugin_host.runner.watchdog import Watchdog
from plugin_host.supervisor import backoff_delay


def test_backoff_doubles_and_caps() -> None:
    assert [backoff_delay(n, 0.5, 4.0) for n in range(1, 7)] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]


def test_watchdog_reports_only_commands_past_the_limit() -> None:
    watchdog = Watchdog(limit_s=0.05)
    with watchdog.track("slow"):
        assert watchdog.overdue() is None
        time.sleep(0.08)
        assert watchdog.overdue() == "slow"
    assert watchdog.overdue() is None
