"""LLM gate prompt and reply parsing: schema shape, tolerant section parsing, content-free reasons."""

from __future__ import annotations

import json

import pytest

from memoryd.read.gate_llm import GATE_SCHEMA_JSON, GateOutputError, build_messages, parse_reply
from memoryd.retrieval.gate import GateDecision, failure_token
from memoryd.retrieval.items import Section
from servicekit.errors import DeadlineExceededError, UnavailableError


def test_schema_enumerates_exactly_the_sections() -> None:
    schema = json.loads(GATE_SCHEMA_JSON)
    assert schema["required"] == ["section", "reason"]
    assert schema["properties"]["section"]["enum"] == ["none", "identity", "pinned", "episodes", "transcript"]
    assert schema["additionalProperties"] is False


def test_prompt_carries_query_and_a_few_entities() -> None:
    messages = build_messages("  How is Mochi?  ", [f"name{i}" for i in range(50)] + ["mochi"])
    assert messages[0].role == "system"
    assert [m.role for m in messages[1:-1]] == ["user", "assistant"] * 6
    assert all(parse_reply(m.content) for m in messages[2:-1:2])  # the examples are valid replies
    assert messages[-1].role == "user"
    assert messages[-1].content.endswith("Message: How is Mochi?")
    assert messages[-1].content.count(",") == 19  # at most 20 names


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"section":"pinned","reason":"asks about own pet"}',
            GateDecision(Section.PINNED, "llm:asks_about_own_pet"),
        ),
        ('{"section":" Episodes ","reason":""}', GateDecision(Section.EPISODES, "llm")),
        (
            '{"section":"none","reason":"<b>general!</b> \\n knowledge"}',
            GateDecision(Section.NONE, "llm:bgeneralb__knowledge"),
        ),
    ],
)
def test_parse_reply(text: str, expected: GateDecision) -> None:
    assert parse_reply(text) == expected


@pytest.mark.parametrize(
    "text", ["", "not json", "[]", '{"reason":"x"}', '{"section":"everything"}', '{"section":3}']
)
def test_bad_replies_raise(text: str) -> None:
    with pytest.raises(GateOutputError):
        parse_reply(text)


def test_failure_tokens_are_content_free() -> None:
    assert failure_token(DeadlineExceededError("DEADLINE_EXCEEDED")) == "timeout"
    assert failure_token(UnavailableError("UNAVAILABLE")) == "unavailable"
    assert failure_token(GateOutputError("x")) == "bad_output"
    assert failure_token(RuntimeError("secret memory text")) == "error"
