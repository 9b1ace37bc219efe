"""Test plugin granted inference only: its memory search must be refused."""

from __future__ import annotations

from typing import Any

from plugin_host.sdk import Context, Payload, PermissionDeniedError, Plugin, command


class Plain(Plugin):
    name = "plain"

    @command()
    def search(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Try a memory search and report the typed error."""
        try:
            ctx.search_memory("episodes", "what did we discuss")
        except PermissionDeniedError as error:
            return {"error": type(error).__name__, "reason": error.reason}
        return {"error": None}

    @command()
    def ask(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """ctx.complete with the payload's text."""
        return {"reply": ctx.complete(payload["text"]).text}
