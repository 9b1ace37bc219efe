"""POST /agents/{id}/run: the composed agent surface (memory injected, turn recorded) over plugin_host's RunAgent.

A streamed run (`"stream": true` or Accept: text/event-stream) goes over plugin_host's RunAgentStream: one
`delta` event per model delta as it is generated, then a `done` event with the whole response (the reply joined,
the memory trace, usage); a failure after the first event is an `error` event with the JSON error body.

A run naming a tenant (X-Osaurus-Tenant) goes to plugin_host with x-osaurus-tenant (gateway.tenant), which injects
that tenant's memory and records the turn in it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
from fastapi import APIRouter, Header, Request
from starlette.responses import StreamingResponse

from gateway import sse
from gateway.errors import GatewayError, error_body, from_aio_error
from gateway.routes_memory import ERRORS, clients_of
from gateway.routes_openai import canonical_agent_id
from gateway.schemas import MemoryTrace, RunRequest, RunResponse, RunUsage
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb

router = APIRouter(responses=ERRORS, tags=["agents"])
_ROLES = {"system": mpb.ROLE_SYSTEM, "user": mpb.ROLE_USER, "assistant": mpb.ROLE_ASSISTANT}


@router.post(
    "/agents/{agent_id}/run",
    response_model=RunResponse,
    summary="Run one agent turn with memory (JSON, or SSE when streaming)",
    responses={
        200: {
            "content": {sse.MEDIA_TYPE: {}},
            "description": "JSON, or `delta` events then `done` (or `error`)",
        }
    },
)
async def run_agent(
    agent_id: str,
    body: RunRequest,
    request: Request,
    accept: str | None = Header(None),
) -> RunResponse | StreamingResponse:
    """Relevance gate and memory injection, one inference call, and recording of the turn (plugin_host)."""
    clients = clients_of(request)
    messages = [mpb.ChatMessage(role=_ROLES[m.role], content=m.content) for m in body.messages]
    options = ppb.GenerationOptions(
        max_tokens=body.max_tokens,
        temperature=body.temperature,
        model=body.model,
        model_context_tokens=body.model_context_tokens,
    )
    if sse.wants_stream(body.stream, accept):
        call = clients.plugins.RunAgentStream(
            ppb.RunAgentStreamRequest(
                agent_id=agent_id, conversation_id=body.conversation_id, messages=messages, options=options
            ),
            timeout=clients.deadlines.inference_s,
        )
        # Read the first event before answering, so that bad input or an unknown model is an HTTP error with its
        # status rather than an error inside a 200 stream.
        try:
            first = await call.read()
        except BaseException:
            call.cancel()
            raise
        return sse.streaming(_events(call, first, agent_id, body.conversation_id))
    reply = await clients.plugins.RunAgent(
        ppb.RunAgentRequest(
            agent_id=agent_id, conversation_id=body.conversation_id, messages=messages, options=options
        ),
        timeout=clients.deadlines.inference_s,
    )
    return _result(agent_id, body.conversation_id, reply.reply, reply)


def _result(
    agent_id: str,
    conversation_id: str,
    text: str,
    final: ppb.RunAgentResponse | ppb.RunAgentStreamResponse,
) -> RunResponse:
    """The whole response, from RunAgent's reply or RunAgentStream's final event (and the joined deltas)."""
    trace = final.memory
    return RunResponse(
        agent_id=canonical_agent_id(agent_id),
        conversation_id=conversation_id,
        reply=text,
        memory=MemoryTrace(
            injected=trace.injected,
            section=mpb.Section.Name(trace.section).removeprefix("SECTION_").lower(),
            reason=trace.reason,
            block_tokens=trace.block_tokens,
            recorded=trace.recorded,
        ),
        usage=RunUsage(
            prompt_tokens=final.prompt_tokens,
            completion_tokens=final.completion_tokens,
            total_tokens=final.prompt_tokens + final.completion_tokens,
        ),
    )


async def _events(call: Any, first: Any, agent_id: str, conversation_id: str) -> AsyncIterator[bytes]:
    """One `delta` event per model delta as plugin_host streams it, then `done` with the whole response; a failure
    after the headers went out is an `error` event (the error body) and the end of the stream."""
    parts: list[str] = []
    event = first
    try:
        while event is not grpc.aio.EOF:
            if event.done:
                yield sse.event(
                    _result(agent_id, conversation_id, "".join(parts), event).model_dump(), "done"
                )
                return
            if event.delta:
                parts.append(event.delta)
                yield sse.event({"delta": event.delta}, "delta")
            event = await call.read()
        error = GatewayError(
            grpc.StatusCode.UNAVAILABLE, "STREAM_ENDED_EARLY", "the agent run ended without its final event"
        )
        yield sse.event(error_body(error), "error")
    except grpc.aio.AioRpcError as failure:
        yield sse.event(error_body(from_aio_error(failure)), "error")
    finally:
        call.cancel()
