"""Grounded distillation, model-independent part: extractor, verifier, secret detection and the grounding step.

Pure functions over dataclasses (no SQL, no gRPC): the writer passes the session's turns (memory blocks stripped)
and the model's parsed digest (or None) and stores only what `ground` returns:

    digest = ground(turns, parsed_or_none, session_time_ms=..., scaffolding=header_lines, earlier=episode_summaries)

`digest.facts` holds every verified fact (decisions and action items too, with their kind); each has `turns`
(SourceTurn.index values, see `signal_ids`) and a `slot`: same slot + different value = a correction, and facts come
in turn order, so the last one in a slot is the user's latest word. `digest.dropped` counts rejections by reason:
the verifier's ("empty", "too_short", "too_long", "secret", "loop", "copied_scaffolding", "copied_episode",
"ungrounded_name", "ungrounded_date", "ungrounded_number", "unsupported") and grounding's ("assistant_only",
"third_party", "contradicts_user", "stale_or_conflicting", "conflicting_decision", "topic_unsupported",
"entity_unsupported", "summary_<reason>", "summary_sentence_<reason>", "summary_first_person"; a summary sentence's
reason may also be one of unfit.py's: "secret", "small_talk", "third_party", "assistant_guess"), and
"summary_sentence_said_before" (an extractive sentence an earlier episode's summary already says).
"""

from memoryd.write.grounding.extract import extract
from memoryd.write.grounding.ground import ModelDigest, ground
from memoryd.write.grounding.model import (
    Entity,
    Extraction,
    FactKind,
    GroundedDigest,
    GroundedFact,
    SourceTurn,
    signal_ids,
)
from memoryd.write.grounding.secrets import contains_secret, redact_secrets
from memoryd.write.grounding.verify import DEFAULT_SCAFFOLDING, Verdict, verify

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
