"""A scripted InferenceService on a real port for writer tests: queued Generate replies/errors, hashed embeddings."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import numpy as np

from osaurus.inference.v1 import inference_pb2 as pb
from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.errors import ServiceError
from servicekit.server import RunningServer
from tests.fakes.inference_server import start_inference

MODEL = "fake-core"
EMBED_MODEL = "fake-embed"
EMBED_DIM = 64
_WORD = re.compile(r"\w+")


def digest(
    summary: str = "The user discussed their project plans in detail.",
    *,
    topics: Sequence[str] = ("planning",),
    decisions: Sequence[str] = (),
    action_items: Sequence[str] = (),
    salience: float = 0.6,
    entities: Sequence[str] = (),
    pinned: Sequence[tuple[str, float]] = (),
    identity: Sequence[str] = (),
) -> str:
    """A schema-valid digest reply as JSON text."""
    return json.dumps(
        {
            "episode": {
                "summary": summary,
                "topics": list(topics),
                "decisions": list(decisions),
                "action_items": list(action_items),
                "salience": salience,
            },
            "entities": list(entities),
            "pinned_candidates": [{"content": c, "salience": s, "tags": []} for c, s in pinned],
            "identity_facts": list(identity),
        }
    )


def hashed_vector(text: str) -> list[float]:
    """Deterministic bag-of-words vector: equal word sets → equal vectors, shared words → positive cosine."""
    vector = np.zeros(EMBED_DIM, dtype=np.float64)
    for word in _WORD.findall(text.casefold()):
        bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little") % EMBED_DIM
        vector[bucket] += 1.0
    norm = float(np.linalg.norm(vector)) or 1.0
    return [float(x) for x in vector / norm]


@dataclass
class Script:
    """What Generate answers next: queued replies (text or ServiceError), then `default` forever."""

    replies: deque[str | ServiceError] = field(default_factory=deque)
    default: str | ServiceError | None = None


class ScriptedInferd(pb_grpc.InferenceServiceServicer):
    """Generate pops the script; a `hold` event makes Generate block (after setting `entered`) until released."""

    def __init__(self) -> None:
        self.script = Script()
        self.generate_requests: list[pb.GenerateRequest] = []
        #: The caller of each Generate (gRPC peer string): tells replicas apart, each has its own channel.
        self.generate_peers: list[str] = []
        self.embed_requests: list[pb.EmbedRequest] = []
        self.model_state = pb.MODEL_STATE_READY
        self.status_error: ServiceError | None = None
        self.hold: threading.Event | None = None
        self.entered = threading.Event()
        self._lock = threading.Lock()

    def push(self, *replies: str | ServiceError) -> None:
        """Queue replies, in order."""
        with self._lock:
            self.script.replies.extend(replies)

    def set_default(self, reply: str | ServiceError | None) -> None:
        """Answer every call with this once the queue is empty."""
        with self._lock:
            self.script.default = reply

    @property
    def generate_calls(self) -> int:
        with self._lock:
            return len(self.generate_requests)

    def Generate(self, request: pb.GenerateRequest, context: grpc.ServicerContext) -> pb.GenerateResponse:
        with self._lock:
            self.generate_requests.append(request)
            self.generate_peers.append(context.peer())
            reply = self.script.replies.popleft() if self.script.replies else self.script.default
        if self.hold is not None:
            self.entered.set()
            self.hold.wait(30)
        if reply is None:
            reply = digest()
        if isinstance(reply, ServiceError):
            raise reply
        prompt_chars = sum(len(m.content) for m in request.messages)
        return pb.GenerateResponse(
            text=reply,
            finish_reason=pb.FINISH_REASON_STOP,
            usage=pb.Usage(prompt_tokens=prompt_chars // 4, completion_tokens=len(reply) // 4, duration_ms=3),
            model=request.model or MODEL,
        )

    def Embed(self, request: pb.EmbedRequest, context: grpc.ServicerContext) -> pb.EmbedResponse:
        with self._lock:
            self.embed_requests.append(request)
        return pb.EmbedResponse(
            embeddings=[pb.Embedding(values=hashed_vector(t)) for t in request.texts],
            dimension=EMBED_DIM,
            model=request.model or EMBED_MODEL,
        )

    def GetModelStatus(
        self, request: pb.GetModelStatusRequest, context: grpc.ServicerContext
    ) -> pb.GetModelStatusResponse:
        if self.status_error is not None:
            raise self.status_error
        return pb.GetModelStatusResponse(
            models=[
                pb.ModelStatus(
                    name=MODEL,
                    kind=pb.MODEL_KIND_LLM,
                    state=self.model_state,
                    backend="fake",
                    context_window_tokens=8192,
                    is_default=True,
                ),
                pb.ModelStatus(
                    name=EMBED_MODEL,
                    kind=pb.MODEL_KIND_EMBEDDING,
                    state=pb.MODEL_STATE_READY,
                    backend="fake",
                    embedding_dimension=EMBED_DIM,
                    is_default=True,
                ),
            ]
        )


def start_fake_inferd() -> tuple[RunningServer, ScriptedInferd]:
    """Serve a ScriptedInferd on 127.0.0.1:0 with the standard interceptors (so ServiceErrors map to status)."""
    servicer = ScriptedInferd()
    return start_inference(servicer), servicer


def request_text(request: Any) -> str:
    """The user message of a recorded GenerateRequest."""
    return "\n".join(m.content for m in request.messages if m.role == pb.ROLE_USER)


__all__ = [
    "EMBED_DIM",
    "EMBED_MODEL",
    "MODEL",
    "ScriptedInferd",
    "digest",
    "hashed_vector",
    "request_text",
    "start_fake_inferd",
]
