"""What distillation reads and writes: plain records shared by the writer (memoryd.write) and its store
(memoryd.storage.distillation), so storage never imports the writer. The Protocol itself is write.store_protocol."""

from __future__ import annotations

from dataclasses import dataclass, field

#: processing_log.status values the writer writes.
LOG_SUCCESS = "success"
LOG_SKIPPED = "skipped"
LOG_EMPTY = "empty"
LOG_ERROR = "error"
LOG_DEAD_LETTER = "dead_letter"
#: processing_log.task_type of a distillation that called the model, and of one skipped before any model call
#: (kept apart so GetStats' "total calls" and success rate count real model calls only).
TASK_DISTILL = "distill"
TASK_DISTILL_SKIPPED = "distill_skipped"


@dataclass(frozen=True)
class Signal:
    """One pending_signals row: a buffered user/assistant exchange."""

    id: int
    agent_id: str
    conversation_id: str
    user_message: str
    assistant_message: str
    created_at_ms: int
    attempts: int = 0


@dataclass(frozen=True)
class EpisodeDigest:
    """A recent episode, as shown to the model for cross-session continuity."""

    conversation_at_ms: int
    summary: str


@dataclass(frozen=True)
class ExistingFact:
    """An active pinned fact or identity fact the dedup compares candidates against."""

    id: str
    content: str
    salience: float
    source_count: int
    #: The fact's supersession slot ("" when it has none).
    slot: str = ""


@dataclass(frozen=True)
class NewEpisode:
    """The episode row to insert."""

    agent_id: str
    conversation_id: str
    summary: str
    topics: tuple[str, ...]
    entities: tuple[str, ...]
    decisions: tuple[str, ...]
    action_items: tuple[str, ...]
    salience: float
    token_count: int
    model: str
    conversation_at_ms: int
    #: Transcript ids the summary was verified against (provenance).
    source_turn_ids: tuple[int, ...] = ()
    #: "model" when the core model's summary passed verification, "extractive" when the extractor's stands.
    summary_source: str = ""


@dataclass(frozen=True)
class ReplacedFact:
    """A fact the session itself stated and then replaced ("the beta ships on December 15" … "actually the beta
    moved to December 18"): stored as a superseded row of the fact that replaced it, with its source turns, so the
    read path knows its turns and its value are stale (kept for history and the console, never injected)."""

    content: str
    salience: float
    source_turn_ids: tuple[int, ...] = ()
    slot: str = ""
    kind: str = ""
    #: Whether it was an identity-grade fact (stored in identity_facts) rather than a pinned fact.
    is_identity: bool = False


@dataclass(frozen=True)
class NewFact:
    """A pinned fact to insert (its source episode is the one inserted in the same transaction)."""

    content: str
    salience: float
    tags: tuple[str, ...] = ()
    #: Transcript ids the fact was verified against (provenance).
    source_turn_ids: tuple[int, ...] = ()
    #: Supersession slot ("" when none) and the fact's kind (preference, relation, plan…).
    slot: str = ""
    kind: str = ""
    #: Ids of active facts of the same agent and slot that this one replaces (marked superseded, kept).
    supersedes: tuple[str, ...] = ()
    #: Ids of active identity facts of the agent in the same slot that this one replaces.
    supersedes_identity: tuple[str, ...] = ()
    #: Facts of the same session this one replaced, stored superseded by it.
    replaced: tuple[ReplacedFact, ...] = ()


@dataclass(frozen=True)
class NewIdentityFact:
    """An auto-derived identity fact to insert, learned in (and injected only for) the writing agent."""

    content: str
    source_turn_ids: tuple[int, ...] = ()
    slot: str = ""
    supersedes: tuple[str, ...] = ()
    #: Ids of active pinned facts of the agent in the same slot that this one replaces.
    supersedes_pinned: tuple[str, ...] = ()
    #: Facts of the same session this one replaced, stored superseded by it.
    replaced: tuple[ReplacedFact, ...] = ()


@dataclass(frozen=True)
class FactBump:
    """An existing fact a new candidate duplicated: one more source, and salience raised to `salience`."""

    fact_id: str
    salience: float


@dataclass(frozen=True)
class LogEntry:
    """One processing_log row."""

    agent_id: str
    status: str
    details: str
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    duration_ms: int = 0
    task_type: str = TASK_DISTILL


@dataclass(frozen=True)
class DistillationWrite:
    """Everything one successful distillation writes, committed in ONE transaction."""

    episode: NewEpisode
    signal_ids: tuple[int, ...]
    new_facts: tuple[NewFact, ...]
    fact_bumps: tuple[FactBump, ...]
    new_identity_facts: tuple[NewIdentityFact, ...]
    identity_bumps: tuple[str, ...]
    log: LogEntry
    #: Facts of the session replaced later in it by a value memory already held (the repeat is bumped, not
    #: inserted): (the replaced fact, the id of the existing row holding the value now, whether that row is an
    #: identity fact).
    kept_history: tuple[tuple[ReplacedFact, str, bool], ...] = ()


@dataclass(frozen=True)
class CommitResult:
    """Ids created by a committed distillation."""

    episode_id: int
    fact_ids: tuple[str, ...]
    identity_fact_ids: tuple[str, ...]


@dataclass(frozen=True)
class FailureResult:
    """Attempts recorded for a failed distillation, and whether the signals were dead-lettered."""

    attempts: int
    dead_lettered: bool


@dataclass(frozen=True)
class IngestTurn:
    """One turn of an Ingest request."""

    user: str
    assistant: str


@dataclass(frozen=True)
class DerivedRow:
    """A derived row removed by a re-ingest, so its vector can be dropped too."""

    kind: str  # "episode" | "pinned_fact" | "identity_fact" | "transcript"
    id: str


@dataclass(frozen=True)
class ReplaceResult:
    """What a (re-)ingest stored and removed."""

    transcript_ids: tuple[int, ...]
    signal_ids: tuple[int, ...]
    removed: tuple[DerivedRow, ...] = field(default_factory=tuple)


class StaleSnapshotError(Exception):
    """Some snapshot signals were no longer pending at commit time; nothing was written."""


__all__ = [
    "LOG_DEAD_LETTER",
    "LOG_EMPTY",
    "LOG_ERROR",
    "LOG_SKIPPED",
    "LOG_SUCCESS",
    "TASK_DISTILL",
    "TASK_DISTILL_SKIPPED",
    "CommitResult",
    "DerivedRow",
    "DistillationWrite",
    "EpisodeDigest",
    "ExistingFact",
    "FactBump",
    "FailureResult",
    "IngestTurn",
    "LogEntry",
    "NewEpisode",
    "NewFact",
    "NewIdentityFact",
    "ReplaceResult",
    "ReplacedFact",
    "Signal",
    "StaleSnapshotError",
]
