"""Plain dataclasses passed between the service, storage, vectors and retrieval layers (no protobuf, no peewee)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

#: Row kinds, as stored in embeddings.kind and used in ItemRef conversion.
KIND_PINNED = "pinned_fact"
KIND_EPISODE = "episode"
KIND_TRANSCRIPT = "transcript"
KIND_IDENTITY_FACT = "identity_fact"
KINDS = (KIND_PINNED, KIND_EPISODE, KIND_TRANSCRIPT)

#: search_memory scopes and the row kind each searches.
SCOPE_KIND = {"pinned": KIND_PINNED, "episodes": KIND_EPISODE, "transcript": KIND_TRANSCRIPT}

#: Longest user or assistant message stored (spec: maxContentLength).
MAX_CONTENT_CHARS = 50_000
#: Longest agent id, in characters: every RPC, the import format and plugin_host check it (memoryd.client exports it).
MAX_AGENT_ID_CHARS = 128
#: Longest conversation id, in characters.
MAX_CONVERSATION_ID_CHARS = 256


def now_ms() -> int:
    """Current UTC time in epoch milliseconds."""
    return int(time.time() * 1000)


@dataclass(frozen=True)
class AgentRecord:
    """One agent and its two independent toggles."""

    agent_id: str
    display_name: str = ""
    memory_enabled: bool = True
    search_memory_enabled: bool = False
    memory_entry_count: int = 0
    created_at_ms: int = 0
    updated_at_ms: int = 0


@dataclass(frozen=True)
class AgentChanges:
    """Settings an upsert changes; None keeps the current (or default) value."""

    display_name: str | None = None
    memory_enabled: bool | None = None
    search_memory_enabled: bool | None = None


@dataclass(frozen=True)
class TurnInput:
    """One validated user/assistant exchange to buffer."""

    agent_id: str
    conversation_id: str
    user_message: str
    assistant_message: str
    occurred_at_ms: int
    #: The client's idempotency key ("" = none): a retry within the window answers the first result.
    request_id: str = ""


@dataclass(frozen=True)
class BufferedTurn:
    """What BufferTurn stored."""

    signal_id: int
    transcript_ids: tuple[int, ...]
    distillation_scheduled: bool = False
    flush_at_ms: int = 0
    #: A retry with a known request id: nothing was stored, the ids are the first call's.
    replayed: bool = False


@dataclass(frozen=True)
class OverrideRecord:
    """One explicit, user-authored identity fact."""

    id: str
    text: str
    created_at_ms: int


@dataclass(frozen=True)
class IdentityFactRecord:
    """One auto-derived identity fact, kept apart from the overrides."""

    id: str
    text: str
    source_agent_id: str
    source_episode_id: int
    source_count: int
    created_at_ms: int


#: `model` of an identity narrative made of the agent's facts themselves (no model reply passed verification).
EXTRACTIVE_NARRATIVE = "extractive"


@dataclass(frozen=True)
class IdentityRecord:
    """The identity: global overrides, a narrative and auto-derived facts.

    The global view (agent_id None) holds the single identity row's narrative (only ever an imported one: a 1.x
    profile or an Import) and every agent's facts. One agent's view holds that agent's narrative (content, model,
    generated_at_ms, version), that agent's facts, and the global imported narrative apart in shared_content.
    """

    overrides: tuple[OverrideRecord, ...] = ()
    content: str = ""
    facts: tuple[IdentityFactRecord, ...] = ()
    model: str = ""
    generated_at_ms: int = 0
    version: int = 0
    agent_id: str | None = None
    shared_content: str = ""


@dataclass(frozen=True)
class MemoryRow:
    """A searchable row of any kind, with what a hit shows."""

    kind: str
    id: int
    agent_id: str
    text: str
    conversation_id: str = ""
    occurred_at_ms: int = 0
    role: str = ""
    salience: float = 0.0
    topics: tuple[str, ...] = ()
    chunk_index: int = 0
    entities: tuple[str, ...] = ()

    @property
    def indexed_text(self) -> str:
        """All text the full-text index holds for the row (episodes add topics and entities)."""
        extra = " ".join((*self.topics, *self.entities))
        return f"{self.text} {extra}" if extra else self.text


@dataclass(frozen=True)
class ScoredRow:
    """A row with its fused score."""

    row: MemoryRow
    score: float


@dataclass(frozen=True)
class SearchOutcome:
    """Ranked rows and which retrieval produced them: "hybrid", "fts" or "like"."""

    hits: tuple[ScoredRow, ...]
    method: str


@dataclass(frozen=True)
class AgentStats:
    """Counts for one agent."""

    agent_id: str
    pinned_facts: int = 0
    episodes: int = 0
    transcript_turns: int = 0
    pending_signals: int = 0


@dataclass(frozen=True)
class StoreStats:
    """Counts across the store, for GetStats."""

    agents: tuple[AgentStats, ...] = ()
    total_calls: int = 0
    success_rate: float = 0.0
    mean_duration_ms: float = 0.0
    database_bytes: int = 0
    pending_signals: int = 0
    dead_letter_signals: int = 0
    extra: dict[str, int] = field(default_factory=dict)
    #: Derived items verification rejected, by reason, over the processing log still kept.
    items_dropped: dict[str, int] = field(default_factory=dict)
    #: Pinned and identity facts replaced by a newer fact in the same slot (kept for history, never injected).
    superseded_facts: int = 0


@dataclass(frozen=True)
class TableCount:
    """Rows of one table, overall (agent_id "") or for one agent."""

    table: str
    agent_id: str
    rows: int


@dataclass(frozen=True)
class FtsHealth:
    """One FTS mirror against its source table."""

    fts_table: str
    source_table: str
    source_rows: int
    fts_rows: int
    is_healthy: bool
    problem: str = ""


@dataclass(frozen=True)
class StoredRow:
    """One row as stored (unredacted): main text, status, creation time and every other column as raw values."""

    kind: str
    id: int
    agent_id: str
    text: str
    is_disabled: bool
    created_at_ms: int
    columns: dict[str, object] = field(default_factory=dict)
    vector_model: str = ""


@dataclass(frozen=True)
class StoredMatch:
    """One console search match (unredacted text); score higher is better."""

    kind: str
    id: int
    agent_id: str
    text: str
    score: float
    is_disabled: bool
    created_at_ms: int
