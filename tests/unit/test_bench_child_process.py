"""bench/child_process.stop, the one way benchmarks stop the services they started (memoryd_process and
bench_assemble's inferd_process): SIGTERM first, SIGKILL after the grace, the child reaped either way."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from bench.child_process import stop


@contextmanager
def _child(code: str) -> Iterator[subprocess.Popen[bytes]]:
    with subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE) as process:
        assert process.stdout is not None
        assert process.stdout.readline() == b"ready\n"  # its handlers are installed
        yield process


def test_a_process_that_stops_on_sigterm_is_not_killed() -> None:
    with _child("import time; print('ready', flush=True); time.sleep(60)") as process:
        stop(process, grace_s=20)
        assert process.returncode == -signal.SIGTERM


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace() -> None:
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
    with _child(code) as process:
        started = time.monotonic()
        stop(process, grace_s=0.5)
        assert process.returncode == -signal.SIGKILL
        assert 0.4 < time.monotonic() - started < 10


def test_a_process_that_already_exited_is_left_alone() -> None:
    with _child("print('ready', flush=True)") as process:
        process.wait(10)
        stop(process)
        assert process.returncode == 0
