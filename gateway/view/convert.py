"""Protobuf ⇄ JSON for the Memory view: memoryd's messages become the small dicts the page renders.

Times become ISO-8601 UTC strings (empty when unset); enums become lower-case words; item kinds use the view's
path words (pinned, episode, transcript, identity_fact).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb

#: The view's kind words (URL path segments) → memoryd's ItemKind.
KINDS: dict[str, mpb.ItemKind] = {
    "pinned": mpb.ITEM_KIND_PINNED_FACT,
    "episode": mpb.ITEM_KIND_EPISODE,
    "transcript": mpb.ITEM_KIND_TRANSCRIPT_TURN,
    "identity_fact": mpb.ITEM_KIND_IDENTITY_FACT,
}
KIND_WORDS: dict[int, str] = {v: k for k, v in KINDS.items()}
SCOPES: dict[str, cpb.ConsoleScope] = {
    "all": cpb.CONSOLE_SCOPE_ALL,
    "pinned": cpb.CONSOLE_SCOPE_PINNED,
    "episodes": cpb.CONSOLE_SCOPE_EPISODES,
    "transcript": cpb.CONSOLE_SCOPE_TRANSCRIPT,
}

JSON = dict[str, Any]


def iso(stamp: Timestamp) -> str:
    """A Timestamp as ISO-8601 UTC with milliseconds, or "" when unset."""
    if stamp.seconds == 0 and stamp.nanos == 0:
        return ""
    moment = datetime.fromtimestamp(stamp.seconds + stamp.nanos / 1e9, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_ms(epoch_ms: int) -> str:
    """Epoch milliseconds as ISO-8601 UTC, or "" for 0."""
    if epoch_ms <= 0:
        return ""
    return (
        datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def _enum_word(value: int, enum: Any, prefix: str) -> str:
    return str(enum.Name(value)).removeprefix(prefix).lower()


def section_word(section: int) -> str:
    """SECTION_PINNED → "pinned"."""
    return _enum_word(section, mpb.Section, "SECTION_")


def ref(item: mpb.ItemRef) -> JSON:
    """An ItemRef as {kind, id}."""
    return {"kind": KIND_WORDS.get(item.kind, "unknown"), "id": item.id}


def identity(found: mpb.Identity) -> JSON:
    """Overrides, narrative and auto-derived facts."""
    return {
        "content": found.content,
        "model": found.model,
        "version": found.version,
        "generate_time": iso(found.generate_time),
        "overrides": [
            {"id": o.id, "text": o.text, "create_time": iso(o.create_time)} for o in found.overrides
        ],
        "facts": [
            {
                "id": f.id,
                "text": f.text,
                "source_agent_id": f.source_agent_id,
                "source_count": f.source_count,
                "create_time": iso(f.create_time),
            }
            for f in found.facts
        ],
    }


def processing(stats: mpb.ProcessingStats) -> JSON:
    """Distillation statistics: calls, success rate, mean duration, dropped items, superseded facts."""
    return {
        "total_calls": stats.total_calls,
        "success_rate": stats.success_rate,
        "mean_duration_ms": stats.mean_duration_ms,
        "items_dropped": dict(sorted(stats.items_dropped.items())),
        "superseded_facts": stats.superseded_facts,
    }


def agents_with_counts(agents: list[mpb.Agent], stats: mpb.GetStatsResponse) -> list[JSON]:
    """Every agent with its settings and its per-layer counts (agents known only to GetStats included)."""
    counts = {a.agent_id: a for a in stats.agents}
    rows: list[JSON] = []
    seen: set[str] = set()
    for agent in agents:
        seen.add(agent.agent_id)
        rows.append(_agent_row(agent.agent_id, agent, counts.get(agent.agent_id)))
    rows.extend(_agent_row(a.agent_id, None, a) for a in stats.agents if a.agent_id not in seen)
    return sorted(rows, key=lambda r: str(r["agent_id"]))


def _agent_row(agent_id: str, agent: mpb.Agent | None, counts: mpb.AgentStats | None) -> JSON:
    return {
        "agent_id": agent_id,
        "display_name": agent.display_name if agent else "",
        "memory_enabled": agent.memory_enabled if agent else True,
        "search_memory_enabled": agent.search_memory_enabled if agent else False,
        "memory_entry_count": agent.memory_entry_count if agent else 0,
        "pinned_facts": counts.pinned_facts if counts else 0,
        "episodes": counts.episodes if counts else 0,
        "transcript_turns": counts.transcript_turns if counts else 0,
        "pending_signals": counts.pending_signals if counts else 0,
    }


def inspection(found: cpb.InspectResponse) -> JSON:
    """A redacted row: preview, metadata, redaction kinds, vector flag and source turns."""
    return {
        **ref(found.item),
        "agent_id": found.agent_id,
        "preview": found.preview,
        "metadata": dict(sorted(found.metadata.items())),
        "disabled": found.disabled,
        "create_time": iso(found.create_time),
        "redactions": list(found.redactions),
        "has_vector": found.has_vector,
        "source_turns": [
            {**ref(t.item), "role": t.role, "preview": t.preview, "create_time": iso(t.create_time)}
            for t in found.source_turns
        ],
    }


def hit(found: cpb.ConsoleHit) -> JSON:
    """A redacted console search hit."""
    return {
        **ref(found.item),
        "agent_id": found.agent_id,
        "preview": found.preview,
        "score": found.score,
        "disabled": found.disabled,
        "create_time": iso(found.create_time),
    }


def diagnosis(found: cpb.DiagnoseResponse) -> JSON:
    """Storage health, content-free by construction."""
    return {
        "schema_version": found.schema_version,
        "store_state": _enum_word(found.store_state, cpb.StoreState, "STORE_STATE_"),
        "degraded_reason": found.degraded_reason,
        "encrypted": found.encrypted,
        "database_bytes": found.database_bytes,
        "pending_signals": found.pending_signals,
        "dead_letter_signals": found.dead_letter_signals,
        "processing": processing(found.processing),
        "table_counts": [
            {"table": c.table, "agent_id": c.agent_id, "rows": c.rows} for c in found.table_counts
        ],
        "fts": [
            {
                "fts_table": f.fts_table,
                "source_table": f.source_table,
                "source_rows": f.source_rows,
                "fts_rows": f.fts_rows,
                "healthy": f.healthy,
            }
            for f in found.fts
        ],
        "vector_indexes": [
            {
                "agent_id": v.agent_id,
                "model": v.model,
                "dimension": v.dimension,
                "vectors": v.vectors,
                "rows": v.rows,
                "stale": v.stale,
            }
            for v in found.vector_indexes
        ],
        "recent_errors": [
            {"occur_time": iso(e.occur_time), "operation": e.operation, "message": e.message}
            for e in found.recent_errors
        ],
        "recovery_actions": [
            _enum_word(a, cpb.RecoveryAction, "RECOVERY_ACTION_") for a in found.recovery_actions
        ],
    }


def consolidation(report: mpb.ConsolidationReport) -> JSON:
    """A consolidation pass: when, how long, what triggered it and each step's outcome."""
    return {
        "start_time": iso(report.start_time),
        "duration_ms": report.duration_ms,
        "trigger": report.trigger,
        "steps": [
            {
                "name": s.name,
                "rows_changed": s.rows_changed,
                "vectors_deleted": s.vectors_deleted,
                "duration_ms": s.duration_ms,
                "skip_reason": s.skip_reason,
                "error": s.error,
            }
            for s in report.steps
        ],
    }


def sync_outcomes(found: mpb.SyncNowResponse) -> list[JSON]:
    """One outcome token per drained conversation."""
    return [
        {
            "agent_id": o.agent_id,
            "conversation_id": o.conversation_id,
            "outcome": o.outcome,
            "episode_id": o.episode_id,
        }
        for o in found.outcomes
    ]


def context_preview(found: cpb.PreviewContextResponse) -> JSON:
    """The redacted block an agent would get, with the section, reason and token count."""
    return {
        "block": found.block,
        "section": section_word(found.section),
        "reason": found.reason,
        "block_tokens": found.block_tokens,
    }
