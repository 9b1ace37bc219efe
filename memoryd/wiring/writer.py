"""Builds the writer from memoryd's parts (store, memory.json, inferd client) for app.py to compose."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from memoryd.config import ConfigStore, MemoryConfig
from memoryd.storage.distillation import SqliteWriterStore
from memoryd.storage.store import Store
from memoryd.vectors.codec import VECTOR_KINDS
from memoryd.wiring.replication import Replication
from memoryd.write import DistillPolicy, Writer, WriterSettings
from memoryd.write.breaker import CircuitBreaker
from memoryd.write.coordinator import no_guard
from memoryd.write.dedup import FactPlan
from memoryd.write.model import Inference
from memoryd.write.session import DEFAULT_POLICY
from memoryd.write.store_protocol import CommitResult, DerivedRow, DistillationWrite

_log = logging.getLogger("memoryd.writer_wiring")

#: Called with an agent id whenever the writer changed that agent's rows (cache invalidation, indexer nudge).
AgentChanged = Callable[[str], None]
#: Called with the rows a re-ingest deleted (their embeddings rows are already gone; drop them from faiss).
RowsRemoved = Callable[[str, Sequence[DerivedRow]], None]


def rows_remover(remove: Callable[[str, str, Sequence[int]], int]) -> RowsRemoved:
    """Adapts a per-kind vector removal (VectorRegistry.remove(agent_id, kind, row_ids)) to RowsRemoved."""

    def on_rows_removed(agent_id: str, rows: Sequence[DerivedRow]) -> None:
        by_kind: dict[str, list[int]] = {}
        for row in rows:
            if row.kind in VECTOR_KINDS:  # a re-ingest also deletes identity facts, which have no vector
                by_kind.setdefault(row.kind, []).append(int(row.id))
        for kind, ids in by_kind.items():
            remove(agent_id, kind, ids)

    return on_rows_removed


def writer_settings(config: MemoryConfig) -> WriterSettings:
    """The writer's view of memory.json."""
    return WriterSettings(
        enabled=config.enabled,
        extraction_mode=config.extraction_mode,
        summary_debounce_s=float(config.summary_debounce_seconds),
        core_model=config.core_model,
        embedding_model=config.embedding_model,
        embeddings_enabled=config.embedding_backend != "none",
    )


class CallbackHooks:
    """WriterHooks that fan out to plain callbacks; a failing callback is logged and the others still run."""

    def __init__(
        self, on_agent_changed: Sequence[AgentChanged] = (), on_rows_removed: RowsRemoved | None = None
    ) -> None:
        self._changed = list(on_agent_changed)
        self._removed = on_rows_removed

    def _notify(self, agent_id: str) -> None:
        for callback in self._changed:
            try:
                callback(agent_id)
            except Exception:
                _log.exception("writer callback failed")

    def distilled(
        self, agent_id: str, write: DistillationWrite, result: CommitResult, plan: FactPlan
    ) -> None:
        self._notify(agent_id)

    def rows_removed(self, agent_id: str, rows: Sequence[DerivedRow]) -> None:
        if self._removed is not None:
            try:
                self._removed(agent_id, rows)
            except (
                Exception
            ) as error:  # a stale vector is rebuilt later; skipped invalidations serve stale memory
                _log.error("removing vectors of deleted rows failed: %s", type(error).__name__)
        self._notify(agent_id)

    def transcript_written(self, agent_id: str, conversation_id: str, transcript_ids: Sequence[int]) -> None:
        self._notify(agent_id)


def build_writer(
    store: Store,
    config: ConfigStore,
    inference: Inference,
    *,
    on_agent_changed: Sequence[AgentChanged] = (),
    on_rows_removed: RowsRemoved | None = None,
    policy: DistillPolicy | None = None,
    breaker: CircuitBreaker | None = None,
    replication: Replication | None = None,
) -> Writer:
    """A Writer over the store that reads memory.json on every operation. Call .start() once serving.

    With `replication` (PostgreSQL, several replicas) debounce deadlines live in the database and a conversation
    is distilled by whichever replica claims it; without it, everything stays in this process."""
    return Writer(
        SqliteWriterStore(store.db, store.tables, store.agents),
        inference,
        lambda: writer_settings(config.get()),
        hooks=CallbackHooks(on_agent_changed, on_rows_removed),
        policy=policy or DEFAULT_POLICY,
        breaker=breaker,
        due_queue=None if replication is None else replication.due_queue,
        guard=no_guard if replication is None else replication.guard,
    )


__all__ = ["AgentChanged", "CallbackHooks", "RowsRemoved", "build_writer", "rows_remover", "writer_settings"]
