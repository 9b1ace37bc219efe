"""The Memory Console's domain logic: inspect, search, disable/enable, forget, diagnose, preview, clear, reindex.

Everything returned is already redacted (memoryd.console.redact); the servicer only validates and converts. Export and
Import live in console/transfer.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, TypeVar

from memoryd.config import ConfigStore
from memoryd.console.queries import ConsoleStore
from memoryd.console.recent_errors import StorageErrorLog
from memoryd.console.records import (
    DISABLEABLE,
    SCOPE_KINDS,
    ConsoleMatch,
    ContextPreview,
    Diagnosis,
    Forgotten,
    Inspection,
    ReindexResult,
    SourceTurnView,
    StoredRow,
)
from memoryd.console.redact import (
    DETAIL_CHARS,
    PREVIEW_CHARS_EPISODE,
    PREVIEW_CHARS_PINNED,
    PREVIEW_CHARS_TRANSCRIPT,
    redact,
)
from memoryd.console.vectors import ConsoleVectors
from memoryd.consolidate.runner import latest_report
from memoryd.domain import KIND_EPISODE, KIND_IDENTITY_FACT, KIND_PINNED, KIND_TRANSCRIPT, StoreStats
from memoryd.storage.store import Store
from servicekit.errors import FailedPreconditionError, NotFoundError, not_yet_available

_log = logging.getLogger("memoryd.console")

PREVIEW_CHARS = {
    KIND_PINNED: PREVIEW_CHARS_PINNED,
    KIND_EPISODE: PREVIEW_CHARS_EPISODE,
    KIND_TRANSCRIPT: PREVIEW_CHARS_TRANSCRIPT,
    KIND_IDENTITY_FACT: PREVIEW_CHARS_PINNED,
}
METADATA_CHARS = 300
#: Provenance turns Inspect shows for one derived row.
SOURCE_TURNS_SHOWN = 20
#: PreviewContext's budget is clamped like the reference app's; the redacted block is then cut to max_tokens × 4.
PREVIEW_MIN_BUDGET = 100
PREVIEW_MAX_BUDGET = 4000
CHARS_PER_TOKEN = 4

T = TypeVar("T")

#: Called after the console changed memory: with an agent id, or None for every agent.
MemoryChanged = Callable[[str | None], None]


class Assembly(Protocol):
    """What the read path returns for a query (memoryd.read.assemble.Assembly)."""

    @property
    def block(self) -> str: ...

    @property
    def section(self) -> str: ...

    @property
    def reason(self) -> str: ...

    @property
    def tokens(self) -> int: ...


class RowIndexer(Protocol):
    """Embeds and indexes rows now, or later in the background (memoryd.vectors.indexer.Indexer)."""

    def index_rows(self, agent_id: str, kind: str, row_ids: Sequence[int]) -> int | None: ...

    def notify(self, agent_id: str | None = None) -> None: ...


class ContextAssembler(Protocol):
    """The read path's assemble (memoryd.read.assemble.ReadPath)."""

    def assemble(
        self, agent_id: str, query: str, budget_tokens: int = 0, *, deadline_s: float | None = None
    ) -> Assembly: ...


@dataclass
class ConsoleDeps:
    """What the console needs; built by app.py."""

    store: Store
    config: ConfigStore
    vectors: ConsoleVectors
    errors: StorageErrorLog = field(default_factory=StorageErrorLog)
    read_path: ContextAssembler | None = None
    indexer: RowIndexer | None = None
    #: Invalidation hooks (keyword statistics, the read path's block cache) run after every change.
    on_memory_changed: list[MemoryChanged] = field(default_factory=list)


def embedding_model(config: ConfigStore) -> str | None:
    """The embedding model in force, None when the backend is off."""
    current = config.get()
    return None if current.embedding_backend == "none" else current.embedding_model


def _format(name: str, value: object) -> tuple[str, str]:
    """Column → metadata (key, text): epoch-ms columns become ISO-8601 UTC, CSV lists lose the suffix."""
    if name.endswith("_at_ms"):
        ms = int(str(value or 0))
        text = datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z") if ms else ""
        return name.removesuffix("_ms"), text
    key = name.removesuffix("_csv")
    if value is None:
        return key, ""
    if isinstance(value, float):
        return key, f"{value:.3f}"
    return key, str(value)


