"""OpenAI-compatible routes over inferd: /v1/chat/completions (strict: never injects memory), /v1/models,
/v1/embeddings. Shapes follow OpenAI's API so the official `openai` package works unchanged.

X-Osaurus-Agent-Id only tags the request: it is passed to inferd as x-osaurus-agent-id metadata (inferd's logs)
and echoed back; it never switches memory injection on. Memory is added only by POST /agents/{id}/run.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import numpy as np
from fastapi import APIRouter, Header, Request, Response
from starlette.responses import StreamingResponse

from gateway import sse
from gateway.errors import GatewayError, error_body, from_aio_error, invalid
from gateway.routes_memory import ERRORS, clients_of
from gateway.schemas import (
    ChatCompletion,
    ChatCompletionChoice,
    ChatCompletionMessage,
    ChatCompletionRequest,
    ChatMessageIn,
    CompletionUsage,
    EmbeddingItem,
    EmbeddingList,
    EmbeddingRequest,
    ModelCard,
    ModelList,
)
from osaurus.inference.v1 import inference_pb2 as ipb
from servicekit.validate import Violations

router = APIRouter(prefix="/v1", responses=ERRORS, tags=["openai"])
AGENT_HEADER = "X-Osaurus-Agent-Id"
_AGENT_METADATA_KEY = "x-osaurus-agent-id"
_ROLES = {"system": ipb.ROLE_SYSTEM, "developer": ipb.ROLE_SYSTEM, "user": ipb.ROLE_USER,
          "assistant": ipb.ROLE_ASSISTANT}  # fmt: skip
_FINISH = {ipb.FINISH_REASON_STOP: "stop", ipb.FINISH_REASON_LENGTH: "length",
           ipb.FINISH_REASON_CANCELLED: "stop", ipb.FINISH_REASON_UNSPECIFIED: "stop"}  # fmt: skip
_KINDS = {ipb.MODEL_KIND_LLM: "llm", ipb.MODEL_KIND_EMBEDDING: "embedding"}
_STATES = {ipb.MODEL_STATE_UNLOADED: "unloaded", ipb.MODEL_STATE_LOADING: "loading",
           ipb.MODEL_STATE_READY: "ready", ipb.MODEL_STATE_FAILED: "failed"}  # fmt: skip


def canonical_agent_id(agent_id: str) -> str:
    """An agent id as memoryd stores it (UUIDs upper-cased); memoryd itself rejects malformed ids."""
    return Violations().require_id(agent_id, "agent_id", max_chars=128, reason="INVALID_AGENT_ID")


def agent_metadata(agent_header: str | None) -> tuple[tuple[str, str], ...]:
    """The X-Osaurus-Agent-Id tag as inferd metadata (validated like an agent id, UUIDs upper-cased)."""
    if agent_header is None:
        return ()
    with Violations() as violations:
        agent_id = violations.require_id(agent_header, AGENT_HEADER, max_chars=128, reason="INVALID_AGENT_ID")
    return ((_AGENT_METADATA_KEY, agent_id),)


def _text(message: ChatMessageIn, index: int) -> str:
    """A message's text: a string, or the text parts of a content list (other parts are refused)."""
    content = message.content
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for part in content:
        if part.get("type") != "text" or not isinstance(part.get("text"), str):
            raise invalid(
                "UNSUPPORTED_CONTENT", f"messages[{index}].content", "only text content parts are supported"
            )
        texts.append(part["text"])
    return "".join(texts)


def _messages(body: ChatCompletionRequest) -> list[ipb.ChatMessage]:
    if not body.messages:
        raise invalid("MISSING_FIELD", "messages", "at least one message is required")
    out: list[ipb.ChatMessage] = []
    for index, message in enumerate(body.messages):
        role = _ROLES.get(message.role)
        if role is None:
            raise invalid(
                "UNSUPPORTED_ROLE",
                f"messages[{index}].role",
                "must be system, developer, user or assistant (tool calls are not supported)",
            )
        out.append(ipb.ChatMessage(role=role, content=_text(message, index)))
    return out


