"""The spec's HTTP examples, verbatim (only the port differs), against the real stack behind the gateway."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from tests.support.gateway_stack import GatewayStack, running_stack

REPO = Path(__file__).resolve().parents[2]

# Copied character for character from the spec (MEMORY.md, "Memory Ingestion — POST /memory/ingest").
SPEC_CURL = """curl http://127.0.0.1:1337/memory/ingest \\
  -H "Content-Type: application/json" \\
  -d '{
    "agent_id": "my-agent",
    "conversation_id": "session-1",
    "turns": [
      {"user": "Hi, my name is Alice", "assistant": "Hello Alice!"},
      {"user": "I work at Acme Corp", "assistant": "Got it."}
    ]
  }'"""

# Copied character for character from the spec (MEMORY.md, "API Integration").
SPEC_OPENAI = """from openai import OpenAI

client = OpenAI(
    base_url="http://127.0.0.1:1337/v1",
    api_key="osaurus",
)

response = client.chat.completions.create(
    model="your-model-name",
    messages=[{"role": "user", "content": "What did we talk about last week?"}],
)"""

OUTCOME = re.compile(
    r"^(distilled|no_signals|skipped:[a-z_]+(:\d+chars)?|empty:[a-z_]+|dead_letter:\d+|error:.*)$"
)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    with running_stack(tmp_path_factory.mktemp("gateway-spec")) as running:
        yield running


def on_port(example: str, port: int) -> str:
    """The example with the gateway's real port instead of 1337 (the only permitted change)."""
    assert example.count("127.0.0.1:1337") == 1
    return example.replace("127.0.0.1:1337", f"127.0.0.1:{port}")


def run_curl(example: str, port: int) -> Any:
    done = subprocess.run(
        ["bash", "-c", on_port(example, port)], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout)


def transcript_turns(stack: GatewayStack, agent_id: str) -> int:
    with grpc.insecure_channel(stack.memoryd_target) as channel:
        stats = mpb_grpc.MemoryServiceStub(channel).GetStats(mpb.GetStatsRequest(), timeout=10)
    return next((a.transcript_turns for a in stats.agents if a.agent_id == agent_id), 0)


def test_readme_http_section_carries_the_spec_examples() -> None:
    readme = (REPO / "README.md").read_text()
    assert SPEC_CURL in readme
    assert SPEC_OPENAI in readme


def test_spec_curl_ingest_runs_verbatim(stack: GatewayStack) -> None:
    body = run_curl(SPEC_CURL, stack.port)
    assert body["status"] == "ok"
    assert body["turns_ingested"] == 2
    assert OUTCOME.match(body["distillation"]), body
    assert ("episode_id" in body) == (body["distillation"] == "distilled")
    # Idempotent per conversation: the same call again leaves one copy of the conversation's transcript.
    turns_after_first = transcript_turns(stack, "my-agent")
    assert turns_after_first > 0
    again = run_curl(SPEC_CURL, stack.port)
    assert again["turns_ingested"] == 2
    assert transcript_turns(stack, "my-agent") == turns_after_first


def test_spec_openai_example_runs_verbatim(stack: GatewayStack) -> None:
    scope: dict[str, Any] = {}
    exec(compile(on_port(SPEC_OPENAI, stack.port), "spec-openai-example", "exec"), scope)
    response = scope["response"]
    assert response.object == "chat.completion"
    assert response.model == "your-model-name"
    # inferd's fake backend echoes the prompt: the request reached the model untouched, with no memory block.
    assert response.choices[0].message.content == "echo: What did we talk about last week?"
    assert response.choices[0].finish_reason == "stop"
    assert response.usage.total_tokens == response.usage.prompt_tokens + response.usage.completion_tokens
