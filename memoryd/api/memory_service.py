"""osaurus.memory.v1.MemoryService servicer: validates, calls the domain objects, converts the results."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import grpc

from memoryd.api import memory_convert as convert
from memoryd.config import ConfigStore
from memoryd.domain import SCOPE_KIND
from memoryd.read.search import MemorySearch
from memoryd.storage.store import Store
from memoryd.write.buffer_turn import TurnRecorder
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.errors import NotFoundError, PermissionDeniedError
from servicekit.planned import planned_rpcs, still_planned

_log = logging.getLogger("memoryd.service")


class AgentVectors(Protocol):
    """Removes an agent's vector index (faiss files) when the agent is deleted."""

    def delete_agent(self, agent_id: str) -> int: ...


@dataclass
class ServiceDeps:
    """What the servicer needs; built by app.py."""

    store: Store
    config: ConfigStore
    recorder: TurnRecorder
    search: MemorySearch
    vectors: AgentVectors | None = None
    #: Extra callbacks run after an agent was deleted (cache invalidation and the like).
    on_agent_deleted: list[Callable[[str], None]] = field(default_factory=list)
    #: Callbacks run after the global identity (overrides) changed.
    on_identity_changed: list[Callable[[], None]] = field(default_factory=list)


@planned_rpcs(pb_grpc.MemoryServiceServicer, "osaurus.memory.v1.MemoryService")
class MemoryService(pb_grpc.MemoryServiceServicer):
    """The agent-runtime API. RPCs not defined here answer UNIMPLEMENTED / NOT_YET_AVAILABLE."""

    def __init__(self, deps: ServiceDeps) -> None:
        self._d = deps

    def BufferTurn(
        self, request: pb.BufferTurnRequest, context: grpc.ServicerContext
    ) -> pb.BufferTurnResponse:
        turn = convert.parse_buffer_turn(request)
        stored = self._d.recorder.buffer(turn)
        response = pb.BufferTurnResponse(
            signal_id=stored.signal_id,
            transcript_ids=list(stored.transcript_ids),
            distillation_scheduled=stored.distillation_scheduled,
            replayed=stored.replayed,
        )
        if stored.flush_at_ms:
            response.flush_time.CopyFrom(convert.timestamp(stored.flush_at_ms))
        return response

    def SearchMemory(
        self, request: pb.SearchMemoryRequest, context: grpc.ServicerContext
    ) -> pb.SearchMemoryResponse:
        agent_id, scope, query, limit = convert.parse_search(request)
        agent = self._d.store.agents.get(agent_id)
        if agent is None:
            raise NotFoundError("AGENT_NOT_FOUND", "no agent with that id")
        if not agent.search_memory_enabled:
            raise PermissionDeniedError(
                "MEMORY_RECALL_DISABLED", "Memory Recall (search_memory_enabled) is off for this agent"
            )
        outcome = self._d.search.search(agent_id, SCOPE_KIND[scope], query, limit)
        return pb.SearchMemoryResponse(
            hits=[convert.search_hit(h) for h in outcome.hits], method=outcome.method
        )

    def ListAgents(
        self, request: pb.ListAgentsRequest, context: grpc.ServicerContext
    ) -> pb.ListAgentsResponse:
        after, size = convert.parse_list_agents(request)
        page = self._d.store.agents.list_page(after, size + 1)
        response = pb.ListAgentsResponse(agents=[convert.agent(a) for a in page[:size]])
        if len(page) > size:
            response.next_page_token = convert.page_token(page[size - 1].agent_id)
        return response

    def GetAgent(self, request: pb.GetAgentRequest, context: grpc.ServicerContext) -> pb.GetAgentResponse:
        agent_id = convert.parse_agent_only(request)
        record = self._d.store.agents.get(agent_id)
        if record is None:
            raise NotFoundError("AGENT_NOT_FOUND", "no agent with that id")
        return pb.GetAgentResponse(agent=convert.agent(record))

    def UpsertAgent(
        self, request: pb.UpsertAgentRequest, context: grpc.ServicerContext
    ) -> pb.UpsertAgentResponse:
        agent_id, changes = convert.parse_upsert(request)
        record, created = self._d.store.agents.upsert(agent_id, changes)
        return pb.UpsertAgentResponse(agent=convert.agent(record), created=created)

    def DeleteAgent(
        self, request: pb.DeleteAgentRequest, context: grpc.ServicerContext
    ) -> pb.DeleteAgentResponse:
        agent_id = convert.parse_agent_only(request)
        deleted = self._d.store.agents.delete(agent_id)
        if deleted is None:
            raise NotFoundError("AGENT_NOT_FOUND", "no agent with that id")
        vectors = self._d.vectors.delete_agent(agent_id) if self._d.vectors is not None else 0
        self._d.search.keyword_stats.invalidate(agent_id)
        for callback in self._d.on_agent_deleted:
            callback(agent_id)
        _log.info("deleted an agent: %d rows, %d vectors", deleted, vectors)
        return pb.DeleteAgentResponse(rows_deleted=deleted, vectors_deleted=vectors)

    def GetIdentity(
        self, request: pb.GetIdentityRequest, context: grpc.ServicerContext
    ) -> pb.GetIdentityResponse:
        agent_id = convert.parse_identity_agent(request)
        return pb.GetIdentityResponse(identity=convert.identity(self._d.store.identity.get(agent_id)))

    def AddOverride(
        self, request: pb.AddOverrideRequest, context: grpc.ServicerContext
    ) -> pb.AddOverrideResponse:
        text = convert.parse_override_text(request)
        added = self._d.store.identity.add_override(text)
        self._identity_changed()
        return pb.AddOverrideResponse(override=convert.override(added))

    def RemoveOverride(
        self, request: pb.RemoveOverrideRequest, context: grpc.ServicerContext
    ) -> pb.RemoveOverrideResponse:
        override_id = convert.parse_override_id(request)
        if not self._d.store.identity.remove_override(override_id):
            raise NotFoundError("OVERRIDE_NOT_FOUND", "no override with that id")
        self._identity_changed()
        return pb.RemoveOverrideResponse(identity=convert.identity(self._d.store.identity.get()))

    def _identity_changed(self) -> None:
        for callback in self._d.on_identity_changed:
            callback()

    def GetStats(self, request: pb.GetStatsRequest, context: grpc.ServicerContext) -> pb.GetStatsResponse:
        return convert.stats(self._d.store.stats.collect())


def planned(servicer: Any) -> tuple[str, ...]:
    """RPC names the servicer still answers with NOT_YET_AVAILABLE."""
    return still_planned(servicer)
