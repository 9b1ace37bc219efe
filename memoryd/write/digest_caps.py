"""The digest JSON schema (docs/distillation.md) and the caps the parser enforces on any reply."""

from __future__ import annotations

from typing import Any

from memoryd.write.digest_schema import DISTILLATION_SCHEMA, DISTILLATION_SCHEMA_JSON

_PROPS: dict[str, Any] = DISTILLATION_SCHEMA["properties"]
_EPISODE: dict[str, Any] = _PROPS["episode"]["properties"]
_CANDIDATE: dict[str, Any] = _PROPS["pinned_candidates"]["items"]["properties"]

# The same bounds the constrained decoder enforces, applied again by the parser to unconstrained (remote) replies.
MAX_SUMMARY_CHARS: int = _EPISODE["summary"]["maxLength"]
MAX_TOPICS: int = _EPISODE["topics"]["maxItems"]
MAX_TOPIC_CHARS: int = _EPISODE["topics"]["items"]["maxLength"]
MAX_LIST_ITEMS: int = _EPISODE["decisions"]["maxItems"]
MAX_ITEM_CHARS: int = _EPISODE["decisions"]["items"]["maxLength"]
MAX_ENTITIES: int = _PROPS["entities"]["maxItems"]
MAX_ENTITY_CHARS: int = _PROPS["entities"]["items"]["maxLength"]
MAX_CANDIDATES: int = _PROPS["pinned_candidates"]["maxItems"]
MAX_CANDIDATE_CHARS: int = _CANDIDATE["content"]["maxLength"]
MAX_TAGS: int = _CANDIDATE["tags"]["maxItems"]
MAX_TAG_CHARS: int = _CANDIDATE["tags"]["items"]["maxLength"]
MAX_IDENTITY_FACTS: int = _PROPS["identity_facts"]["maxItems"]
MAX_IDENTITY_CHARS: int = _PROPS["identity_facts"]["items"]["maxLength"]

__all__ = [
    "DISTILLATION_SCHEMA",
    "DISTILLATION_SCHEMA_JSON",
    "MAX_CANDIDATES",
    "MAX_CANDIDATE_CHARS",
    "MAX_ENTITIES",
    "MAX_ENTITY_CHARS",
    "MAX_IDENTITY_CHARS",
    "MAX_IDENTITY_FACTS",
    "MAX_ITEM_CHARS",
    "MAX_LIST_ITEMS",
    "MAX_SUMMARY_CHARS",
    "MAX_TAGS",
    "MAX_TAG_CHARS",
    "MAX_TOPICS",
    "MAX_TOPIC_CHARS",
]
