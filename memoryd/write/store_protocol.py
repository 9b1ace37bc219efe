"""The storage operations the writer needs, as a Protocol over the plain records of memoryd.distill_records.

The records are re-exported (the writer imports them from here); their list is distill_records.__all__ alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memoryd import distill_records as records
from memoryd.distill_records import *  # noqa: F403 - the records are this module's API too (see __all__)


class WriterStore(Protocol):
    """Storage the writer needs. Every method is one short transaction; implementations are thread-safe."""

    def pending_signals(self, agent_id: str, conversation_id: str) -> list[records.Signal]:
        """Pending signals of one conversation, oldest first (the snapshot a distillation works on)."""
        ...

    def pending_conversations(self, agent_id: str | None = None) -> list[tuple[str, str]]:
        """Distinct (agent_id, conversation_id) pairs with pending signals, oldest first."""
        ...

    def identity_narrative(self) -> str:
        """The auto-derived identity narrative (never the user's overrides)."""
        ...

    def recent_episodes(self, agent_id: str, limit: int, since_ms: int) -> list[records.EpisodeDigest]:
        """Up to `limit` active episodes of the agent newer than since_ms, newest first."""
        ...

    def active_facts(self, agent_id: str, limit: int) -> list[records.ExistingFact]:
        """Active pinned facts of the agent, highest salience first."""
        ...

    def identity_facts(self, agent_id: str, limit: int) -> list[records.ExistingFact]:
        """Auto-derived identity facts whose source agent is `agent_id`."""
        ...

    def is_memory_enabled(self, agent_id: str) -> bool:
        """Whether the agent's Memory toggle is on (unknown agents count as enabled)."""
        ...

    def commit_distillation(self, write: records.DistillationWrite) -> records.CommitResult:
        """ONE transaction: insert the episode, mark exactly the snapshot ids processed, insert/bump pinned facts,
        insert/bump identity facts, write the log row. Raises StaleSnapshotError (and writes nothing) when a
        snapshot id is no longer pending."""
        ...

    def mark_processed(self, signal_ids: Sequence[int], log: records.LogEntry) -> None:
        """Terminal outcome without an episode: mark the ids processed and write the log row, one transaction."""
        ...

    def record_failure(
        self, signal_ids: Sequence[int], max_attempts: int, log: records.LogEntry
    ) -> records.FailureResult:
        """attempts += 1 on ids still pending; dead-letter them when max attempts >= max_attempts; log it.

        The log row's status becomes dead_letter when the signals were dead-lettered."""
        ...

    def log(self, entry: records.LogEntry) -> None:
        """Write one processing_log row."""
        ...

    def replace_conversation(
        self,
        agent_id: str,
        conversation_id: str,
        turns: Sequence[records.IngestTurn],
        session_time_ms: int,
        *,
        skip_extraction: bool,
    ) -> records.ReplaceResult:
        """Ingest in ONE transaction: delete the conversation's transcript; unless skip_extraction also its
        signals (any status), episodes and the pinned/identity facts derived from those episodes; then insert the
        transcript rows (and pending signals unless skip_extraction)."""
        ...

    def count_pending(self, agent_id: str, conversation_id: str) -> int:
        """Number of pending signals of one conversation."""
        ...

    def transcript_ids_for(self, signals: Sequence[records.Signal]) -> list[tuple[int, ...]]:
        """For each signal (one conversation, oldest first), the transcript ids of its user and assistant rows
        (empty where none is found): the provenance derived items record."""
        ...


__all__ = ["WriterStore"]
__all__ += records.__all__
