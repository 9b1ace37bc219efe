"""BridgeContext: the SDK Context implemented over PluginBridgeService on the plugin's private unix socket.

Every bridge call carries the invocation handle the host gave the command (InvokeRequest.invocation), so it acts
for the tenant the command was invoked for.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import grpc

from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.runner import convert
from plugin_host.sdk import (
    Chat,
    Completion,
    CompletionStream,
    Context,
    GenerationOptions,
    HostError,
    MemoryHit,
    MemoryTrace,
    PermissionDeniedError,
    PluginError,
    Scope,
    UnavailableError,
)
from plugin_host.sdk._context import as_messages
from servicekit.channel import make_channel
from servicekit.errors import ServiceError, from_rpc_error

#: Deadline of a bridge call when neither the caller nor the invocation set one.
DEFAULT_CALL_S = 120.0
_RETRYABLE = frozenset({"UNAVAILABLE", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"})


class BridgeConnection:
    """One channel to the host's bridge socket, carrying this plugin's token on every call."""

    def __init__(self, socket_path: Path, token: str) -> None:
        self._channel = make_channel(f"unix:{socket_path}", deadline_s=DEFAULT_CALL_S, token=token)
        self.stub = ppb_grpc.PluginBridgeServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()


class BridgeContext(Context):
    """The Context of one invocation: acts for its agent and conversation, within the invocation's deadline."""

    def __init__(
        self,
        connection: BridgeConnection,
        *,
        plugin_name: str,
        agent_id: str,
        conversation_id: str,
        data_dir: Path,
        deadline_monotonic: float | None,
        invocation: str = "",
    ) -> None:
        super().__init__(
            agent_id=agent_id, conversation_id=conversation_id, plugin_name=plugin_name, data_dir=data_dir
        )
        self._stub = connection.stub
        self._deadline = deadline_monotonic
        self._invocation = invocation

    @property
    def time_remaining_s(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def complete(
        self,
        messages: Chat,
        *,
        options: GenerationOptions | None = None,
        json_schema: Mapping[str, Any] | str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        timeout_s: float | None = None,
        record: bool | None = None,
    ) -> Completion:
        schema = json.dumps(json_schema) if isinstance(json_schema, Mapping) else (json_schema or "")
        request = ppb.CompleteRequest(
            agent_id=agent_id or self._agent_id,
            conversation_id=conversation_id or self._conversation_id,
            messages=convert.messages_to_proto(as_messages(messages)),
            options=convert.options_to_proto(options),
            json_schema=schema,
            invocation=self._invocation,
        )
        # Unset lets the host apply its default (plain chat recorded, schema calls not).
        if record is not None:
            request.record = record
        try:
            reply = self._stub.Complete(request, timeout=self._timeout(timeout_s))
        except grpc.RpcError as error:
            raise sdk_error(error) from None
        return Completion(reply.text, convert.trace_from_proto(reply.memory))

    def stream(
        self,
        messages: Chat,
        *,
        options: GenerationOptions | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        timeout_s: float | None = None,
        record: bool | None = None,
    ) -> CompletionStream:
        request = ppb.StreamCompleteRequest(
            agent_id=agent_id or self._agent_id,
            conversation_id=conversation_id or self._conversation_id,
            messages=convert.messages_to_proto(as_messages(messages)),
            options=convert.options_to_proto(options),
            invocation=self._invocation,
        )
        if record is not None:
            request.record = record
        call = self._stub.StreamComplete(request, timeout=self._timeout(timeout_s))

        def events() -> Iterator[tuple[str, MemoryTrace | None]]:
            try:
                for event in call:
                    memory = convert.trace_from_proto(event.memory) if event.done else None
                    yield event.delta, memory
            except grpc.RpcError as error:
                raise sdk_error(error) from None

        return CompletionStream(events(), call.cancel)

    def search_memory(
        self,
        scope: Scope | str,
        query: str,
        *,
        limit: int = 10,
        agent_id: str | None = None,
        timeout_s: float | None = None,
    ) -> list[MemoryHit]:
        request = ppb.SearchMemoryRequest(
            agent_id=agent_id or self._agent_id,
            scope=convert.scope_to_proto(Scope(scope)),
            query=query,
            limit=limit,
            invocation=self._invocation,
        )
        try:
            reply = self._stub.SearchMemory(request, timeout=self._timeout(timeout_s))
        except grpc.RpcError as error:
            raise sdk_error(error) from None
        return [convert.hit_from_proto(hit) for hit in reply.hits]

    def _timeout(self, timeout_s: float | None) -> float:
        limits = [t for t in (timeout_s, self.time_remaining_s) if t is not None]
        return min(limits) if limits else DEFAULT_CALL_S


def sdk_error(error: grpc.RpcError) -> PluginError:
    """A failed bridge call as the SDK error a plugin can catch."""
    typed: ServiceError = from_rpc_error(error)
    code = typed.code.name
    if code == "PERMISSION_DENIED":
        return PermissionDeniedError(typed.message, reason=typed.reason)
    if code in _RETRYABLE:
        return UnavailableError(typed.message, reason=typed.reason, retry_after_s=typed.retry_after_s)
    return HostError(typed.message, reason=typed.reason, code=code)
