"""Test plugin: every SDK call, with errors either propagated (ask, search) or reported (probe)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from plugin_host.sdk import (
    Context,
    HostError,
    Message,
    Payload,
    PermissionDeniedError,
    Plugin,
    Scope,
    command,
)


class Echo(Plugin):
    name = "echo"

    @command(
        payload_schema={"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
    )
    def ask(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """ctx.complete with a system prompt and the user's text."""
        reply = ctx.complete([Message.system("Be brief."), Message.user(payload["text"])])
        return {"reply": reply.text, "memory": asdict(reply.memory)}

    @command()
    def utility(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """ctx.complete as a plugin-internal call: with a JSON schema when `schema`, `record` passed when given."""
        kwargs: dict[str, Any] = {}
        if payload.get("schema"):
            kwargs["json_schema"] = {"type": "object", "properties": {"title": {"type": "string"}}}
        if "record" in payload:
            kwargs["record"] = payload["record"]
        reply = ctx.complete(payload["text"], **kwargs)
        return {"reply": reply.text, "memory": asdict(reply.memory)}

    @command()
    def stream(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """ctx.stream, collected (`record` passed when given)."""
        stream = ctx.stream(payload["text"], **({"record": payload["record"]} if "record" in payload else {}))
        deltas = list(stream)
        return {"deltas": deltas, "memory": asdict(stream.memory) if stream.memory else None}

    @command()
    def search(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """ctx.search_memory; a PermissionDeniedError propagates to the caller."""
        hits = ctx.search_memory(Scope(payload.get("scope", "pinned")), payload["query"])
        return {"hits": [{"text": h.text, "kind": h.kind, "topics": list(h.topics)} for h in hits]}

    @command()
    def probe(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Call the SDK for another agent (or search) and report the typed error the plugin sees."""
        try:
            if payload["action"] == "complete":
                ctx.complete(payload.get("text", "hello"), agent_id=payload.get("agent"))
            else:
                ctx.search_memory("pinned", "anything", agent_id=payload.get("agent"))
        except PermissionDeniedError as error:
            return {"error": type(error).__name__, "reason": error.reason}
        return {"error": None}

    @command()
    def keep(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Keep this command's ctx for a later command (`reuse`)."""
        self._kept = ctx
        return {"kept": True}

    @command()
    def reuse(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Search memory with the ctx a command that has returned kept; report the error the plugin sees."""
        try:
            self._kept.search_memory("transcript", payload.get("query", "anything"))
        except HostError as error:
            return {"error": type(error).__name__, "reason": error.reason}
        return {"error": None}

    @command()
    def ping(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Answer at once (no host call)."""
        return {"pong": True, "agent": ctx.agent_id, "conversation": ctx.conversation_id}
