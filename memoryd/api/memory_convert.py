"""Protobuf ↔ domain: request validation (one INVALID_ARGUMENT listing every bad field) and response building."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from google.protobuf import timestamp_pb2

from memoryd import domain as d
from memoryd.write.distill import strip_memory_blocks
from osaurus.memory.v1 import memory_pb2 as pb
from servicekit.validate import Violations

MAX_QUERY_CHARS = 2_000
MAX_OVERRIDE_CHARS = 2_000
DEFAULT_SEARCH_LIMIT = 10
MAX_SEARCH_LIMIT = 100
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1_000

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]+=*$")
_TOKEN_PREFIX = "agents:"

SCOPES = {pb.SCOPE_PINNED: "pinned", pb.SCOPE_EPISODES: "episodes", pb.SCOPE_TRANSCRIPT: "transcript"}
_KIND_TO_PB = {
    d.KIND_PINNED: pb.ITEM_KIND_PINNED_FACT,
    d.KIND_EPISODE: pb.ITEM_KIND_EPISODE,
    d.KIND_TRANSCRIPT: pb.ITEM_KIND_TRANSCRIPT_TURN,
    d.KIND_IDENTITY_FACT: pb.ITEM_KIND_IDENTITY_FACT,
}
_ROLE_TO_PB = {
    "user": pb.ROLE_USER,
    "assistant": pb.ROLE_ASSISTANT,
    "system": pb.ROLE_SYSTEM,
    "tool": pb.ROLE_TOOL,
}


# ---------------------------------------------------------------------------------------------------------- time
def timestamp(ms: int) -> timestamp_pb2.Timestamp:
    """Epoch milliseconds → Timestamp."""
    stamp = timestamp_pb2.Timestamp()
    stamp.FromMilliseconds(int(ms))
    return stamp


#: google.protobuf.Timestamp's valid range: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z.
_MIN_TIMESTAMP_S = -62_135_596_800
_MAX_TIMESTAMP_S = 253_402_300_799


#: How far past now a turn's time may lie (clock skew between the client and memoryd).
MAX_FUTURE_MS = 86_400_000


def millis(stamp: timestamp_pb2.Timestamp, default_ms: int, field: str = "time") -> int:
    """Timestamp → epoch milliseconds; `default_ms` when unset; INVALID_ARGUMENT when outside Timestamp's range,
    before 1970 or more than a day ahead (TIME_OUT_OF_RANGE): a turn dated year 1 or 9999 is a client bug, and it
    would sort, decay and be pruned as if it were real."""
    if stamp.seconds == 0 and stamp.nanos == 0:
        return default_ms
    if not (_MIN_TIMESTAMP_S <= stamp.seconds <= _MAX_TIMESTAMP_S and 0 <= stamp.nanos <= 999_999_999):
        with Violations() as v:
            v.add(field, "must be a valid Timestamp (years 1-9999, nanos 0-999999999)", "INVALID_TIMESTAMP")
    value = int(stamp.ToMilliseconds())
    if value < 0 or value > d.now_ms() + MAX_FUTURE_MS:
        with Violations() as v:
            v.add(field, "must lie between 1970-01-01 and one day from now", "TIME_OUT_OF_RANGE")
    return value


# ----------------------------------------------------------------------------------------------------- requests
def agent_id(v: Violations, value: str, field: str = "agent_id") -> str:
    """1-128 printable characters without whitespace; UUIDs upper-cased."""
    return v.require_id(value, field, max_chars=d.MAX_AGENT_ID_CHARS, reason="INVALID_AGENT_ID")


def conversation_id(v: Violations, value: str, field: str = "conversation_id") -> str:
    """1-256 characters without control characters."""
    if not value:
        v.add(field, "is required", "INVALID_CONVERSATION_ID")
    elif len(value) > d.MAX_CONVERSATION_ID_CHARS:
        v.add(
            field,
            f"is {len(value)} characters; at most {d.MAX_CONVERSATION_ID_CHARS} allowed",
            "INVALID_CONVERSATION_ID",
        )
    elif _CONTROL.search(value):
        v.add(field, "must not contain control characters", "INVALID_CONVERSATION_ID")
    return value


def own_text(text: str) -> str:
    """A turn's text without the `[Memory] … [/Memory]` blocks InjectMemory put in (fed back by the caller), so the
    transcript never stores, finds and re-injects our own memory; text without a block is returned unchanged."""
    if "[" not in text:
        return text
    cleaned = strip_memory_blocks(text)
    return text if cleaned == text.strip() else cleaned


#: BufferTurn's idempotency key (proto: request_id).
MAX_REQUEST_ID_CHARS = 128
REQUEST_ID = re.compile(rf"[A-Za-z0-9._:\-]{{1,{MAX_REQUEST_ID_CHARS}}}")


def parse_buffer_turn(request: pb.BufferTurnRequest) -> d.TurnInput:
    """Validated BufferTurn arguments, injected memory blocks removed (an empty user_message then means the turn
    was only our own block: TurnRecorder stores nothing)."""
    with Violations() as v:
        agent = agent_id(v, request.agent_id)
        conversation = conversation_id(v, request.conversation_id)
        user = v.require_text(request.user_message, "user_message", max_chars=d.MAX_CONTENT_CHARS)
        assistant = v.require_text(
            request.assistant_message, "assistant_message", max_chars=d.MAX_CONTENT_CHARS, required=False
        )
        occurred = millis(request.occur_time, d.now_ms(), "occur_time")
        if request.request_id and not REQUEST_ID.fullmatch(request.request_id):
            v.add(
                "request_id",
                f"must be 1-{MAX_REQUEST_ID_CHARS} characters of A-Z a-z 0-9 . _ : -",
                "INVALID_REQUEST_ID",
            )
    return d.TurnInput(
        agent, conversation, own_text(user), own_text(assistant), occurred, request_id=request.request_id
    )


def parse_search(request: pb.SearchMemoryRequest) -> tuple[str, str, str, int]:
    """(agent_id, scope name, query, limit) of a SearchMemory call."""
    with Violations() as v:
        agent = agent_id(v, request.agent_id)
        v.require_enum(request.scope, pb.Scope.DESCRIPTOR, "scope")
        query = v.require_text(request.query, "query", max_chars=MAX_QUERY_CHARS)
        if query and not query.strip():
            v.add("query", "must not be only whitespace", "MISSING_FIELD")
        limit = request.limit or DEFAULT_SEARCH_LIMIT
        v.require_range(limit, "limit", 1, MAX_SEARCH_LIMIT, "LIMIT_OUT_OF_RANGE")
    return agent, SCOPES[request.scope], query, limit


def parse_agent_only(request: Any) -> str:
    """The agent_id of Get/DeleteAgent."""
    with Violations() as v:
        agent = agent_id(v, request.agent_id)
    return agent


def parse_identity_agent(request: pb.GetIdentityRequest) -> str | None:
    """GetIdentity's optional agent: None (the global identity) when empty, else a valid agent id."""
    if not request.agent_id:
        return None
    with Violations() as v:
        agent = agent_id(v, request.agent_id)
    return agent


