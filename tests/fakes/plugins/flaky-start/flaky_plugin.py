"""Test plugin whose setup() raises on the first start only (a marker in its data dir remembers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from plugin_host.sdk import Context, Payload, Plugin, command


class Flaky(Plugin):
    name = "flaky-start"

    def setup(self, data_dir: Path) -> None:
        marker = data_dir / "started-once"
        if not marker.exists():
            marker.write_text("x")
            raise RuntimeError("first start fails")

    @command()
    def ping(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Answer."""
        return {"pong": True}
