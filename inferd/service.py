"""InferenceService servicer: validates requests, resolves models, queues work on their workers, maps to protobuf."""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

import grpc
import numpy as np
import numpy.typing as npt

from inferd.backends.base import (
    ChatTurn,
    EmbeddingBackend,
    Finished,
    GenerateCall,
    GenerationEvent,
    LLMBackend,
    Role,
    SamplingParams,
    TextDelta,
)
from inferd.jsonschema_lite import SchemaError, check_schema, validate
from inferd.registry import ModelRegistry, ModelSnapshot
from osaurus.inference.v1 import inference_pb2 as pb
from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.errors import UnavailableError
from servicekit.planned import planned_rpcs
from servicekit.validate import Violations

_log = logging.getLogger("inferd.service")

SERVICE_NAME = "osaurus.inference.v1.InferenceService"
#: Request metadata: tags the request in logs only (inferd never injects memory).
AGENT_ID_KEY = "x-osaurus-agent-id"
#: Request metadata "1"/"true": fail with FAILED_PRECONDITION / MODEL_NOT_RESIDENT instead of cold-loading.
ONLY_IF_RESIDENT_KEY = "x-osaurus-only-if-resident"

MAX_MESSAGES = 1024
MAX_MESSAGE_CHARS = 200_000
MAX_EMBED_TEXTS = 256
MAX_EMBED_CHARS = 50_000
MAX_COUNT_TEXTS = 1024
MAX_SCHEMA_CHARS = 100_000
MAX_STOP_SEQUENCES = 8
DEFAULT_MAX_TOKENS = 512

_ROLES: dict[int, Role] = {pb.ROLE_SYSTEM: "system", pb.ROLE_USER: "user", pb.ROLE_ASSISTANT: "assistant"}
_FINISH = {
    "stop": pb.FINISH_REASON_STOP,
    "length": pb.FINISH_REASON_LENGTH,
    "cancelled": pb.FINISH_REASON_CANCELLED,
}
_STATES = {
    "unloaded": pb.MODEL_STATE_UNLOADED,
    "loading": pb.MODEL_STATE_LOADING,
    "ready": pb.MODEL_STATE_READY,
    "failed": pb.MODEL_STATE_FAILED,
}
_KINDS = {"llm": pb.MODEL_KIND_LLM, "embedding": pb.MODEL_KIND_EMBEDDING}


@runtime_checkable
class InlineEmbedder(Protocol):
    """An embedding backend with a thread-safe path for single short texts (MlxEmbedder.embed_inline)."""

    def embed_inline(self, texts: Sequence[str]) -> npt.NDArray[np.float32] | None: ...


