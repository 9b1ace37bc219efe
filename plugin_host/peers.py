"""inferd as plugin_host uses it: host messages and options in, replies out, models' context windows.

memoryd needs no peer of its own: plugin_host talks to it through memoryd.client.MemoryClient.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from inferd.client import GenerateOptions, InferenceClient, Message
from plugin_host.chat import ChatMessage, ModelOptions


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
