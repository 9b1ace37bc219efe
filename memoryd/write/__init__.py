"""The write path: debounced buffering, one-call session distillation, dedup, retries, breaker and Ingest."""

from memoryd.write.model import WriterSettings
from memoryd.write.outcome import Outcome
from memoryd.write.session import DistillPolicy, NoHooks, WriterHooks
from memoryd.write.writer import EndSessionResult, Writer

__all__ = [
    "DistillPolicy",
    "EndSessionResult",
    "NoHooks",
    "Outcome",
    "Writer",
    "WriterHooks",
    "WriterSettings",
]
