"""The one typed client for memoryd (every RPC of MemoryService and MemoryConsoleService): dataclasses in and out,
typed errors, a deadline on every call.

Protobuf stops here: callers (memoryctl, plugin_host, scripts) see dataclasses (client_runtime, console_types,
memoryd.config) and servicekit.errors exceptions, never grpc.RpcError. The runtime calls are in client_runtime.py,
the store-protection calls in client_security.py; MemoryClient mixes them in.

plugin_host imports this module for the runtime calls only, so it must not pull in memoryd's server side:
memoryd.api.console_convert (which reaches the writer and consolidation packages, peewee and numpy) is imported inside
the console methods that need it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import field_mask_pb2, timestamp_pb2

from memoryd.client_runtime import (
    SCOPES,
    Assembly,
    Attachment,
    BufferedTurn,
    ChatMessage,
    Injection,
    MemoryHit,
    RuntimeCalls,
    SessionEnd,
    messages_from_proto,
    messages_to_proto,
    section_name,
)
from memoryd.client_security import ACTION_NAMES, SecurityCalls, degraded_store_info
from memoryd.config import MemoryConfig
from memoryd.console.records import (
    ConsoleMatch,
    ContextPreview,
    Diagnosis,
    FtsHealth,
    ImportResult,
    Inspection,
    ReindexResult,
    SourceTurnView,
    StorageErrorRecord,
    TableCount,
    VectorState,
)
from memoryd.domain import MAX_AGENT_ID_CHARS, MAX_CONVERSATION_ID_CHARS
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.channel import ROUND_ROBIN, make_channel, typed_errors

DEFAULT_DEADLINE_S = 30.0
#: Export, Import, Ingest and consolidation can take minutes (a cold model load, a large store).
LONG_DEADLINE_S = 3600.0

_SCOPES = {
    "all": cpb.CONSOLE_SCOPE_ALL,
    "pinned": cpb.CONSOLE_SCOPE_PINNED,
    "episodes": cpb.CONSOLE_SCOPE_EPISODES,
    "transcript": cpb.CONSOLE_SCOPE_TRANSCRIPT,
}
_STORE_STATES = {
    cpb.STORE_STATE_HEALTHY: "healthy",
    cpb.STORE_STATE_DEGRADED: "degraded",
    cpb.STORE_STATE_FULL: "full",
    cpb.STORE_STATE_READ_ONLY: "read_only",
}


def _ms(stamp: timestamp_pb2.Timestamp) -> int:
    return int(stamp.ToMilliseconds())


@dataclass(frozen=True)
class AgentInfo:
    """One agent with its toggles and stored-memory count."""

    agent_id: str
    display_name: str
    memory_enabled: bool
    search_memory_enabled: bool
    memory_entry_count: int
    created_at_ms: int
    updated_at_ms: int


@dataclass(frozen=True)
class OverrideInfo:
    """One user-authored identity override."""

    id: str
    text: str
    created_at_ms: int


@dataclass(frozen=True)
class IdentityInfo:
    """The identity: overrides, narrative, and the auto-derived facts as (id, text, source agent)."""

    overrides: tuple[OverrideInfo, ...]
    content: str
    facts: tuple[tuple[str, str, str], ...]
    model: str
    version: int


@dataclass(frozen=True)
class AgentCounts:
    """GetStats counts of one agent."""

    agent_id: str
    pinned_facts: int
    episodes: int
    transcript_turns: int
    pending_signals: int


@dataclass(frozen=True)
class Stats:
    """GetStats."""

    agents: tuple[AgentCounts, ...]
    total_calls: int
    success_rate: float
    mean_duration_ms: float
    database_bytes: int
    pending_signals: int
    dead_letter_signals: int


@dataclass(frozen=True)
class SessionOutcome:
    """One distilled (or not) conversation."""

    agent_id: str
    conversation_id: str
    outcome: str
    episode_id: int


@dataclass(frozen=True)
class IngestResult:
    """Ingest's answer."""

    turns_ingested: int
    distillation: str
    episode_id: int


