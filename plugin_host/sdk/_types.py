"""Plain dataclasses and enums that plugins see: messages, options, completions, memory traces and hits."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class Permission(StrEnum):
    """A capability a plugin asks for in its manifest and an operator grants in config/plugins.json."""

    INFERENCE = "inference"
    """Model calls through ctx.complete() and ctx.stream()."""
    MEMORY_SEARCH = "memory_search"
    """Memory search through ctx.search_memory() (the agent must also enable Memory Recall)."""


class Scope(StrEnum):
    """The memory layer ctx.search_memory() searches."""

    PINNED = "pinned"
    """High-salience pinned facts."""
    EPISODES = "episodes"
    """Per-session digests."""
    TRANSCRIPT = "transcript"
    """Raw conversation excerpts."""


#: Roles a Message may have.
ROLES = ("system", "user", "assistant", "tool")


@dataclass(frozen=True)
class Message:
    """One chat message. `role` is "system", "user", "assistant" or "tool"."""

    role: str
    content: str

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {', '.join(ROLES)}, not {self.role!r}")

    @classmethod
    def user(cls, content: str) -> Message:
        """A message from the user."""
        return cls("user", content)

    @classmethod
    def system(cls, content: str) -> Message:
        """System instructions (memory is never injected here)."""
        return cls("system", content)

    @classmethod
    def assistant(cls, content: str) -> Message:
        """An earlier reply of the model."""
        return cls("assistant", content)


@dataclass(frozen=True)
class GenerationOptions:
    """Model call options; zero values mean the model's defaults."""

    max_tokens: int = 0
    """Maximum new tokens; 0 means the model's default."""
    temperature: float = 0.0
    """Sampling temperature; 0 is greedy."""
    model: str = ""
    """Model name; empty uses the default core model."""
    model_context_tokens: int = 0
    """Context window of the model in tokens; 0 asks inferd. Memory's budget is at most 10% of it (and
    memoryBudgetTokens); below 2,048 tokens no memory is injected (reason "context_too_small:<n>")."""


@dataclass(frozen=True)
class MemoryTrace:
    """What memory did for one model call."""

    injected: bool
    """Whether a memory block was prepended to the latest user message."""
    section: str
    """Section chosen: "none", "identity", "pinned", "episodes", "transcript" or "unspecified"."""
    reason: str
    """Why (for example "trigger:temporal", "memory_disabled", "memory_unavailable")."""
    block_tokens: int
    """Tokens in the injected block."""
    recorded: bool
    """Whether the turn was recorded in the agent's memory."""


@dataclass(frozen=True)
class Completion:
    """The reply of ctx.complete()."""

    text: str
    """The reply text (JSON text when a json_schema was given)."""
    memory: MemoryTrace
    """What memory did for the call."""


@dataclass(frozen=True)
class MemoryHit:
    """One result of ctx.search_memory()."""

    kind: str
    """One of "pinned_fact", "episode", "transcript_turn" or "identity_fact"."""
    id: str
    """Row id."""
    score: float
    """Relevance; higher is better, comparable only within one search."""
    text: str
    """The fact, the episode summary or the transcript excerpt."""
    conversation_id: str = ""
    """Conversation the row came from, when it has one."""
    occurred_at: datetime | None = None
    """When the row's content happened (UTC)."""
    role: str = ""
    """Author of a transcript turn; empty for other kinds."""
    salience: float = 0.0
    """Salience of a pinned fact or episode, in [0, 1]."""
    topics: tuple[str, ...] = field(default_factory=tuple)
    """Episode topics."""


class CompletionStream:
    """The reply of ctx.stream(): iterate to get text deltas; `.memory` is set once the stream ends.

    >>> stream = ctx.stream("Tell me a story")
    >>> for delta in stream:
    ...     print(delta, end="")
    >>> stream.memory.injected
    """

    def __init__(self, events: Iterator[tuple[str, MemoryTrace | None]], close: Callable[[], None]) -> None:
        self._events = events
        self._close = close
        self._parts: list[str] = []
        self.memory: MemoryTrace | None = None
        """The memory trace, available after the last delta."""

    def __iter__(self) -> Iterator[str]:
        try:
            for delta, memory in self._events:
                if memory is not None:
                    self.memory = memory
                if delta:
                    self._parts.append(delta)
                    yield delta
        finally:
            self._close()

    @property
    def text(self) -> str:
        """Everything received so far."""
        return "".join(self._parts)

    def collect(self) -> Completion:
        """Consume the rest of the stream and return it as one Completion."""
        for _ in self:
            pass
        memory = self.memory or MemoryTrace(False, "unspecified", "stream_incomplete", 0, False)
        return Completion(self.text, memory)
