"""Console operations on the per-agent faiss indexes: state vs rows, forgetting one vector, rebuilds, drops."""

from __future__ import annotations

import numpy as np

from memoryd.console.records import VectorState
from memoryd.domain import KIND_PINNED
from memoryd.storage.health import HealthStore
from memoryd.vectors.agent_index import AgentIndex
from memoryd.vectors.codec import Vector
from memoryd.vectors.registry import VectorRegistry


class ConsoleVectors:
    """Wraps the registry for the console. The embeddings table stays the source of truth."""

    def __init__(self, registry: VectorRegistry, health: HealthStore) -> None:
        self._registry = registry
        self._health = health

    def states(self, model: str | None, agent_id: str | None = None) -> list[VectorState]:
        """One state per agent (or just `agent_id`); stale = model changed, counts differ, the file is missing, or
        (PostgreSQL) a kind's HNSW index is missing or invalid, which `problem` names.

        With the embedding backend off (`model` None) nothing is stale: vectors are not used.
        """
        self._registry.flush()  # persist pending additions first, so a missing file really means missing
        rows = self._health.vector_rows_per_agent()
        index_problems = self._health.vector_index_problems()
        agents = [agent_id] if agent_id is not None else list(rows)
        states: list[VectorState] = []
        for agent in agents:
            expected = rows.get(agent, 0)
            state = self._registry.state(agent, model or "")
            has_file = self._registry.persisted(agent)
            problem = index_problems.get(agent, "")
            stale = model is not None and (
                (state.vectors > 0 and state.model != model)
                or state.vectors != expected
                or (expected > 0 and not has_file)
                or bool(problem)
            )
            states.append(
                VectorState(agent, state.model, state.dimension, state.vectors, expected, stale, problem)
            )
        return states

    def forget(self, agent_id: str, kind: str, row_id: int) -> int:
        """Remove one row's vector from the agent's index, loaded or only on disk; how many were removed."""
        removed = self._registry.remove(agent_id, kind, [row_id])
        if removed:
            self._registry.flush()
            return removed
        directory = self._registry.directory(agent_id)
        index = AgentIndex.load(directory, self._registry.sealer)
        if index is None:
            return 0
        removed = index.remove(kind, [row_id])
        if removed:
            index.save(directory, self._registry.sealer)
        return removed

    def add(self, agent_id: str, kind: str, model: str, row_ids: list[int], vectors: Vector) -> None:
        """Index vectors already stored in the embeddings table."""
        self._registry.add(agent_id, kind, model, row_ids, vectors)

    def drop(self, agent_ids: list[str]) -> int:
        """Delete these agents' indexes from memory and disk; vectors they held."""
        return sum(self._registry.delete_agent(agent) for agent in agent_ids)

    def rebuild(self, agent_id: str, model: str | None) -> VectorState:
        """Drop the agent's index and rebuild it from the stored vectors of `model` (no re-embedding)."""
        self._registry.delete_agent(agent_id)
        if model is not None:
            dimension = self._health.stored_dimension(agent_id, model)
            if dimension:
                # Loading an agent rebuilds its index from the embeddings table; adding no rows just triggers that.
                self._registry.add(
                    agent_id, KIND_PINNED, model, [], np.zeros((0, dimension), dtype=np.float32)
                )
                self._registry.flush()
        return self.states(model, agent_id)[0]


__all__ = ["ConsoleVectors"]
