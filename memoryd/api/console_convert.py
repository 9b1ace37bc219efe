"""Protobuf ↔ domain for the console: item refs, scopes, hits, health report, and MemoryConfig (both ways)."""

from __future__ import annotations

from typing import Any

from memoryd.api import memory_convert as convert
from memoryd.api.consolidate_rpcs import report_proto
from memoryd.config import KEYS_BY_ATTR, MemoryConfig, validate_changes
from memoryd.console.listing import ItemPage
from memoryd.console.records import ConsoleMatch, Diagnosis, Inspection, VectorState
from memoryd.domain import KIND_EPISODE, KIND_IDENTITY_FACT, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage.faults import STORAGE_FULL, STORAGE_READ_ONLY, STORAGE_UNAVAILABLE
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as pb
from servicekit.errors import FieldViolation, InvalidArgumentError
from servicekit.validate import Violations

KIND_FROM_PB = {
    pb.ITEM_KIND_PINNED_FACT: KIND_PINNED,
    pb.ITEM_KIND_EPISODE: KIND_EPISODE,
    pb.ITEM_KIND_TRANSCRIPT_TURN: KIND_TRANSCRIPT,
    pb.ITEM_KIND_IDENTITY_FACT: KIND_IDENTITY_FACT,
}
KIND_TO_PB = {kind: number for number, kind in KIND_FROM_PB.items()}
SCOPE_FROM_PB = {
    cpb.CONSOLE_SCOPE_UNSPECIFIED: "all",
    cpb.CONSOLE_SCOPE_ALL: "all",
    cpb.CONSOLE_SCOPE_PINNED: "pinned",
    cpb.CONSOLE_SCOPE_EPISODES: "episodes",
    cpb.CONSOLE_SCOPE_TRANSCRIPT: "transcript",
}
SECTION_TO_PB = {
    "none": pb.SECTION_NONE,
    "identity": pb.SECTION_IDENTITY,
    "pinned": pb.SECTION_PINNED,
    "episodes": pb.SECTION_EPISODES,
    "transcript": pb.SECTION_TRANSCRIPT,
}
MAX_ROW_ID = (1 << 48) - 1

# Proto enum numbers ↔ memory.json strings. UNSPECIFIED (0) maps to nothing: it is rejected when named.
ENUMS: dict[str, dict[int, str]] = {
    "embedding_backend": {cpb.EMBEDDING_BACKEND_MLX: "mlx", cpb.EMBEDDING_BACKEND_NONE: "none"},
    "extraction_mode": {cpb.EXTRACTION_MODE_SESSION_END: "sessionEnd", cpb.EXTRACTION_MODE_MANUAL: "manual"},
    "relevance_gate_mode": {
        cpb.RELEVANCE_GATE_MODE_OFF: "off",
        cpb.RELEVANCE_GATE_MODE_HEURISTIC: "heuristic",
        cpb.RELEVANCE_GATE_MODE_LLM: "llm",
    },
}
_ENUM_TYPES = {
    "embedding_backend": cpb.EmbeddingBackend.DESCRIPTOR,
    "extraction_mode": cpb.ExtractionMode.DESCRIPTOR,
    "relevance_gate_mode": cpb.RelevanceGateMode.DESCRIPTOR,
}


# ------------------------------------------------------------------------------------------------------ requests
def item(v: Violations, ref: pb.ItemRef, field: str = "item") -> tuple[str, int]:
    """(kind, row id) of an ItemRef: a known kind and a positive decimal id."""
    v.require_enum(ref.kind, pb.ItemKind.DESCRIPTOR, f"{field}.kind")
    row_id = 0
    if not ref.id:
        v.add(f"{field}.id", "is required", "MISSING_FIELD")
    elif not ref.id.isascii() or not ref.id.isdigit() or not 0 < int(ref.id) <= MAX_ROW_ID:
        v.add(f"{field}.id", "must be a positive decimal row id", "INVALID_ITEM_ID")
    else:
        row_id = int(ref.id)
    return KIND_FROM_PB.get(ref.kind, ""), row_id


