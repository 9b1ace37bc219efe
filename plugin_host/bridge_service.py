"""PluginBridgeService servicer: what one plugin process may ask of the host, checked against its grants.

Each call acts for the tenant of the command it names (`invocation`: plugin_host.invocations).
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc

from memoryd.client import MemoryClient, MemoryHit
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host import convert
from plugin_host.grants import Access
from plugin_host.invocations import Invocations
from plugin_host.requests import MAX_QUERY_CHARS, check_ids, turn_request
from plugin_host.sdk import Permission
from plugin_host.turns import TurnRunner
from servicekit.errors import NOT_YET_AVAILABLE, PermissionDeniedError, UnavailableError, UnimplementedError
from servicekit.tenancy import calls_for_tenant
from servicekit.validate import Violations

SERVICE_NAME = "osaurus.plugin.v1.PluginBridgeService"
DEFAULT_SEARCH_LIMIT = 10


class BridgeServicer(ppb_grpc.PluginBridgeServiceServicer):
    """Serves one plugin. The token check happens before (BearerTokenInterceptor); grants are checked here."""

    def __init__(
        self,
        plugin_name: str,
        access: Access,
        turns: TurnRunner,
        memory: MemoryClient,
        memory_timeout_s: float,
        invocations: Invocations,
    ) -> None:
        self._plugin = plugin_name
        self._invocations = invocations
        self._access = access
        self._turns = turns
        self._memory = memory
        self._memory_timeout_s = memory_timeout_s

    def Complete(self, request: ppb.CompleteRequest, context: grpc.ServicerContext) -> ppb.CompleteResponse:
        turn = turn_request(
            request.agent_id,
            request.conversation_id,
            request.messages,
            request.options,
            request.json_schema,
            request.record if request.HasField("record") else None,
            self._invocations.tenant_of(self._plugin, request.invocation),
        )
        self._check(Permission.INFERENCE, turn.agent_id)
        result = self._turns.complete(turn, timeout_s=context.time_remaining())
        return ppb.CompleteResponse(text=result.text, memory=convert.trace_to_proto(result.memory))

    def StreamComplete(
        self, request: ppb.StreamCompleteRequest, context: grpc.ServicerContext
    ) -> Iterator[ppb.StreamCompleteResponse]:
        turn = turn_request(
            request.agent_id,
            request.conversation_id,
            request.messages,
            request.options,
            record=request.record if request.HasField("record") else None,
            tenant=self._invocations.tenant_of(self._plugin, request.invocation),
        )
        self._check(Permission.INFERENCE, turn.agent_id)
        for event in self._turns.stream(turn, timeout_s=context.time_remaining()):
            if event.done and event.memory is not None:
                yield ppb.StreamCompleteResponse(done=True, memory=convert.trace_to_proto(event.memory))
            else:
                yield ppb.StreamCompleteResponse(delta=event.delta)

    def SearchMemory(
        self, request: ppb.SearchMemoryRequest, context: grpc.ServicerContext
    ) -> ppb.SearchMemoryResponse:
        with Violations() as v:
            agent, _ = check_ids(v, request.agent_id, "-")
            v.require_enum(request.scope, mpb.Scope.DESCRIPTOR, "scope", reason="INVALID_SCOPE")
            v.require_text(request.query, "query", max_chars=MAX_QUERY_CHARS)
            v.require_range(request.limit, "limit", 0, 100, "INVALID_LIMIT")
        self._check(Permission.MEMORY_SEARCH, agent)
        tenant = self._invocations.tenant_of(self._plugin, request.invocation)
        remaining = context.time_remaining()
        timeout_s = self._memory_timeout_s if remaining is None else min(remaining, 10.0)
        try:
            with calls_for_tenant(tenant):
                hits = self._memory.search_memory(
                    agent,
                    convert.scope_name(request.scope),
                    request.query,
                    limit=request.limit or DEFAULT_SEARCH_LIMIT,
                    timeout_s=timeout_s,
                )
        except UnimplementedError as error:
            if error.reason != NOT_YET_AVAILABLE:
                raise
            raise UnavailableError(
                "MEMORY_SEARCH_UNAVAILABLE", "memory search is not available yet"
            ) from None
        return ppb.SearchMemoryResponse(hits=[_hit(h) for h in hits])

    def _check(self, permission: Permission, agent_id: str) -> None:
        if not self._access.allows(permission):
            raise PermissionDeniedError(
                "PERMISSION_NOT_GRANTED",
                f"plugin {self._plugin!r} was not granted the {permission.value!r} permission",
                metadata={"permission": permission.value},
            )
        if not self._access.allows_agent(agent_id):
            raise PermissionDeniedError(
                "AGENT_NOT_ALLOWED", f"plugin {self._plugin!r} may not act for agent {agent_id!r}"
            )


def _hit(hit: MemoryHit) -> mpb.SearchHit:
    result = mpb.SearchHit(
        item=mpb.ItemRef(kind=convert.kind_number(hit.kind), id=hit.id),  # type: ignore[arg-type]
        score=hit.score,
        text=hit.text,
        conversation_id=hit.conversation_id,
        salience=hit.salience,
        topics=list(hit.topics),
    )
    if hit.role:
        result.role = convert.role_number(hit.role)  # type: ignore[assignment]
    if hit.occur_time_s is not None:
        result.occur_time.FromNanoseconds(int(hit.occur_time_s * 1e9))
    return result
