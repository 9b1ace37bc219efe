"""MemoryClient calls of the agent runtime: BufferTurn, EndSession, AssembleContext, InjectMemory, SearchMemory.

Typed in and out (no protobuf leaves this module), servicekit.errors exceptions, a deadline on every call. It
imports nothing of memoryd's server side, so plugin_host loads it without memoryd's storage or models.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from google.protobuf import timestamp_pb2

from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.channel import typed_errors

#: Search scopes by name, as the proto's Scope numbers.
SCOPES: dict[str, pb.Scope] = {
    "pinned": pb.SCOPE_PINNED,
    "episodes": pb.SCOPE_EPISODES,
    "transcript": pb.SCOPE_TRANSCRIPT,
}
_ROLES: dict[str, pb.Role] = {
    "system": pb.ROLE_SYSTEM,
    "user": pb.ROLE_USER,
    "assistant": pb.ROLE_ASSISTANT,
    "tool": pb.ROLE_TOOL,
}
_ROLE_NAMES = {number: name for name, number in _ROLES.items()}
_KIND_NAMES = {
    pb.ITEM_KIND_PINNED_FACT: "pinned_fact",
    pb.ITEM_KIND_EPISODE: "episode",
    pb.ITEM_KIND_TRANSCRIPT_TURN: "transcript_turn",
    pb.ITEM_KIND_IDENTITY_FACT: "identity_fact",
}


@dataclass(frozen=True)
class Attachment:
    """Non-text content of a message; its presence makes a user message multimodal."""

    mime_type: str
    data: bytes = b""
    uri: str = ""


@dataclass(frozen=True)
class ChatMessage:
    """One message of a chat: role is "system", "user", "assistant" or "tool"."""

    role: str
    content: str
    attachments: tuple[Attachment, ...] = ()

    @property
    def is_multimodal(self) -> bool:
        """Whether it carries non-text parts (memory is never injected into such a message)."""
        return bool(self.attachments)


@dataclass(frozen=True)
class BufferedTurn:
    """BufferTurn's answer. signal_id 0: nothing stored (the user message held only fed-back memory blocks)."""

    signal_id: int
    transcript_ids: tuple[int, ...]
    distillation_scheduled: bool
    #: A retry of an earlier call with the same request_id: nothing was stored, the ids are the first call's.
    replayed: bool


@dataclass(frozen=True)
class SessionEnd:
    """EndSession's answer: outcome and episode_id are set only when the call waited."""

    signals_flushed: int
    outcome: str
    episode_id: int


@dataclass(frozen=True)
class Assembly:
    """AssembleContext's answer: the complete block (possibly empty) and why."""

    block: str
    section: str
    reason: str
    block_tokens: int
    cached: bool = False


@dataclass(frozen=True)
class Injection:
    """InjectMemory's answer: the messages with memory applied, and why."""

    messages: tuple[ChatMessage, ...]
    injected: bool
    section: str
    reason: str
    block_tokens: int


@dataclass(frozen=True)
class MemoryHit:
    """One SearchMemory hit."""

    kind: str
    """One of "pinned_fact", "episode", "transcript_turn" or "identity_fact"."""
    id: str
    score: float
    text: str
    conversation_id: str
    occur_time_s: float | None
    role: str
    salience: float
    topics: tuple[str, ...]


def section_name(section: int) -> str:
    """A Section number as "none", "identity", "pinned", "episodes", "transcript" or "unspecified"."""
    try:
        return str(pb.Section.Name(section)).removeprefix("SECTION_").lower()
    except ValueError:
        return "unspecified"


def messages_to_proto(messages: Iterable[ChatMessage]) -> list[pb.ChatMessage]:
    """Messages as memory.v1 ChatMessages; KeyError for a role outside ChatMessage's four."""
    return [
        pb.ChatMessage(
            role=_ROLES[m.role],
            content=m.content,
            attachments=[pb.Attachment(mime_type=a.mime_type, data=a.data, uri=a.uri) for a in m.attachments],
        )
        for m in messages
    ]


def messages_from_proto(messages: Iterable[pb.ChatMessage]) -> list[ChatMessage]:
    """memory.v1 ChatMessages as ChatMessages (memoryd validated the roles; an unknown one reads as "user")."""
    return [
        ChatMessage(
            _ROLE_NAMES.get(m.role, "user"),
            m.content,
            tuple(Attachment(a.mime_type, a.data, a.uri) for a in m.attachments),
        )
        for m in messages
    ]


def _seconds(stamp: timestamp_pb2.Timestamp) -> float:
    return stamp.seconds + stamp.nanos / 1e9


