"""PluginHostService servicer: ListPlugins, InvokePlugin, RunAgent, RunAgentStream and ReloadPlugins.

InvokePlugin, RunAgent and RunAgentStream act for the call's tenant (x-osaurus-tenant, or a bound token's:
servicekit.tenancy): its memory is injected, its turns recorded, its memory searched by the plugin.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc

from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host import convert
from plugin_host.chat import TurnRequest
from plugin_host.host import PluginHost, PluginStatus
from plugin_host.requests import check_ids, turn_request
from plugin_host.sdk import InvalidPayloadError
from plugin_host.sdk._plugin import decode_payload
from plugin_host.turns import TurnRunner
from servicekit.planned import planned_rpcs
from servicekit.tenancy import effective_tenant
from servicekit.validate import Violations

SERVICE_NAME = "osaurus.plugin.v1.PluginHostService"
MAX_PAYLOAD_CHARS = 1_000_000


@planned_rpcs(ppb_grpc.PluginHostServiceServicer, SERVICE_NAME)
class PluginHostServicer(ppb_grpc.PluginHostServiceServicer):
    """Lists, invokes and reloads plugins, and runs agents (RunAgent)."""

    def __init__(self, host: PluginHost, turns: TurnRunner, reload_wait_s: float = 10.0) -> None:
        self._host = host
        self._turns = turns
        self._reload_wait_s = reload_wait_s

    def ListPlugins(
        self, request: ppb.ListPluginsRequest, context: grpc.ServicerContext
    ) -> ppb.ListPluginsResponse:
        return ppb.ListPluginsResponse(plugins=[_info(s) for s in self._host.statuses()])

    def ReloadPlugins(
        self, request: ppb.ReloadPluginsRequest, context: grpc.ServicerContext
    ) -> ppb.ReloadPluginsResponse:
        remaining = context.time_remaining()
        wait_s = (
            self._reload_wait_s if remaining is None else max(0.0, min(self._reload_wait_s, remaining - 1.0))
        )
        return ppb.ReloadPluginsResponse(plugins=[_info(s) for s in self._host.reload(wait_s)])

    def InvokePlugin(
        self, request: ppb.InvokePluginRequest, context: grpc.ServicerContext
    ) -> ppb.InvokePluginResponse:
        with Violations() as v:
            v.require_id(request.plugin, "plugin", max_chars=64, reason="INVALID_PLUGIN")
            v.require_id(request.command, "command", max_chars=64, reason="INVALID_COMMAND")
            agent, conversation = check_ids(v, request.agent_id, request.conversation_id)
            v.require_text(request.payload_json, "payload_json", max_chars=MAX_PAYLOAD_CHARS, required=False)
            if not v.items:
                try:
                    decode_payload(request.payload_json)
                except InvalidPayloadError as error:
                    v.add("payload_json", error.message, "INVALID_PAYLOAD")
        tenant = effective_tenant(context.invocation_metadata())
        result = self._host.invoke(
            request.plugin,
            request.command,
            request.payload_json,
            agent,
            conversation,
            context.time_remaining(),
            tenant,
        )
        return ppb.InvokePluginResponse(result_json=result)

    def RunAgent(self, request: ppb.RunAgentRequest, context: grpc.ServicerContext) -> ppb.RunAgentResponse:
        turn = turn_request(
            request.agent_id,
            request.conversation_id,
            request.messages,
            request.options,
            tenant=effective_tenant(context.invocation_metadata()),
        )
        result = self._turns.complete(turn, timeout_s=context.time_remaining())
        return ppb.RunAgentResponse(
            reply=result.text,
            memory=convert.trace_to_proto(result.memory),
            prompt_tokens=result.prompt_tokens,
            completion_tokens=result.completion_tokens,
        )

    def RunAgentStream(
        self, request: ppb.RunAgentStreamRequest, context: grpc.ServicerContext
    ) -> Iterator[ppb.RunAgentStreamResponse]:
        # Validated (and the tenant read) before the generator's first event, so bad input fails the call rather
        # than the stream.
        turn = turn_request(
            request.agent_id,
            request.conversation_id,
            request.messages,
            request.options,
            tenant=effective_tenant(context.invocation_metadata()),
        )
        return self._stream(turn, context.time_remaining())

    def _stream(self, turn: TurnRequest, timeout_s: float | None) -> Iterator[ppb.RunAgentStreamResponse]:
        for event in self._turns.stream(turn, timeout_s=timeout_s):
            if event.done:
                yield ppb.RunAgentStreamResponse(
                    done=True,
                    memory=convert.trace_to_proto(event.memory) if event.memory is not None else None,
                    prompt_tokens=event.prompt_tokens,
                    completion_tokens=event.completion_tokens,
                )
            elif event.delta:
                yield ppb.RunAgentStreamResponse(delta=event.delta)


def _info(status: PluginStatus) -> ppb.PluginInfo:
    return ppb.PluginInfo(
        name=status.name,
        version=status.version,
        state=convert.state_number(status.state.value),  # type: ignore[arg-type]
        requested_permissions=convert.permissions_to_proto(status.requested_permissions),  # type: ignore[arg-type]
        granted_permissions=convert.permissions_to_proto(status.granted_permissions),  # type: ignore[arg-type]
        allowed_agents=list(status.allowed_agents),
        commands=[
            ppb.CommandInfo(name=c.name, description=c.description, payload_schema=c.payload_schema)
            for c in status.commands
        ],
        restart_count=status.restart_count,
        last_error=status.last_error,
        source=status.source,
    )
