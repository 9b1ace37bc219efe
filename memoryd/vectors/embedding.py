"""Embeddings from inferd with a back-off when it is down; `embeddingBackend: none` turns vectors off.

Query embeddings have a short deadline (DEFAULT_QUERY_TIMEOUT_S, configurable): a search whose query vector is late
runs on full text alone, and `query_issue` tells the read path why. A small LRU keyed by (model, whitespace-normalised
text) serves repeated queries without a call — it helps repeats only (retries, the same question in two RPCs).

Queries are embedded in inferd, not in memoryd, even when both run on one machine. Measured (issue 17, second pass):
inferd's numpy query forward run inside the memoryd process gives bit-identical vectors and saves the gRPC hop (the
forward alone 23.5 ms against 28.8 ms through inferd at load ~8), yet AssembleContext got slower with it on
bench_assemble's store, the two ways alternated query by query in one process, 200 each: p50 48.1 → 51.9 ms,
p95 114.2 → 123.5 ms (load 7.7). Most likely (not measured apart) the forward's ~100 numpy calls per query then wait
for the GIL behind the evidence pass's Python work, which in inferd they run beside.
"""

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
from servicekit.errors import DeadlineExceededError, ServiceError

_log = logging.getLogger("memoryd.embedding")

#: Query embeddings must be quick: search falls back to full text when inferd is slower than this. MiniLM answers
#: one query in ~7 ms on 2 CPU cores, so 150 ms means "inferd is busy, loading or stuck", not "a slow model".
DEFAULT_QUERY_TIMEOUT_S = 0.15
#: Below this many seconds left, the query is not sent at all (the answer could not come back in time).
MIN_QUERY_TIMEOUT_S = 0.005
BATCH_TIMEOUT_S = 60.0
_BACKOFF_START_S = 2.0
_BACKOFF_MAX_S = 60.0
_QUERY_CACHE = 1024
#: Late query embeddings in a row before the back-off starts (one late answer is a hiccup, three are a slow peer).
_LATE_QUERIES_BEFORE_BACKOFF = 3
#: Why recent queries went without a vector, kept for the read path's decision (see query_issue).
_ISSUES_KEPT = 256

#: query_issue values.
ISSUE_TIMEOUT = "embedding_timeout"
ISSUE_UNAVAILABLE = "embeddings_unavailable"
ISSUE_NO_TIME = "no_time_left"


def normalise_query(text: str) -> str:
    """Whitespace collapsed and trimmed: the tokenizer splits on any whitespace, so the vector is unchanged."""
    return " ".join(text.split())


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
        self,
        client: EmbedClient,
        config: ConfigStore,
        clock: Callable[[], float] = time.monotonic,
        *,
        query_timeout_s: float = DEFAULT_QUERY_TIMEOUT_S,
    ) -> None:
        self._client = client
        self._config = config
        self._clock = clock
        self.query_timeout_s = query_timeout_s
        self._lock = threading.Lock()
        self._retry_at = 0.0
        self._backoff_s = _BACKOFF_START_S
        self._late_in_a_row = 0
        self._cache: OrderedDict[tuple[str, str], npt.NDArray[np.float32]] = OrderedDict()
        self._issues: OrderedDict[tuple[str, str], str] = OrderedDict()

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
        result = self._embed(self.model, texts, timeout_s)
        return result if isinstance(result, Batch) else None

    def _embed(
        self, model: str | None, texts: Sequence[str], timeout_s: float, *, is_query: bool = False
    ) -> Batch | str:
        """The batch, or the ISSUE_* saying why there is none."""
        # The model is read once by the caller: each read of the configuration stats memory.json.
        if model is None or not texts:
            return ISSUE_UNAVAILABLE
        with self._lock:
            if self._clock() < self._retry_at:
                return ISSUE_UNAVAILABLE
        try:
            reply = self._client.embed(list(texts), model=model, timeout_s=timeout_s)
        except DeadlineExceededError as error:
            if is_query:
                self._late(error)
            else:
                self._failed(error)
            return ISSUE_TIMEOUT
        except ServiceError as error:
            self._failed(error)
            return ISSUE_UNAVAILABLE
        if reply.vectors.shape[0] != len(texts):
            _log.warning("inferd returned %d vectors for %d texts", reply.vectors.shape[0], len(texts))
            return ISSUE_UNAVAILABLE
        with self._lock:
            self._backoff_s = _BACKOFF_START_S
            self._late_in_a_row = 0
        return Batch(np.ascontiguousarray(reply.vectors, dtype=np.float32), model)

    def embed_query(
        self, text: str, timeout_s: float | None = None
    ) -> tuple[npt.NDArray[np.float32], str] | None:
        """(vector, model) of a search query, cached; None when unavailable or late (search then uses FTS alone).

        timeout_s: seconds the caller can still wait (None: query_timeout_s); never more than query_timeout_s.
        """
        model = self.model
        normalised = normalise_query(text)
        if model is None or not normalised:
            return None
        key = (model, normalised)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached, model
        wait_s = self.query_timeout_s if timeout_s is None else min(timeout_s, self.query_timeout_s)
        if wait_s < MIN_QUERY_TIMEOUT_S:
            self._note(key, ISSUE_NO_TIME)
            return None
        result = self._embed(model, [normalised], wait_s, is_query=True)
        if not isinstance(result, Batch):
            self._note(key, result)
            return None
        vector = result.vectors[0]
        with self._lock:
            self._cache[key] = vector
            if len(self._cache) > _QUERY_CACHE:
                self._cache.popitem(last=False)
        return vector, model

    def cached_query(self, text: str) -> npt.NDArray[np.float32] | None:
        """The vector embed_query last made for `text` under the current model, if still cached; never calls
        inferd (the read path's query prior reads the vector the evidence pass already paid for)."""
        model = self.model
        if model is None:
            return None
        with self._lock:
            return self._cache.get((model, normalise_query(text)))

    def query_issue(self, text: str) -> str | None:
        """Why the last embed_query of `text` returned no vector (ISSUE_*), or None; forgets it once read."""
        model = self.model
        if model is None:
            return None
        with self._lock:
            return self._issues.pop((model, normalise_query(text)), None)

    def _note(self, key: tuple[str, str], issue: str) -> None:
        with self._lock:
            self._issues[key] = issue
            self._issues.move_to_end(key)
            while len(self._issues) > _ISSUES_KEPT:
                self._issues.popitem(last=False)

    def _late(self, error: ServiceError) -> None:
        """A query embedding missed its short deadline: only several in a row start the back-off."""
        with self._lock:
            self._late_in_a_row += 1
            is_streak = self._late_in_a_row >= _LATE_QUERIES_BEFORE_BACKOFF
        if is_streak:
            self._failed(error)

    def _failed(self, error: ServiceError) -> None:
        with self._lock:
            self._retry_at = self._clock() + self._backoff_s
            wait = self._backoff_s
            self._backoff_s = min(self._backoff_s * 2, _BACKOFF_MAX_S)
        _log.warning(
            "embedding unavailable (%s %s); retrying in %.0fs", type(error).__name__, error.reason, wait
        )
