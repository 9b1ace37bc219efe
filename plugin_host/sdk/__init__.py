"""The plugin SDK: the only module plugins import. Typed dataclasses, never protobufs.

A plugin subclasses Plugin, names itself and the permissions it asks for, and declares commands:

    from plugin_host.sdk import Context, Payload, Permission, Plugin, command

    class Echo(Plugin):
        name = "echo"
        version = "1.0.0"
        permissions = (Permission.INFERENCE,)

        @command(payload_schema={"type": "object", "required": ["text"]})
        def ask(self, ctx: Context, payload: Payload) -> dict[str, str]:
            \"\"\"Ask the model, with the agent's memory.\"\"\"
            reply = ctx.complete(payload["text"])
            return {"reply": reply.text, "memory": reply.memory.reason}

See docs/plugins.md for writing, testing and installing a plugin.
"""

from plugin_host.sdk._context import Chat, Context
from plugin_host.sdk._errors import (
    HostError,
    InvalidPayloadError,
    PermissionDeniedError,
    PluginError,
    UnavailableError,
)
from plugin_host.sdk._plugin import CommandSpec, Payload, Plugin, command
from plugin_host.sdk._types import (
    Completion,
    CompletionStream,
    GenerationOptions,
    MemoryHit,
    MemoryTrace,
    Message,
    Permission,
    Scope,
)

__all__ = [
    "Chat",
    "CommandSpec",
    "Completion",
    "CompletionStream",
    "Context",
    "GenerationOptions",
    "HostError",
    "InvalidPayloadError",
    "MemoryHit",
    "MemoryTrace",
    "Message",
    "Payload",
    "Permission",
    "PermissionDeniedError",
    "Plugin",
    "PluginError",
    "Scope",
    "UnavailableError",
    "command",
]