def _hit(hit: pb.SearchHit) -> MemoryHit:
    return MemoryHit(
        kind=_KIND_NAMES.get(hit.item.kind, "unspecified"),
        id=hit.item.id,
        score=hit.score,
        text=hit.text,
        conversation_id=hit.conversation_id,
        occur_time_s=_seconds(hit.occur_time) if hit.HasField("occur_time") else None,
        role=_ROLE_NAMES.get(hit.role, ""),
        salience=hit.salience,
        topics=tuple(hit.topics),
    )


class RuntimeCalls:
    """Mixed into MemoryClient (which provides the MemoryService stub).

    `timeout_s` None uses the client's default deadline.
    """

    _memory: pb_grpc.MemoryServiceStub

    def buffer_turn(
        self,
        agent_id: str,
        conversation_id: str,
        user_message: str,
        assistant_message: str = "",
        *,
        occur_time_ms: int = 0,
        request_id: str = "",
        timeout_s: float | None = None,
    ) -> BufferedTurn:
        """Record one exchange. With a `request_id`, a retry of a call that timed out stores nothing twice."""
        request = pb.BufferTurnRequest(
            agent_id=agent_id,
            conversation_id=conversation_id,
            user_message=user_message,
            assistant_message=assistant_message,
            request_id=request_id,
        )
        if occur_time_ms:
            request.occur_time.FromMilliseconds(occur_time_ms)
        with typed_errors():
            reply = self._memory.BufferTurn(request, timeout=timeout_s)
        return BufferedTurn(
            int(reply.signal_id),
            tuple(int(i) for i in reply.transcript_ids),
            reply.distillation_scheduled,
            reply.replayed,
        )

    def end_session(
        self, agent_id: str, conversation_id: str, *, wait: bool = False, timeout_s: float | None = None
    ) -> SessionEnd:
        """Flush a conversation now instead of after the debounce; with `wait`, report the distillation.

        Waiting runs the distiller: give it a long timeout_s (memoryd.client.LONG_DEADLINE_S).
        """
        request = pb.EndSessionRequest(agent_id=agent_id, conversation_id=conversation_id, wait=wait)
        with typed_errors():
            reply = self._memory.EndSession(request, timeout=timeout_s)
        return SessionEnd(reply.signals_flushed, reply.outcome, int(reply.episode_id))

    def assemble_context(
        self,
        agent_id: str,
        query: str,
        *,
        conversation_id: str = "",
        budget_tokens: int = 0,
        model_context_tokens: int = 0,
        timeout_s: float | None = None,
    ) -> Assembly:
        """Gate + planner for one query; memoryd caps the budget at 10% of a known window."""
        request = pb.AssembleContextRequest(
            agent_id=agent_id,
            query=query,
            conversation_id=conversation_id,
            budget_tokens=budget_tokens,
            model_context_tokens=model_context_tokens,
        )
        with typed_errors():
            reply = self._memory.AssembleContext(request, timeout=timeout_s)
        return Assembly(
            reply.block, section_name(reply.section), reply.reason, reply.block_tokens, reply.cached
        )

    def inject_memory(
        self,
        agent_id: str,
        messages: Sequence[ChatMessage],
        *,
        conversation_id: str = "",
        model_context_tokens: int = 0,
        budget_tokens: int = 0,
        timeout_s: float | None = None,
    ) -> Injection:
        """The messages with the memory block prepended to the latest user message, when memory applies."""
        request = pb.InjectMemoryRequest(
            agent_id=agent_id,
            conversation_id=conversation_id,
            messages=messages_to_proto(messages),
            model_context_tokens=model_context_tokens,
            budget_tokens=budget_tokens,
        )
        with typed_errors():
            reply = self._memory.InjectMemory(request, timeout=timeout_s)
        return Injection(
            messages=tuple(messages_from_proto(reply.messages)),
            injected=reply.injected,
            section=section_name(reply.section),
            reason=reply.reason,
            block_tokens=reply.block_tokens,
        )

    def search_memory(
        self, agent_id: str, scope: str, query: str, *, limit: int = 0, timeout_s: float | None = None
    ) -> list[MemoryHit]:
        """The agent's search_memory tool in one scope ("pinned", "episodes", "transcript"), best first.

        PermissionDeniedError (MEMORY_RECALL_DISABLED) unless the agent enabled Memory Recall; KeyError for an
        unknown scope name.
        """
        request = pb.SearchMemoryRequest(agent_id=agent_id, scope=SCOPES[scope], query=query, limit=limit)
        with typed_errors():
            reply = self._memory.SearchMemory(request, timeout=timeout_s)
        return [_hit(hit) for hit in reply.hits]


__all__ = [
    "SCOPES",
    "Assembly",
    "Attachment",
    "BufferedTurn",
    "ChatMessage",
    "Injection",
    "MemoryHit",
    "RuntimeCalls",
    "SessionEnd",
    "messages_from_proto",
    "messages_to_proto",
    "section_name",
]
