"""The SQL of consolidation's merge: an agent's episode vectors, the turns an episode came from, and folding
duplicates into their survivors (memoryd.consolidate.merging decides which pairs merge and how fields combine).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoryd.domain import KIND_EPISODE
from memoryd.storage.handle import Database

#: Column a later migration adds to episodes, pinned_facts and identity_facts: the comma-separated transcript
#: (or signal) ids an item came from. Merge unions it when the table has it.
SOURCE_TURNS_COLUMN = "source_turn_ids"


def _marks(items: Sequence[Any]) -> str:
    return ", ".join("?" * len(items))


@dataclass(frozen=True)
class ScreenedEpisode:
    """What screening reads of an episode."""

    summary: str
    #: Summary, topics and entities, space-separated: the text compared for added information.
    words_text: str
    conversation_id: str
    source_turn_ids: str


@dataclass(frozen=True)
class MergeFields:
    """The fields merge folds from a duplicate into its survivor."""

    decisions: str
    action_items: str
    entities_csv: str
    topics_csv: str
    source_turn_ids: str
    salience: float


class EpisodeMergeStore:
    """Merge's reads and writes; the writes join the caller's transaction (one per batch of pairs)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def has_source_turns(self) -> bool:
        """Whether episodes has source_turn_ids yet (PRAGMA table_info: cheap, and right across migrations)."""
        return SOURCE_TURNS_COLUMN in self._db.columns("episodes")

    def episode_vectors(self, agent_id: str, model: str, limit: int) -> list[tuple[int, bytes, int]]:
        """(row id, vector blob, dimension) of the agent's most recent active episodes under `model`."""
        return [
            (int(r[0]), bytes(r[1]), int(r[2]))
            for r in self._db.query(
                "SELECT e.row_id, e.vector, e.dimension FROM embeddings AS e JOIN episodes AS p ON p.id = e.row_id "
                "WHERE e.kind = ? AND e.agent_id = ? AND e.model = ? AND p.status = 'active' AND p.agent_id = ? "
                "ORDER BY p.conversation_at_ms DESC, p.id DESC LIMIT ?",
                (KIND_EPISODE, agent_id, model, agent_id, limit),
            )
        ]

    # --------------------------------------------------------------------------------------- source turns
    def transcript_contents(self, agent_id: str, ids: Sequence[int]) -> list[str]:
        """The content of those of the agent's transcript rows `ids` that still exist."""
        if not ids:
            return []
        return [
            str(r[0])
            for r in self._db.query(
                f"SELECT content FROM transcript WHERE agent_id = ? AND id IN ({_marks(ids)})",
                (agent_id, *ids),
            )
        ]

    def signal_messages(self, agent_id: str, ids: Sequence[int]) -> list[tuple[str, str]]:
        """(user, assistant) of those of the agent's pending signals `ids` that still exist."""
        if not ids:
            return []
        return [
            (str(user), str(assistant))
            for user, assistant in self._db.query(
                f"SELECT user_message, assistant_message FROM pending_signals WHERE agent_id = ? "
                f"AND id IN ({_marks(ids)})",
                (agent_id, *ids),
            )
        ]

    def session_transcript(self, agent_id: str, conversation_id: str, limit: int) -> list[str]:
        """The first `limit` transcript contents of one conversation, in chunk order."""
        return [
            str(r[0])
            for r in self._db.query(
                "SELECT content FROM transcript WHERE agent_id = ? AND conversation_id = ? "
                "ORDER BY chunk_index LIMIT ?",
                (agent_id, conversation_id, limit),
            )
        ]

    def session_signals(self, agent_id: str, conversation_id: str, limit: int) -> list[tuple[str, str]]:
        """(user, assistant) of the first `limit` pending signals of one conversation."""
        return [
            (str(user), str(assistant))
            for user, assistant in self._db.query(
                "SELECT user_message, assistant_message FROM pending_signals WHERE agent_id = ? "
                "AND conversation_id = ? ORDER BY id LIMIT ?",
                (agent_id, conversation_id, limit),
            )
        ]

    # ---------------------------------------------------------------------------------------- the merge
    def episodes_to_screen(self, agent_id: str, ids: Sequence[int]) -> dict[int, ScreenedEpisode]:
        """The agent's episodes among `ids` (any status), by id."""
        if not ids:
            return {}
        extra = f", {SOURCE_TURNS_COLUMN}" if self.has_source_turns() else ", ''"
        return {
            int(r[0]): ScreenedEpisode(str(r[1]), f"{r[1]} {r[2]} {r[3]}", str(r[4]), str(r[5] or ""))
            for r in self._db.query(
                f"SELECT id, summary, topics_csv, entities_csv, conversation_id{extra} FROM episodes "
                f"WHERE agent_id = ? AND id IN ({_marks(ids)})",
                (agent_id, *ids),
            )
        }

    def episodes_to_merge(
        self, agent_id: str, ids: Sequence[int], with_turns: bool
    ) -> dict[int, MergeFields]:
        """The agent's active episodes among `ids`, by id (source_turn_ids read only `with_turns`)."""
        if not ids:
            return {}
        turns_column = f"coalesce({SOURCE_TURNS_COLUMN}, '')" if with_turns else "''"
        return {
            int(r[0]): MergeFields(str(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), float(r[6]))
            for r in self._db.query(
                f"SELECT id, decisions, action_items, entities_csv, topics_csv, {turns_column}, salience "
                f"FROM episodes WHERE agent_id = ? AND status = 'active' AND id IN ({_marks(ids)})",
                (agent_id, *ids),
            )
        }

    def update_survivor(self, episode_id: int, fields: MergeFields, with_turns: bool) -> None:
        """Write a survivor's folded fields (source_turn_ids only `with_turns`)."""
        turns_set = f", {SOURCE_TURNS_COLUMN} = ?" if with_turns else ""
        self._db.execute(
            f"UPDATE episodes SET decisions = ?, action_items = ?, entities_csv = ?, topics_csv = ?, "
            f"salience = ?{turns_set} WHERE id = ?",
            (
                fields.decisions,
                fields.action_items,
                fields.entities_csv,
                fields.topics_csv,
                fields.salience,
                *([fields.source_turn_ids] if with_turns else []),
                episode_id,
            ),
        )

    def repoint_facts(self, agent_id: str, survivor_of: Sequence[tuple[int, int]]) -> None:
        """Facts sourced from a duplicate now cite its survivor: (duplicate, survivor) pairs."""
        if not survivor_of:
            return
        duplicates = [duplicate for duplicate, _ in survivor_of]
        # One statement per table (source_episode_id has no index: agent_id narrows the scan to this agent's facts).
        cases = " ".join("WHEN ? THEN ?" for _ in survivor_of)
        mapping = [value for pair in survivor_of for value in pair]
        for table in ("pinned_facts", "identity_facts"):
            self._db.execute(
                f"UPDATE {table} SET source_episode_id = CASE source_episode_id {cases} END "
                f"WHERE agent_id = ? AND source_episode_id IN ({_marks(duplicates)})",
                (*mapping, agent_id, *duplicates),
            )

    def delete_episodes(self, ids: Sequence[int]) -> tuple[int, ...]:
        """Delete episodes and their vectors; the ids that had a vector."""
        if not ids:
            return ()
        with_vectors = tuple(
            int(r[0])
            for r in self._db.query(
                f"SELECT row_id FROM embeddings WHERE kind = ? AND row_id IN ({_marks(ids)})",
                (KIND_EPISODE, *ids),
            )
        )
        self._db.execute(
            f"DELETE FROM embeddings WHERE kind = ? AND row_id IN ({_marks(ids)})", (KIND_EPISODE, *ids)
        )
        self._db.execute(f"DELETE FROM episodes WHERE id IN ({_marks(ids)})", ids)
        return with_vectors


__all__ = ["SOURCE_TURNS_COLUMN", "EpisodeMergeStore", "MergeFields", "ScreenedEpisode"]
