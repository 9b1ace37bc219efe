"""The distillation digest's JSON schema (docs/distillation.md); its bounds are the caps memoryd's parser enforces."""

from __future__ import annotations

import json
from typing import Any

# Bounds (maxLength / maxItems) keep a constrained reply finite and short: a 135M model that starts repeating
# inside a string is cut off by the grammar instead of running to max_tokens.
_SALIENCE: dict[str, Any] = {"type": "number", "minimum": 0, "maximum": 1}


def _strings(max_items: int, max_chars: int) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "maxLength": max_chars}, "maxItems": max_items}


#: The one-call distillation digest: {episode{summary,topics,decisions,action_items,salience}, entities,
#: pinned_candidates[{content,salience,tags}], identity_facts}. Key order is the order the model writes them.
DISTILLATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "episode": {
            "type": "object",
            "properties": {
                "summary": {"type": "string", "minLength": 1, "maxLength": 500},
                "topics": _strings(6, 60),
                "decisions": _strings(6, 200),
                "action_items": _strings(6, 200),
                "salience": _SALIENCE,
            },
            "required": ["summary", "topics", "decisions", "action_items", "salience"],
            "additionalProperties": False,
        },
        "entities": _strings(12, 80),
        "pinned_candidates": {
            "type": "array",
            "maxItems": 5,
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "minLength": 1, "maxLength": 240},
                    "salience": _SALIENCE,
                    "tags": _strings(6, 40),
                },
                "required": ["content", "salience", "tags"],
                "additionalProperties": False,
            },
        },
        "identity_facts": _strings(6, 200),
    },
    "required": ["episode", "entities", "pinned_candidates", "identity_facts"],
    "additionalProperties": False,
}

#: The same schema as compact JSON text, ready for GenerateRequest.json_schema.
DISTILLATION_SCHEMA_JSON: str = json.dumps(DISTILLATION_SCHEMA, separators=(",", ":"))

__all__ = ["DISTILLATION_SCHEMA", "DISTILLATION_SCHEMA_JSON"]
