"""A fake InferenceService on a real port for read-path tests: scripted gate replies, delays, token counts."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import grpc

from osaurus.inference.v1 import inference_pb2 as pb
from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.errors import ServiceError
from tests.fakes.inference_server import serving_inference

MODEL = "fake-gate-llm"


def words_as_tokens(text: str) -> int:
    """A deliberately different tokenizer from the estimate: one token per whitespace word, plus one."""
    return len(text.split()) + 1


@dataclass
class GateScript:
    """How the fake answers: `reply(user_prompt)` gives Generate's text; delay_s sleeps; error raises."""

    reply: Callable[[str], str] = lambda _prompt: '{"section":"none","reason":"fake"}'
    delay_s: float = 0.0
    error: ServiceError | None = None
    count: Callable[[str], int] = words_as_tokens
    count_error: ServiceError | None = None
    #: The model CountTokens says counted (None: the one asked for, else MODEL).
    count_model: str | None = None


@dataclass
class Recorded:
    """Requests the fake received."""

    generate: list[pb.GenerateRequest] = field(default_factory=list)
    count_tokens: list[pb.CountTokensRequest] = field(default_factory=list)


class FakeGateInferd(pb_grpc.InferenceServiceServicer):
    """Generate and CountTokens follow `script`; everything is recorded."""

    def __init__(self) -> None:
        self.script = GateScript()
        self.recorded = Recorded()
        self._lock = threading.Lock()

    def Generate(self, request: pb.GenerateRequest, context: grpc.ServicerContext) -> pb.GenerateResponse:
        with self._lock:
            self.recorded.generate.append(request)
            script = self.script
        if script.delay_s:
            time.sleep(script.delay_s)
        if script.error is not None:
            raise script.error
        user = next((m.content for m in reversed(request.messages) if m.role == pb.ROLE_USER), "")
        return pb.GenerateResponse(
            text=script.reply(user),
            finish_reason=pb.FINISH_REASON_STOP,
            usage=pb.Usage(prompt_tokens=10, completion_tokens=5),
            model=request.model or MODEL,
        )

    def CountTokens(
        self, request: pb.CountTokensRequest, context: grpc.ServicerContext
    ) -> pb.CountTokensResponse:
        with self._lock:
            self.recorded.count_tokens.append(request)
            script = self.script
        if script.count_error is not None:
            raise script.count_error
        return pb.CountTokensResponse(
            counts=[script.count(t) for t in request.texts],
            model=script.count_model or request.model or MODEL,
        )


@contextmanager
def running_fake() -> Iterator[tuple[FakeGateInferd, str]]:
    """Serve a FakeGateInferd on 127.0.0.1:0; yields (servicer, target)."""
    fake = FakeGateInferd()
    with serving_inference(fake, max_workers=4, grace_s=0) as server:
        yield fake, server.target
