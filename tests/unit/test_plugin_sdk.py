"""The plugin SDK: public surface, command declaration, payload checks, and RecordingContext's rules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import plugin_host.sdk as sdk
from plugin_host.sdk import (
    Context,
    InvalidPayloadError,
    Message,
    Payload,
    Permission,
    PermissionDeniedError,
    Plugin,
    Scope,
    command,
)
from plugin_host.sdk._plugin import decode_payload
from plugin_host.sdk.testing import RecordingContext, run_command


class Greeter(Plugin):
    name = "greeter"
    version = "2.0.0"
    permissions = (Permission.INFERENCE,)
    agents = ("assistant",)

    @command(
        payload_schema={"type": "object", "required": ["who"], "properties": {"who": {"type": "string"}}}
    )
    def greet(self, ctx: Context, payload: Payload) -> dict[str, Any]:
        """Greet someone through the model.

        More text that is not the description.
        """
        return {"reply": ctx.complete(f"Say hello to {payload['who']}").text}

    @command(name="say-twice", description="Repeat")
    def say_twice(self, ctx: Context, payload: Payload) -> list[str]:
        return [payload.get("text", "")] * 2


def test_all_is_sorted_complete_and_free_of_protobuf() -> None:
    assert sdk.__all__ == sorted(sdk.__all__)
    public = {
        name
        for name, value in vars(sdk).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    assert set(sdk.__all__) == public
    for name in sdk.__all__:
        value = getattr(sdk, name)
        if isinstance(value, type) or (callable(value) and not hasattr(value, "__args__")):
            assert value.__module__.startswith("plugin_host.sdk"), name


def test_sdk_imports_neither_grpc_nor_protobuf() -> None:
    code = "import sys, plugin_host.sdk, plugin_host.sdk.testing; print(sorted(sys.modules))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    for forbidden in ("'grpc'", "'google.protobuf'", "'osaurus", "'servicekit"):
        assert forbidden not in loaded, forbidden


def test_commands_are_declared_with_names_descriptions_and_schemas() -> None:
    specs = Greeter.command_specs()

    assert sorted(specs) == ["greet", "say-twice"]
    assert specs["greet"].description == "Greet someone through the model."
    assert specs["greet"].payload_schema is not None
    assert specs["say-twice"].description == "Repeat"
    assert specs["say-twice"].method_name == "say_twice"
    assert Greeter.manifest() == {
        "name": "greeter", "version": "2.0.0", "description": "",
        "permissions": ["inference"], "agents": ["assistant"],
    }  # fmt: skip


def test_bad_command_and_plugin_names_are_refused() -> None:
    with pytest.raises(ValueError, match="command name"):
        command(name="Not Valid")
    with pytest.raises(ValueError, match="must match"):
        type("Nameless", (Plugin,), {}).manifest()


def test_payload_is_checked_against_the_schema_top_level() -> None:
    ctx = RecordingContext(agent_id="assistant", replies=["hi"])

    with pytest.raises(InvalidPayloadError, match="'who' is required"):
        run_command(Greeter(), ctx, "greet", {})
    with pytest.raises(InvalidPayloadError, match="'who' must be string"):
        run_command(Greeter(), ctx, "greet", {"who": 3})
    assert run_command(Greeter(), ctx, "greet", {"who": "Ada"}) == {"reply": "hi"}
    assert ctx.completions == [[Message.user("Say hello to Ada")]]
    with pytest.raises(KeyError):
        Greeter().invoke(ctx, "missing", {})


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", {}), ("  ", {}), ('{"a": 1}', {"a": 1})],
)
def test_decode_payload_accepts_objects(raw: str, expected: dict[str, Any]) -> None:
    assert decode_payload(raw) == expected


@pytest.mark.parametrize("raw", ["[1]", '"text"', "{bad", "null"])
def test_decode_payload_refuses_everything_else(raw: str) -> None:
    with pytest.raises(InvalidPayloadError):
        decode_payload(raw)


def test_message_roles_are_checked() -> None:
    assert Message.system("x").role == "system"
    with pytest.raises(ValueError, match="role"):
        Message("robot", "beep")


def test_recording_context_enforces_grants_agents_and_memory_recall(tmp_path: Path) -> None:
    ctx = RecordingContext(permissions=(), data_dir=tmp_path)
    with pytest.raises(PermissionDeniedError) as denied:
        ctx.complete("hi")
    assert denied.value.reason == "PERMISSION_NOT_GRANTED"

    ctx = RecordingContext(replies=["a"], permissions=[Permission.INFERENCE])
    with pytest.raises(PermissionDeniedError) as other_agent:
        ctx.complete("hi", agent_id="someone-else")
    assert other_agent.value.reason == "AGENT_NOT_ALLOWED"

    ctx = RecordingContext(permissions=[Permission.MEMORY_SEARCH])
    with pytest.raises(PermissionDeniedError) as recall:
        ctx.search_memory(Scope.PINNED, "q")
    assert recall.value.reason == "MEMORY_RECALL_DISABLED"


def test_recording_context_streams_and_collects() -> None:
    ctx = RecordingContext(replies=lambda chat: f"you said {chat[-1].content}")

    stream = ctx.stream("three little words")
    deltas = list(stream)

    assert "".join(deltas) == "you said three little words" and len(deltas) > 1
    assert stream.memory is not None and stream.memory.recorded
    assert ctx.stream("again").collect().text == "you said again"


def test_recording_context_applies_the_hosts_record_rule() -> None:
    ctx = RecordingContext(replies=lambda chat: "{}")

    plain = ctx.complete("hello")
    schema = ctx.complete("title this", json_schema={"type": "object"})
    asked = ctx.complete("title this", json_schema={"type": "object"}, record=True)
    declined = ctx.complete("hello", record=False)

    assert [c.memory.recorded for c in (plain, schema, asked, declined)] == [True, False, True, False]
    assert ctx.recorded == [True, False, True, False]


def test_run_command_round_trips_json() -> None:
    ctx = RecordingContext(agent_id="assistant")
    assert run_command(Greeter(), ctx, "say-twice", {"text": "é"}) == ["é", "é"]
    assert json.dumps(run_command(Greeter(), ctx, "say-twice")) == '["", ""]'
