"""Real inferd and memoryd processes started with OSAURUS_INFERD_CPUS / OSAURUS_MEMORYD_CPUS: every thread of each
runs on its cores only (servicekit.cpu_affinity), and a core list naming no usable core stops the service at start
with exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.procs import REPO, child_env, spawn

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="Linux affinity")


def _threads_cpus(pid: int) -> set[frozenset[int]]:
    return {frozenset(os.sched_getaffinity(int(t.name))) for t in Path(f"/proc/{pid}/task").iterdir()}


def test_services_pin_every_thread(tmp_path: Path) -> None:
    cores = sorted(os.sched_getaffinity(0))
    inferd_core, memoryd_core = cores[-1], cores[0]
    inferd = spawn(
        "inferd",
        tmp_path / "inferd",
        ["--backend", "fake", "--log-level", "WARNING"],
        env={"OSAURUS_INFERD_CPUS": str(inferd_core)},
    )
    try:
        memoryd = spawn(
            "memoryd",
            tmp_path / "memoryd",
            ["--inferd", inferd.target, "--log-level", "WARNING"],
            env={"OSAURUS_MEMORYD_CPUS": str(memoryd_core)},
        )
        try:
            assert _threads_cpus(inferd.process.pid) == {frozenset({inferd_core})}
            assert _threads_cpus(memoryd.process.pid) == {frozenset({memoryd_core})}
        finally:
            memoryd.stop()
    finally:
        inferd.stop()


@pytest.mark.parametrize(
    ("module", "variable"), [("inferd", "OSAURUS_INFERD_CPUS"), ("memoryd", "OSAURUS_MEMORYD_CPUS")]
)
def test_no_usable_core_stops_the_service(tmp_path: Path, module: str, variable: str) -> None:
    missing = str(max(os.sched_getaffinity(0)) + 1000)
    done = subprocess.run(
        [sys.executable, "-m", module, "--listen", "127.0.0.1:0"],
        cwd=REPO,
        env=child_env(tmp_path, {variable: missing}),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert variable in done.stderr.decode()
