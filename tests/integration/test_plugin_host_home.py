"""A fresh home: plugin_host creates $OSAURUS_HOME/config itself (0700), so an operator only adds plugins.json."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.support.procs import spawn


def test_plugin_host_creates_its_config_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    service = spawn("plugin_host", home, ["--memoryd", "127.0.0.1:1", "--inferd", "127.0.0.1:1"])
    try:
        config = home / "config"
        assert config.is_dir() and stat.S_IMODE(config.stat().st_mode) == 0o700
    finally:
        service.stop()
