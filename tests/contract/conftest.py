"""Fixture: the three real services as subprocesses on loopback, sharing one temporary OSAURUS_HOME."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.procs import ServiceProcess, spawn

SERVICES = {
    "memoryd": ("osaurus.memory.v1.MemoryService", "osaurus.memory.v1.MemoryConsoleService"),
    "inferd": ("osaurus.inference.v1.InferenceService",),
    "plugin_host": ("osaurus.plugin.v1.PluginHostService",),
}


@pytest.fixture(scope="package")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ServiceProcess]]:
    home: Path = tmp_path_factory.mktemp("osaurus-home")
    started: dict[str, ServiceProcess] = {}
    try:
        started["inferd"] = spawn("inferd", home)
        started["memoryd"] = spawn("memoryd", home, ["--inferd", started["inferd"].target])
        started["plugin_host"] = spawn(
            "plugin_host",
            home,
            ["--memoryd", started["memoryd"].target, "--inferd", started["inferd"].target],
        )
        yield started
    finally:
        for process in reversed(list(started.values())):
            process.stop()
