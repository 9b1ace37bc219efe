"""Conversions between plugin_host's dataclasses and the plugin/memory protobufs (host side)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memoryd import client as memory_client
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from plugin_host.chat import ChatMessage, MemoryTrace, ModelOptions
from plugin_host.sdk import Permission

_ROLE_NUMBERS = {
    "system": mpb.ROLE_SYSTEM,
    "user": mpb.ROLE_USER,
    "assistant": mpb.ROLE_ASSISTANT,
    "tool": mpb.ROLE_TOOL,
}
_KIND_NAMES: dict[int, str] = {
    mpb.ITEM_KIND_PINNED_FACT: "pinned_fact",
    mpb.ITEM_KIND_EPISODE: "episode",
    mpb.ITEM_KIND_TRANSCRIPT_TURN: "transcript_turn",
    mpb.ITEM_KIND_IDENTITY_FACT: "identity_fact",
}
_KIND_NUMBERS = {name: number for number, name in _KIND_NAMES.items()}
_PERMISSION_NUMBERS = {
    Permission.INFERENCE: ppb.PERMISSION_INFERENCE,
    Permission.MEMORY_SEARCH: ppb.PERMISSION_MEMORY_SEARCH,
}
_STATE_NUMBERS = {
    "stopped": ppb.PLUGIN_STATE_STOPPED,
    "starting": ppb.PLUGIN_STATE_STARTING,
    "running": ppb.PLUGIN_STATE_RUNNING,
    "backoff": ppb.PLUGIN_STATE_BACKOFF,
    "failed": ppb.PLUGIN_STATE_FAILED,
}


def section_number(name: str) -> int:
    """A section name as its memory.v1 Section number (unknown names are UNSPECIFIED)."""
    try:
        return int(mpb.Section.Value(f"SECTION_{name.upper()}"))
    except ValueError:
        return mpb.SECTION_UNSPECIFIED


def scope_name(scope: int) -> str:
    """memory.v1 Scope number as its name ("" for unspecified or unknown)."""
    for name, number in memory_client.SCOPES.items():
        if number == scope:
            return name
    return ""


def messages_from_proto(messages: Iterable[mpb.ChatMessage]) -> list[ChatMessage]:
    """memory.v1 ChatMessages (a plugin's request) as host messages; unknown roles read as "user"."""
    return memory_client.messages_from_proto(messages)


def options_from_proto(options: ppb.GenerationOptions) -> ModelOptions:
    """plugin.v1 GenerationOptions as ModelOptions."""
    return ModelOptions(
        max_tokens=options.max_tokens,
        temperature=options.temperature,
        model=options.model,
        model_context_tokens=options.model_context_tokens,
    )


def trace_to_proto(trace: MemoryTrace) -> ppb.MemoryTrace:
    """A MemoryTrace as plugin.v1 MemoryTrace."""
    return ppb.MemoryTrace(
        injected=trace.injected,
        section=section_number(trace.section),  # type: ignore[arg-type]
        reason=trace.reason,
        block_tokens=trace.block_tokens,
        recorded=trace.recorded,
    )


def permissions_to_proto(permissions: Sequence[Permission]) -> list[int]:
    """SDK permissions as plugin.v1 Permission numbers."""
    return [_PERMISSION_NUMBERS[p] for p in permissions]


def state_number(state: str) -> int:
    """A supervisor state name as the plugin.v1 PluginState number."""
    return _STATE_NUMBERS.get(state, ppb.PLUGIN_STATE_UNSPECIFIED)


def kind_number(kind: str) -> int:
    """An item kind name as the memory.v1 ItemKind number."""
    return _KIND_NUMBERS.get(kind, mpb.ITEM_KIND_UNSPECIFIED)


def role_number(role: str) -> int:
    """A role name as the memory.v1 Role number."""
    return _ROLE_NUMBERS.get(role, mpb.ROLE_UNSPECIFIED)
