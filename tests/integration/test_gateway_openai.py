"""The official `openai` package against the gateway's /v1 over real inferd (fake backend) and memoryd."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import numpy as np
import openai
import pytest
from openai import OpenAI

from tests.support.gateway_stack import SPEC_MODEL, GatewayStack, running_stack


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    with running_stack(tmp_path_factory.mktemp("gateway-openai")) as running:
        yield running


@pytest.fixture
def client(stack: GatewayStack) -> Iterator[OpenAI]:
    with OpenAI(base_url=f"{stack.url}/v1", api_key="osaurus", max_retries=0, timeout=60) as c:
        yield c


def test_chat_completion_plain(client: OpenAI) -> None:
    response = client.chat.completions.create(
        model=SPEC_MODEL,
        messages=[
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "name three colours"},
        ],
        max_tokens=64,
    )
    assert response.id.startswith("chatcmpl-")
    assert response.choices[0].message.role == "assistant"
    assert response.choices[0].message.content == "echo: name three colours"
    assert response.usage is not None and response.usage.completion_tokens == 4


def test_chat_completion_max_tokens_gives_length(client: OpenAI) -> None:
    response = client.chat.completions.create(
        model=SPEC_MODEL, messages=[{"role": "user", "content": "one two three four five"}], max_tokens=2
    )
    assert response.choices[0].finish_reason == "length"
    assert response.choices[0].message.content == "echo: one"


def test_chat_completion_streaming(client: OpenAI) -> None:
    stream = client.chat.completions.create(
        model=SPEC_MODEL,
        messages=[{"role": "user", "content": "stream these words please"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "echo: stream these words please"
    assert chunks[0].choices[0].delta.role == "assistant"
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == ["stop"]
    assert chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 5
    assert len({c.id for c in chunks}) == 1


def test_streaming_wire_ends_with_done(stack: GatewayStack) -> None:
    body = {"model": SPEC_MODEL, "messages": [{"role": "user", "content": "hi"}], "stream": True}
    with httpx.stream("POST", f"{stack.url}/v1/chat/completions", json=body, timeout=30) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in response.iter_lines() if line]
    assert lines[-1] == "data: [DONE]"
    assert all(line.startswith("data: ") for line in lines)


def test_chat_never_injects_memory_and_agent_header_only_tags(client: OpenAI, stack: GatewayStack) -> None:
    # Memory that would be relevant exists for the agent; the strict endpoint must still pass the prompt through.
    seeded = httpx.post(
        f"{stack.url}/memory/ingest",
        json={"agent_id": "tagged", "conversation_id": "c1", "skip_extraction": True,
              "turns": [{"user": "My cat Miso only eats salmon.", "assistant": "Noted."}]},
        timeout=30,
    )  # fmt: skip
    assert seeded.status_code == 200
    raw = client.chat.completions.with_raw_response.create(
        model=SPEC_MODEL,
        messages=[{"role": "user", "content": "what does Miso eat"}],
        extra_headers={"X-Osaurus-Agent-Id": "tagged"},
    )
    assert raw.headers["x-osaurus-agent-id"] == "tagged"
    assert raw.parse().choices[0].message.content == "echo: what does Miso eat"


def test_embeddings_float_and_base64(client: OpenAI) -> None:
    # The openai package asks for base64 by default and decodes it; float is asked for explicitly.
    default = client.embeddings.create(
        model="fake-embedding", input=["salmon for the cat", "tabs over spaces"]
    )
    floats = client.embeddings.create(
        model="fake-embedding", input=["salmon for the cat", "tabs over spaces"], encoding_format="float"
    )
    assert [d.index for d in default.data] == [0, 1]
    a, b = (np.asarray(d.embedding) for d in default.data)
    assert a.shape == (384,) and abs(float(np.linalg.norm(a)) - 1.0) < 1e-5
    assert np.allclose(a, floats.data[0].embedding, atol=1e-6)
    assert not np.allclose(a, b)
    assert default.model == "fake-embedding"
    single = client.embeddings.create(
        model="fake-embedding", input="salmon for the cat", encoding_format="float"
    )
    assert np.allclose(single.data[0].embedding, a, atol=1e-6)


def test_models_list_and_retrieve(client: OpenAI) -> None:
    names = {m.id for m in client.models.list()}
    assert {SPEC_MODEL, "fake-llm", "fake-embedding"} <= names
    assert client.models.retrieve("fake-llm").id == "fake-llm"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("no-such-model")


def test_unknown_model_is_404_with_reason(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="no-such-model", messages=[{"role": "user", "content": "hi"}])
    error = caught.value.body
    assert isinstance(error, dict)
    assert error["code"] == "MODEL_NOT_FOUND" and error["status"] == "NOT_FOUND"
    assert error["domain"] == "inference.osaurus.dev"


def test_unknown_model_when_streaming_is_an_http_error(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(
            model="no-such-model", messages=[{"role": "user", "content": "hi"}], stream=True
        )


def test_bad_chat_inputs_are_400_with_reason(client: OpenAI) -> None:
    cases = [
        ({"messages": []}, "MISSING_FIELD"),
        ({"messages": [{"role": "tool", "content": "x"}]}, "UNSUPPORTED_ROLE"),
        ({"messages": [{"role": "user", "content": "x"}], "n": 2}, "UNSUPPORTED_N"),
        ({"messages": [{"role": "user", "content": "x"}], "temperature": 9}, "INVALID_VALUE"),
        (
            {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]},
            "UNSUPPORTED_CONTENT",
        ),
    ]
    for extra, reason in cases:
        with pytest.raises(openai.BadRequestError) as caught:
            client.chat.completions.create(model=SPEC_MODEL, **extra)
        assert isinstance(caught.value.body, dict) and caught.value.body["reason"] == reason, extra


def test_bad_embedding_inputs_are_400(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.embeddings.create(model="fake-embedding", input=[[1, 2, 3]])
    assert isinstance(caught.value.body, dict) and caught.value.body["reason"] == "UNSUPPORTED_INPUT"
    with pytest.raises(openai.BadRequestError) as caught:
        client.embeddings.create(model="fake-llm", input="x")
    assert isinstance(caught.value.body, dict) and caught.value.body["reason"] == "WRONG_MODEL_KIND"


def test_response_format_json_schema_is_constrained(client: OpenAI) -> None:
    schema = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}
    response = client.chat.completions.create(
        model=SPEC_MODEL,
        messages=[{"role": "user", "content": "pick a colour"}],
        response_format={"type": "json_schema", "json_schema": {"name": "pick", "schema": schema}},
    )
    content = response.choices[0].message.content
    assert content is not None and isinstance(json.loads(content)["colour"], str)


def test_bad_agent_header_is_400(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model=SPEC_MODEL,
            messages=[{"role": "user", "content": "hi"}],
            extra_headers={"X-Osaurus-Agent-Id": "two words"},
        )
    assert isinstance(caught.value.body, dict) and caught.value.body["reason"] == "INVALID_AGENT_ID"
