"""VectorRegistry's PostgreSQL twin: per-agent pgvector partitions (storage/pg_vectors.py) instead of faiss files.

Nothing lives on local disk or only in this process: every replica reads and writes the same partitions, so a
vector one replica indexed is found by the other at once. The embeddings table stays the source of truth: an agent
whose partition holds another model (or none) is refilled from it, with no re-embedding, as VectorRegistry rebuilds
a faiss index. The only process state is a cache of each agent's catalog entry (model, dimension, partition), and a
statement that finds it out of date (another replica switched the model or deleted the agent) re-reads it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from memoryd.domain import MemoryRow
from memoryd.storage.pg_vectors import AgentVectors, PgVectorStore
from memoryd.vectors.codec import Vector, from_blob, normalise
from memoryd.vectors.registry import IndexState, VectorRegistry
from memoryd.vectors.sealing import FileSealer

_log = logging.getLogger("memoryd.vectors")


class StoredEmbeddings(Protocol):
    """What the registry reads from the embeddings table (storage/embeddings.py:EmbeddingStore)."""

    def count(self, agent_id: str, model: str) -> int: ...

    def iter_agent(
        self, agent_id: str, model: str, batch: int = 2000
    ) -> Iterator[list[tuple[str, int, bytes]]]: ...


class PgVectorRegistry(VectorRegistry):
    """Per-agent HNSW search in PostgreSQL. A VectorRegistry to its callers (the indexer, the search, the console,
    the security manager): every public method is overridden, and the base's folder state is never set or used."""

    def __init__(self, vectors: PgVectorStore, embeddings: StoredEmbeddings) -> None:
        self._vectors = vectors
        self._stored = embeddings
        #: Files are never written: nothing to seal (the database's own encryption at rest applies).
        self.sealer: FileSealer | None = None
        self._lock = threading.Lock()
        self._agents: dict[str, AgentVectors] = {}
        self.rebuilds = 0

    def _cached(self, agent_id: str) -> AgentVectors | None:
        with self._lock:
            return self._agents.get(agent_id)

    def _remember(self, agent: AgentVectors | None, agent_id: str) -> None:
        with self._lock:
            if agent is None:
                self._agents.pop(agent_id, None)
            else:
                self._agents[agent_id] = agent

    def _agent_for(
        self, agent_id: str, model: str, dimension: int | None, *, create: bool = False
    ) -> AgentVectors | None:
        """The agent's partition in `model`'s space, refilled from the embeddings table when it holds another.
        Without stored vectors a partition is only made for an add (`create`): a search of an agent deleted (by
        another replica) since, or never embedded, leaves no empty partition behind."""

        def fits(agent: AgentVectors | None) -> bool:
            return agent is not None and agent.model == model and dimension in (None, agent.dimension)

        cached = self._cached(agent_id)
        if fits(cached):
            return cached
        current = self._vectors.agent(agent_id)
        if not fits(current):
            current = self._refill(agent_id, model, dimension if create else None)
        self._remember(current, agent_id)
        return current

    def _refill(self, agent_id: str, model: str, dimension: int | None) -> AgentVectors | None:
        """Switch the agent's partition to `model` and fill it from stored vectors; None when there are none and
        no dimension is known yet."""
        agent: AgentVectors | None = None
        for batch in self._stored.iter_agent(agent_id, model):
            if agent is None:
                agent = self._vectors.switch_model(
                    agent_id, model, dimension or len(batch[0][2]) // 4, with_indexes=False
                )
            by_kind: dict[str, tuple[list[int], list[Vector]]] = {}
            for kind, row_id, blob in batch:
                try:
                    vector = from_blob(blob, agent.dimension)
                except ValueError:
                    continue  # another dimension: skipped, it will be re-embedded
                ids, vectors = by_kind.setdefault(kind, ([], []))
                ids.append(row_id)
                vectors.append(vector)
            for kind, (ids, vectors) in by_kind.items():
                self._vectors.put(agent, kind, ids, np.vstack(vectors))
        if agent is None:
            if dimension is None:
                return None
            agent = self._vectors.switch_model(agent_id, model, dimension, with_indexes=False)
        # HNSW built once over the filled partition: far cheaper than growing the graph row by row; then statistics,
        # so the first searches walk the graph instead of scanning the partition exactly (PgVectorStore.analyze).
        self._vectors.create_indexes(agent_id)
        self._vectors.analyze(agent_id)
        self.rebuilds += 1
        _log.info("refilled an agent's vectors from the embeddings table (model %s)", model)
        return agent

    def add(self, agent_id: str, kind: str, model: str, row_ids: Sequence[int], vectors: Vector) -> None:
        """Add freshly embedded rows (already stored in the embeddings table)."""
        agent = self._agent_for(agent_id, model, int(vectors.shape[1]), create=True)
        if agent is not None:
            self._vectors.put(agent, kind, row_ids, normalise(vectors))

    def remove(self, agent_id: str, kind: str, row_ids: Sequence[int]) -> int:
        """Remove rows' vectors; returns how many were there."""
        agent = self._cached(agent_id) or self._vectors.agent(agent_id)
        if agent is None:
            return 0
        return self._vectors.delete(agent, kind, row_ids)

    def search(self, agent_id: str, kind: str, model: str, vector: Vector, k: int) -> list[tuple[int, float]]:
        """Nearest rows of one agent and kind; [] when the agent has no vectors for `model`."""
        return self._nearest(agent_id, kind, model, vector, k, rows=None)[0]

    def search_with_rows(
        self, agent_id: str, kind: str, model: str, vector: Vector, k: int, rows: int
    ) -> tuple[list[tuple[int, float]], dict[int, MemoryRow]]:
        """search()'s ranking plus the active rows among its first `rows`, read by the same statement
        (read/search.py then loads none of them again)."""
        return self._nearest(agent_id, kind, model, vector, k, rows=rows)

    def _nearest(
        self, agent_id: str, kind: str, model: str, vector: Vector, k: int, *, rows: int | None
    ) -> tuple[list[tuple[int, float]], dict[int, MemoryRow]]:
        query = normalise(vector.reshape(1, -1))[0]

        def once(agent: AgentVectors) -> tuple[list[tuple[int, float]], dict[int, MemoryRow]] | None:
            if rows is not None:
                return self._vectors.nearest_rows(agent, kind, query, k, rows)
            found = self._vectors.nearest(agent, kind, query, k)
            return None if found is None else (found, {})

        agent = self._agent_for(agent_id, model, int(vector.shape[-1]))
        if agent is None:
            return [], {}
        result = once(agent)
        if (
            result is None
        ):  # the partition went away under the cached entry (another replica): look again once
            self._remember(None, agent_id)
            agent = self._agent_for(agent_id, model, int(vector.shape[-1]))
            result = None if agent is None else once(agent)
        return result or ([], {})

    def directory(self, agent_id: str) -> Path:
        """No folder holds the agent's vectors: a path that never exists (console's file checks find nothing)."""
        return Path("/nonexistent/pgvector") / agent_id.encode("utf-8").hex()

    def persisted(self, agent_id: str) -> bool:
        """Whether the agent has a partition: every vector in it is committed."""
        return self._vectors.agent(agent_id) is not None

    def build_approximate(self, agent_id: str, model: str) -> list[str]:
        """Nothing to build: each kind's HNSW index is kept by PostgreSQL as rows are written."""
        return []

    def memory_bytes(self) -> int:
        """Vector bytes held in this process: none (they live in the database)."""
        return 0

    def delete_agent(self, agent_id: str) -> int:
        """Drop the agent's partition; returns how many vectors it held."""
        self._remember(None, agent_id)
        return self._vectors.drop_agent(agent_id)

    def flush(self) -> int:
        """Nothing to persist: every add is committed when it returns."""
        return 0

    def state(self, agent_id: str, model: str) -> IndexState:
        """Model, dimension, vector and row counts of one agent's partition, and whether it needs a refill."""
        stored = self._stored.count(agent_id, model)
        current = self._vectors.agent(agent_id)
        if current is None:
            return IndexState(agent_id, "", 0, 0, stored, stored > 0)
        held = self._vectors.count(agent_id)
        return IndexState(
            agent_id, current.model, current.dimension, held, stored, current.model != model or held != stored
        )

    def reseal(self, sealer: FileSealer | None) -> int:
        """No index files to rewrite."""
        del sealer
        return 0

    def retarget(self, root: Path, sealer: FileSealer | None) -> None:
        """Nothing is served from a folder; the cached catalog entries are dropped."""
        del root, sealer
        with self._lock:
            self._agents.clear()

    def close(self) -> None:
        """Nothing to persist."""
