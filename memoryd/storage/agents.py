"""The agents table: upsert, get, paged list with memory_entry_count, and deleting an agent's rows."""

from __future__ import annotations

from typing import Any

from memoryd.domain import AgentChanges, AgentRecord, now_ms
from memoryd.storage.handle import Database
from memoryd.storage.tables import Tables

#: Tables holding per-agent rows, deleted with the agent (embeddings first, so they are counted before the
#: source-row triggers would remove them silently).
AGENT_TABLES = (
    "embeddings",
    "pinned_facts",
    "episodes",
    "transcript",
    "pending_signals",
    "identity_facts",
    "agent_narratives",
)

_ENTRY_COUNT_SQL = """
    (SELECT count(*) FROM episodes e WHERE e.agent_id = a.agent_id AND e.status = 'active')
  + (SELECT count(*) FROM pinned_facts p WHERE p.agent_id = a.agent_id AND p.status = 'active')
"""


class AgentStore:
    """CRUD over agents; memory_entry_count = active episodes + active pinned facts."""

    def __init__(self, db: Database, tables: Tables) -> None:
        self._db = db
        self._t = tables

    def _record(self, row: Any, count: int) -> AgentRecord:
        return AgentRecord(
            agent_id=row.agent_id,
            display_name=row.display_name,
            memory_enabled=bool(row.memory_enabled),
            search_memory_enabled=bool(row.search_memory_enabled),
            memory_entry_count=count,
            created_at_ms=row.created_at_ms,
            updated_at_ms=row.updated_at_ms,
        )

    def get(self, agent_id: str) -> AgentRecord | None:
        """One agent with its entry count, or None."""
        with self._db.read():
            row = self._t.Agent.get_or_none(self._t.Agent.agent_id == agent_id)
            if row is None:
                return None
            count = self._db.scalar(
                f"SELECT {_ENTRY_COUNT_SQL} FROM agents a WHERE a.agent_id = ?", (agent_id,)
            )
        return self._record(row, int(count or 0))

    def ensure(self, agent_id: str) -> AgentRecord:
        """The agent, created with default settings if it does not exist (call inside a write)."""
        row = self._t.Agent.get_or_none(self._t.Agent.agent_id == agent_id)
        if row is None:
            stamp = now_ms()
            self._t.Agent.insert(
                agent_id=agent_id, created_at_ms=stamp, updated_at_ms=stamp
            ).on_conflict_ignore().execute()
            row = self._t.Agent.get(self._t.Agent.agent_id == agent_id)
        return self._record(row, 0)

    def upsert(self, agent_id: str, changes: AgentChanges) -> tuple[AgentRecord, bool]:
        """Create or update; returns the stored agent and whether it was created."""
        with self._db.write():
            existing = self._t.Agent.get_or_none(self._t.Agent.agent_id == agent_id)
            created = existing is None
            if created:
                self.ensure(agent_id)
            values: dict[str, Any] = {}
            if changes.display_name is not None:
                values["display_name"] = changes.display_name
            if changes.memory_enabled is not None:
                values["memory_enabled"] = changes.memory_enabled
            if changes.search_memory_enabled is not None:
                values["search_memory_enabled"] = changes.search_memory_enabled
            if values:
                values["updated_at_ms"] = now_ms()
                self._t.Agent.update(**values).where(self._t.Agent.agent_id == agent_id).execute()
        record = self.get(agent_id)
        assert record is not None
        return record, created

    def list_page(self, after: str, limit: int) -> list[AgentRecord]:
        """Up to `limit` agents with agent_id > after, ordered by agent_id."""
        with self._db.read():
            rows = self._db.query(
                f"""SELECT a.agent_id, a.display_name, a.memory_enabled, a.search_memory_enabled,
                           a.created_at_ms, a.updated_at_ms, {_ENTRY_COUNT_SQL}
                    FROM agents a WHERE a.agent_id > ? ORDER BY a.agent_id LIMIT ?""",
                (after, limit),
            )
        return [
            AgentRecord(
                agent_id=r[0],
                display_name=r[1],
                memory_enabled=bool(r[2]),
                search_memory_enabled=bool(r[3]),
                created_at_ms=r[4],
                updated_at_ms=r[5],
                memory_entry_count=int(r[6]),
            )
            for r in rows
        ]

    def delete(self, agent_id: str) -> int | None:
        """Delete the agent and every row it owns in one transaction; None when it did not exist."""
        with self._db.write():
            if self._t.Agent.get_or_none(self._t.Agent.agent_id == agent_id) is None:
                return None
            deleted = 0
            for table in AGENT_TABLES:
                deleted += self._db.execute(f"DELETE FROM {table} WHERE agent_id = ?", (agent_id,)).rowcount
            # Its BufferTurn keys go too (not counted: no memory), so a late retry stores again, never replays.
            self._db.execute("DELETE FROM turn_requests WHERE agent_id = ?", (agent_id,))
            deleted += int(self._t.Agent.delete().where(self._t.Agent.agent_id == agent_id).execute())
        return deleted

    def is_memory_enabled(self, agent_id: str) -> bool:
        """The agent's Memory toggle; unknown agents count as enabled (they are created on first turn)."""
        value = self._db.scalar("SELECT memory_enabled FROM agents WHERE agent_id = ?", (agent_id,))
        return True if value is None else bool(value)

    def all_ids(self) -> list[str]:
        """Every agent id, sorted."""
        return [r[0] for r in self._db.query("SELECT agent_id FROM agents ORDER BY agent_id")]
