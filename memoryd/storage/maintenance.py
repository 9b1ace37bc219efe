"""The SQL of consolidation's steps (decay, merge's reads, promote, evict, prune, purge) behind typed methods.

memoryd.consolidate decides what to change and paces the batches; every statement it runs for those steps is
here. Deletions are described by a Selection, which only the functions of this module build, so the WHERE
clauses stay in storage too. (The merge writes, the identity step and the narrative are not here yet.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage.embeddings import EmbeddingStore
from memoryd.storage.handle import Database

#: Tables decay works on, and where it counts Δ from: a row's last decay (stamped when memory learned it, never
#: its conversation date), or for a pinned fact its last use when later (an injected fact is not idle).
_DECAY_FROM: dict[str, tuple[str, ...]] = {
    "pinned_facts": ("last_decayed_at_ms", "last_used_at_ms"),
    "episodes": ("last_decayed_at_ms",),
}
#: exp() of less than this underflows on PostgreSQL (an error there, 0.0 on SQLite); the factor is ~0 either way.
_EXP_FLOOR = "-700.0"
DECAY_TABLES = tuple(_DECAY_FROM)


def _marks(items: Sequence[Any]) -> str:
    return ", ".join("?" * len(items))


@dataclass(frozen=True)
class Selection:
    """Rows of one table a step deletes, with their vectors when `kind` is set. Build one with the functions below."""

    table: str
    kind: str | None
    where: str
    params: tuple[Any, ...]


def evictable_facts(salience_floor: float, idle_since_ms: int) -> Selection:
    """Active pinned facts below `salience_floor`, neither used nor created after `idle_since_ms`."""
    return Selection(
        "pinned_facts",
        KIND_PINNED,
        "status = 'active' AND salience < ? AND last_used_at_ms <= ? AND created_at_ms <= ?",
        (salience_floor, idle_since_ms, idle_since_ms),
    )


def episodes_learned_before(cutoff_ms: int) -> Selection:
    """Episodes memory learned (created_at_ms, not the conversation's date) before `cutoff_ms`."""
    return Selection("episodes", KIND_EPISODE, "created_at_ms < ?", (cutoff_ms,))


def turns_learned_before(max_id: int, cutoff_ms: int) -> Selection:
    """Transcript turns up to id `max_id` (learned before the cutoff) whose conversation time is before it too."""
    return Selection("transcript", KIND_TRANSCRIPT, "id <= ? AND created_at_ms < ?", (max_id, cutoff_ms))


def log_rows_before(cutoff_ms: int) -> Selection:
    """processing_log rows older than `cutoff_ms`."""
    return Selection("processing_log", None, "created_at_ms < ?", (cutoff_ms,))


def signals_before(status: str, cutoff_ms: int) -> Selection:
    """Pending signals in `status` ("processed", "dead_letter") last updated before `cutoff_ms`."""
    return Selection("pending_signals", None, "status = ? AND updated_at_ms < ?", (status, cutoff_ms))


@dataclass(frozen=True)
class PinnedFactRow:
    """What promote reads of an active pinned fact."""

    id: int
    agent_id: str
    content: str
    salience: float
    source_count: int
    tags_csv: str
    source_episode_id: int | None


class MaintenanceStore:
    """The statements of the maintenance steps. Writes join the caller's transaction (JobContext.batch)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # ------------------------------------------------------------------------------------------- deletion
    def matching_ids(self, selection: Selection, after_id: int, limit: int) -> list[int]:
        """Ids of up to `limit` rows matching `selection` after `after_id`, in id order (a keyset scan)."""
        return [
            int(r[0])
            for r in self._db.query(
                f"SELECT id FROM {selection.table} WHERE id > ? AND ({selection.where}) ORDER BY id LIMIT ?",
                (after_id, *selection.params, limit),
            )
        ]

    def still_matching(self, selection: Selection, ids: Sequence[int]) -> list[tuple[int, str]]:
        """(id, agent) of those of `ids` that still match (run it inside the deleting transaction)."""
        if not ids:
            return []
        rows = self._db.query(
            f"SELECT id, agent_id FROM {selection.table} WHERE id IN ({_marks(ids)}) AND ({selection.where})",
            (*ids, *selection.params),
        )
        return [(int(r[0]), str(r[1])) for r in rows]

    def delete(self, selection: Selection, ids: Sequence[int]) -> dict[str, list[int]]:
        """Delete the rows `ids` of the selection's table and their stored vectors; agent → rows that had one."""
        owners: dict[str, list[int]] = {}
        if not ids:
            return owners
        if selection.kind is not None:
            owners = EmbeddingStore(self._db).owners(selection.kind, ids)
            self._db.execute(
                f"DELETE FROM embeddings WHERE kind = ? AND row_id IN ({_marks(ids)})", (selection.kind, *ids)
            )
        self._db.execute(f"DELETE FROM {selection.table} WHERE id IN ({_marks(ids)})", ids)
        return owners

    # ---------------------------------------------------------------------------------------------- decay
    def highest_id(self, table: str) -> int:
        """The highest id of a decay table, -1 when it is empty."""
        return int(self._db.scalar(f"SELECT coalesce(max(id), -1) FROM {_decay_table(table)}"))

    def first_id_in(self, table: str, low: int, high: int) -> int | None:
        """The lowest id in [low, high] (one index seek over pruned gaps), or None."""
        found = self._db.scalar(
            f"SELECT min(id) FROM {_decay_table(table)} WHERE id >= ? AND id <= ?", (low, high)
        )
        return None if found is None else int(found)

    def decay_ids(self, table: str, start: int, end: int, now_ms: int, tau_ms: float) -> int:
        """salience ×= exp(−Δ/tau) for active rows with id in [start, end) not yet decayed at `now_ms`, Δ from
        each row's decay origin; a row never decayed (imported) is only stamped. Returns the rows changed."""
        sql = self._db.dialect
        origin = _DECAY_FROM[table]
        since = sql.greatest(*origin) if len(origin) > 1 else origin[0]
        elapsed = sql.greatest("0", f"? - {since}")
        factor = f"exp({sql.greatest(_EXP_FLOOR, f'-{elapsed} / ?')})"
        return int(
            self._db.execute(
                f"UPDATE {table} SET salience = CASE WHEN last_decayed_at_ms > 0 THEN "
                f"{sql.least('1.0', sql.greatest('0.0', f'salience * {factor}'))} ELSE salience END, "
                f"last_decayed_at_ms = ? "
                f"WHERE id >= ? AND id < ? AND status = 'active' AND last_decayed_at_ms < ?",
                (now_ms, tau_ms, now_ms, start, end, now_ms),
            ).rowcount
        )

    # --------------------------------------------------------------------------------------- merge (reads)
    def highest_episode_id(self) -> int:
        """The highest episode id, 0 when there is none."""
        return int(self._db.scalar("SELECT coalesce(max(id), 0) FROM episodes") or 0)

    def agents_with_active_episodes(self, after_id: int, up_to_id: int) -> list[str]:
        """Agents with an active episode whose id is in (after_id, up_to_id]."""
        return [
            str(r[0])
            for r in self._db.query(
                "SELECT DISTINCT agent_id FROM episodes WHERE id > ? AND id <= ? AND status = 'active'",
                (after_id, up_to_id),
            )
        ]

    def active_episodes(self, agent_id: str, up_to_id: int) -> list[tuple[int, int, str, str]]:
        """(id, conversation_at_ms, summary, topics_csv) of the agent's active episodes up to `up_to_id`."""
        return [
            (int(r[0]), int(r[1]), str(r[2]), str(r[3]))
            for r in self._db.query(
                "SELECT id, conversation_at_ms, summary, topics_csv FROM episodes "
                "WHERE agent_id = ? AND status = 'active' AND id <= ?",
                (agent_id, up_to_id),
            )
        ]

    # -------------------------------------------------------------------------------------------- promote
    def agents_with_episodes_between(self, since_ms: int, until_ms: int, min_count: int) -> list[str]:
        """Agents with at least `min_count` active episodes whose conversation time is in [since_ms, until_ms]."""
        return [
            str(r[0])
            for r in self._db.query(
                "SELECT agent_id FROM episodes WHERE status = 'active' AND conversation_at_ms BETWEEN ? AND ? "
                "GROUP BY agent_id HAVING count(*) >= ?",
                (since_ms, until_ms, min_count),
            )
        ]

    def recent_episode_texts(self, agent_id: str, since_ms: int, until_ms: int, limit: int) -> list[str]:
        """Summary, topics, entities, decisions and action items of the agent's latest active episodes in the
        window (most recent first), each joined by spaces."""
        return [
            " ".join(columns)
            for columns in self._db.query(
                "SELECT summary, topics_csv, entities_csv, decisions, action_items FROM episodes "
                "WHERE agent_id = ? AND status = 'active' AND conversation_at_ms BETWEEN ? AND ? "
                "ORDER BY conversation_at_ms DESC, id DESC LIMIT ?",
                (agent_id, since_ms, until_ms, limit),
            )
        ]

    def active_pinned_facts(self, after_id: int, limit: int) -> list[PinnedFactRow]:
        """Up to `limit` active pinned facts after `after_id`, in id order (sequential pages)."""
        return [
            PinnedFactRow(int(r[0]), str(r[1]), str(r[2]), float(r[3]), int(r[4]), str(r[5]), r[6])
            for r in self._db.query(
                "SELECT id, agent_id, content, salience, source_count, tags_csv, source_episode_id "
                "FROM pinned_facts WHERE id > ? AND status = 'active' ORDER BY id LIMIT ?",
                (after_id, limit),
            )
        ]

    def boost_pinned_facts(self, ids: Sequence[int], boost: float) -> None:
        """salience += boost (capped at 1) for those of `ids` still active."""
        if ids:
            self._db.execute(
                f"UPDATE pinned_facts SET salience = {self._db.dialect.least('1.0', 'salience + ?')} "
                f"WHERE id IN ({_marks(ids)}) "
                f"AND status = 'active'",
                (boost, *ids),
            )

    def active_identity_facts(self) -> list[tuple[int, str]]:
        """(id, content) of every active identity fact."""
        return [
            (int(r[0]), str(r[1]))
            for r in self._db.query("SELECT id, content FROM identity_facts WHERE status = 'active'")
        ]

    def raise_identity_support(self, fact_id: int, support: int, now_ms: int) -> None:
        """An identity fact's source_count becomes `support` when that is higher."""
        self._db.execute(
            "UPDATE identity_facts SET source_count = ?, updated_at_ms = ? WHERE id = ? AND source_count < ?",
            (support, now_ms, fact_id, support),
        )

    def insert_identity_fact(
        self, agent_id: str, content: str, source_episode_id: int | None, support: int, now_ms: int
    ) -> int:
        """A new identity fact; its id."""
        return self._db.insert(
            "INSERT INTO identity_facts (agent_id, content, source_episode_id, source_count, created_at_ms, "
            "updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)",
            (agent_id, content, source_episode_id, support, now_ms, now_ms),
        )

    # ---------------------------------------------------------------------------------------------- prune
    def transcript_high_id(self) -> int:
        """The highest transcript id ever handed out (AUTOINCREMENT's sequence; max(id) before the first insert)."""
        return self._db.last_id("transcript")


def _decay_table(table: str) -> str:
    if table not in _DECAY_FROM:
        raise ValueError(f"not a decay table: {table}")
    return table


__all__ = [
    "DECAY_TABLES",
    "MaintenanceStore",
    "PinnedFactRow",
    "Selection",
    "episodes_learned_before",
    "evictable_facts",
    "log_rows_before",
    "signals_before",
    "turns_learned_before",
]
