"""Memory injection for a composed model call: InjectMemory, else AssembleContext + local splice, else nothing.

Memory never fails a user's model call: when memoryd is down, slow or not built yet, the call proceeds without
memory and the trace's reason says why ("memory_unavailable:<REASON>").
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from plugin_host.chat import ChatMessage, latest_user_index
from plugin_host.peers import MemoryPeer
from servicekit.errors import NOT_YET_AVAILABLE, ServiceError, UnimplementedError

#: Models with a context window below this many tokens get no memory ("context_too_small:<n>"), as memoryd's
#: InjectMemory decides; above it memoryd scales the budget to at most 10% of the window.
MIN_CONTEXT_TOKENS = 2048
_log = logging.getLogger("plugin_host.injection")


@dataclass(frozen=True)
class Injected:
    """The messages to send to the model and what memory did."""

    messages: tuple[ChatMessage, ...]
    injected: bool
    section: str
    reason: str
    block_tokens: int


def prepend_block(messages: Sequence[ChatMessage], block: str) -> tuple[ChatMessage, ...]:
    """The messages with `block` ("[Memory]…[/Memory]") prepended to the latest user message's text."""
    index = latest_user_index(list(messages))
    if index is None or not block.strip():
        return tuple(messages)
    target = messages[index]
    changed = ChatMessage(target.role, f"{block}\n\n{target.content}", target.attachments)
    return (*messages[:index], changed, *messages[index + 1 :])


def skip_reason(messages: Sequence[ChatMessage], model_context_tokens: int) -> str | None:
    """Why memory must not be spliced in locally, or None: the rules InjectMemory applies on memoryd's side."""
    index = latest_user_index(list(messages))
    if index is None:
        return "no_user_message"
    if messages[index].is_multimodal:
        return "multimodal"
    if 0 < model_context_tokens < MIN_CONTEXT_TOKENS:
        return f"context_too_small:{model_context_tokens}"
    return None


class MemoryInjector:
    """Applies an agent's memory to the messages of one model call."""

    def __init__(self, memory: MemoryPeer, timeout_s: float) -> None:
        self._memory = memory
        self._timeout_s = timeout_s
        self._last_failure = ""

    def inject(
        self,
        agent_id: str,
        conversation_id: str,
        messages: tuple[ChatMessage, ...],
        model_context_tokens: int,
        remaining_s: float | None,
    ) -> Injected:
        """Ask memoryd for the block; fall back to AssembleContext; proceed without memory on any failure."""
        timeout_s = self._timeout_s if remaining_s is None else max(0.05, min(self._timeout_s, remaining_s))
        try:
            got = self._memory.inject(
                agent_id,
                conversation_id,
                messages,
                model_context_tokens=model_context_tokens,
                timeout_s=timeout_s,
            )
            self._last_failure = ""
            return Injected(got.messages, got.injected, got.section, got.reason, got.block_tokens)
        except UnimplementedError as error:
            if error.reason != NOT_YET_AVAILABLE:
                return self._without_memory(messages, error)
        except ServiceError as error:
            return self._without_memory(messages, error)
        return self._assemble(agent_id, conversation_id, messages, model_context_tokens, timeout_s)

    def _assemble(
        self,
        agent_id: str,
        conversation_id: str,
        messages: tuple[ChatMessage, ...],
        context_tokens: int,
        timeout_s: float,
    ) -> Injected:
        skip = skip_reason(messages, context_tokens)
        if skip is not None:
            return Injected(messages, False, "none", skip, 0)
        index = latest_user_index(messages)
        assert index is not None  # skip_reason covers it
        try:
            got = self._memory.assemble(
                agent_id,
                messages[index].content,
                conversation_id,
                model_context_tokens=context_tokens,
                timeout_s=timeout_s,
            )
        except ServiceError as error:
            return self._without_memory(messages, error)
        if not got.block.strip():
            return Injected(messages, False, got.section, got.reason, 0)
        return Injected(prepend_block(messages, got.block), True, got.section, got.reason, got.block_tokens)

    def _without_memory(self, messages: tuple[ChatMessage, ...], error: ServiceError) -> Injected:
        """Proceed without memory; warn once per distinct failure so a down memoryd does not flood the log."""
        failure = f"{type(error).__name__} {error.reason}"
        level = logging.DEBUG if failure == self._last_failure else logging.WARNING
        self._last_failure = failure
        _log.log(level, "memory injection skipped: %s", failure)
        return Injected(messages, False, "unspecified", f"memory_unavailable:{error.reason}", 0)