def item_ref(kind: str, row_id: int) -> pb.ItemRef:
    """(kind, id) → ItemRef."""
    return pb.ItemRef(kind=KIND_TO_PB[kind], id=str(row_id))


# ----------------------------------------------------------------------------------------------------- responses
def item_page(page: ItemPage) -> cpb.ListItemsResponse:
    """ItemPage → ListItemsResponse."""
    return cpb.ListItemsResponse(
        items=[
            cpb.ListedItem(
                item=item_ref(i.kind, i.id),
                preview=i.preview,
                salience=i.salience,
                use_count=i.use_count,
                status=i.status,
                create_time=convert.timestamp(i.created_at_ms),
                occur_time=convert.timestamp(i.occur_at_ms) if i.kind == KIND_EPISODE else None,
                redactions=list(i.redactions),
                topics=list(i.topics),
            )
            for i in page.items
        ],
        next_page_token=page.next_page_token,
        total_size=page.total,
    )


def inspection(found: Inspection) -> cpb.InspectResponse:
    """Inspection → InspectResponse."""
    return cpb.InspectResponse(
        item=item_ref(found.kind, found.id),
        agent_id=found.agent_id,
        preview=found.preview,
        metadata=found.metadata,
        disabled=found.is_disabled,
        create_time=convert.timestamp(found.created_at_ms),
        redactions=list(found.redactions),
        has_vector=found.has_vector,
        source_turns=[
            cpb.SourceTurn(
                item=item_ref(KIND_TRANSCRIPT, turn.id),
                role=turn.role,
                preview=turn.preview,
                create_time=convert.timestamp(turn.created_at_ms),
            )
            for turn in found.source_turns
        ],
    )


def hit(match: ConsoleMatch) -> cpb.ConsoleHit:
    """ConsoleMatch → ConsoleHit."""
    return cpb.ConsoleHit(
        item=item_ref(match.kind, match.id),
        agent_id=match.agent_id,
        preview=match.preview,
        score=match.score,
        disabled=match.is_disabled,
        create_time=convert.timestamp(match.created_at_ms),
    )


def vector_state(state: VectorState) -> cpb.VectorIndexState:
    """VectorState → VectorIndexState."""
    return cpb.VectorIndexState(
        agent_id=state.agent_id,
        model=state.model,
        dimension=state.dimension,
        vectors=state.vectors,
        rows=state.rows,
        stale=state.is_stale,
        problem=state.problem,
    )


#: Diagnosis.storage_fault → store_state.
_FAULT_STATES = {
    STORAGE_FULL: cpb.STORE_STATE_FULL,
    STORAGE_READ_ONLY: cpb.STORE_STATE_READ_ONLY,
    STORAGE_UNAVAILABLE: cpb.STORE_STATE_DEGRADED,
}


def diagnosis(report: Diagnosis) -> cpb.DiagnoseResponse:
    """Diagnosis → DiagnoseResponse (the store is always HEALTHY until degraded stores exist)."""
    return cpb.DiagnoseResponse(
        schema_version=report.schema_version,
        table_counts=[
            cpb.TableCount(table=c.table, agent_id=c.agent_id, rows=c.rows) for c in report.table_counts
        ],
        pending_signals=report.pending_signals,
        dead_letter_signals=report.dead_letter_signals,
        processing=pb.ProcessingStats(
            total_calls=report.total_calls,
            success_rate=report.success_rate,
            mean_duration_ms=report.mean_duration_ms,
        ),
        fts=[
            cpb.FtsHealth(
                fts_table=f.fts_table,
                source_table=f.source_table,
                source_rows=f.source_rows,
                fts_rows=f.fts_rows,
                healthy=f.is_healthy,
                problem=f.problem,
            )
            for f in report.fts
        ],
        vector_indexes=[vector_state(s) for s in report.vector_indexes],
        database_bytes=report.database_bytes,
        recent_errors=[
            cpb.StorageError(
                occur_time=convert.timestamp(e.occurred_at_ms), operation=e.operation, message=e.message
            )
            for e in report.recent_errors
        ],
        store_state=_FAULT_STATES.get(report.storage_fault, cpb.STORE_STATE_HEALTHY),
        degraded_reason=report.storage_fault_detail,
        encrypted=report.is_encrypted,
        last_consolidation=report_proto(report.last_consolidation) if report.last_consolidation else None,
    )


