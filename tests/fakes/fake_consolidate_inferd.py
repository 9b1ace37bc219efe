"""A fake InferenceService for the consolidator's narrative step: scripted Generate replies or errors, on a real port."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import grpc

from osaurus.inference.v1 import inference_pb2 as pb
from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.errors import ServiceError
from servicekit.planned import planned_rpcs
from servicekit.server import RunningServer
from tests.fakes.inference_server import serving_inference

MODEL = "fake-core"


@dataclass
class NarrativeInferdState:
    """What Generate replies (`reply`, or raises `error`), and every request it received."""

    reply: str = "The user is Ana Souza, a nurse who lives in Porto."
    error: ServiceError | None = None
    model: str = MODEL
    requests: list[pb.GenerateRequest] = field(default_factory=list)
    #: When set, the reply to each request (e.g. from the facts in its prompt) instead of `reply`.
    reply_for: Callable[[pb.GenerateRequest], str] | None = None
    #: Set while a Generate call is in progress; the call waits for `release` when it is given.
    release: threading.Event | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


@planned_rpcs(pb_grpc.InferenceServiceServicer, "osaurus.inference.v1.InferenceService")
class FakeNarrativeInference(pb_grpc.InferenceServiceServicer):
    """Generate only."""

    def __init__(self, state: NarrativeInferdState) -> None:
        self.state = state

    def Generate(self, request: pb.GenerateRequest, context: grpc.ServicerContext) -> pb.GenerateResponse:
        with self.state.lock:
            self.state.requests.append(request)
        if self.state.release is not None:
            self.state.release.wait(10)
        if self.state.error is not None:
            raise self.state.error
        text = self.state.reply if self.state.reply_for is None else self.state.reply_for(request)
        return pb.GenerateResponse(
            text=text,
            finish_reason=pb.FINISH_REASON_STOP,
            usage=pb.Usage(prompt_tokens=100, completion_tokens=14, duration_ms=5),
            model=request.model or self.state.model,
        )


@contextmanager
def running_narrative_inferd(
    state: NarrativeInferdState | None = None,
) -> Iterator[tuple[RunningServer, NarrativeInferdState]]:
    """Serve the fake on 127.0.0.1:0 for the duration of the block."""
    state = state or NarrativeInferdState()
    with serving_inference(FakeNarrativeInference(state), max_workers=4) as server:
        yield server, state
