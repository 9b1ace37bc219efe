"""The write path: debounced buffering, one-call session distillation, dedup, retries, breaker and Ingest."""

from memoryd.writer.model import WriterSettings
from memoryd.writer.outcome import Outcome
from memoryd.writer.session import DistillPolicy, NoHooks, WriterHooks
from memoryd.writer.writer import EndSessionResult, Writer

__all__ = [
    "DistillPolicy",
    "EndSessionResult",
    "NoHooks",
    "Outcome",
    "Writer",
    "WriterHooks",
    "WriterSettings",
]