def _options(body: ChatCompletionRequest) -> ipb.GenerationOptions:
    if body.n not in (None, 1):
        raise invalid("UNSUPPORTED_N", "n", "only n=1 is supported")
    if body.tools:
        raise invalid("TOOLS_UNSUPPORTED", "tools", "tool calling is not supported by this endpoint")
    stop = [body.stop] if isinstance(body.stop, str) else list(body.stop or [])
    return ipb.GenerationOptions(
        max_tokens=body.max_completion_tokens or body.max_tokens or 0,
        temperature=body.temperature or 0.0,
        top_p=body.top_p or 0.0,
        stop=stop,
        seed=body.seed or 0,
    )


def _json_schema(body: ChatCompletionRequest) -> str:
    """response_format json_schema as inferd's json_schema text (constrained decoding); text otherwise."""
    fmt = body.response_format or {}
    kind = fmt.get("type", "text")
    if kind == "text":
        return ""
    if kind == "json_schema" and isinstance(fmt.get("json_schema"), dict) and "schema" in fmt["json_schema"]:
        return json.dumps(fmt["json_schema"]["schema"])
    if kind == "json_object":
        return '{"type": "object"}'
    raise invalid(
        "UNSUPPORTED_RESPONSE_FORMAT", "response_format", "must be text, json_object or json_schema"
    )


@router.post(
    "/chat/completions",
    response_model=ChatCompletion,
    summary="Chat completion (strict: no memory injected)",
    responses={200: {"content": {sse.MEDIA_TYPE: {}}, "description": "JSON, or chunks as SSE with stream"}},
)
async def chat_completions(
    body: ChatCompletionRequest,
    request: Request,
    response: Response,
    x_osaurus_agent_id: str | None = Header(None, description="Tags the request with an agent; no memory."),
) -> ChatCompletion | StreamingResponse:
    """inferd's Generate (or GenerateStream with `"stream": true`), OpenAI's chat.completion shapes."""
    clients = clients_of(request)
    metadata = agent_metadata(x_osaurus_agent_id)
    messages, options, schema = _messages(body), _options(body), _json_schema(body)
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())
    headers = {AGENT_HEADER: metadata[0][1]} if metadata else {}
    if body.stream:
        call = clients.inference.GenerateStream(
            ipb.GenerateStreamRequest(
                model=body.model, messages=messages, options=options, json_schema=schema
            ),
            timeout=clients.deadlines.inference_s,
            metadata=metadata,
        )
        # Read the first event before answering, so that an unknown model or a full queue is an HTTP error
        # with its status rather than an error inside a 200 stream.
        first = await call.read()
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        streaming = sse.streaming(_chunks(call, first, completion_id, created, body.model, include_usage))
        streaming.headers.update(headers)
        return streaming
    reply = await clients.inference.Generate(
        ipb.GenerateRequest(model=body.model, messages=messages, options=options, json_schema=schema),
        timeout=clients.deadlines.inference_s,
        metadata=metadata,
    )
    response.headers.update(headers)
    usage = reply.usage
    return ChatCompletion(
        id=completion_id,
        created=created,
        model=reply.model or body.model,
        choices=[
            ChatCompletionChoice(
                index=0,
                message=ChatCompletionMessage(content=reply.text),
                finish_reason=_FINISH.get(reply.finish_reason, "stop"),
            )
        ],
        usage=CompletionUsage(
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            total_tokens=usage.prompt_tokens + usage.completion_tokens,
        ),
    )


