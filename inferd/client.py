"""Typed client for inferd: generation, embeddings and token counts, with deadlines and typed errors."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import grpc
import numpy as np
import numpy.typing as npt

from osaurus.inference.v1 import inference_pb2 as pb
from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.channel import make_channel, typed_errors

_ROLES = {"system": pb.ROLE_SYSTEM, "user": pb.ROLE_USER, "assistant": pb.ROLE_ASSISTANT}
#: Request metadata understood by inferd (see inferd/service.py).
AGENT_ID_KEY = "x-osaurus-agent-id"

_FINISH = {
    pb.FINISH_REASON_STOP: "stop",
    pb.FINISH_REASON_LENGTH: "length",
    pb.FINISH_REASON_CANCELLED: "cancelled",
}


@dataclass(frozen=True)
class Message:
    """One chat message: role is "system", "user" or "assistant"."""

    role: str
    content: str


@dataclass(frozen=True)
class Generation:
    """A complete reply."""

    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    model: str
    duration_ms: int = 0


@dataclass(frozen=True)
class Embeddings:
    """L2-normalised vectors, one row per input text."""

    vectors: npt.NDArray[np.float32]
    model: str
    dimension: int


@dataclass(frozen=True)
class ModelInfo:
    """One configured model as inferd reports it."""

    name: str
    kind: str
    state: str
    backend: str
    context_window_tokens: int
    embedding_dimension: int
    is_default: bool
    error: str = ""
    queue_depth: int = 0
    queue_capacity: int = 0


@dataclass(frozen=True)
class GenerateOptions:
    """Sampling options; zero values mean the model's defaults."""

    max_tokens: int = 0
    temperature: float = 0.0
    top_p: float = 0.0
    stop: Sequence[str] = field(default_factory=tuple)
    seed: int = 0


