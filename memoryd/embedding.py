"""Embeddings from inferd with a back-off when it is down; `embeddingBackend: none` turns vectors off."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from inferd.client import Embeddings
from memoryd.config import ConfigStore
from servicekit.errors import ServiceError

_log = logging.getLogger("memoryd.embedding")

#: Query embeddings must be quick: search falls back to full text when inferd is slow.
QUERY_TIMEOUT_S = 3.0
BATCH_TIMEOUT_S = 60.0
_BACKOFF_START_S = 2.0
_BACKOFF_MAX_S = 60.0
_QUERY_CACHE = 256


class EmbedClient(Protocol):
    """The part of inferd.client.InferenceClient used here."""

    def embed(
        self, texts: Sequence[str], *, model: str = "", timeout_s: float | None = None
    ) -> Embeddings: ...


@dataclass(frozen=True)
class Batch:
    """Vectors (n, d), unit length, and the model name they belong to."""

    vectors: npt.NDArray[np.float32]
    model: str


class Embedder:
    """Calls inferd Embed with the configured model. Returns None (never raises) while embeddings are unavailable."""

    def __init__(
        self, client: EmbedClient, config: ConfigStore, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._client = client
        self._config = config
        self._clock = clock
        self._lock = threading.Lock()
        self._retry_at = 0.0
        self._backoff_s = _BACKOFF_START_S
        self._cache: OrderedDict[tuple[str, str], npt.NDArray[np.float32]] = OrderedDict()

    @property
    def model(self) -> str | None:
        """The embedding model in force, or None when the backend is `none`."""
        config = self._config.get()
        return None if config.embedding_backend == "none" else config.embedding_model

    def available(self) -> bool:
        """Backend on and not backing off after a failure."""
        with self._lock:
            return self.model is not None and self._clock() >= self._retry_at

    def embed(self, texts: Sequence[str], timeout_s: float = BATCH_TIMEOUT_S) -> Batch | None:
        """Vectors for `texts`, or None when the backend is off or inferd failed (a back-off starts)."""
        return self._embed(self.model, texts, timeout_s)

    def _embed(self, model: str | None, texts: Sequence[str], timeout_s: float) -> Batch | None:
        # The model is read once by the caller: each read of the configuration stats memory.json.
        if model is None or not texts:
            return None
        with self._lock:
            if self._clock() < self._retry_at:
                return None
        try:
            reply = self._client.embed(list(texts), model=model, timeout_s=timeout_s)
        except ServiceError as error:
            self._failed(error)
            return None
        if reply.vectors.shape[0] != len(texts):
            _log.warning("inferd returned %d vectors for %d texts", reply.vectors.shape[0], len(texts))
            return None
        with self._lock:
            self._backoff_s = _BACKOFF_START_S
        return Batch(np.ascontiguousarray(reply.vectors, dtype=np.float32), model)

    def embed_query(self, text: str) -> tuple[npt.NDArray[np.float32], str] | None:
        """(vector, model) of a search query, cached; None when unavailable (search then uses FTS alone)."""
        model = self.model
        if model is None:
            return None
        key = (model, text)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached, model
        batch = self._embed(model, [text], QUERY_TIMEOUT_S)
        if batch is None:
            return None
        vector = batch.vectors[0]
        with self._lock:
            self._cache[key] = vector
            if len(self._cache) > _QUERY_CACHE:
                self._cache.popitem(last=False)
        return vector, model

    def _failed(self, error: ServiceError) -> None:
        with self._lock:
            self._retry_at = self._clock() + self._backoff_s
            wait = self._backoff_s
            self._backoff_s = min(self._backoff_s * 2, _BACKOFF_MAX_S)
        _log.warning(
            "embedding unavailable (%s %s); retrying in %.0fs", type(error).__name__, error.reason, wait
        )
