"""Plain dataclasses the read path works on: sections, memory hits, identity snapshot, item references."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Section(StrEnum):
    """The one memory section the gate picks for a turn (values match the proto's SECTION_* names)."""

    NONE = "none"
    IDENTITY = "identity"
    PINNED = "pinned"
    EPISODES = "episodes"
    TRANSCRIPT = "transcript"


class ItemKind(StrEnum):
    """Table family of a memory row (values match memoryd.domain KIND_*; the proto has ITEM_KIND_*)."""

    PINNED_FACT = "pinned_fact"
    EPISODE = "episode"
    TRANSCRIPT_TURN = "transcript"
    IDENTITY_FACT = "identity_fact"


#: Which search scope serves a section (identity is not searched: it is read whole).
SCOPE_KIND: dict[Section, ItemKind] = {
    Section.PINNED: ItemKind.PINNED_FACT,
    Section.EPISODES: ItemKind.EPISODE,
    Section.TRANSCRIPT: ItemKind.TRANSCRIPT_TURN,
}


@dataclass(frozen=True)
class ItemRef:
    """One memory row: its table family and id (decimal for integer keys)."""

    kind: ItemKind
    id: str


@dataclass(frozen=True)
class MemoryHit:
    """One row returned by hybrid search for a scope, best first.

    `text` is the pinned fact, the episode summary or the transcript turn. `score` is the fused relevance
    (higher is better, comparable within one result list). `occurred_at_ms` is the episode's conversation
    time, the turn's time or the fact's creation time (UTC epoch ms). `decisions` are the episode's
    decision lines; `role` is "user" or "assistant" for transcript turns.
    """

    ref: ItemRef
    text: str
    score: float = 0.0
    salience: float = 0.5
    occurred_at_ms: int = 0
    role: str = ""
    decisions: tuple[str, ...] = ()
    conversation_id: str = ""


@dataclass(frozen=True)
class IdentityFact:
    """An auto-derived identity fact (never one of the user's overrides)."""

    id: str
    text: str
    source_count: int = 1


@dataclass(frozen=True)
class IdentitySnapshot:
    """What the read path needs of the identity: overrides (always on), the narrative and the auto facts."""

    overrides: tuple[str, ...] = ()
    narrative: str = ""
    facts: tuple[IdentityFact, ...] = field(default_factory=tuple)


__all__ = ["SCOPE_KIND", "IdentityFact", "IdentitySnapshot", "ItemKind", "ItemRef", "MemoryHit", "Section"]
