"""Thin typed clients for the memoryd and inferd RPCs plugin_host uses; protobuf stops here and in convert.py."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import grpc

from inferd.client import GenerateOptions, InferenceClient, Message
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from plugin_host import convert
from plugin_host.chat import ChatMessage, ModelOptions
from servicekit.channel import make_channel, typed_errors


@dataclass(frozen=True)
class Injection:
    """InjectMemory's answer: the messages with memory applied, and why."""

    messages: tuple[ChatMessage, ...]
    injected: bool
    section: str
    reason: str
    block_tokens: int


@dataclass(frozen=True)
class Assembly:
    """AssembleContext's answer: the complete block (possibly empty) and why."""

    block: str
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


class MemoryPeer:
    """The memoryd RPCs of the composed path. Raises servicekit ServiceErrors, never grpc.RpcError."""

    def __init__(
        self,
        target: str,
        *,
        deadline_s: float = 5.0,
        token: str | None = None,
        credentials: grpc.ChannelCredentials | None = None,
    ) -> None:
        self._channel = make_channel(target, deadline_s=deadline_s, token=token, credentials=credentials)
        self._stub = mpb_grpc.MemoryServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def inject(
        self,
        agent_id: str,
        conversation_id: str,
        messages: Sequence[ChatMessage],
        *,
        model_context_tokens: int,
        timeout_s: float,
    ) -> Injection:
        """InjectMemory: the block prepended to the latest user message, when memory applies."""
        request = mpb.InjectMemoryRequest(
            agent_id=agent_id,
            conversation_id=conversation_id,
            messages=convert.messages_to_proto(messages),
            model_context_tokens=model_context_tokens,
        )
        with typed_errors():
            reply = self._stub.InjectMemory(request, timeout=timeout_s)
        return Injection(
            messages=tuple(convert.messages_from_proto(reply.messages)),
            injected=reply.injected,
            section=convert.section_name(reply.section),
            reason=reply.reason,
            block_tokens=reply.block_tokens,
        )

    def assemble(
        self,
        agent_id: str,
        query: str,
        conversation_id: str,
        *,
        model_context_tokens: int = 0,
        timeout_s: float,
    ) -> Assembly:
        """AssembleContext: gate + planner for one query; memoryd caps the budget at 10% of a known window."""
        request = mpb.AssembleContextRequest(
            agent_id=agent_id,
            query=query,
            conversation_id=conversation_id,
            model_context_tokens=model_context_tokens,
        )
        with typed_errors():
            reply = self._stub.AssembleContext(request, timeout=timeout_s)
        return Assembly(reply.block, convert.section_name(reply.section), reply.reason, reply.block_tokens)

    def buffer_turn(
        self,
        agent_id: str,
        conversation_id: str,
        user_message: str,
        assistant_message: str,
        *,
        timeout_s: float,
        request_id: str = "",
    ) -> int:
        """BufferTurn: record one exchange; returns the pending signal id. With a `request_id`, a retry of a call
        that timed out stores nothing twice (the proto's idempotency key)."""
        request = mpb.BufferTurnRequest(
            agent_id=agent_id,
            conversation_id=conversation_id,
            user_message=user_message,
            assistant_message=assistant_message,
            request_id=request_id,
        )
        with typed_errors():
            reply = self._stub.BufferTurn(request, timeout=timeout_s)
        return int(reply.signal_id)

    def search(
        self, agent_id: str, scope: str, query: str, limit: int, *, timeout_s: float
    ) -> list[MemoryHit]:
        """SearchMemory in one scope ("pinned", "episodes", "transcript").

        PERMISSION_DENIED (MEMORY_RECALL_DISABLED) unless the agent enabled Memory Recall.
        """
        request = mpb.SearchMemoryRequest(
            agent_id=agent_id, scope=convert.scope_number(scope), query=query, limit=limit
        )
        with typed_errors():
            reply = self._stub.SearchMemory(request, timeout=timeout_s)
        return [
            MemoryHit(
                kind=convert.kind_name(hit.item.kind),
                id=hit.item.id,
                score=hit.score,
                text=hit.text,
                conversation_id=hit.conversation_id,
                occur_time_s=(hit.occur_time.seconds + hit.occur_time.nanos / 1e9)
                if hit.HasField("occur_time")
                else None,
                role=convert.role_name(hit.role),
                salience=hit.salience,
                topics=tuple(hit.topics),
            )
            for hit in reply.hits
        ]


@dataclass(frozen=True)
class Reply:
    """A complete model reply."""

    text: str
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class ReplyPiece:
    """One event of a streamed reply; the last one has done=True and the token counts."""

    delta: str
    done: bool
    prompt_tokens: int = 0
    completion_tokens: int = 0


class InferencePeer:
    """inferd through inferd.client, in the host's message types; also reports models' context windows."""

    def __init__(self, client: InferenceClient) -> None:
        self._client = client

    def close(self) -> None:
        self._client.close()

    def generate(
        self,
        messages: Sequence[ChatMessage],
        options: ModelOptions,
        json_schema: str,
        *,
        timeout_s: float | None,
    ) -> Reply:
        """One complete reply."""
        reply = self._client.generate(
            _inferd_messages(messages),
            model=options.model,
            json_schema=json_schema,
            options=GenerateOptions(max_tokens=options.max_tokens, temperature=options.temperature),
            timeout_s=timeout_s,
        )
        return Reply(reply.text, reply.prompt_tokens, reply.completion_tokens)

    def stream(
        self, messages: Sequence[ChatMessage], options: ModelOptions, *, timeout_s: float | None
    ) -> Iterator[ReplyPiece]:
        """The reply as deltas, then a final piece with usage."""
        events = self._client.stream(
            _inferd_messages(messages),
            model=options.model,
            options=GenerateOptions(max_tokens=options.max_tokens, temperature=options.temperature),
            timeout_s=timeout_s,
        )
        for event in events:
            final = event.HasField("usage") or event.finish_reason != 0
            yield ReplyPiece(
                event.delta,
                final,
                event.usage.prompt_tokens if final else 0,
                event.usage.completion_tokens if final else 0,
            )

    def context_window(self, model: str, *, timeout_s: float) -> int:
        """Context window of `model` (empty: the default LLM) in tokens; 0 when inferd does not say."""
        for info in self._client.models(timeout_s=timeout_s):
            if info.kind != "llm":
                continue
            if (model and info.name == model) or (not model and info.is_default):
                return info.context_window_tokens
        return 0


def _inferd_messages(messages: Sequence[ChatMessage]) -> list[Message]:
    """inferd knows system/user/assistant: a tool result travels as a user message marked as such."""
    out: list[Message] = []
    for message in messages:
        if message.role == "tool":
            out.append(Message("user", f"[tool result]\n{message.content}"))
        else:
            out.append(Message(message.role, message.content))
    return out