def parse_upsert(request: pb.UpsertAgentRequest) -> tuple[str, d.AgentChanges]:
    """(agent_id, changes) of UpsertAgent."""
    with Violations() as v:
        agent = agent_id(v, request.agent_id)
        name = request.display_name if request.HasField("display_name") else None
        if name is not None:
            v.require_text(name, "display_name", max_chars=256, required=False)
    return agent, d.AgentChanges(
        display_name=name,
        memory_enabled=request.memory_enabled if request.HasField("memory_enabled") else None,
        search_memory_enabled=request.search_memory_enabled
        if request.HasField("search_memory_enabled")
        else None,
    )


def parse_list_agents(request: pb.ListAgentsRequest) -> tuple[str, int]:
    """(agent id to start after, page size) of ListAgents."""
    with Violations() as v:
        size = request.page_size or DEFAULT_PAGE_SIZE
        v.require_range(size, "page_size", 1, MAX_PAGE_SIZE, "PAGE_SIZE_OUT_OF_RANGE")
        after = ""
        if request.page_token:
            try:
                if not _TOKEN.match(request.page_token):
                    raise ValueError("not base64url")
                decoded = base64.urlsafe_b64decode(request.page_token.encode("ascii")).decode("utf-8")
                if not decoded.startswith(_TOKEN_PREFIX):
                    raise ValueError("not an agents token")
                after = decoded.removeprefix(_TOKEN_PREFIX)
            except (binascii.Error, UnicodeError, ValueError):
                v.add("page_token", "is not a token returned by ListAgents", "INVALID_PAGE_TOKEN")
    return after, size