@planned_rpcs(pb_grpc.InferenceServiceServicer, SERVICE_NAME)
class InferenceService(pb_grpc.InferenceServiceServicer):
    """The gRPC face of inferd. Protobuf stops here: below it are plain dataclasses and arrays."""

    def __init__(self, registry: ModelRegistry, request_timeout_s: float) -> None:
        self._registry = registry
        self._request_timeout_s = request_timeout_s

    # -- generation -------------------------------------------------------------------------------------------

    def Generate(self, request: pb.GenerateRequest, context: grpc.ServicerContext) -> pb.GenerateResponse:
        name, call = self._generate_call(request)
        started = time.monotonic()
        parts: list[str] = []
        finished = Finished("stop", 0, 0)
        for event in self._run_generation(name, call, context, request.only_if_resident):
            if isinstance(event, TextDelta):
                parts.append(event.text)
            else:
                finished = event
        text = "".join(parts)
        _check_json(text, call.json_schema)
        duration_ms = int((time.monotonic() - started) * 1000)
        self._log_generation("Generate", name, context, finished, duration_ms)
        return pb.GenerateResponse(
            text=text,
            finish_reason=_FINISH[finished.finish_reason],
            usage=_usage(finished, duration_ms),
            model=name,
        )

    def GenerateStream(
        self, request: pb.GenerateStreamRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.GenerateStreamResponse]:
        name, call = self._generate_call(request)
        started = time.monotonic()
        parts: list[str] = []
        for event in self._run_generation(name, call, context, request.only_if_resident):
            if isinstance(event, TextDelta):
                if event.text:
                    parts.append(event.text)
                    yield pb.GenerateStreamResponse(delta=event.text, model=name)
                continue
            _check_json("".join(parts), call.json_schema)
            duration_ms = int((time.monotonic() - started) * 1000)
            self._log_generation("GenerateStream", name, context, event, duration_ms)
            yield pb.GenerateStreamResponse(
                finish_reason=_FINISH[event.finish_reason], usage=_usage(event, duration_ms), model=name
            )

    def _generate_call(
        self, request: pb.GenerateRequest | pb.GenerateStreamRequest
    ) -> tuple[str, GenerateCall]:
        with Violations() as v:
            v.require_id(request.model, "model", max_chars=128, reason="INVALID_MODEL_NAME", required=False)
            messages = _messages(v, request.messages)
            params = _params(v, request.options)
            schema = _schema(v, request.json_schema)
        name = self._registry.resolve(request.model, "llm")
        return name, GenerateCall(messages=messages, params=params, json_schema=schema)

    def _run_generation(
        self, name: str, call: GenerateCall, context: grpc.ServicerContext, only_if_resident: bool
    ) -> Iterator[GenerationEvent]:
        worker = self._registry.worker(name, only_if_resident=only_if_resident or _only_if_resident(context))
        backend = self._registry.backend(name)
        assert isinstance(backend, LLMBackend)
        job = worker.submit(lambda should_stop: backend.generate(call, should_stop), self._deadline(context))
        context.add_callback(lambda: worker.cancel(job))
        yield from job.results(is_active=context.is_active)

    # -- embeddings and tokens ---------------------------------------------------------------------------------

    def Embed(self, request: pb.EmbedRequest, context: grpc.ServicerContext) -> pb.EmbedResponse:
        with Violations() as v:
            v.require_id(request.model, "model", max_chars=128, reason="INVALID_MODEL_NAME", required=False)
            texts = _texts(v, request.texts, "texts", MAX_EMBED_TEXTS, MAX_EMBED_CHARS)
        name = self._registry.resolve(request.model, "embedding")
        resident_only = request.only_if_resident or _only_if_resident(context)
        worker = self._registry.worker(name, only_if_resident=resident_only)
        backend = self._registry.backend(name)
        assert isinstance(backend, EmbeddingBackend)
        started = time.monotonic()
        # A search query (one short text) runs right here when the backend can: it must not queue behind an
        # indexing batch, and its thread-safe path needs no model thread.
        vectors = backend.embed_inline(texts) if isinstance(backend, InlineEmbedder) else None
        if vectors is not None:
            worker.last_used_s = time.monotonic()  # keeps the idle unloader away from a model in use
        else:
            job = worker.submit(lambda _stop: [backend.embed(texts)], self._deadline(context))
            context.add_callback(lambda: worker.cancel(job))
            (vectors,) = list(job.results(is_active=context.is_active))
        _log.info(
            "Embed model=%s agent=%s texts=%d %.0fms",
            name, _agent(context), len(texts), (time.monotonic() - started) * 1000,
        )  # fmt: skip
        dimension = int(vectors.shape[1]) if vectors.ndim == 2 else 0
        return pb.EmbedResponse(
            embeddings=[pb.Embedding(values=row) for row in vectors.tolist()], dimension=dimension, model=name
        )

    def CountTokens(
        self, request: pb.CountTokensRequest, context: grpc.ServicerContext
    ) -> pb.CountTokensResponse:
        with Violations() as v:
            v.require_id(request.model, "model", max_chars=128, reason="INVALID_MODEL_NAME", required=False)
            texts = _texts(v, request.texts, "texts", MAX_COUNT_TEXTS, MAX_MESSAGE_CHARS, allow_empty=True)
        name = self._registry.resolve(request.model, "llm")
        self._registry.worker(name, only_if_resident=_only_if_resident(context))
        # Tokenizers are thread-safe; counting does not need to wait behind generations in the queue.
        counts = self._registry.backend(name).count_tokens(texts)
        return pb.CountTokensResponse(counts=counts, model=name)

    # -- residency --------------------------------------------------------------------------------------------

    def GetModelStatus(
        self, request: pb.GetModelStatusRequest, context: grpc.ServicerContext
    ) -> pb.GetModelStatusResponse:
        return pb.GetModelStatusResponse(models=[_status(s) for s in self._registry.snapshots()])

    def LoadModel(self, request: pb.LoadModelRequest, context: grpc.ServicerContext) -> pb.LoadModelResponse:
        with Violations() as v:
            v.require_id(request.model, "model", max_chars=128, reason="INVALID_MODEL_NAME")
        return pb.LoadModelResponse(status=_status(self._registry.load(request.model)))

    def UnloadModel(
        self, request: pb.UnloadModelRequest, context: grpc.ServicerContext
    ) -> pb.UnloadModelResponse:
        with Violations() as v:
            v.require_id(request.model, "model", max_chars=128, reason="INVALID_MODEL_NAME")
        return pb.UnloadModelResponse(status=_status(self._registry.unload(request.model)))

    # -- helpers ----------------------------------------------------------------------------------------------

    def _deadline(self, context: grpc.ServicerContext) -> float:
        remaining = context.time_remaining()
        budget = self._request_timeout_s if remaining is None else min(remaining, self._request_timeout_s)
        return time.monotonic() + budget

    def _log_generation(
        self, rpc: str, name: str, context: grpc.ServicerContext, finished: Finished, duration_ms: int
    ) -> None:
        _log.info(
            "%s model=%s agent=%s prompt_tokens=%d completion_tokens=%d finish=%s %dms",
            rpc, name, _agent(context), finished.prompt_tokens, finished.completion_tokens,
            finished.finish_reason, duration_ms,
        )  # fmt: skip


def _metadata(context: grpc.ServicerContext) -> dict[str, str]:
    return {str(k): str(v) for k, v in (context.invocation_metadata() or ())}


