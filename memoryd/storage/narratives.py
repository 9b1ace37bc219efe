"""The SQL of consolidation's identity step: agents' identity facts and their narratives (agent_narratives).

memoryd.consolidate.identity_step decides what to write (model reply, verification, extractive fallback).
"""

from __future__ import annotations

from dataclasses import dataclass

from memoryd.storage.handle import Database

_ORPHANS = (
    "SELECT agent_id FROM agent_narratives n WHERE NOT EXISTS "
    "(SELECT 1 FROM identity_facts f WHERE f.agent_id = n.agent_id AND f.status = 'active')"
)


@dataclass(frozen=True)
class StoredNarrative:
    """An agent's narrative as stored: its text, who wrote it, and the digest of the facts it was built from."""

    content: str
    model: str
    digest: str


class NarrativeStore:
    """Reads and writes of the identity step; writes join the caller's transaction (JobContext.batch)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def active_facts(self) -> list[tuple[str, str, int]]:
        """(agent, content, source_count) of every active identity fact, per agent most supported first."""
        return [
            (str(agent_id), str(content), int(count))
            for agent_id, content, count in self._db.query(
                "SELECT agent_id, content, source_count FROM identity_facts WHERE status = 'active' "
                "ORDER BY agent_id, source_count DESC, id"
            )
        ]

    def has_orphans(self) -> bool:
        """Whether some agent has a narrative but no active identity fact (a lock-free look)."""
        return bool(self._db.query(_ORPHANS + " LIMIT 1"))

    def delete_orphans(self) -> list[str]:
        """Delete the narratives of agents with no active identity fact; those agents."""
        agents = [str(r[0]) for r in self._db.query(_ORPHANS)]
        if agents:
            marks = ", ".join("?" * len(agents))
            self._db.execute(f"DELETE FROM agent_narratives WHERE agent_id IN ({marks})", agents)
        return agents

    def stored(self) -> dict[str, StoredNarrative]:
        """Every agent's stored narrative."""
        return {
            str(r[0]): StoredNarrative(str(r[1]), str(r[2]), str(r[3]))
            for r in self._db.query("SELECT agent_id, content, model, facts_digest FROM agent_narratives")
        }

    def set_digest(self, agent_id: str, digest: str) -> int:
        """Move a narrative's facts digest only (not a new version); rows changed."""
        return int(
            self._db.execute(
                "UPDATE agent_narratives SET facts_digest = ? WHERE agent_id = ?", (digest, agent_id)
            ).rowcount
        )

    def write(self, agent_id: str, content: str, tokens: int, model: str, digest: str, now_ms: int) -> int:
        """Insert or replace (version + 1) an agent's narrative, unless it has no active identity fact any more;
        rows changed."""
        return int(
            self._db.execute(
                "INSERT INTO agent_narratives (agent_id, content, token_count, model, facts_digest, "
                "generated_at_ms, version) SELECT ?, ?, ?, ?, ?, ?, 1 WHERE EXISTS "
                "(SELECT 1 FROM identity_facts WHERE agent_id = ? AND status = 'active') "
                "ON CONFLICT(agent_id) DO UPDATE SET content = excluded.content, "
                "token_count = excluded.token_count, model = excluded.model, facts_digest = excluded.facts_digest, "
                "generated_at_ms = excluded.generated_at_ms, version = agent_narratives.version + 1",
                (agent_id, content, tokens, model, digest, now_ms, agent_id),
            ).rowcount
        )


__all__ = ["NarrativeStore", "StoredNarrative"]
