"""What a consolidation pass did: one StepReport per step and the PassReport kept in processing_log."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

TRIGGER_SCHEDULE = "schedule"
TRIGGER_MANUAL = "manual"
#: processing_log.task_type of a consolidation report.
TASK_TYPE = "consolidate"

STEP_DECAY = "decay"
STEP_MERGE = "merge"
STEP_PROMOTE = "promote"
STEP_EVICT = "evict"
STEP_PRUNE = "prune"
STEP_PURGE = "purge"
STEP_IDENTITY = "identity"
STEP_ORDER = (STEP_DECAY, STEP_MERGE, STEP_PROMOTE, STEP_EVICT, STEP_PRUNE, STEP_PURGE, STEP_IDENTITY)


@dataclass(frozen=True)
class StepResult:
    """What a job function returns: rows and vectors changed, a skip reason, the agents whose memory changed."""

    rows_changed: int = 0
    vectors_deleted: int = 0
    skip_reason: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    agents: frozenset[str] = frozenset()
    model: str = ""


@dataclass(frozen=True)
class StepReport:
    """One step of a pass as reported (proto ConsolidationStep plus finer counts for the log)."""

    name: str
    rows_changed: int = 0
    vectors_deleted: int = 0
    duration_ms: int = 0
    skip_reason: str = ""
    error: str = ""
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class PassReport:
    """One pass: when it started, how long it took, its steps in order, and what triggered it."""

    start_ms: int
    duration_ms: int
    steps: tuple[StepReport, ...]
    trigger: str
    model: str = ""

    @property
    def errors(self) -> tuple[str, ...]:
        """`step: error` of every failed step."""
        return tuple(f"{s.name}: {s.error}" for s in self.steps if s.error)

    def step(self, name: str) -> StepReport:
        """The report of one step by name (KeyError if it did not run)."""
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(name)

    def to_details(self) -> str:
        """JSON for processing_log.details: counts, reasons and error texts only, never memory content."""
        data: dict[str, Any] = {
            "trigger": self.trigger,
            "start_ms": self.start_ms,
            "steps": [asdict(s) for s in self.steps],
        }
        return json.dumps(data, separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_details(cls, details: str, duration_ms: int, model: str = "") -> PassReport:
        """Rebuild a report from its processing_log row."""
        data = json.loads(details)
        steps = tuple(StepReport(**step) for step in data.get("steps", ()))
        return cls(int(data.get("start_ms", 0)), duration_ms, steps, str(data.get("trigger", "")), model)
