"""The consolidation_state side table: pass-level watermarks (merge, promote) that must survive restarts.

Kept in a table this package creates itself (CREATE IF NOT EXISTS) because the storage migrations are a closed
list; per-row decay state uses the schema's own last_decayed_at_ms columns.
"""

from __future__ import annotations

from memoryd.storage.db import Database

_DDL = """
CREATE TABLE IF NOT EXISTS consolidation_state (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL,
    updated_at_ms INTEGER NOT NULL
)
"""

MERGE_WATERMARK = "merge.episode_watermark"
PROMOTE_LAST_MS = "promote.last_ms"
#: (Before migration 7 the narrative step kept "identity.facts_digest" and "identity.narrative_stamp" here; that
#: migration reads and removes them. Per-agent narratives keep their digest in agent_narratives.facts_digest.)


class StateStore:
    """Small key/value store on memory.sqlite; set() joins the caller's transaction when there is one."""

    def __init__(self, db: Database) -> None:
        self._db = db
        with db.write():
            db.execute(_DDL)

    def get(self, key: str, default: str = "") -> str:
        """The stored value, or `default`."""
        value = self._db.scalar("SELECT value FROM consolidation_state WHERE key = ?", (key,))
        return default if value is None else str(value)

    def get_int(self, key: str, default: int = 0) -> int:
        """The stored value as an int, or `default` when absent or malformed."""
        try:
            return int(self.get(key, str(default)))
        except ValueError:
            return default

    def set(self, key: str, value: str | int, now_ms: int) -> None:
        """Insert or replace one value."""
        with self._db.write():
            self._db.execute(
                "INSERT INTO consolidation_state (key, value, updated_at_ms) VALUES (?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at_ms = excluded.updated_at_ms",
                (key, str(value), now_ms),
            )
