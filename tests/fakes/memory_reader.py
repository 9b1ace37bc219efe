"""An in-memory MemoryReader for read-path tests (stands in for storage): word-overlap search, bumps."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from memoryd.retrieval.items import IdentitySnapshot, ItemKind, ItemRef, MemoryHit, Section

_WORD = re.compile(r"\w+")


def words(text: str) -> set[str]:
    """Lower-case words of at least three characters."""
    return {w for w in _WORD.findall(text.casefold()) if len(w) >= 3}


@dataclass
class InMemoryReader:
    """Rows per (agent, scope); search ranks by shared words (score = overlap), ties by insertion order."""

    identity_snapshot: IdentitySnapshot = field(default_factory=IdentitySnapshot)
    disabled_agents: set[str] = field(default_factory=set)
    entities: dict[str, list[str]] = field(default_factory=dict)
    rows: dict[tuple[str, Section], list[MemoryHit]] = field(default_factory=dict)
    bumps: list[tuple[str, tuple[str, ...], int]] = field(default_factory=list)
    searches: list[tuple[str, Section, str, int]] = field(default_factory=list)
    identity_calls: int = 0
    entity_calls: int = 0

    def add(self, agent_id: str, scope: Section, text: str, **kwargs: object) -> MemoryHit:
        """Store one row; kind and id are derived (ids count per scope)."""
        kind = {Section.PINNED: ItemKind.PINNED_FACT, Section.EPISODES: ItemKind.EPISODE}.get(
            scope, ItemKind.TRANSCRIPT_TURN
        )
        bucket = self.rows.setdefault((agent_id, scope), [])
        hit = MemoryHit(ref=ItemRef(kind, str(len(bucket) + 1)), text=text, **kwargs)  # type: ignore[arg-type]
        bucket.append(hit)
        return hit

    def is_memory_enabled(self, agent_id: str) -> bool:
        return agent_id not in self.disabled_agents

    def identity(self, agent_id: str) -> IdentitySnapshot:
        self.identity_calls += 1
        return self.identity_snapshot

    def known_entities(self, agent_id: str) -> Sequence[str]:
        self.entity_calls += 1
        return list(self.entities.get(agent_id, []))

    def search(
        self, agent_id: str, scope: Section, query: str, limit: int, *, vector_timeout_s: float | None = None
    ) -> Sequence[MemoryHit]:
        self.searches.append((agent_id, scope, query, limit))
        wanted = words(query)
        scored = []
        for order, hit in enumerate(self.rows.get((agent_id, scope), [])):
            overlap = len(wanted & words(hit.text))
            if overlap:
                scored.append((overlap, -order, hit))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        return [replace(hit, score=float(overlap)) for overlap, _, hit in scored[:limit]]

    def bump_pinned_usage(self, agent_id: str, fact_ids: Sequence[str], used_at_ms: int) -> None:
        self.bumps.append((agent_id, tuple(fact_ids), used_at_ms))
