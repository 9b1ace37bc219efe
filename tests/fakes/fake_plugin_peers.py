"""Fake memoryd and inferd servicers on real ports for plugin_host tests: scripted memory, an echoing model.

FakeMemory records every BufferTurn and answers InjectMemory with a scripted block per agent;
FakeInference answers Generate with "ECHO: <latest user message>" and records the prompts it got.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc

from osaurus.inference.v1 import inference_pb2 as ipb
from osaurus.inference.v1 import inference_pb2_grpc as ipb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from servicekit.errors import (
    FieldViolation,
    InvalidArgumentError,
    PermissionDeniedError,
    UnavailableError,
    not_yet_available,
)
from servicekit.server import RunningServer, ServerOptions, ServiceBinding, build_server


@dataclass(frozen=True)
class BufferedTurn:
    """One BufferTurn call the fake memory received."""

    agent_id: str
    conversation_id: str
    user_message: str
    assistant_message: str


def memory_block(text: str) -> str:
    """A block shaped like memoryd's."""
    return f"[Memory]\n## Things I remember\n- {text}\n[/Memory]"


class FakeMemory(mpb_grpc.MemoryServiceServicer):  # type: ignore[misc]
    """Scripted MemoryService. `mode`: "ok", "inject_unimplemented" (InjectMemory not served) or "down"."""

    def __init__(self) -> None:
        self.blocks: dict[str, str] = {}
        self.recall_agents: set[str] = set()
        self.hits: dict[tuple[str, int], list[mpb.SearchHit]] = {}
        self.mode = "ok"
        self.buffered: list[BufferedTurn] = []
        self.inject_calls: list[str] = []
        self.search_calls: list[tuple[str, int, str]] = []
        self._lock = threading.Lock()

    def InjectMemory(
        self, request: mpb.InjectMemoryRequest, context: grpc.ServicerContext
    ) -> mpb.InjectMemoryResponse:
        self._check_down()
        if self.mode == "inject_unimplemented":
            raise not_yet_available("osaurus.memory.v1.MemoryService/InjectMemory")
        with self._lock:
            self.inject_calls.append(request.agent_id)
        messages = list(request.messages)
        latest = max((i for i, m in enumerate(messages) if m.role == mpb.ROLE_USER), default=None)
        block = self.blocks.get(request.agent_id, "")
        reason = "trigger:scripted" if block else "gate:none"
        if 0 < request.model_context_tokens < 2048:
            block, reason = "", f"context_too_small:{request.model_context_tokens}"
        elif latest is not None and messages[latest].attachments:
            block, reason = "", "multimodal"
        if not block or latest is None:
            return mpb.InjectMemoryResponse(
                messages=messages, injected=False, section=mpb.SECTION_NONE, reason=reason
            )
        changed = mpb.ChatMessage()
        changed.CopyFrom(messages[latest])
        changed.content = f"{block}\n\n{changed.content}"
        messages[latest] = changed
        return mpb.InjectMemoryResponse(
            messages=messages,
            injected=True,
            section=mpb.SECTION_PINNED,
            reason=reason,
            block_tokens=len(block) // 4,
        )

    def BufferTurn(
        self, request: mpb.BufferTurnRequest, context: grpc.ServicerContext
    ) -> mpb.BufferTurnResponse:
        self._check_down()
        with self._lock:
            self.buffered.append(
                BufferedTurn(
                    request.agent_id, request.conversation_id, request.user_message, request.assistant_message
                )
            )
            count = len(self.buffered)
        return mpb.BufferTurnResponse(signal_id=count, transcript_ids=[2 * count - 1, 2 * count])

    def SearchMemory(
        self, request: mpb.SearchMemoryRequest, context: grpc.ServicerContext
    ) -> mpb.SearchMemoryResponse:
        self._check_down()
        with self._lock:
            self.search_calls.append((request.agent_id, request.scope, request.query))
        if not request.query.strip():  # as memoryd validates it (memoryd.api.memory_convert.parse_search)
            raise InvalidArgumentError(
                "MISSING_FIELD",
                "invalid request: query: must not be only whitespace",
                field_violations=[FieldViolation("query", "must not be only whitespace", "MISSING_FIELD")],
            )
        if request.agent_id not in self.recall_agents:
            raise PermissionDeniedError("MEMORY_RECALL_DISABLED", "the agent has not enabled Memory Recall")
        hits = self.hits.get((request.agent_id, request.scope), [])
        return mpb.SearchMemoryResponse(hits=hits[: request.limit or 10], method="hybrid")

    def buffered_for(self, agent_id: str) -> list[BufferedTurn]:
        """The turns recorded for one agent."""
        with self._lock:
            return [t for t in self.buffered if t.agent_id == agent_id]

    def _check_down(self) -> None:
        if self.mode == "down":
            raise UnavailableError("STORE_DOWN", "fake memoryd is down", retry_after_s=1.0)


