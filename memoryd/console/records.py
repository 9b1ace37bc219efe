"""Plain dataclasses of the Memory Console (no protobuf, no peewee): rows, hits, health report, import result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

# Diagnose's table counts and FTS health, and the stored rows and search matches, are storage's records
# (memoryd.domain), part of the console's answers.
from memoryd.domain import (
    KIND_EPISODE,
    KIND_PINNED,
    KIND_TRANSCRIPT,
    FtsHealth,
    StoredMatch,
    StoredRow,
    TableCount,
)

if TYPE_CHECKING:
    # Only an annotation here; importing it would load the consolidation package into every client (plugin_host).
    from memoryd.consolidate.report import PassReport

#: Kinds with an active/disabled status the console may flip (transcript has none; identity facts are derived).
DISABLEABLE = (KIND_PINNED, KIND_EPISODE)
#: Console search scopes → kinds searched.
SCOPE_KINDS = {
    "all": (KIND_PINNED, KIND_EPISODE, KIND_TRANSCRIPT),
    "pinned": (KIND_PINNED,),
    "episodes": (KIND_EPISODE,),
    "transcript": (KIND_TRANSCRIPT,),
}


@dataclass(frozen=True)
class Inspection:
    """A redacted view of one row."""

    kind: str
    id: int
    agent_id: str
    preview: str
    metadata: dict[str, str]
    is_disabled: bool
    created_at_ms: int
    redactions: tuple[str, ...]
    has_vector: bool
    #: The transcript turns a derived row was learned from (provenance), redacted; empty for transcript rows.
    source_turns: tuple[SourceTurnView, ...] = ()


@dataclass(frozen=True)
class SourceTurnView:
    """One transcript turn a derived row came from, as the console shows it."""

    id: int
    role: str
    preview: str
    created_at_ms: int


@dataclass(frozen=True)
class ConsoleMatch:
    """A redacted search hit."""

    kind: str
    id: int
    agent_id: str
    preview: str
    score: float
    is_disabled: bool
    created_at_ms: int


@dataclass(frozen=True)
class Forgotten:
    """What Forget removed: the row's agent, and whether a vector went with it."""

    agent_id: str
    vector_removed: bool


@dataclass(frozen=True)
class VectorState:
    """One agent's faiss index against the rows that should have vectors."""

    agent_id: str
    model: str
    dimension: int
    vectors: int
    rows: int
    is_stale: bool
    #: What is wrong with the database-side indexes (PostgreSQL: a kind's HNSW index missing or invalid), "" if not.
    problem: str = ""


@dataclass(frozen=True)
class StorageErrorRecord:
    """One recent storage failure (never memory content)."""

    occurred_at_ms: int
    operation: str
    message: str


@dataclass(frozen=True)
class DegradedStoreInfo:
    """Why a degraded store did not open: what its file looks like and which key sources were tried."""

    #: "missing", "plaintext" (damaged or newer schema; no key involved) or "encrypted" (no plaintext header).
    file_kind: str
    file_bytes: int
    #: (source, keys tried): "key_file", "passphrase_file", "passphrase_request", "passphrase_memory".
    key_attempts: tuple[tuple[str, int], ...]
    passphrase_keys_untried: int
    quarantine_folder: str


@dataclass(frozen=True)
class Diagnosis:
    """Diagnose's report."""

    schema_version: int
    table_counts: tuple[TableCount, ...]
    pending_signals: int
    dead_letter_signals: int
    total_calls: int
    success_rate: float
    mean_duration_ms: float
    fts: tuple[FtsHealth, ...]
    vector_indexes: tuple[VectorState, ...]
    database_bytes: int
    recent_errors: tuple[StorageErrorRecord, ...]
    is_encrypted: bool = False
    #: "healthy" or "degraded" (memoryd.security: missing/wrong key, corrupt file; the store is quarantined).
    store_state: str = "healthy"
    degraded_reason: str = ""
    #: What RecoverStore can do while degraded: "retry", "reset".
    recovery_actions: tuple[str, ...] = ()
    #: While degraded: the file's kind and the key sources tried (memoryd.security).
    degraded_store: DegradedStoreInfo | None = None
    #: The store's current write fault: "" (none), "STORAGE_FULL", "STORAGE_READ_ONLY" or "STORAGE_UNAVAILABLE" (memoryd.storage.faults).
    storage_fault: str = ""
    #: What the fault means for the operator, when there is one.
    storage_fault_detail: str = ""
    #: The most recent consolidation pass (processing_log), None before the first.
    last_consolidation: PassReport | None = None

    @property
    def is_healthy(self) -> bool:
        """Store usable, every FTS mirror healthy, no stale vector index."""
        return (
            self.store_state == "healthy"
            and all(f.is_healthy for f in self.fts)
            and not any(v.is_stale for v in self.vector_indexes)
        )


@dataclass(frozen=True)
class ContextPreview:
    """PreviewContext's answer: the redacted block, the section (read-path name), why, unredacted tokens."""

    block: str
    section: str
    reason: str
    block_tokens: int


@dataclass(frozen=True)
class ImportResult:
    """Records imported per type, identical rows skipped, rows re-embedded."""

    imported: dict[str, int]
    skipped: int
    reembedded: int


@dataclass(frozen=True)
class ReindexResult:
    """Vector index states after a rebuild, and whether the FTS mirrors were rebuilt."""

    vector_indexes: tuple[VectorState, ...]
    is_fts_rebuilt: bool


__all__ = [
    "DISABLEABLE",
    "SCOPE_KINDS",
    "ConsoleMatch",
    "ContextPreview",
    "DegradedStoreInfo",
    "Diagnosis",
    "Forgotten",
    "FtsHealth",
    "ImportResult",
    "Inspection",
    "ReindexResult",
    "StorageErrorRecord",
    "StoredMatch",
    "StoredRow",
    "TableCount",
    "VectorState",
]
