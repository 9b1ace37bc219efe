"""What every consolidation step works with: its dependencies (JobContext) and the paced, vector-aware delete."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

from inferd.client import GenerateOptions, Generation, Message
from memoryd.consolidate import state
from memoryd.consolidate.pacing import Pacer
from memoryd.consolidate.wal import WalCheckpointer
from memoryd.storage.consolidation import ConsolidationStore
from memoryd.storage.episode_merge import EpisodeMergeStore
from memoryd.storage.maintenance import MaintenanceStore, Selection
from memoryd.storage.narratives import NarrativeStore


class PassStoppedError(RuntimeError):
    """The pass stopped between two batches because memoryd is shutting down; the next pass resumes."""


class VectorRemover(Protocol):
    """Drops rows' vectors from the loaded per-agent index (memoryd.vectors.registry.VectorRegistry)."""

    def remove(self, agent_id: str, kind: str, row_ids: Sequence[int]) -> int: ...


class NarrativeModel(Protocol):
    """The part of inferd.client.InferenceClient the narrative step calls."""

    def generate(
        self,
        messages: Sequence[Message],
        *,
        model: str = "",
        json_schema: str = "",
        options: GenerateOptions | None = None,
        timeout_s: float | None = None,
    ) -> Generation: ...


@dataclass(frozen=True)
class PassSettings:
    """The memory.json keys a pass reads, snapshotted at its start."""

    salience_floor: float = 0.2
    episode_retention_days: int = 365
    core_model: str = ""
    #: None when embeddings are off (embeddingBackend none): merge then compares words only.
    embedding_model: str | None = None


@dataclass
class BatchTally:
    """Rows a batch changed (the pacer sizes the next batch from it)."""

    rows: int = 0


@dataclass
class JobContext:
    """Everything a step may touch. `now_ms` is read once per pass from the injectable clock."""

    storage: ConsolidationStore
    state: state.StateStore
    settings: PassSettings
    now_ms: int
    vectors: VectorRemover | None = None
    inference: NarrativeModel | None = None
    pacer: Pacer = field(default_factory=Pacer)
    #: Called with the step name after every committed batch (progress; tests use it to crash mid-pass).
    on_batch: Callable[[str], None] | None = None
    #: True once memoryd is shutting down: the pass stops before its next batch.
    should_stop: Callable[[], bool] = lambda: False
    #: Checkpoints the WAL between batches (outside the write lock); None leaves it to SQLite.
    checkpointer: WalCheckpointer | None = None
    #: The steps' statements (memoryd.storage.maintenance), from `storage`.
    store: MaintenanceStore = field(init=False)
    #: Merge's statements (memoryd.storage.episode_merge), from `storage`.
    merges: EpisodeMergeStore = field(init=False)
    #: The identity step's statements (memoryd.storage.narratives), from `storage`.
    narratives: NarrativeStore = field(init=False)

    def __post_init__(self) -> None:
        self.store = self.storage.maintenance
        self.merges = self.storage.merges
        self.narratives = self.storage.narratives

    @contextmanager
    def batch(self, step: str) -> Iterator[BatchTally]:
        """One paced write transaction (PassStoppedError instead, once shutdown began)."""
        if self.should_stop():
            raise PassStoppedError("memoryd is shutting down")
        tally = BatchTally()
        started = time.perf_counter()
        with self.storage.batch():
            yield tally
        elapsed = time.perf_counter() - started
        if self.on_batch is not None:
            self.on_batch(step)
        if self.checkpointer is not None:
            self.checkpointer.maybe()
        self.pacer.done(tally.rows, elapsed)

    def forget_vectors(self, kind: str, by_agent: dict[str, list[int]]) -> None:
        """Remove deleted rows from the in-memory faiss indexes (their embeddings rows are already gone)."""
        if self.vectors is None:
            return
        for agent_id, row_ids in by_agent.items():
            self.vectors.remove(agent_id, kind, row_ids)


@dataclass
class Deleted:
    rows: int = 0
    vectors: int = 0
    agents: set[str] = field(default_factory=set)


def delete_matching(ctx: JobContext, step: str, selection: Selection) -> Deleted:
    """Delete every row of the selection, with its vector: found by a lock-free keyset scan, then re-checked and
    deleted under the write lock in paced batches (a row touched meanwhile is re-judged)."""
    result = Deleted()
    last_id = 0
    while True:
        found = ctx.store.matching_ids(selection, last_id, ctx.pacer.size())
        if not found:
            return result
        last_id = found[-1]
        with ctx.batch(step) as tally:
            rows = ctx.store.still_matching(selection, found)
            owners = ctx.store.delete(selection, [row_id for row_id, _ in rows])
            tally.rows = len(rows)
        ctx.forget_vectors(selection.kind or "", owners)
        result.rows += len(rows)
        result.vectors += sum(len(v) for v in owners.values())
        result.agents.update(agent_id for _, agent_id in rows)