class FakeInference(ipb_grpc.InferenceServiceServicer):  # type: ignore[misc]
    """An echoing model: the reply is "ECHO: " + the latest user message it received."""

    def __init__(self, context_window_tokens: int = 32768) -> None:
        self.context_window_tokens = context_window_tokens
        self.prompts: list[list[tuple[int, str]]] = []
        self._lock = threading.Lock()

    def _reply(self, messages: list[ipb.ChatMessage]) -> str:
        with self._lock:
            self.prompts.append([(m.role, m.content) for m in messages])
        latest = next((m.content for m in reversed(messages) if m.role == ipb.ROLE_USER), "")
        return f"ECHO: {latest}"

    def Generate(self, request: ipb.GenerateRequest, context: grpc.ServicerContext) -> ipb.GenerateResponse:
        text = self._reply(list(request.messages))
        usage = ipb.Usage(
            prompt_tokens=sum(len(m.content) for m in request.messages) // 4, completion_tokens=7
        )
        return ipb.GenerateResponse(
            text=text, finish_reason=ipb.FINISH_REASON_STOP, usage=usage, model="fake-llm"
        )

    def GenerateStream(
        self, request: ipb.GenerateStreamRequest, context: grpc.ServicerContext
    ) -> Iterator[ipb.GenerateStreamResponse]:
        text = self._reply(list(request.messages))
        third = max(1, len(text) // 3)
        for start in range(0, len(text), third):
            yield ipb.GenerateStreamResponse(delta=text[start : start + third], model="fake-llm")
        yield ipb.GenerateStreamResponse(
            finish_reason=ipb.FINISH_REASON_STOP,
            usage=ipb.Usage(prompt_tokens=3, completion_tokens=3),
            model="fake-llm",
        )

    def GetModelStatus(
        self, request: ipb.GetModelStatusRequest, context: grpc.ServicerContext
    ) -> ipb.GetModelStatusResponse:
        llm = ipb.ModelStatus(
            name="fake-llm",
            kind=ipb.MODEL_KIND_LLM,
            state=ipb.MODEL_STATE_READY,
            backend="fake",
            context_window_tokens=self.context_window_tokens,
            is_default=True,
        )
        return ipb.GetModelStatusResponse(models=[llm])

    def latest_prompt_user(self) -> str:
        """The latest user message of the most recent prompt."""
        with self._lock:
            prompt = self.prompts[-1]
        return next(content for role, content in reversed(prompt) if role == ipb.ROLE_USER)


@dataclass
class FakePeers:
    """Both fakes, served on real loopback ports."""

    memory: FakeMemory
    inference: FakeInference
    memory_server: RunningServer
    inference_server: RunningServer
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def memory_target(self) -> str:
        return self.memory_server.target

    @property
    def inference_target(self) -> str:
        return self.inference_server.target

    def stop(self) -> None:
        self.memory_server.stop(0)
        self.inference_server.stop(0)


def start_fake_peers() -> FakePeers:
    """Serve a FakeMemory and a FakeInference on 127.0.0.1:0 each."""
    memory = FakeMemory()
    inference = FakeInference()
    memory_server = build_server(
        ServerOptions("127.0.0.1:0", "memory.osaurus.dev", max_workers=8),
        [
            ServiceBinding(
                "osaurus.memory.v1.MemoryService",
                lambda s: mpb_grpc.add_MemoryServiceServicer_to_server(memory, s),
            )
        ],
    )
    inference_server = build_server(
        ServerOptions("127.0.0.1:0", "inference.osaurus.dev", max_workers=8),
        [
            ServiceBinding(
                "osaurus.inference.v1.InferenceService",
                lambda s: ipb_grpc.add_InferenceServiceServicer_to_server(inference, s),
            )
        ],
    )
    return FakePeers(memory, inference, memory_server, inference_server)
