"""The writer's view of the core model: settings, availability probe, the one Generate call and embeddings."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from inferd.client import Embeddings, GenerateOptions, Generation, Message, ModelInfo
from servicekit.errors import ServiceError, UnimplementedError

_log = logging.getLogger("memoryd.writer.model")

EXTRACTION_SESSION_END = "sessionEnd"
EXTRACTION_MANUAL = "manual"


@dataclass(frozen=True)
class WriterSettings:
    """The config keys the writer reads, snapshotted per operation (memory.json can change at run time)."""

    enabled: bool = True
    extraction_mode: str = EXTRACTION_SESSION_END
    summary_debounce_s: float = 60.0
    core_model: str = ""
    embedding_model: str = ""
    embeddings_enabled: bool = True

    @property
    def is_automatic(self) -> bool:
        """Whether turns arm the debounce (extractionMode sessionEnd)."""
        return self.extraction_mode != EXTRACTION_MANUAL


class Inference(Protocol):
    """The part of inferd.client.InferenceClient the writer uses."""

    def generate(
        self,
        messages: Sequence[Message],
        *,
        model: str = "",
        json_schema: str = "",
        options: GenerateOptions | None = None,
        timeout_s: float | None = None,
    ) -> Generation: ...

    def embed(
        self, texts: Sequence[str], *, model: str = "", timeout_s: float | None = None
    ) -> Embeddings: ...

    def models(self, *, timeout_s: float | None = None) -> list[ModelInfo]: ...


def availability(
    inference: Inference, model: str, *, require_resident: bool, allow_cold_load: bool, timeout_s: float = 5.0
) -> str | None:
    """None when the model can serve now, else the skip reason (core_model_unavailable / not_resident).

    `not_resident` only when the caller requires a resident model and cold loads in the background are not allowed.
    """
    try:
        models = inference.models(timeout_s=timeout_s)
    except UnimplementedError:
        return None  # no status RPC yet: let Generate decide
    except ServiceError as error:
        _log.info("core model status unavailable: %s", error.reason)
        return "core_model_unavailable"
    found = next((m for m in models if m.name == model and m.kind == "llm"), None)
    if found is None or found.state == "failed":
        return "core_model_unavailable"
    if require_resident and found.state != "ready" and not allow_cold_load:
        return "not_resident"
    return None


class InferdEmbedder:
    """Embeds texts for dedup through inferd; None when embeddings are off or inferd cannot embed."""

    def __init__(self, inference: Inference, model: str, *, timeout_s: float = 30.0) -> None:
        self._inference = inference
        self._model = model
        self._timeout_s = timeout_s

    def __call__(self, texts: Sequence[str]) -> npt.NDArray[np.float32] | None:
        vectors: list[npt.NDArray[np.float32]] = []
        for start in range(0, len(texts), 256):  # Embed takes at most 256 texts per call
            reply = self._inference.embed(
                texts[start : start + 256], model=self._model, timeout_s=self._timeout_s
            )
            vectors.append(reply.vectors)
        return np.concatenate(vectors) if vectors else None


__all__ = [
    "EXTRACTION_MANUAL",
    "EXTRACTION_SESSION_END",
    "InferdEmbedder",
    "Inference",
    "WriterSettings",
    "availability",
]