async def _chunks(
    call: Any, first: Any, completion_id: str, created: int, requested_model: str, include_usage: bool
) -> AsyncIterator[bytes]:
    """chat.completion.chunk events: the role, the deltas, the finish reason, usage if asked, then [DONE]."""
    model = requested_model if first is grpc.aio.EOF else first.model or requested_model

    def chunk(delta: dict[str, str], finish: str | None) -> dict[str, Any]:
        return {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}  # fmt: skip

    event = first
    try:
        yield sse.event(chunk({"role": "assistant", "content": ""}, None))
        while event is not grpc.aio.EOF:
            model = event.model or model
            if event.delta:
                yield sse.event(chunk({"content": event.delta}, None))
            if event.HasField("usage") or event.finish_reason:
                yield sse.event(chunk({}, _FINISH.get(event.finish_reason, "stop")))
                if include_usage:
                    usage = event.usage
                    yield sse.event(
                        {
                            "id": completion_id,
                            "object": "chat.completion.chunk",
                            "created": created,
                            "model": model,
                            "choices": [],
                            "usage": {
                                "prompt_tokens": usage.prompt_tokens,
                                "completion_tokens": usage.completion_tokens,
                                "total_tokens": usage.prompt_tokens + usage.completion_tokens,
                            },
                        }
                    )
            event = await call.read()
    except grpc.aio.AioRpcError as error:
        # Headers are sent: report the failure in the stream, as OpenAI does ({"error": …} then the end).
        yield sse.event(error_body(from_aio_error(error)))
    finally:
        call.cancel()
    yield sse.event("[DONE]")


@router.get("/models", response_model=ModelList, summary="List models")
async def list_models(request: Request) -> ModelList:
    """inferd's configured models (GetModelStatus) in OpenAI's list shape, plus kind, state and backend."""
    clients = clients_of(request)
    reply = await clients.inference.GetModelStatus(
        ipb.GetModelStatusRequest(), timeout=clients.deadlines.quick_s
    )
    return ModelList(data=[_card(m) for m in reply.models])


@router.get("/models/{model_id}", response_model=ModelCard, summary="Get one model")
async def get_model(model_id: str, request: Request) -> ModelCard:
    """One configured model; 404 MODEL_NOT_FOUND when unknown."""
    clients = clients_of(request)
    reply = await clients.inference.GetModelStatus(
        ipb.GetModelStatusRequest(), timeout=clients.deadlines.quick_s
    )
    for model in reply.models:
        if model.name == model_id:
            return _card(model)
    raise GatewayError(
        grpc.StatusCode.NOT_FOUND,
        "MODEL_NOT_FOUND",
        "no model with that name",
        domain="inference.osaurus.dev",
    )


def _card(m: ipb.ModelStatus) -> ModelCard:
    return ModelCard(
        id=m.name,
        kind=_KINDS.get(m.kind, "unspecified"),
        state=_STATES.get(m.state, "unspecified"),
        backend=m.backend,
        context_window_tokens=m.context_window_tokens,
        embedding_dimension=m.embedding_dimension,
        is_default=m.is_default,
    )


@router.post("/embeddings", response_model=EmbeddingList, summary="Embed texts")
async def embeddings(
    body: EmbeddingRequest,
    request: Request,
    x_osaurus_agent_id: str | None = Header(None, description="Tags the request with an agent."),
) -> EmbeddingList:
    """inferd's Embed: one L2-normalised vector per input text (float list, or base64 float32 as OpenAI)."""
    clients = clients_of(request)
    metadata = agent_metadata(x_osaurus_agent_id)
    texts = [body.input] if isinstance(body.input, str) else body.input
    if not texts:
        raise invalid("MISSING_FIELD", "input", "at least one text is required")
    strings = [t for t in texts if isinstance(t, str)]
    if len(strings) != len(texts):
        raise invalid("UNSUPPORTED_INPUT", "input", "token arrays are not supported; send text")
    reply = await clients.inference.Embed(
        ipb.EmbedRequest(model=body.model, texts=strings),
        timeout=clients.deadlines.inference_s,
        metadata=metadata,
    )
    if body.dimensions is not None and body.dimensions != reply.dimension:
        raise invalid(
            "UNSUPPORTED_DIMENSIONS", "dimensions", f"this model's vectors have {reply.dimension} dimensions"
        )
    items: list[EmbeddingItem] = []
    for index, vector in enumerate(reply.embeddings):
        if body.encoding_format == "base64":
            raw = np.asarray(vector.values, dtype="<f4").tobytes()
            items.append(EmbeddingItem(index=index, embedding=base64.b64encode(raw).decode()))
        else:
            items.append(EmbeddingItem(index=index, embedding=list(vector.values)))
    return EmbeddingList(data=items, model=reply.model or body.model)