class InferenceClient:
    """Talks to inferd. Every method raises servicekit.errors.ServiceError subclasses, never grpc.RpcError."""

    def __init__(
        self,
        target: str,
        *,
        deadline_s: float = 30.0,
        token: str | None = None,
        credentials: grpc.ChannelCredentials | None = None,
    ) -> None:
        self._channel = make_channel(target, deadline_s=deadline_s, token=token, credentials=credentials)
        self._stub = pb_grpc.InferenceServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def generate(
        self,
        messages: Sequence[Message],
        *,
        model: str = "",
        json_schema: str = "",
        options: GenerateOptions | None = None,
        timeout_s: float | None = None,
        only_if_resident: bool = False,
        agent_id: str = "",
    ) -> Generation:
        """One complete reply; with json_schema the text is JSON that validates against it.

        only_if_resident: fail with FailedPreconditionError (reason MODEL_NOT_RESIDENT) instead of cold-loading.
        agent_id: tags the request in inferd's logs only.
        """
        request = pb.GenerateRequest(
            model=model,
            messages=_messages(messages),
            options=_options(options),
            json_schema=json_schema,
            only_if_resident=only_if_resident,
        )
        with typed_errors():
            reply = self._stub.Generate(request, timeout=timeout_s, metadata=_metadata(agent_id))
        return Generation(
            text=reply.text,
            finish_reason=_FINISH.get(reply.finish_reason, "unspecified"),
            prompt_tokens=reply.usage.prompt_tokens,
            completion_tokens=reply.usage.completion_tokens,
            model=reply.model,
            duration_ms=reply.usage.duration_ms,
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        model: str = "",
        json_schema: str = "",
        options: GenerateOptions | None = None,
        timeout_s: float | None = None,
        only_if_resident: bool = False,
        agent_id: str = "",
    ) -> Iterator[pb.GenerateStreamResponse]:
        """Stream events: text deltas, then a final event carrying usage and the finish reason."""
        request = pb.GenerateStreamRequest(
            model=model,
            messages=_messages(messages),
            options=_options(options),
            json_schema=json_schema,
            only_if_resident=only_if_resident,
        )
        with typed_errors():
            yield from self._stub.GenerateStream(request, timeout=timeout_s, metadata=_metadata(agent_id))

    def embed(
        self,
        texts: Sequence[str],
        *,
        model: str = "",
        timeout_s: float | None = None,
        only_if_resident: bool = False,
        agent_id: str = "",
    ) -> Embeddings:
        """Embed texts; returns an (n, dimension) float32 array."""
        with typed_errors():
            reply = self._stub.Embed(
                pb.EmbedRequest(model=model, texts=list(texts), only_if_resident=only_if_resident),
                timeout=timeout_s,
                metadata=_metadata(agent_id),
            )
        if reply.embeddings:
            vectors = np.asarray([list(e.values) for e in reply.embeddings], dtype=np.float32)
        else:
            vectors = np.zeros((0, reply.dimension), dtype=np.float32)
        return Embeddings(vectors=vectors, model=reply.model, dimension=reply.dimension)

    def count_tokens(
        self, texts: Sequence[str], *, model: str = "", timeout_s: float | None = None
    ) -> list[int]:
        """Token counts by the model's own tokenizer."""
        return self.count_tokens_of(texts, model=model, timeout_s=timeout_s)[0]

    def count_tokens_of(
        self,
        texts: Sequence[str],
        *,
        model: str = "",
        timeout_s: float | None = None,
        only_if_resident: bool = False,
    ) -> tuple[list[int], str]:
        """Token counts by the model's own tokenizer, and the model that counted (`model` resolved by inferd).

        only_if_resident: fail with FailedPreconditionError (reason MODEL_NOT_RESIDENT) instead of cold-loading.
        """
        metadata = [(ONLY_IF_RESIDENT_KEY, "1")] if only_if_resident else []
        with typed_errors():
            reply = self._stub.CountTokens(
                pb.CountTokensRequest(model=model, texts=list(texts)), timeout=timeout_s, metadata=metadata
            )
        return list(reply.counts), reply.model

    def models(self, *, timeout_s: float | None = None) -> list[ModelInfo]:
        """Every configured model and its state."""
        with typed_errors():
            reply = self._stub.GetModelStatus(pb.GetModelStatusRequest(), timeout=timeout_s)
        return [_model_info(m) for m in reply.models]

    def load_model(self, model: str, *, timeout_s: float | None = None) -> ModelInfo:
        """Load (converting a GGUF once if needed) so the next call does not pay the cold load."""
        with typed_errors():
            reply = self._stub.LoadModel(pb.LoadModelRequest(model=model), timeout=timeout_s)
        return _model_info(reply.status)

    def unload_model(self, model: str, *, timeout_s: float | None = None) -> ModelInfo:
        """Free a loaded model; its queued requests fail with UnavailableError (MODEL_UNLOADED)."""
        with typed_errors():
            reply = self._stub.UnloadModel(pb.UnloadModelRequest(model=model), timeout=timeout_s)
        return _model_info(reply.status)


def _model_info(m: pb.ModelStatus) -> ModelInfo:
    return ModelInfo(
        name=m.name,
        kind=pb.ModelKind.Name(m.kind).removeprefix("MODEL_KIND_").lower(),
        state=pb.ModelState.Name(m.state).removeprefix("MODEL_STATE_").lower(),
        backend=m.backend,
        context_window_tokens=m.context_window_tokens,
        embedding_dimension=m.embedding_dimension,
        is_default=m.is_default,
        error=m.error,
        queue_depth=m.queue_depth,
        queue_capacity=m.queue_capacity,
    )


#: Request metadata asking inferd not to cold-load the model (CountTokens has no request field for it).
ONLY_IF_RESIDENT_KEY = "x-osaurus-only-if-resident"


def _metadata(agent_id: str) -> list[tuple[str, str]]:
    return [(AGENT_ID_KEY, agent_id)] if agent_id else []


def _messages(messages: Sequence[Message]) -> list[pb.ChatMessage]:
    return [pb.ChatMessage(role=_ROLES[m.role], content=m.content) for m in messages]


def _options(options: GenerateOptions | None) -> pb.GenerationOptions:
    o = options or GenerateOptions()
    return pb.GenerationOptions(
        max_tokens=o.max_tokens, temperature=o.temperature, top_p=o.top_p, stop=list(o.stop), seed=o.seed
    )


__all__ = ["Embeddings", "GenerateOptions", "Generation", "InferenceClient", "Message", "ModelInfo"]
