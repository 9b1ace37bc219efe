"""Background maintenance of memory: decay, merge, promote, evict, prune, purge and the identity narrative."""

from memoryd.consolidate.report import TRIGGER_MANUAL, TRIGGER_SCHEDULE, PassReport, StepReport
from memoryd.consolidate.runner import CONSOLIDATION_RUNNING, Consolidator, ConsolidatorOptions

__all__ = [
    "CONSOLIDATION_RUNNING",
    "TRIGGER_MANUAL",
    "TRIGGER_SCHEDULE",
    "Consolidator",
    "ConsolidatorOptions",
    "PassReport",
    "StepReport",
]
