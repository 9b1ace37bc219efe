"""Stopping a service a benchmark started as its own process (memoryd_process, bench_assemble's inferd_process)."""

from __future__ import annotations

import signal
import subprocess

#: How long a graceful stop may take before the process is killed, and how long the kill then waits.
GRACE_S = 20.0
KILL_WAIT_S = 10.0


def stop(process: subprocess.Popen[bytes], grace_s: float = GRACE_S) -> None:
    """SIGTERM (the services stop gracefully on it), then SIGKILL after grace_s; the process is reaped either way."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(KILL_WAIT_S)


__all__ = ["GRACE_S", "stop"]
