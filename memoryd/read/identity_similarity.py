"""Dense similarity of a query to the agent's identity facts, for the evidence gate (identity is not in faiss).

Identity facts are few and change rarely, so their vectors are embedded once per distinct set of texts and kept.
The embedding runs in the background, never on a user's request: the first query after the identity changes gets
no identity cosine (the gate then leans on keyword overlap), the next ones do.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np
import numpy.typing as npt

_log = logging.getLogger("memoryd.readpath_identity")
#: Agents whose identity vectors are kept (least recently used beyond this are dropped).
MAX_AGENTS = 512


class Batch(Protocol):
    """memoryd.vectors.embedding.Batch: unit vectors and their model."""

    @property
    def vectors(self) -> npt.NDArray[np.float32]: ...

    @property
    def model(self) -> str: ...


class TextEmbedder(Protocol):
    """The part of memoryd.vectors.embedding.Embedder this needs."""

    @property
    def model(self) -> str | None: ...

    def embed(self, texts: Sequence[str], timeout_s: float = ...) -> Batch | None: ...

    def embed_query(
        self, text: str, timeout_s: float | None = None
    ) -> tuple[npt.NDArray[np.float32], str] | None: ...


class IdentityVectors:
    """Per-agent identity vectors, filled in the background; similarity() never waits for them."""

    def __init__(self, embedder: TextEmbedder) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()
        self._vectors: dict[str, tuple[tuple[str, tuple[str, ...]], npt.NDArray[np.float32]]] = {}
        self._pending: set[tuple[str, tuple[str, ...]]] = set()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memoryd-identity-vectors")

    def close(self) -> None:
        """Stop the background thread."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def similarity(
        self, agent_id: str, query: str, texts: Sequence[str], timeout_s: float | None = None
    ) -> float | None:
        """Highest cosine between the query and the texts; None while their vectors are not ready (or no vectors)."""
        model = self._embedder.model
        if model is None or not texts:
            return None
        key = (model, tuple(texts))
        with self._lock:
            held = self._vectors.get(agent_id)
            ready = held[1] if held is not None and held[0] == key else None
        if ready is None:
            self._schedule(agent_id, key)
            return None
        embedded = self._embedder.embed_query(query, timeout_s)  # cached: the section searches embedded it
        if embedded is None or embedded[1] != model:
            return None
        return float(np.max(ready @ embedded[0]))

    def warm(self, agent_id: str, texts: Sequence[str]) -> bool:
        """Embed now (benchmarks and tests: no first-query gap); True when the vectors are ready."""
        model = self._embedder.model
        if model is None or not texts:
            return False
        self._fill(agent_id, (model, tuple(texts)))
        with self._lock:
            held = self._vectors.get(agent_id)
        return held is not None and held[0] == (model, tuple(texts))

    def _schedule(self, agent_id: str, key: tuple[str, tuple[str, ...]]) -> None:
        with self._lock:
            if key in self._pending:
                return
            self._pending.add(key)
        try:
            self._pool.submit(self._fill, agent_id, key)
        except RuntimeError:  # shutting down
            with self._lock:
                self._pending.discard(key)

    def _fill(self, agent_id: str, key: tuple[str, tuple[str, ...]]) -> None:
        try:
            batch = self._embedder.embed(list(key[1]))
            if batch is None or batch.model != key[0]:
                return
            with self._lock:
                self._vectors.pop(agent_id, None)
                self._vectors[agent_id] = (key, np.ascontiguousarray(batch.vectors, dtype=np.float32))
                while len(self._vectors) > MAX_AGENTS:
                    self._vectors.pop(next(iter(self._vectors)))
        except Exception as error:  # background work: log and let the next query retry
            _log.warning("identity vectors not embedded (%s)", type(error).__name__)
        finally:
            with self._lock:
                self._pending.discard(key)


__all__ = ["IdentityVectors", "TextEmbedder"]
