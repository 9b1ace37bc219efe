"""Test plugin the operator never granted: it must never run."""

from __future__ import annotations

from pathlib import Path

from plugin_host.sdk import Plugin


class Ungranted(Plugin):
    name = "ungranted"

    def setup(self, data_dir: Path) -> None:
        (data_dir / "i-ran").write_text("this must not happen")
