"""The backend protocols and the plain data types that cross between the service, the workers and backends."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Role = Literal["system", "user", "assistant"]
FinishReason = Literal["stop", "length", "cancelled"]
#: Called by a backend between tokens; True means stop now (cancelled, deadline passed, model unloading).
ShouldStop = Callable[[], bool]


class ModelCrashError(RuntimeError):
    """A backend failed while running a request (not the request's fault); the caller sees MODEL_CRASHED."""


class ModelLoadError(RuntimeError):
    """A model could not be loaded or converted; its status becomes FAILED with this message."""


class BackendRequestError(ValueError):
    """The request cannot be served by this model (prompt too long, bad schema); the caller sees INVALID_ARGUMENT.

    `reason` is the ErrorInfo reason and `field` the request field to blame.
    """

    def __init__(self, reason: str, message: str, field: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.field = field


@dataclass(frozen=True)
class ChatTurn:
    """One chat message."""

    role: Role
    content: str


@dataclass(frozen=True)
class SamplingParams:
    """Resolved sampling options (defaults already applied)."""

    max_tokens: int = 512
    temperature: float = 0.0
    top_p: float = 1.0
    stop: tuple[str, ...] = ()
    seed: int = 0


@dataclass(frozen=True)
class GenerateCall:
    """One generation request as a backend sees it; json_schema is the parsed schema or None."""

    messages: tuple[ChatTurn, ...]
    params: SamplingParams = field(default_factory=SamplingParams)
    json_schema: dict[str, Any] | None = None


@dataclass(frozen=True)
class TextDelta:
    """New text since the previous event."""

    text: str


@dataclass(frozen=True)
class Finished:
    """The last event of a generation."""

    finish_reason: FinishReason
    prompt_tokens: int
    completion_tokens: int


GenerationEvent = TextDelta | Finished


@dataclass(frozen=True)
class LoadedInfo:
    """What a loaded model reports about itself."""

    context_window_tokens: int = 0
    embedding_dimension: int = 0


@runtime_checkable
class LLMBackend(Protocol):
    """A loaded text-generation model. Called from one worker thread at a time."""

    def info(self) -> LoadedInfo:
        """Context window and friends."""
        ...

    def generate(self, call: GenerateCall, should_stop: ShouldStop) -> Iterator[GenerationEvent]:
        """Yield text deltas, then exactly one Finished. With a json_schema the full text validates."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token counts with the model's own tokenizer."""
        ...

    def close(self) -> None:
        """Free the model's memory."""
        ...


@runtime_checkable
class EmbeddingBackend(Protocol):
    """A loaded embedding model. Called from one worker thread at a time."""

    def info(self) -> LoadedInfo:
        """Dimension and window."""
        ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """(len(texts), dimension) float32, each row L2-normalised."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token counts with the model's own tokenizer."""
        ...

    def close(self) -> None:
        """Free the model's memory."""
        ...


Backend = LLMBackend | EmbeddingBackend
