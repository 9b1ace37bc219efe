"""servicekit.cpu_affinity: core lists parsed strictly, and every thread of the process (those running and those
started later) pinned; memoryd's and inferd's settings read OSAURUS_MEMORYD_CPUS / OSAURUS_INFERD_CPUS and --cpus."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from inferd.config import ConfigError, load_settings
from memoryd.config import parse_settings
from servicekit.cpu_affinity import parse_cpus, pin_process

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="Linux affinity")


@pytest.mark.parametrize(
    ("text", "cpus"),
    [("", set()), (" ", set()), ("1", {1}), ("0,2", {0, 2}), ("0-3,6", {0, 1, 2, 3, 6}), (" 1 , 1 ", {1})],
)
def test_parse_cpus(text: str, cpus: set[int]) -> None:
    assert parse_cpus(text) == frozenset(cpus)


@pytest.mark.parametrize("text", ["a", "-1", "3-1", "1-", "0,x", "1.5"])
def test_parse_cpus_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="not a core"):
        parse_cpus(text)


def _thread_cpus() -> dict[int, frozenset[int]]:
    return {
        int(task.name): frozenset(os.sched_getaffinity(int(task.name)))
        for task in Path("/proc/self/task").iterdir()
    }


@pytest.fixture
def restore_affinity() -> Iterator[frozenset[int]]:
    """The cores this process may use; every thread gets them back after the test."""
    every = frozenset(os.sched_getaffinity(0))
    yield every
    for tid in _thread_cpus():
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(tid, every)


def test_pins_running_and_later_threads(restore_affinity: frozenset[int]) -> None:
    core = max(restore_affinity)
    stop = threading.Event()
    running = threading.Thread(target=stop.wait)  # started before pinning, as BLAS and gRPC threads are
    running.start()
    try:
        assert pin_process(frozenset({core})) == frozenset({core})
        seen: list[frozenset[int]] = []
        later = threading.Thread(target=lambda: seen.append(frozenset(os.sched_getaffinity(0))))
        later.start()
        later.join()
        assert seen == [frozenset({core})]
        assert set(_thread_cpus().values()) == {frozenset({core})}
    finally:
        stop.set()
        running.join()


def test_empty_set_pins_nothing(restore_affinity: frozenset[int]) -> None:
    assert pin_process(frozenset()) == frozenset()
    assert set(_thread_cpus().values()) == {restore_affinity}


def test_unavailable_cores_are_an_error(restore_affinity: frozenset[int]) -> None:
    with pytest.raises(ValueError, match="available"):
        pin_process(frozenset({max(restore_affinity) + 1000}))
    assert set(_thread_cpus().values()) == {restore_affinity}


def test_memoryd_settings(tmp_path: Path) -> None:
    env = {"OSAURUS_HOME": str(tmp_path)}
    assert parse_settings([], env).cpus == frozenset()
    assert parse_settings([], {**env, "OSAURUS_MEMORYD_CPUS": "0"}).cpus == frozenset({0})
    assert parse_settings(["--cpus", "1-2"], {**env, "OSAURUS_MEMORYD_CPUS": "0"}).cpus == frozenset({1, 2})
    with pytest.raises(SystemExit):
        parse_settings(["--cpus", "x"], env)


def test_inferd_settings(tmp_path: Path) -> None:
    env = {"OSAURUS_HOME": str(tmp_path)}
    assert load_settings([], env).cpus == frozenset()
    assert load_settings([], {**env, "OSAURUS_INFERD_CPUS": "1"}).cpus == frozenset({1})
    assert load_settings(["--cpus", "0"], {**env, "OSAURUS_INFERD_CPUS": "1"}).cpus == frozenset({0})
    with pytest.raises(ConfigError, match="OSAURUS_INFERD_CPUS"):
        load_settings([], {**env, "OSAURUS_INFERD_CPUS": "3-1"})
