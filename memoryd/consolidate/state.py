"""The keys consolidation keeps in its side table of pass-level watermarks (merge, promote) across restarts.

The table and its store are memoryd.storage.consolidation's (StateStore, re-exported here for existing callers).
"""

from __future__ import annotations

from memoryd.storage.consolidation import StateStore

MERGE_WATERMARK = "merge.episode_watermark"
PROMOTE_LAST_MS = "promote.last_ms"
#: (Before migration 7 the narrative step kept "identity.facts_digest" and "identity.narrative_stamp" here; that
#: migration reads and removes them. Per-agent narratives keep their digest in agent_narratives.facts_digest.)

__all__ = ["MERGE_WATERMARK", "PROMOTE_LAST_MS", "StateStore"]
