"""RunConsolidation servicer method (a mixin over `self.consolidator`) and the report's proto conversion."""

from __future__ import annotations

import grpc

from memoryd.api import memory_convert as convert
from memoryd.consolidate import TRIGGER_MANUAL, Consolidator, PassReport
from osaurus.memory.v1 import memory_pb2 as pb
from servicekit.errors import DeadlineExceededError


def report_proto(report: PassReport) -> pb.ConsolidationReport:
    """PassReport → ConsolidationReport."""
    return pb.ConsolidationReport(
        start_time=convert.timestamp(report.start_ms),
        duration_ms=report.duration_ms,
        trigger=report.trigger,
        steps=[
            pb.ConsolidationStep(
                name=step.name,
                rows_changed=step.rows_changed,
                vectors_deleted=step.vectors_deleted,
                duration_ms=step.duration_ms,
                skip_reason=step.skip_reason,
                error=step.error,
            )
            for step in report.steps
        ],
        failed_steps=[step.name for step in report.steps if step.error],
    )


class ConsolidationRpcs:
    """Mixin for the MemoryService servicer; the servicer sets `self.consolidator` in its constructor."""

    consolidator: Consolidator

    def RunConsolidation(
        self, request: pb.RunConsolidationRequest, context: grpc.ServicerContext
    ) -> pb.RunConsolidationResponse:
        """Run one pass now and return its report; ABORTED (CONSOLIDATION_RUNNING) while another pass runs."""
        remaining = context.time_remaining()
        if remaining is not None and remaining <= 0:
            raise DeadlineExceededError("DEADLINE_EXCEEDED", "the deadline passed before the pass started")
        report = self.consolidator.run(TRIGGER_MANUAL)
        return pb.RunConsolidationResponse(report=report_proto(report))


__all__ = ["ConsolidationRpcs", "report_proto"]