# -------------------------------------------------------------------------------------------------------- config
def config_to_proto(config: MemoryConfig) -> cpb.MemoryConfig:
    """MemoryConfig → proto."""
    values: dict[str, Any] = {}
    for attr in KEYS_BY_ATTR:
        value = getattr(config, attr)
        if attr in ENUMS:
            value = {text: number for number, text in ENUMS[attr].items()}[value]
        values[attr] = value
    return cpb.MemoryConfig(**values)


def config_from_proto(message: cpb.MemoryConfig) -> MemoryConfig:
    """proto → MemoryConfig (unknown enum numbers become the default)."""
    defaults = MemoryConfig()
    values: dict[str, Any] = {}
    for attr in KEYS_BY_ATTR:
        value = getattr(message, attr)
        values[attr] = ENUMS[attr].get(value, getattr(defaults, attr)) if attr in ENUMS else value
    return MemoryConfig(**values)


def changes_from_proto(request: cpb.UpdateConfigRequest) -> dict[str, Any]:
    """Attribute → new value for the masked fields (or the non-default fields when the mask is empty).

    Raises INVALID_ARGUMENT with one field violation per bad field; nothing is applied then.
    """
    incoming = request.config
    paths = list(request.update_mask.paths)
    violations: list[FieldViolation] = []
    if paths:
        for path in paths:
            name = path.removeprefix("config.")
            if name not in KEYS_BY_ATTR:
                violations.append(
                    FieldViolation(f"update_mask.{path}", "is not a MemoryConfig field", "UNKNOWN_FIELD")
                )
        named = [p.removeprefix("config.") for p in paths if p.removeprefix("config.") in KEYS_BY_ATTR]
    else:
        # proto3 cannot tell "unset" from a zero value, so an empty mask applies every non-zero field; clearing a
        # field (enabled=false, salience_floor=0, core_model="") needs an explicit mask.
        named = [attr for attr in KEYS_BY_ATTR if getattr(incoming, attr)]
    changes: dict[str, Any] = {}
    for attr in named:
        value = getattr(incoming, attr)
        if attr in ENUMS:
            if value not in ENUMS[attr]:
                known = value in _ENUM_TYPES[attr].values_by_number
                violations.append(
                    FieldViolation(
                        f"config.{attr}",
                        "must not be UNSPECIFIED"
                        if known
                        else f"unknown {_ENUM_TYPES[attr].name} value {value}",
                        "INVALID_ENUM",
                    )
                )
                continue
            value = ENUMS[attr][value]
        changes[attr] = value
    for problem in validate_changes(changes):
        violations.append(FieldViolation(f"config.{problem.attr}", problem.description, problem.reason))
    if violations:
        reasons = {v.reason for v in violations}
        reason = "CONFIG_OUT_OF_RANGE" if "CONFIG_OUT_OF_RANGE" in reasons else violations[0].reason
        summary = "; ".join(f"{v.field} {v.description}" for v in violations)
        raise InvalidArgumentError(reason, f"invalid configuration: {summary}", field_violations=violations)
    return changes


__all__ = [
    "ENUMS",
    "KIND_FROM_PB",
    "KIND_TO_PB",
    "SCOPE_FROM_PB",
    "SECTION_TO_PB",
    "changes_from_proto",
    "config_from_proto",
    "config_to_proto",
    "diagnosis",
    "hit",
    "inspection",
    "item",
    "item_ref",
    "vector_state",
]