@dataclass(frozen=True)
class ConsolidationStep:
    """One step of a consolidation pass."""

    name: str
    rows_changed: int
    vectors_deleted: int
    duration_ms: int
    skip_reason: str
    error: str


@dataclass(frozen=True)
class ConsolidationReport:
    """One consolidation pass."""

    duration_ms: int
    trigger: str
    steps: tuple[ConsolidationStep, ...]


def _agent(a: pb.Agent) -> AgentInfo:
    return AgentInfo(
        a.agent_id,
        a.display_name,
        a.memory_enabled,
        a.search_memory_enabled,
        a.memory_entry_count,
        _ms(a.create_time),
        _ms(a.update_time),
    )


def _identity(i: pb.Identity) -> IdentityInfo:
    return IdentityInfo(
        overrides=tuple(OverrideInfo(o.id, o.text, _ms(o.create_time)) for o in i.overrides),
        content=i.content,
        facts=tuple((f.id, f.text, f.source_agent_id) for f in i.facts),
        model=i.model,
        version=i.version,
    )


def _vector_state(s: cpb.VectorIndexState) -> VectorState:
    return VectorState(s.agent_id, s.model, s.dimension, s.vectors, s.rows, s.stale, s.problem)


def _diagnosis(r: cpb.DiagnoseResponse) -> Diagnosis:
    return Diagnosis(
        schema_version=r.schema_version,
        table_counts=tuple(TableCount(c.table, c.agent_id, c.rows) for c in r.table_counts),
        pending_signals=r.pending_signals,
        dead_letter_signals=r.dead_letter_signals,
        total_calls=r.processing.total_calls,
        success_rate=r.processing.success_rate,
        mean_duration_ms=r.processing.mean_duration_ms,
        fts=tuple(
            FtsHealth(f.fts_table, f.source_table, f.source_rows, f.fts_rows, f.healthy, f.problem)
            for f in r.fts
        ),
        vector_indexes=tuple(_vector_state(s) for s in r.vector_indexes),
        database_bytes=r.database_bytes,
        recent_errors=tuple(
            StorageErrorRecord(_ms(e.occur_time), e.operation, e.message) for e in r.recent_errors
        ),
        is_encrypted=r.encrypted,
        store_state=_STORE_STATES.get(r.store_state, "unknown"),
        degraded_reason=r.degraded_reason,
        recovery_actions=tuple(ACTION_NAMES.get(a, "unspecified") for a in r.recovery_actions),
        degraded_store=degraded_store_info(r),
    )


