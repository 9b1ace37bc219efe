"""Test plugin that misbehaves on demand: raises, exits the process, or never answers."""

from __future__ import annotations

import os
import time
from typing import Any

from plugin_host.sdk import Context, Payload, Plugin, command


class Crashy(Plugin):
    name = "crashy"

    @command(name="raise")
    def raise_(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Raise an exception whose text must not reach the caller."""
        raise ValueError("secret memory content that must not leak")

    @command()
    def exit(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Kill the process at once."""
        os._exit(3)

    @command()
    def hang(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Sleep forever."""
        while True:
            time.sleep(3600)

    @command(name="sys-exit")
    def sys_exit(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Call sys.exit inside a command."""
        raise SystemExit(4)

    @command()
    def ping(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Answer with this process's id."""
        return {"pid": os.getpid()}

    @command()
    def unserialisable(self, ctx: Context, payload: Payload) -> Any:
        """Return something JSON cannot encode."""
        return {"when": object()}
