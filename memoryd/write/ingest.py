"""Ingest: bulk-load one conversation idempotently and, unless skip_extraction, distil it synchronously."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memoryd.write.coordinator import Coordinator
from memoryd.write.debounce import DueQueue
from memoryd.write.model import WriterSettings
from memoryd.write.session import WriterHooks
from memoryd.write.store_protocol import DerivedRow, IngestTurn, WriterStore
from servicekit.errors import FailedPreconditionError

_log = logging.getLogger("memoryd.writer.ingest")


@dataclass(frozen=True)
class IngestResult:
    """IngestResponse's fields: distillation is empty when skip_extraction was set."""

    turns_ingested: int
    distillation: str
    episode_id: int


class Ingestor:
    """Replaces a conversation's transcript (and, with extraction, its signals, episodes and derived facts) in one
    transaction, then distils it in the caller's thread — cold-loading the model if needed."""

    def __init__(
        self,
        store: WriterStore,
        coordinator: Coordinator,
        debouncer: DueQueue,
        settings: Callable[[], WriterSettings],
        hooks: WriterHooks,
        *,
        now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self._store = store
        self._coordinator = coordinator
        self._debouncer = debouncer
        self._settings = settings
        self._hooks = hooks
        self._now_ms = now_ms

    def ingest(
        self,
        agent_id: str,
        conversation_id: str,
        turns: Sequence[IngestTurn],
        *,
        session_time_ms: int | None = None,
        skip_extraction: bool = False,
    ) -> IngestResult:
        """Store the turns and report the distillation outcome (raises FailedPrecondition when memory is off)."""
        if not self._settings().enabled:
            raise FailedPreconditionError("MEMORY_DISABLED", "memory is disabled in the configuration")
        if not self._store.is_memory_enabled(agent_id):
            raise FailedPreconditionError("MEMORY_DISABLED", "memory is disabled for this agent")
        when_ms = session_time_ms if session_time_ms else self._now_ms()
        with self._coordinator.exclusive(agent_id, conversation_id):
            if not skip_extraction:
                self._debouncer.cancel(agent_id, conversation_id)
            result = self._store.replace_conversation(
                agent_id, conversation_id, turns, when_ms, skip_extraction=skip_extraction
            )
            self._notify(agent_id, conversation_id, result.removed, result.transcript_ids)
            if skip_extraction:
                return IngestResult(len(turns), "", 0)
            outcome = self._coordinator.run_now(
                agent_id, conversation_id, require_resident=False, session_time_ms=when_ms
            )
        return IngestResult(len(turns), outcome.token, outcome.episode_id)

    def _notify(
        self,
        agent_id: str,
        conversation_id: str,
        removed: Sequence[DerivedRow],
        transcript_ids: Sequence[int],
    ) -> None:
        try:
            if removed:
                self._hooks.rows_removed(agent_id, removed)
            self._hooks.transcript_written(agent_id, conversation_id, transcript_ids)
        except Exception:
            _log.exception("ingest hook failed")


__all__ = ["IngestResult", "Ingestor"]
