"""Grounded distillation, model-independent part: extractor, verifier, secret detection and the grounding step.

Pure functions over dataclasses (no SQL, no gRPC): the writer passes the session's turns and the model's parsed
digest (or None) and stores only what `ground` returns.
"""

from memoryd.writer.grounding.extract import extract
from memoryd.writer.grounding.ground import ModelDigest, ground
from memoryd.writer.grounding.model import (
    Entity,
    Extraction,
    FactKind,
    GroundedDigest,
    GroundedFact,
    SourceTurn,
    signal_ids,
)
from memoryd.writer.grounding.secrets import contains_secret, redact_secrets
from memoryd.writer.grounding.verify import DEFAULT_SCAFFOLDING, Verdict, verify

__all__ = [
    "DEFAULT_SCAFFOLDING",
    "Entity",
    "Extraction",
    "FactKind",
    "GroundedDigest",
    "GroundedFact",
    "ModelDigest",
    "SourceTurn",
    "Verdict",
    "contains_secret",
    "extract",
    "ground",
    "redact_secrets",
    "signal_ids",
    "verify",
]
