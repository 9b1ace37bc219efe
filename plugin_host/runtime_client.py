"""Typed client the host uses to call one plugin process's PluginRuntimeService over its private socket."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from servicekit.channel import make_channel, typed_errors


@dataclass(frozen=True)
class CommandInfo:
    """One command a plugin declares."""

    name: str
    description: str
    payload_schema: str


class RuntimeClient:
    """Describe and Invoke on a plugin process; raises servicekit ServiceErrors."""

    def __init__(self, socket_path: Path, token: str) -> None:
        self._channel = make_channel(f"unix:{socket_path}", token=token)
        self._stub = ppb_grpc.PluginRuntimeServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def describe(self, timeout_s: float) -> tuple[CommandInfo, ...]:
        """The plugin's commands."""
        with typed_errors():
            reply = self._stub.Describe(ppb.DescribeRequest(), timeout=timeout_s, wait_for_ready=True)
        return tuple(CommandInfo(c.name, c.description, c.payload_schema) for c in reply.commands)

    def invoke(
        self,
        command: str,
        payload_json: str,
        agent_id: str,
        conversation_id: str,
        timeout_s: float,
        invocation: str = "",
    ) -> str:
        """Run one command; returns its result as JSON text. `invocation`: the command's handle (invocations.py)."""
        request = ppb.InvokeRequest(
            command=command,
            payload_json=payload_json,
            agent_id=agent_id,
            conversation_id=conversation_id,
            invocation=invocation,
        )
        with typed_errors():
            reply = self._stub.Invoke(request, timeout=timeout_s)
        return str(reply.result_json)
