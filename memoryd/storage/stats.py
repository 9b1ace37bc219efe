"""Counts for GetStats and Diagnose: per-agent rows, pending work, processing-log statistics, sizes."""

from __future__ import annotations

from collections.abc import Iterable

from memoryd.domain import AgentStats, StoreStats
from memoryd.storage.handle import Database


class StatsStore:
    """Aggregate queries; read-only."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def collect(self) -> StoreStats:
        """Every statistic GetStats reports."""
        with self._db.read():
            per_agent: dict[str, dict[str, int]] = {
                r[0]: {} for r in self._db.query("SELECT agent_id FROM agents ORDER BY agent_id")
            }
            queries = {
                "pinned_facts": "SELECT agent_id, count(*) FROM pinned_facts WHERE status='active' GROUP BY agent_id",
                "episodes": "SELECT agent_id, count(*) FROM episodes WHERE status='active' GROUP BY agent_id",
                "transcript_turns": "SELECT agent_id, count(*) FROM transcript GROUP BY agent_id",
                "pending_signals": "SELECT agent_id, count(*) FROM pending_signals WHERE status='pending' "
                "GROUP BY agent_id",
            }
            for name, sql in queries.items():
                for agent_id, count in self._db.query(sql):
                    per_agent.setdefault(agent_id, {})[name] = int(count)
            log = self._db.query(
                "SELECT count(*), sum(CASE WHEN status = 'success' THEN 1 ELSE 0 END), avg(duration_ms) FROM processing_log "
                "WHERE task_type = 'distill'"
            )[0]
            dropped = dropped_counts(
                r[0]
                for r in self._db.query(
                    "SELECT details FROM processing_log WHERE task_type = 'distill' AND details LIKE '%dropped=%'"
                )
            )
            superseded = int(
                self._db.scalar(
                    "SELECT (SELECT count(*) FROM pinned_facts WHERE status = 'superseded') + "
                    "(SELECT count(*) FROM identity_facts WHERE status = 'superseded')"
                )
                or 0
            )
            pending = int(self._db.scalar("SELECT count(*) FROM pending_signals WHERE status='pending'") or 0)
            dead = int(
                self._db.scalar("SELECT count(*) FROM pending_signals WHERE status='dead_letter'") or 0
            )
        total = int(log[0] or 0)
        return StoreStats(
            agents=tuple(AgentStats(agent_id=a, **counts) for a, counts in sorted(per_agent.items())),
            total_calls=total,
            success_rate=(int(log[1] or 0) / total) if total else 0.0,
            mean_duration_ms=float(log[2] or 0.0),
            database_bytes=self._db.file_bytes(),
            pending_signals=pending,
            dead_letter_signals=dead,
            items_dropped=dropped,
            superseded_facts=superseded,
        )


def dropped_counts(details: Iterable[str]) -> dict[str, int]:
    """Sum the "dropped=reason:n,…" notes the writer logs (see memoryd.write.session.dropped_details)."""
    totals: dict[str, int] = {}
    for text in details:
        for part in str(text).split(";"):
            if not part.startswith("dropped="):
                continue
            for entry in part.removeprefix("dropped=").split(","):
                reason, _, count = entry.partition(":")
                if reason and count.isdigit():
                    totals[reason] = totals.get(reason, 0) + int(count)
    return totals
