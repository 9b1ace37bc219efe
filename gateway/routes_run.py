"""POST /agents/{id}/run: the composed agent surface (memory injected, turn recorded) over plugin_host's RunAgent.

plugin_host's RunAgent is unary, so a streamed run (`"stream": true` or Accept: text/event-stream) sends the
reply as one `delta` event once the model has answered, then a `done` event with the whole response; clients
written against the event stream keep working when a streaming RunAgent arrives.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import APIRouter, Header, Request
from starlette.responses import StreamingResponse

from gateway import sse
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
    responses={200: {"content": {sse.MEDIA_TYPE: {}}, "description": "JSON, or `delta` then `done` events"}},
)
async def run_agent(
    agent_id: str,
    body: RunRequest,
    request: Request,
    accept: str | None = Header(None),
) -> RunResponse | StreamingResponse:
    """Relevance gate and memory injection, one inference call, and recording of the turn (plugin_host)."""
    clients = clients_of(request)
    message = ppb.RunAgentRequest(
        agent_id=agent_id,
        conversation_id=body.conversation_id,
        messages=[mpb.ChatMessage(role=_ROLES[m.role], content=m.content) for m in body.messages],
        options=ppb.GenerationOptions(
            max_tokens=body.max_tokens,
            temperature=body.temperature,
            model=body.model,
            model_context_tokens=body.model_context_tokens,
        ),
    )
    reply = await clients.plugins.RunAgent(message, timeout=clients.deadlines.inference_s)
    trace = reply.memory
    result = RunResponse(
        agent_id=canonical_agent_id(agent_id),
        conversation_id=body.conversation_id,
        reply=reply.reply,
        memory=MemoryTrace(
            injected=trace.injected,
            section=mpb.Section.Name(trace.section).removeprefix("SECTION_").lower(),
            reason=trace.reason,
            block_tokens=trace.block_tokens,
            recorded=trace.recorded,
        ),
        usage=RunUsage(
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            total_tokens=reply.prompt_tokens + reply.completion_tokens,
        ),
    )
    if not sse.wants_stream(body.stream, accept):
        return result
    return sse.streaming(_events(result))


async def _events(result: RunResponse) -> AsyncIterator[bytes]:
    yield sse.event({"delta": result.reply}, "delta")
    yield sse.event(result.model_dump(), "done")
