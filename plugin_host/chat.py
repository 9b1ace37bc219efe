"""Chat dataclasses the host passes between its layers: messages (memoryd.client's), model options, traces, turns."""

from __future__ import annotations

from dataclasses import dataclass, field

# Messages are memoryd.client's own type: InjectMemory takes and returns them, so they reach inferd unconverted.
from memoryd.client import Attachment, ChatMessage

#: Roles of a chat message.
ROLES = ("system", "user", "assistant", "tool")
#: Sections memoryd's planner can choose.
SECTIONS = ("unspecified", "none", "identity", "pinned", "episodes", "transcript")


@dataclass(frozen=True)
class ModelOptions:
    """Model call options; zero values mean defaults."""

    max_tokens: int = 0
    temperature: float = 0.0
    model: str = ""
    model_context_tokens: int = 0
    """Context window of the model; 0 asks inferd."""


@dataclass(frozen=True)
class MemoryTrace:
    """What memory did for one model call."""

    injected: bool = False
    section: str = "unspecified"
    reason: str = ""
    block_tokens: int = 0
    recorded: bool = False


@dataclass(frozen=True)
class TurnRequest:
    """One composed model call: for an agent and conversation, the chat ending with the user's message."""

    agent_id: str
    conversation_id: str
    messages: tuple[ChatMessage, ...]
    options: ModelOptions = field(default_factory=ModelOptions)
    json_schema: str = ""
    #: Whether the exchange is recorded with BufferTurn (resolved from the request's `record` and json_schema).
    record: bool = True
    #: Whose memory is injected and records the turn (servicekit.tenancy; "default" is the default tenant).
    tenant: str = "default"


@dataclass(frozen=True)
class TurnResult:
    """The reply of a composed model call."""

    text: str
    memory: MemoryTrace
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class TurnEvent:
    """One event of a streamed turn: a delta, or (done=True) the final trace."""

    delta: str = ""
    done: bool = False
    memory: MemoryTrace | None = None
    #: Token counts of the model call; in the final event only.
    prompt_tokens: int = 0
    completion_tokens: int = 0


def latest_user_index(messages: tuple[ChatMessage, ...] | list[ChatMessage]) -> int | None:
    """Index of the last user message, or None."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return index
    return None


__all__ = [
    "ROLES",
    "SECTIONS",
    "Attachment",
    "ChatMessage",
    "MemoryTrace",
    "ModelOptions",
    "TurnEvent",
    "TurnRequest",
    "TurnResult",
    "latest_user_index",
]