class Console:
    """Operator actions over the memory store. Methods raise servicekit errors with no memory content."""

    def __init__(self, deps: ConsoleDeps) -> None:
        self._d = deps
        self._rows = ConsoleStore(deps.store.console_rows)

    @property
    def deps(self) -> ConsoleDeps:
        """The dependencies (export/import reuse them)."""
        return self._d

    def changed(self, agent_id: str | None) -> None:
        """Run the invalidation hooks; a failing hook is logged, never raised (derived state is rebuildable)."""
        for hook in list(self._d.on_memory_changed):
            try:
                hook(agent_id)
            except Exception as error:
                _log.warning("memory-changed hook failed: %s", type(error).__name__)

    def _row(self, kind: str, row_id: int, agent_id: str | None = None) -> StoredRow:
        """The row; NOT_FOUND also when `agent_id` is given and does not own it (indistinguishable from absent)."""
        row = self._rows.fetch(kind, row_id)
        if row is None or (agent_id is not None and row.agent_id != agent_id):
            raise NotFoundError("ITEM_NOT_FOUND", f"no {kind} with id {row_id}")
        return row

    def inspect(self, kind: str, row_id: int, agent_id: str | None = None) -> Inspection:
        """Redacted preview (up to 2,000 characters) and redacted metadata of one row (of `agent_id`, if given)."""
        row = self._row(kind, row_id, agent_id)
        preview = redact(row.text, DETAIL_CHARS)
        kinds = set(preview.counts)
        metadata: dict[str, str] = {
            "status": "disabled" if row.is_disabled else ("active" if kind != KIND_TRANSCRIPT else ""),
            "content_chars": str(len(row.text)),
            "preview_truncated": str(preview.is_truncated).lower(),
            "vector_model": row.vector_model,
        }
        for name, value in row.columns.items():
            key, text = _format(name, value)
            cleaned = redact(text, METADATA_CHARS)
            kinds.update(cleaned.counts)
            metadata[key] = cleaned.text
        model = embedding_model(self._d.config)
        status = str(row.columns.get("superseded_by") or "")
        if status and not row.is_disabled:
            metadata["status"] = (
                "superseded"  # replaced by a newer fact in the same slot: kept, never injected
            )
        return Inspection(
            kind=kind,
            id=row.id,
            agent_id=row.agent_id,
            preview=preview.text,
            metadata={k: v for k, v in metadata.items() if v != ""},
            is_disabled=row.is_disabled,
            created_at_ms=row.created_at_ms,
            redactions=tuple(sorted(kinds)),
            has_vector=bool(row.vector_model) and row.vector_model == model,
            source_turns=self._source_turns(row.columns.get("source_turn_ids"), row.agent_id),
        )

    def _source_turns(self, ids_text: object, agent_id: str) -> tuple[SourceTurnView, ...]:
        """The provenance turns of a derived row (at most SOURCE_TURNS_SHOWN), each redacted like a preview."""
        if not isinstance(ids_text, str) or not ids_text:
            return ()
        views: list[SourceTurnView] = []
        for part in ids_text.split(",")[:SOURCE_TURNS_SHOWN]:
            if not part.strip().isdigit():
                continue
            turn = self._rows.fetch(KIND_TRANSCRIPT, int(part))
            if turn is None or turn.agent_id != agent_id:
                continue  # pruned or forgotten since, or (never expected) another agent's row
            role = str(turn.columns.get("role", ""))
            views.append(
                SourceTurnView(
                    turn.id, role, redact(turn.text, PREVIEW_CHARS[KIND_TRANSCRIPT]).text, turn.created_at_ms
                )
            )
        return tuple(views)

    def search(
        self, query: str, scope: str, agent_id: str | None, include_disabled: bool, limit: int
    ) -> list[ConsoleMatch]:
        """Redacted hits across the scope's layers (and one agent, when given), best first."""
        matches = self._rows.search(query, SCOPE_KINDS[scope], agent_id, include_disabled, limit)
        return [
            ConsoleMatch(
                kind=m.kind,
                id=m.id,
                agent_id=m.agent_id,
                preview=redact(m.text, PREVIEW_CHARS[m.kind]).text,
                score=m.score,
                is_disabled=m.is_disabled,
                created_at_ms=m.created_at_ms,
            )
            for m in matches
        ]

    def _set_status(self, kind: str, row_id: int, status: str, agent_id: str | None) -> bool:
        if kind not in DISABLEABLE:
            what = "transcript turns" if kind == KIND_TRANSCRIPT else "identity facts"
            raise FailedPreconditionError(
                "NOT_DISABLEABLE", f"{what} have no disabled state; use Forget to remove one"
            )
        if agent_id is not None:
            self._row(kind, row_id, agent_id)  # a row's owner never changes, so checking first is safe
        changed = self._rows.set_status(kind, row_id, status)
        if changed is None:
            raise NotFoundError("ITEM_NOT_FOUND", f"no {kind} with id {row_id}")
        if changed:
            self.changed(self._row(kind, row_id).agent_id)
        return changed

    def disable(self, kind: str, row_id: int, agent_id: str | None = None) -> bool:
        """Take a pinned fact or episode out of recall (row and vector kept); whether it was active."""
        return self._set_status(kind, row_id, "disabled", agent_id)

    def enable(self, kind: str, row_id: int, agent_id: str | None = None) -> bool:
        """Put a disabled pinned fact or episode back into recall; whether it was disabled."""
        return self._set_status(kind, row_id, "active", agent_id)

    def forget(self, kind: str, row_id: int, agent_id: str | None = None) -> Forgotten:
        """Delete the row, its FTS entry (trigger), its stored vector and its faiss vector."""
        if agent_id is not None:
            self._row(kind, row_id, agent_id)
        deleted = self._rows.delete(kind, row_id)
        if deleted is None:
            raise NotFoundError("ITEM_NOT_FOUND", f"no {kind} with id {row_id}")
        agent_id, stored_vectors = deleted
        indexed = self._d.vectors.forget(agent_id, kind, row_id) if kind != KIND_IDENTITY_FACT else 0
        self.changed(agent_id)
        _log.info("forgot a %s row (vector removed: %s)", kind, bool(stored_vectors or indexed))
        return Forgotten(agent_id=agent_id, vector_removed=bool(stored_vectors or indexed))

    def _checked(self, part: str, check: Callable[[], T], fallback: T) -> T:
        """Run one diagnosis part; a damaged store fails that part (reported as a storage error), not the report."""
        try:
            return check()
        except Exception as error:  # Diagnose must answer on a damaged store
            self._d.errors.report(f"diagnose.{part}", f"{type(error).__name__}: {str(error)[:120]}")
            return fallback

    def diagnose(self) -> Diagnosis:
        """Storage health report (see DiagnoseResponse); each part degrades on its own."""
        store = self._d.store
        fault = store.health.current_fault()
        stats = self._checked("stats", store.stats.collect, StoreStats())
        return Diagnosis(
            schema_version=self._checked("schema", lambda: store.schema_version, 0),
            table_counts=tuple(self._checked("counts", store.health.table_counts, [])),
            pending_signals=stats.pending_signals,
            dead_letter_signals=stats.dead_letter_signals,
            total_calls=stats.total_calls,
            success_rate=stats.success_rate,
            mean_duration_ms=stats.mean_duration_ms,
            fts=tuple(self._checked("fts", store.health.fts_health, [])),
            vector_indexes=tuple(
                self._checked("vectors", lambda: self._d.vectors.states(embedding_model(self._d.config)), [])
            ),
            database_bytes=store.health.file_bytes(),
            recent_errors=tuple(self._d.errors.recent()),
            storage_fault=fault.reason if fault is not None else "",
            storage_fault_detail=fault.description if fault is not None else "",
            last_consolidation=self._checked(
                "consolidation", lambda: latest_report(store.consolidation), None
            ),
        )

    def preview(
        self, agent_id: str, query: str, max_tokens: int, deadline_s: float | None = None
    ) -> ContextPreview:
        """The block the agent would get, assembled by the read path under the cap, then redacted and cut."""
        if self._d.read_path is None:
            raise not_yet_available("osaurus.memory.v1.MemoryConsoleService/PreviewContext")
        budget = min(max(max_tokens, PREVIEW_MIN_BUDGET), PREVIEW_MAX_BUDGET)
        assembly = self._d.read_path.assemble(agent_id, query, budget, deadline_s=deadline_s)
        block = redact(assembly.block, max_tokens * CHARS_PER_TOKEN).text if assembly.block else ""
        return ContextPreview(block, str(assembly.section), assembly.reason, assembly.tokens)

    def clear_all(self, confirm: bool) -> int:
        """Delete all memory (identity, facts, episodes, transcript, signals, vectors); needs confirm."""
        if not confirm:
            raise FailedPreconditionError(
                "CONFIRMATION_REQUIRED", "ClearAll deletes all memory; set confirm=true"
            )
        deleted, agents = self._rows.clear_all()
        self._d.vectors.drop(agents)
        self.changed(None)
        _log.warning("all memory cleared: %d rows", deleted)
        return deleted

    def reindex(self, agent_id: str | None) -> ReindexResult:
        """Rebuild the FTS mirrors and the vector indexes (one agent or all) from SQLite; no re-embedding."""
        agents = list(self._d.store.health.vector_rows_per_agent())
        if agent_id is not None and agent_id not in agents:
            raise NotFoundError("AGENT_NOT_FOUND", "no agent with that id")
        self._d.store.fts.rebuild()
        model = embedding_model(self._d.config)
        states = tuple(self._d.vectors.rebuild(a, model) for a in ([agent_id] if agent_id else agents))
        if self._d.indexer is not None:
            self._d.indexer.notify(agent_id)  # rows without a vector yet are embedded in the background
        self.changed(agent_id)
        return ReindexResult(vector_indexes=states, is_fts_rebuilt=True)


__all__ = [
    "Assembly",
    "Console",
    "ConsoleDeps",
    "ContextAssembler",
    "MemoryChanged",
    "RowIndexer",
    "embedding_model",
]
