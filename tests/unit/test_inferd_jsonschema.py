"""Unit tests for inferd.jsonschema_lite and the shared distillation schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inferd.jsonschema_lite import SchemaError, check_schema, minimal_instance, validate
from memoryd.write.digest_schema import DISTILLATION_SCHEMA, DISTILLATION_SCHEMA_JSON


def test_distillation_schema_is_supported_and_round_trips() -> None:
    check_schema(DISTILLATION_SCHEMA)
    assert json.loads(DISTILLATION_SCHEMA_JSON) == DISTILLATION_SCHEMA
    assert set(DISTILLATION_SCHEMA["required"]) == {
        "episode",
        "entities",
        "pinned_candidates",
        "identity_facts",
    }
    episode = DISTILLATION_SCHEMA["properties"]["episode"]
    assert episode["required"] == ["summary", "topics", "decisions", "action_items", "salience"]


def test_minimal_distillation_instance_validates() -> None:
    instance = minimal_instance(DISTILLATION_SCHEMA, hint="a session")
    assert validate(instance, DISTILLATION_SCHEMA) == []
    assert instance["episode"]["summary"] == "a session"


def test_validate_reports_each_problem_with_a_pointer() -> None:
    bad = {
        "episode": {"summary": "", "topics": "x", "decisions": [], "action_items": [], "salience": 1.5},
        "entities": [],
        "pinned_candidates": [{"content": "c", "salience": 0.5, "tags": [], "extra": 1}],
    }
    problems = validate(bad, DISTILLATION_SCHEMA)
    joined = "\n".join(problems)
    assert "missing required property 'identity_facts'" in joined
    assert "/episode/summary: shorter than 1" in joined
    assert "/episode/topics: expected array" in joined
    assert "/episode/salience: above the maximum 1" in joined
    assert "unexpected property 'extra'" in joined


@pytest.mark.parametrize(
    ("value", "schema", "ok"),
    [
        (True, {"type": "integer"}, False),
        (3.0, {"type": "integer"}, True),
        (float("nan"), {"type": "number"}, False),
        ("b", {"enum": ["a", "b"]}, True),
        ("c", {"enum": ["a", "b"]}, False),
        ([1, 2, 3], {"type": "array", "maxItems": 2}, False),
        ({"a": 1}, {"anyOf": [{"type": "string"}, {"type": "object"}]}, True),
        ({"n": "x"}, {"$defs": {"S": {"type": "string"}}, "properties": {"n": {"$ref": "#/$defs/S"}}}, True),
        ({"n": 1}, {"$defs": {"S": {"type": "string"}}, "properties": {"n": {"$ref": "#/$defs/S"}}}, False),
    ],
)
def test_validate_keywords(value: Any, schema: dict[str, Any], ok: bool) -> None:
    assert (validate(value, schema) == []) is ok


@pytest.mark.parametrize(
    "schema",
    [
        [],
        {"type": "tuple"},
        {"patternProperties": {}},
        {"$ref": "https://example.com/schema"},
        {"properties": {"a": {"$ref": "#/$defs/missing"}}},
    ],
)
def test_check_schema_rejects_unsupported(schema: Any) -> None:
    with pytest.raises(SchemaError):
        check_schema(schema)


_leaf = st.sampled_from(
    [
        {"type": "string", "minLength": 2, "maxLength": 5},
        {"type": "number", "minimum": -3, "maximum": 7},
        {"type": "integer", "minimum": 1, "maximum": 9},
        {"type": "boolean"},
        {"enum": ["x", "y"]},
        {"type": "null"},
    ]
)
_schemas = st.recursive(
    _leaf,
    lambda children: st.one_of(
        st.builds(
            lambda item, n: {"type": "array", "items": item, "minItems": n, "maxItems": n + 2},
            children,
            st.integers(0, 2),
        ),
        st.dictionaries(st.text("abcdef", min_size=1, max_size=3), children, max_size=3).map(
            lambda props: {
                "type": "object",
                "properties": props,
                "required": sorted(props),
                "additionalProperties": False,
            }
        ),
    ),
    max_leaves=8,
)


@given(_schemas)
def test_minimal_instance_always_validates(schema: dict[str, Any]) -> None:
    check_schema(schema)
    assert validate(minimal_instance(schema, hint="hint"), schema) == []