def page_token(last_agent_id: str) -> str:
    """Opaque token resuming after `last_agent_id`."""
    return base64.urlsafe_b64encode((_TOKEN_PREFIX + last_agent_id).encode("utf-8")).decode("ascii")


def parse_override_text(request: pb.AddOverrideRequest) -> str:
    """The fact of AddOverride."""
    with Violations() as v:
        text = v.require_text(request.text, "text", max_chars=MAX_OVERRIDE_CHARS)
        if text and not text.strip():
            v.add("text", "must not be only whitespace", "MISSING_FIELD")
    return text.strip()


def parse_override_id(request: pb.RemoveOverrideRequest) -> str:
    """The id of RemoveOverride."""
    with Violations() as v:
        if not request.id:
            v.add("id", "is required", "MISSING_FIELD")
    return request.id


# ---------------------------------------------------------------------------------------------------- responses
def agent(record: d.AgentRecord) -> pb.Agent:
    """AgentRecord → Agent."""
    return pb.Agent(
        agent_id=record.agent_id,
        display_name=record.display_name,
        memory_enabled=record.memory_enabled,
        search_memory_enabled=record.search_memory_enabled,
        memory_entry_count=record.memory_entry_count,
        create_time=timestamp(record.created_at_ms),
        update_time=timestamp(record.updated_at_ms),
    )


def item_ref(kind: str, row_id: int | str) -> pb.ItemRef:
    """(kind, id) → ItemRef."""
    return pb.ItemRef(kind=_KIND_TO_PB[kind], id=str(row_id))


def search_hit(hit: d.ScoredRow) -> pb.SearchHit:
    """ScoredRow → SearchHit."""
    row = hit.row
    return pb.SearchHit(
        item=item_ref(row.kind, row.id),
        score=hit.score,
        text=row.text,
        conversation_id=row.conversation_id,
        occur_time=timestamp(row.occurred_at_ms),
        role=_ROLE_TO_PB.get(row.role, pb.ROLE_UNSPECIFIED),
        salience=row.salience,
        topics=list(row.topics),
    )


def override(record: d.OverrideRecord) -> pb.Override:
    """OverrideRecord → Override."""
    return pb.Override(id=record.id, text=record.text, create_time=timestamp(record.created_at_ms))


def identity(record: d.IdentityRecord) -> pb.Identity:
    """IdentityRecord → Identity."""
    return pb.Identity(
        overrides=[override(o) for o in record.overrides],
        content=record.content,
        facts=[
            pb.IdentityFact(
                id=f.id,
                text=f.text,
                source_agent_id=f.source_agent_id,
                source_episode_id=f.source_episode_id,
                source_count=f.source_count,
                create_time=timestamp(f.created_at_ms),
            )
            for f in record.facts
        ],
        model=record.model,
        # No narrative yet: no generate_time (not a 1970 date).
        generate_time=timestamp(record.generated_at_ms) if record.generated_at_ms > 0 else None,
        version=record.version,
    )


def stats(record: d.StoreStats) -> pb.GetStatsResponse:
    """StoreStats → GetStatsResponse."""
    return pb.GetStatsResponse(
        agents=[
            pb.AgentStats(
                agent_id=a.agent_id,
                pinned_facts=a.pinned_facts,
                episodes=a.episodes,
                transcript_turns=a.transcript_turns,
                pending_signals=a.pending_signals,
            )
            for a in record.agents
        ],
        processing=pb.ProcessingStats(
            total_calls=record.total_calls,
            success_rate=record.success_rate,
            mean_duration_ms=record.mean_duration_ms,
            items_dropped=record.items_dropped,
            superseded_facts=record.superseded_facts,
        ),
        database_bytes=record.database_bytes,
        pending_signals=record.pending_signals,
        dead_letter_signals=record.dead_letter_signals,
    )
