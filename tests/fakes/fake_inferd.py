"""A fake inferd for memoryd tests: deterministic Embed (hashed bag of words) on a real port.

Similar texts are near: each folded word (crudely stemmed, so "produce"/"produced" collide) adds to hashed buckets,
with a few synonym groups so tests can show a vector-only match that full text cannot find.
"""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import grpc
import numpy as np

from osaurus.inference.v1 import inference_pb2 as pb
from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.errors import InvalidArgumentError, NotFoundError, UnavailableError
from servicekit.planned import planned_rpcs
from servicekit.server import RunningServer
from tests.fakes.inference_server import serving_inference

MODEL = "all-minilm-l6-v2"
DIMENSION = 64

#: Words mapped to one concept, so "automobile" is near "car" for the vector side only.
SYNONYMS = {"automobile": "car", "vehicle": "car", "sedan": "car", "physician": "doctor", "medic": "doctor"}
_STOP = {"the", "a", "an", "of", "and", "to", "is", "my", "i", "what", "did", "do", "how", "in", "on", "for"}


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def fake_vector(text: str, dimension: int = DIMENSION) -> np.ndarray:
    """Deterministic unit vector: hashed bag of stemmed, synonym-folded words."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))
    vector = np.zeros(dimension, dtype=np.float32)
    for word in re.findall(r"\w+", folded):
        if word in _STOP:
            continue
        word = SYNONYMS.get(word, word)
        digest = hashlib.sha256(_stem(word).encode()).digest()
        vector[int.from_bytes(digest[:4], "little") % dimension] += 1.0
        vector[int.from_bytes(digest[4:8], "little") % dimension] += 0.5
    norm = float(np.linalg.norm(vector))
    if norm == 0:
        vector[0] = 1.0
        return vector
    return vector / norm


@dataclass
class FakeInferdState:
    """Knobs and counters a test can use."""

    model: str = MODEL
    dimension: int = DIMENSION
    embed_calls: int = 0
    texts_embedded: int = 0
    fail_embeds: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


@planned_rpcs(pb_grpc.InferenceServiceServicer, "osaurus.inference.v1.InferenceService")
class FakeInference(pb_grpc.InferenceServiceServicer):  # type: ignore[misc]
    """Embed and GetModelStatus only."""

    def __init__(self, state: FakeInferdState) -> None:
        self.state = state

    def Embed(self, request: pb.EmbedRequest, context: grpc.ServicerContext) -> pb.EmbedResponse:
        if not request.texts:
            raise InvalidArgumentError("MISSING_FIELD", "texts is required")
        if self.state.fail_embeds:
            raise UnavailableError("MODEL_UNAVAILABLE", "embedding model is down", retry_after_s=1.0)
        if request.model and request.model != self.state.model:
            raise NotFoundError("MODEL_NOT_FOUND", f"unknown model {request.model}")
        with self.state.lock:
            self.state.embed_calls += 1
            self.state.texts_embedded += len(request.texts)
        return pb.EmbedResponse(
            embeddings=[
                pb.Embedding(values=fake_vector(t, self.state.dimension).tolist()) for t in request.texts
            ],
            dimension=self.state.dimension,
            model=self.state.model,
        )

    def GetModelStatus(
        self, request: pb.GetModelStatusRequest, context: grpc.ServicerContext
    ) -> pb.GetModelStatusResponse:
        return pb.GetModelStatusResponse(
            models=[
                pb.ModelStatus(
                    name=self.state.model,
                    kind=pb.MODEL_KIND_EMBEDDING,
                    state=pb.MODEL_STATE_READY,
                    backend="fake",
                    embedding_dimension=self.state.dimension,
                    is_default=True,
                )
            ]
        )


@contextmanager
def running_fake_inferd(
    state: FakeInferdState | None = None,
) -> Iterator[tuple[RunningServer, FakeInferdState]]:
    """Serve the fake on 127.0.0.1:0 for the duration of the block."""
    state = state or FakeInferdState()
    with serving_inference(FakeInference(state)) as server:
        yield server, state
