"""Conversions between SDK dataclasses and the plugin/memory protobufs, for the runner only."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime

from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from plugin_host.sdk import CommandSpec, GenerationOptions, MemoryHit, MemoryTrace, Message, Scope

_ROLES = {
    "system": mpb.ROLE_SYSTEM,
    "user": mpb.ROLE_USER,
    "assistant": mpb.ROLE_ASSISTANT,
    "tool": mpb.ROLE_TOOL,
}
_SCOPES = {
    Scope.PINNED: mpb.SCOPE_PINNED,
    Scope.EPISODES: mpb.SCOPE_EPISODES,
    Scope.TRANSCRIPT: mpb.SCOPE_TRANSCRIPT,
}
_KINDS: dict[int, str] = {
    mpb.ITEM_KIND_PINNED_FACT: "pinned_fact",
    mpb.ITEM_KIND_EPISODE: "episode",
    mpb.ITEM_KIND_TRANSCRIPT_TURN: "transcript_turn",
    mpb.ITEM_KIND_IDENTITY_FACT: "identity_fact",
}


def messages_to_proto(messages: Sequence[Message]) -> list[mpb.ChatMessage]:
    """SDK messages as memory.v1 ChatMessages."""
    return [mpb.ChatMessage(role=_ROLES[m.role], content=m.content) for m in messages]


def options_to_proto(options: GenerationOptions | None) -> ppb.GenerationOptions:
    """SDK generation options as plugin.v1 GenerationOptions."""
    o = options or GenerationOptions()
    return ppb.GenerationOptions(
        max_tokens=o.max_tokens,
        temperature=o.temperature,
        model=o.model,
        model_context_tokens=o.model_context_tokens,
    )


def scope_to_proto(scope: Scope) -> mpb.Scope:
    """An SDK scope as the memory.v1 Scope number."""
    return _SCOPES[scope]


def trace_from_proto(trace: ppb.MemoryTrace) -> MemoryTrace:
    """A plugin.v1 MemoryTrace as the SDK dataclass."""
    return MemoryTrace(
        injected=trace.injected,
        section=section_name(trace.section),
        reason=trace.reason,
        block_tokens=trace.block_tokens,
        recorded=trace.recorded,
    )


def section_name(section: int) -> str:
    """memory.v1 Section number as "none", "identity", "pinned", "episodes", "transcript" or "unspecified"."""
    return str(mpb.Section.Name(section)).removeprefix("SECTION_").lower()


def hit_from_proto(hit: mpb.SearchHit) -> MemoryHit:
    """A memory.v1 SearchHit as the SDK dataclass."""
    occurred: datetime | None = None
    if hit.HasField("occur_time"):
        occurred = datetime.fromtimestamp(hit.occur_time.seconds + hit.occur_time.nanos / 1e9, tz=UTC)
    role = (
        "" if hit.role == mpb.ROLE_UNSPECIFIED else str(mpb.Role.Name(hit.role)).removeprefix("ROLE_").lower()
    )
    return MemoryHit(
        kind=_KINDS.get(hit.item.kind, "unspecified"),
        id=hit.item.id,
        score=hit.score,
        text=hit.text,
        conversation_id=hit.conversation_id,
        occurred_at=occurred,
        role=role,
        salience=hit.salience,
        topics=tuple(hit.topics),
    )


def command_to_proto(spec: CommandSpec) -> ppb.CommandInfo:
    """A declared command as plugin.v1 CommandInfo."""
    schema = json.dumps(spec.payload_schema, sort_keys=True) if spec.payload_schema is not None else ""
    return ppb.CommandInfo(name=spec.name, description=spec.description, payload_schema=schema)
