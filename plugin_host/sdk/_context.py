"""Context: what a command receives to call the model and search memory on its agent's behalf."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from plugin_host.sdk._types import Completion, CompletionStream, GenerationOptions, MemoryHit, Message, Scope

#: What ctx.complete() and ctx.stream() accept as the chat: a list of messages or one user message as text.
Chat = str | Sequence[Message]


class Context(ABC):
    """The per-call handle a command gets. The host implements it; tests can use plugin_host.sdk.testing.

    Every call acts for `agent_id` unless another agent is named, and that agent must be granted to the plugin.
    """

    def __init__(self, *, agent_id: str, conversation_id: str, plugin_name: str, data_dir: Path) -> None:
        self._agent_id = agent_id
        self._conversation_id = conversation_id
        self._plugin_name = plugin_name
        self._data_dir = data_dir

    @property
    def agent_id(self) -> str:
        """The agent this invocation acts for."""
        return self._agent_id

    @property
    def conversation_id(self) -> str:
        """The conversation this invocation belongs to."""
        return self._conversation_id

    @property
    def plugin_name(self) -> str:
        """This plugin's name."""
        return self._plugin_name

    @property
    def data_dir(self) -> Path:
        """A private directory the plugin may write to; it survives restarts."""
        return self._data_dir

    @property
    def logger(self) -> logging.Logger:
        """A logger whose records go to the plugin's log file (never log memory content at INFO)."""
        return logging.getLogger(f"plugin.{self.plugin_name}")

    @property
    def time_remaining_s(self) -> float | None:
        """Seconds left before the host gives up on this invocation, if it set a deadline."""
        return None

    @abstractmethod
    def complete(
        self,
        messages: Chat,
        *,
        options: GenerationOptions | None = None,
        json_schema: Mapping[str, Any] | str | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        timeout_s: float | None = None,
        record: bool | None = None,
    ) -> Completion:
        """Ask the model for one reply, with the agent's memory injected and the turn recorded.

        The host runs the relevance gate for the latest user message, prepends the memory block to it, calls the
        model, and records (user message, reply) in the agent's memory. Needs the `inference` permission.

        `record` None (the default) records a plain chat call and does NOT record a call with `json_schema` (an
        internal utility call: a title, a classification — not something the user said); True or False says.

        Raises PermissionDeniedError, UnavailableError or HostError.
        """

    @abstractmethod
    def stream(
        self,
        messages: Chat,
        *,
        options: GenerationOptions | None = None,
        agent_id: str | None = None,
        conversation_id: str | None = None,
        timeout_s: float | None = None,
        record: bool | None = None,
    ) -> CompletionStream:
        """As complete(), with the reply streamed as text deltas (recorded unless `record=False`). Needs the
        `inference` permission."""

    @abstractmethod
    def search_memory(
        self,
        scope: Scope | str,
        query: str,
        *,
        limit: int = 10,
        agent_id: str | None = None,
        timeout_s: float | None = None,
    ) -> list[MemoryHit]:
        """Search one memory layer of the agent, best hits first.

        Needs the `memory_search` permission AND the agent's Memory Recall setting; otherwise raises
        PermissionDeniedError (reason PERMISSION_NOT_GRANTED or MEMORY_RECALL_DISABLED).
        """


def as_messages(messages: Chat) -> list[Message]:
    """Turn ctx.complete()'s `messages` argument into a list of Message."""
    if isinstance(messages, str):
        return [Message.user(messages)]
    result = list(messages)
    for item in result:
        if not isinstance(item, Message):
            raise TypeError(f"messages must be Message objects, not {type(item).__name__}")
    return result