class MemoryClient(RuntimeCalls, SecurityCalls):
    """Talks to memoryd. Every method raises servicekit.errors.ServiceError subclasses, never grpc.RpcError.

    `deadline_s` applies to every call that passes no timeout of its own.

    Several memoryd replicas (one PostgreSQL database, docs/scaling.md): pass `round_robin=True` with a target
    listing them ("10.0.0.5:50061,10.0.0.6:50061") or a DNS name with one A record per replica
    ("dns:///memoryd:50061"); calls are then spread over every replica that answers, and a replica that goes away
    is skipped until it is back. Any replica serves any call: claims in the database decide who distils what.
    """

    def __init__(
        self,
        target: str,
        *,
        deadline_s: float = DEFAULT_DEADLINE_S,
        token: str | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        round_robin: bool = False,
        tenant: str | None = None,
    ) -> None:
        """round_robin: spread calls over every address of the target; tenant: every call acts on this tenant's
        memory (x-osaurus-tenant); None = the default tenant, or the token's own when it is bound to one."""
        self._channel = make_channel(
            target,
            deadline_s=deadline_s,
            token=token,
            credentials=credentials,
            lb_policy=ROUND_ROBIN if round_robin else None,
            tenant=tenant,
        )
        self._memory = pb_grpc.MemoryServiceStub(self._channel)
        self._console = cpb_grpc.MemoryConsoleServiceStub(self._channel)

    def close(self) -> None:
        """Close the channel."""
        self._channel.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------- agents
    def list_agents(self, page_size: int = 500) -> list[AgentInfo]:
        """Every agent, ordered by id (follows page tokens)."""
        agents: list[AgentInfo] = []
        token = ""
        with typed_errors():
            while True:
                reply = self._memory.ListAgents(pb.ListAgentsRequest(page_size=page_size, page_token=token))
                agents.extend(_agent(a) for a in reply.agents)
                token = reply.next_page_token
                if not token:
                    return agents

    def get_agent(self, agent_id: str) -> AgentInfo:
        """One agent; NotFoundError (AGENT_NOT_FOUND) when unknown."""
        with typed_errors():
            return _agent(self._memory.GetAgent(pb.GetAgentRequest(agent_id=agent_id)).agent)

    def upsert_agent(
        self,
        agent_id: str,
        *,
        display_name: str | None = None,
        memory_enabled: bool | None = None,
        search_memory_enabled: bool | None = None,
    ) -> tuple[AgentInfo, bool]:
        """Create or update an agent; (agent, created)."""
        request = pb.UpsertAgentRequest(agent_id=agent_id)
        if display_name is not None:
            request.display_name = display_name
        if memory_enabled is not None:
            request.memory_enabled = memory_enabled
        if search_memory_enabled is not None:
            request.search_memory_enabled = search_memory_enabled
        with typed_errors():
            reply = self._memory.UpsertAgent(request)
        return _agent(reply.agent), reply.created

    def delete_agent(self, agent_id: str) -> tuple[int, int]:
        """Delete an agent and all its memory; (rows deleted, vectors deleted)."""
        with typed_errors():
            reply = self._memory.DeleteAgent(pb.DeleteAgentRequest(agent_id=agent_id))
        return reply.rows_deleted, reply.vectors_deleted

    # ----------------------------------------------------------------------------------------- identity
    def identity(self, agent_id: str = "") -> IdentityInfo:
        """Overrides, narrative and auto facts: the global identity, or (with `agent_id`) that agent's narrative
        and facts."""
        with typed_errors():
            return _identity(self._memory.GetIdentity(pb.GetIdentityRequest(agent_id=agent_id)).identity)

    def add_override(self, text: str) -> OverrideInfo:
        """Append one override."""
        with typed_errors():
            o = self._memory.AddOverride(pb.AddOverrideRequest(text=text)).override
        return OverrideInfo(o.id, o.text, _ms(o.create_time))

    def remove_override(self, override_id: str) -> IdentityInfo:
        """Remove one override; NotFoundError (OVERRIDE_NOT_FOUND) when unknown."""
        with typed_errors():
            return _identity(self._memory.RemoveOverride(pb.RemoveOverrideRequest(id=override_id)).identity)

    # ----------------------------------------------------------------------------------- write & upkeep
    def ingest(
        self,
        agent_id: str,
        conversation_id: str,
        turns: Sequence[tuple[str, str]],
        *,
        session_time_ms: int = 0,
        skip_extraction: bool = False,
        timeout_s: float = LONG_DEADLINE_S,
    ) -> IngestResult:
        """Bulk-load one conversation of (user, assistant) turns; distils synchronously unless skip_extraction."""
        request = pb.IngestRequest(
            agent_id=agent_id,
            conversation_id=conversation_id,
            turns=[pb.Turn(user=u, assistant=a) for u, a in turns],
            skip_extraction=skip_extraction,
        )
        if session_time_ms:
            request.session_time.FromMilliseconds(session_time_ms)
        with typed_errors():
            reply = self._memory.Ingest(request, timeout=timeout_s)
        return IngestResult(reply.turns_ingested, reply.distillation, reply.episode_id)

    def sync_now(self, agent_id: str = "", *, timeout_s: float = LONG_DEADLINE_S) -> list[SessionOutcome]:
        """Distil every pending conversation now (or one agent's)."""
        with typed_errors():
            reply = self._memory.SyncNow(pb.SyncNowRequest(agent_id=agent_id), timeout=timeout_s)
        return [
            SessionOutcome(o.agent_id, o.conversation_id, o.outcome, o.episode_id) for o in reply.outcomes
        ]

    def run_consolidation(self, *, timeout_s: float = LONG_DEADLINE_S) -> ConsolidationReport:
        """One consolidation pass; AbortedError (CONSOLIDATION_RUNNING) if one is running."""
        with typed_errors():
            report = self._memory.RunConsolidation(pb.RunConsolidationRequest(), timeout=timeout_s).report
        return ConsolidationReport(
            duration_ms=report.duration_ms,
            trigger=report.trigger,
            steps=tuple(
                ConsolidationStep(
                    s.name, s.rows_changed, s.vectors_deleted, s.duration_ms, s.skip_reason, s.error
                )
                for s in report.steps
            ),
        )

    def stats(self) -> Stats:
        """Counts per agent, pending work, processing statistics, database size."""
        with typed_errors():
            r = self._memory.GetStats(pb.GetStatsRequest())
        return Stats(
            agents=tuple(
                AgentCounts(a.agent_id, a.pinned_facts, a.episodes, a.transcript_turns, a.pending_signals)
                for a in r.agents
            ),
            total_calls=r.processing.total_calls,
            success_rate=r.processing.success_rate,
            mean_duration_ms=r.processing.mean_duration_ms,
            database_bytes=r.database_bytes,
            pending_signals=r.pending_signals,
            dead_letter_signals=r.dead_letter_signals,
        )

    # ------------------------------------------------------------------------------------------ console
    def inspect(self, kind: str, row_id: int) -> Inspection:
        """Redacted preview and metadata of one row."""
        from memoryd.api import console_convert as cc

        with typed_errors():
            r = self._console.Inspect(cpb.InspectRequest(item=cc.item_ref(kind, row_id)))
        return Inspection(
            kind=cc.KIND_FROM_PB[r.item.kind],
            id=int(r.item.id),
            agent_id=r.agent_id,
            preview=r.preview,
            metadata=dict(sorted(r.metadata.items())),
            is_disabled=r.disabled,
            created_at_ms=_ms(r.create_time),
            redactions=tuple(r.redactions),
            has_vector=r.has_vector,
            source_turns=tuple(
                SourceTurnView(int(t.item.id), t.role, t.preview, _ms(t.create_time)) for t in r.source_turns
            ),
        )

    def search(
        self,
        query: str,
        *,
        scope: str = "all",
        agent_id: str = "",
        include_disabled: bool = False,
        limit: int = 0,
    ) -> list[ConsoleMatch]:
        """Redacted console search hits, best first."""
        from memoryd.api import console_convert as cc

        request = cpb.SearchRequest(
            query=query,
            scope=_SCOPES[scope],
            agent_id=agent_id,
            include_disabled=include_disabled,
            limit=limit,
        )
        with typed_errors():
            hits = self._console.Search(request).hits
        return [
            ConsoleMatch(
                cc.KIND_FROM_PB[h.item.kind],
                int(h.item.id),
                h.agent_id,
                h.preview,
                h.score,
                h.disabled,
                _ms(h.create_time),
            )
            for h in hits
        ]

    def disable(self, kind: str, row_id: int) -> bool:
        """Take a pinned fact or episode out of recall; whether it changed."""
        from memoryd.api import console_convert as cc

        with typed_errors():
            return bool(self._console.Disable(cpb.DisableRequest(item=cc.item_ref(kind, row_id))).changed)

    def enable(self, kind: str, row_id: int) -> bool:
        """Put it back into recall; whether it changed."""
        from memoryd.api import console_convert as cc

        with typed_errors():
            return bool(self._console.Enable(cpb.EnableRequest(item=cc.item_ref(kind, row_id))).changed)

    def forget(self, kind: str, row_id: int) -> bool:
        """Delete a row permanently; whether a vector went with it."""
        from memoryd.api import console_convert as cc

        with typed_errors():
            return bool(
                self._console.Forget(cpb.ForgetRequest(item=cc.item_ref(kind, row_id))).vector_removed
            )

    def diagnose(self) -> Diagnosis:
        """Storage health report."""
        with typed_errors():
            return _diagnosis(self._console.Diagnose(cpb.DiagnoseRequest()))

    def preview_context(self, agent_id: str, query: str, max_tokens: int) -> ContextPreview:
        """The redacted block the agent would get for `query` under `max_tokens`."""
        request = cpb.PreviewContextRequest(agent_id=agent_id, query=query, max_tokens=max_tokens)
        with typed_errors():
            r = self._console.PreviewContext(request)
        return ContextPreview(r.block, section_name(r.section), r.reason, r.block_tokens)

    def clear_all(self, *, confirm: bool) -> int:
        """Delete all memory; FailedPreconditionError (CONFIRMATION_REQUIRED) unless confirm."""
        with typed_errors():
            return int(self._console.ClearAll(cpb.ClearAllRequest(confirm=confirm)).rows_deleted)

    def get_config(self) -> MemoryConfig:
        """The effective memory.json."""
        from memoryd.api import console_convert as cc

        with typed_errors():
            return cc.config_from_proto(self._console.GetConfig(cpb.GetConfigRequest()).config)

    def update_config(self, changes: Mapping[str, Any]) -> MemoryConfig:
        """Change the named fields (attribute names, memory.json strings for enums); ValueError for an unknown enum."""
        from memoryd.api import console_convert as cc

        values: dict[str, Any] = {}
        for attr, value in changes.items():
            if attr in cc.ENUMS:
                numbers = {text: number for number, text in cc.ENUMS[attr].items()}
                if str(value) not in numbers:
                    raise ValueError(f"{attr} must be one of {', '.join(numbers)}")
                value = numbers[str(value)]
            values[attr] = value
        request = cpb.UpdateConfigRequest(
            config=cpb.MemoryConfig(**values), update_mask=field_mask_pb2.FieldMask(paths=sorted(values))
        )
        with typed_errors():
            return cc.config_from_proto(self._console.UpdateConfig(request).config)

    def export(self, agent_id: str = "", *, timeout_s: float = LONG_DEADLINE_S) -> Iterator[str]:
        """JSON Lines records of all memory (or one agent's)."""
        with typed_errors():
            for reply in self._console.Export(cpb.ExportRequest(agent_id=agent_id), timeout=timeout_s):
                yield reply.line

    def import_lines(self, lines: Iterable[str], *, timeout_s: float = LONG_DEADLINE_S) -> ImportResult:
        """Send JSON Lines records produced by export."""
        requests = (cpb.ImportRequest(line=line) for line in lines)
        with typed_errors():
            r = self._console.Import(requests, timeout=timeout_s)
        return ImportResult(imported=dict(r.imported), skipped=r.skipped, reembedded=r.reembedded)

    def reindex(self, agent_id: str = "", *, timeout_s: float = LONG_DEADLINE_S) -> ReindexResult:
        """Rebuild FTS mirrors and vector indexes from SQLite."""
        with typed_errors():
            r = self._console.Reindex(cpb.ReindexRequest(agent_id=agent_id), timeout=timeout_s)
        return ReindexResult(tuple(_vector_state(s) for s in r.vector_indexes), r.fts_rebuilt)


__all__ = [
    "LONG_DEADLINE_S",
    "MAX_AGENT_ID_CHARS",
    "MAX_CONVERSATION_ID_CHARS",
    "SCOPES",
    "AgentCounts",
    "AgentInfo",
    "Assembly",
    "Attachment",
    "BufferedTurn",
    "ChatMessage",
    "ConsolidationReport",
    "ConsolidationStep",
    "IdentityInfo",
    "IngestResult",
    "Injection",
    "MemoryClient",
    "MemoryHit",
    "OverrideInfo",
    "SessionEnd",
    "SessionOutcome",
    "Stats",
    "messages_from_proto",
    "messages_to_proto",
    "section_name",
]
