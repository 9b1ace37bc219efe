"""Memory injection for a composed model call: memoryd's InjectMemory, else the messages unchanged.

memoryd decides everything about injection (memory disabled, a small context window, a multimodal message, the
block itself). Memory never fails a user's model call: when memoryd is down, slow or refuses, the call proceeds
without memory and the trace's reason says why ("memory_unavailable:<REASON>").
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from memoryd.client import MemoryClient
from plugin_host.chat import ChatMessage
from servicekit.errors import ServiceError

_log = logging.getLogger("plugin_host.injection")


@dataclass(frozen=True)
class Injected:
    """The messages to send to the model and what memory did."""

    messages: tuple[ChatMessage, ...]
    injected: bool
    section: str
    reason: str
    block_tokens: int


class MemoryInjector:
    """Applies an agent's memory to the messages of one model call."""

    def __init__(self, memory: MemoryClient, timeout_s: float) -> None:
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
        """Ask memoryd for the messages with memory applied; proceed without memory on any failure."""
        timeout_s = self._timeout_s if remaining_s is None else max(0.05, min(self._timeout_s, remaining_s))
        try:
            got = self._memory.inject_memory(
                agent_id,
                messages,
                conversation_id=conversation_id,
                model_context_tokens=model_context_tokens,
                timeout_s=timeout_s,
            )
        except ServiceError as error:
            return self._without_memory(messages, error)
        self._last_failure = ""
        return Injected(got.messages, got.injected, got.section, got.reason, got.block_tokens)

    def _without_memory(self, messages: tuple[ChatMessage, ...], error: ServiceError) -> Injected:
        """Proceed without memory; warn once per distinct failure so a down memoryd does not flood the log."""
        failure = f"{type(error).__name__} {error.reason}"
        level = logging.DEBUG if failure == self._last_failure else logging.WARNING
        self._last_failure = failure
        _log.log(level, "memory injection skipped: %s", failure)
        return Injected(messages, False, "unspecified", f"memory_unavailable:{error.reason}", 0)