def _agent(context: grpc.ServicerContext) -> str:
    return _metadata(context).get(AGENT_ID_KEY, "-")[:128]


def _only_if_resident(context: grpc.ServicerContext) -> bool:
    """The request field's older spelling as metadata, still honoured for existing clients."""
    return _metadata(context).get(ONLY_IF_RESIDENT_KEY, "").lower() in ("1", "true", "yes")


def _messages(v: Violations, messages: Sequence[pb.ChatMessage]) -> tuple[ChatTurn, ...]:
    if not messages:
        v.add("messages", "is required (at least one message)", "MISSING_FIELD")
    elif len(messages) > MAX_MESSAGES:
        v.add(
            "messages", f"has {len(messages)} messages; at most {MAX_MESSAGES} allowed", "TOO_MANY_MESSAGES"
        )
    turns: list[ChatTurn] = []
    for i, message in enumerate(messages[:MAX_MESSAGES]):
        v.require_enum(message.role, pb.Role.DESCRIPTOR, f"messages[{i}].role", reason="INVALID_ROLE")
        v.require_text(message.content, f"messages[{i}].content", max_chars=MAX_MESSAGE_CHARS, required=False)
        turns.append(ChatTurn(_ROLES.get(message.role, "user"), message.content))
    return tuple(turns)


def _params(v: Violations, options: pb.GenerationOptions) -> SamplingParams:
    v.require_range(options.max_tokens, "options.max_tokens", 0, 8192, "OUT_OF_RANGE")
    v.require_range(options.temperature, "options.temperature", 0.0, 2.0, "OUT_OF_RANGE")
    v.require_range(options.top_p, "options.top_p", 0.0, 1.0, "OUT_OF_RANGE")
    if len(options.stop) > MAX_STOP_SEQUENCES:
        v.add(
            "options.stop", f"at most {MAX_STOP_SEQUENCES} stop sequences allowed", "TOO_MANY_STOP_SEQUENCES"
        )
    for i, stop in enumerate(options.stop[:MAX_STOP_SEQUENCES]):
        v.require_text(stop, f"options.stop[{i}]", max_chars=64)
    top_p = options.top_p if math.isfinite(options.top_p) and options.top_p > 0 else 1.0
    return SamplingParams(
        max_tokens=options.max_tokens or DEFAULT_MAX_TOKENS,
        temperature=options.temperature if math.isfinite(options.temperature) else 0.0,
        top_p=top_p,
        stop=tuple(s for s in options.stop if s),
        seed=options.seed,
    )


def _schema(v: Violations, text: str) -> dict[str, Any] | None:
    if not text:
        return None
    if len(text) > MAX_SCHEMA_CHARS:
        v.add(
            "json_schema", f"is {len(text)} characters; at most {MAX_SCHEMA_CHARS} allowed", "FIELD_TOO_LONG"
        )
        return None
    try:
        schema = json.loads(text)
        check_schema(schema)
    except json.JSONDecodeError as error:
        v.add("json_schema", f"is not valid JSON: {error.msg} at position {error.pos}", "INVALID_JSON_SCHEMA")
        return None
    except SchemaError as error:
        v.add("json_schema", str(error), "INVALID_JSON_SCHEMA")
        return None
    return dict(schema)


def _texts(
    v: Violations, texts: Sequence[str], field: str, max_count: int, max_chars: int, allow_empty: bool = False
) -> list[str]:
    if not texts:
        v.add(field, "is required (at least one text)", "MISSING_FIELD")
    elif len(texts) > max_count:
        v.add(field, f"has {len(texts)} texts; at most {max_count} allowed", "TOO_MANY_TEXTS")
    for i, text in enumerate(texts[:max_count]):
        v.require_text(text, f"{field}[{i}]", max_chars=max_chars, required=not allow_empty)
    return list(texts)


def _check_json(text: str, schema: dict[str, Any] | None) -> None:
    """The service's promise: with a schema, the text parses and validates, or the caller gets an error."""
    if schema is None:
        return
    try:
        errors = validate(json.loads(text), schema)
    except json.JSONDecodeError:
        errors = ["not parseable JSON"]
    if errors:
        _log.warning("model output failed its JSON schema (%d problems)", len(errors))
        raise UnavailableError("INVALID_MODEL_OUTPUT", "the model's output did not satisfy the JSON schema")


def _usage(finished: Finished, duration_ms: int) -> pb.Usage:
    return pb.Usage(
        prompt_tokens=finished.prompt_tokens,
        completion_tokens=finished.completion_tokens,
        duration_ms=duration_ms,
    )


def _status(snapshot: ModelSnapshot) -> pb.ModelStatus:
    return pb.ModelStatus(
        name=snapshot.spec.name,
        kind=_KINDS[snapshot.spec.kind],
        state=_STATES[snapshot.state],
        backend=snapshot.spec.backend,
        queue_depth=snapshot.queue_depth,
        queue_capacity=snapshot.spec.queue_capacity,
        context_window_tokens=snapshot.info.context_window_tokens,
        embedding_dimension=snapshot.info.embedding_dimension,
        error=snapshot.error,
        is_default=snapshot.is_default,
    )
