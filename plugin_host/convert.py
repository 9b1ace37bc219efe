"""Conversions between plugin_host's dataclasses and the plugin/memory protobufs (host side)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from plugin_host.chat import Attachment, ChatMessage, MemoryTrace, ModelOptions
from plugin_host.sdk import Permission

_ROLE_NUMBERS = {
    "system": mpb.ROLE_SYSTEM,
    "user": mpb.ROLE_USER,
    "assistant": mpb.ROLE_ASSISTANT,
    "tool": mpb.ROLE_TOOL,
}
_SCOPE_NUMBERS = {
    "pinned": mpb.SCOPE_PINNED,
    "episodes": mpb.SCOPE_EPISODES,
    "transcript": mpb.SCOPE_TRANSCRIPT,
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


def role_name(role: int) -> str:
    """memory.v1 Role number as "system", "user", "assistant", "tool" or "" (unspecified)."""
    return "" if role == mpb.ROLE_UNSPECIFIED else str(mpb.Role.Name(role)).removeprefix("ROLE_").lower()


def section_name(section: int) -> str:
    """memory.v1 Section number as "none", "identity", "pinned", "episodes", "transcript" or "unspecified"."""
    return str(mpb.Section.Name(section)).removeprefix("SECTION_").lower()


def section_number(name: str) -> int:
    """A section name as its memory.v1 Section number (unknown names are UNSPECIFIED)."""
    try:
        return int(mpb.Section.Value(f"SECTION_{name.upper()}"))
    except ValueError:
        return mpb.SECTION_UNSPECIFIED


def scope_number(scope: str) -> mpb.Scope:
    """The memory.v1 Scope number of "pinned", "episodes" or "transcript"."""
    return _SCOPE_NUMBERS[scope]


def scope_name(scope: int) -> str:
    """memory.v1 Scope number as its name ("" for unspecified or unknown)."""
    for name, number in _SCOPE_NUMBERS.items():
        if number == scope:
            return name
    return ""


def kind_name(kind: int) -> str:
    """memory.v1 ItemKind number as "pinned_fact", "episode", "transcript_turn", "identity_fact"."""
    return _KIND_NAMES.get(kind, "unspecified")


def messages_to_proto(messages: Iterable[ChatMessage]) -> list[mpb.ChatMessage]:
    """Host messages as memory.v1 ChatMessages."""
    return [
        mpb.ChatMessage(
            role=_ROLE_NUMBERS[m.role],
            content=m.content,
            attachments=[
                mpb.Attachment(mime_type=a.mime_type, data=a.data, uri=a.uri) for a in m.attachments
            ],
        )
        for m in messages
    ]


def messages_from_proto(messages: Iterable[mpb.ChatMessage]) -> list[ChatMessage]:
    """memory.v1 ChatMessages as host messages (roles already validated; unknown roles read as "user")."""
    return [
        ChatMessage(
            role=role_name(m.role) or "user",
            content=m.content,
            attachments=tuple(Attachment(a.mime_type, a.data, a.uri) for a in m.attachments),
        )
        for m in messages
    ]


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
