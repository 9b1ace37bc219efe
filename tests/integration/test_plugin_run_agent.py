"""RunAgent, the composed agent surface: memory in the latest user message, one model call, the turn recorded.

In-process tests use the Python stub; one test drives the real `python -m plugin_host` with the real grpcurl.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from servicekit.errors import from_rpc_error
from tests.fakes.fake_plugin_peers import FakePeers, memory_block, start_fake_peers
from tests.support.plugin_host_stack import TEST_PLUGINS, HostStack, start_host, write_grants
from tests.support.procs import spawn
from tests.support.tools import grpcurl_binary


@pytest.fixture(scope="module")
def peers() -> Iterator[FakePeers]:
    started = start_fake_peers()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def stack(peers: FakePeers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostStack]:
    started = start_host(tmp_path_factory.mktemp("home"), peers, [], {})
    yield started
    started.close()


@pytest.fixture(autouse=True)
def reset(peers: FakePeers) -> None:
    peers.memory.mode = "ok"
    peers.memory.blocks.clear()
    peers.inference.context_window_tokens = 32768


def _msg(role: int, content: str) -> mpb.ChatMessage:
    return mpb.ChatMessage(role=role, content=content)  # type: ignore[arg-type]


def _run(stack: HostStack, request: ppb.RunAgentRequest) -> ppb.RunAgentResponse:
    return stack.stub.RunAgent(request, timeout=30)  # type: ignore[no-any-return]


def test_run_agent_injects_into_the_latest_user_message_only(stack: HostStack, peers: FakePeers) -> None:
    block = memory_block("User is training for a marathon")
    peers.memory.blocks["runner"] = block
    request = ppb.RunAgentRequest(
        agent_id="runner",
        conversation_id="day-3",
        messages=[
            _msg(mpb.ROLE_SYSTEM, "You are a coach."),
            _msg(mpb.ROLE_USER, "Plan my week."),
            _msg(mpb.ROLE_ASSISTANT, "Sure."),
            _msg(mpb.ROLE_USER, "How far should I run today?"),
        ],
    )

    reply = _run(stack, request)

    prompt = peers.inference.prompts[-1]
    assert [content for _, content in prompt[:3]] == ["You are a coach.", "Plan my week.", "Sure."]
    assert prompt[3][1] == f"{block}\n\nHow far should I run today?"
    assert reply.reply == f"ECHO: {block}\n\nHow far should I run today?"
    assert reply.memory.injected and reply.memory.recorded
    assert reply.memory.section == mpb.SECTION_PINNED
    assert reply.completion_tokens == 7 and reply.prompt_tokens > 0
    turn = peers.memory.buffered_for("runner")[-1]
    assert (turn.conversation_id, turn.user_message, turn.assistant_message) == (
        "day-3", "How far should I run today?", reply.reply
    )  # fmt: skip


def test_tiny_context_model_gets_no_memory(stack: HostStack, peers: FakePeers) -> None:
    peers.memory.blocks["small"] = memory_block("never injected")
    peers.inference.context_window_tokens = 1024
    request = ppb.RunAgentRequest(
        agent_id="small",
        conversation_id="c",
        messages=[_msg(mpb.ROLE_USER, "hi")],
        options=ppb.GenerationOptions(model="fake-llm"),
    )

    reply = _run(stack, request)

    assert reply.reply == "ECHO: hi"
    assert (reply.memory.injected, reply.memory.reason) == (False, "context_too_small:1024")
    assert reply.memory.recorded


def test_run_agent_without_memoryd_still_answers(stack: HostStack, peers: FakePeers) -> None:
    peers.memory.mode = "down"
    request = ppb.RunAgentRequest(agent_id="a", conversation_id="c", messages=[_msg(mpb.ROLE_USER, "hello")])

    reply = _run(stack, request)

    assert reply.reply == "ECHO: hello"
    assert reply.memory.reason == "memory_unavailable:STORE_DOWN"
    assert not reply.memory.injected and not reply.memory.recorded


def test_run_agent_rejects_bad_input_with_field_violations(stack: HostStack) -> None:
    cases = {
        "empty": ppb.RunAgentRequest(),
        "no user message": ppb.RunAgentRequest(
            agent_id="a", conversation_id="c", messages=[_msg(mpb.ROLE_SYSTEM, "x")]
        ),
        "unknown role": ppb.RunAgentRequest(agent_id="a", conversation_id="c", messages=[_msg(9, "x")]),
        "bad options": ppb.RunAgentRequest(
            agent_id="a",
            conversation_id="c",
            messages=[_msg(mpb.ROLE_USER, "x")],
            options=ppb.GenerationOptions(temperature=5.0),
        ),
    }
    expected = {
        "empty": {"agent_id", "conversation_id", "messages"},
        "no user message": {"messages"},
        "unknown role": {"messages[0].role"},
        "bad options": {"options.temperature"},
    }
    for label, request in cases.items():
        with pytest.raises(grpc.RpcError) as caught:
            _run(stack, request)
        error = from_rpc_error(caught.value)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT, label
        assert {v.field for v in error.field_violations} == expected[label], label


def test_run_agent_stream_streams_deltas_with_memory_as_run_agent(stack: HostStack, peers: FakePeers) -> None:
    block = memory_block("User keeps bees")
    peers.memory.blocks["streamer"] = block
    messages = [_msg(mpb.ROLE_USER, "What should I plant for them?")]
    events = list(
        stack.stub.RunAgentStream(
            ppb.RunAgentStreamRequest(agent_id="streamer", conversation_id="s1", messages=messages),
            timeout=30,
        )
    )
    *deltas, final = events
    # The fake model streams its reply in thirds: several delta events, then one final event.
    assert len(deltas) >= 3 and all(e.delta and not e.done for e in deltas)
    assert final.done and not final.delta
    text = "".join(e.delta for e in deltas)
    assert text == f"ECHO: {block}\n\nWhat should I plant for them?"  # memory injected as RunAgent does
    assert peers.inference.prompts[-1][-1][1] == f"{block}\n\nWhat should I plant for them?"
    assert final.memory.injected and final.memory.recorded and final.memory.section == mpb.SECTION_PINNED
    assert (final.prompt_tokens, final.completion_tokens) == (3, 3)  # the fake stream's usage
    turn = peers.memory.buffered_for("streamer")[-1]
    assert (turn.conversation_id, turn.user_message, turn.assistant_message) == (
        "s1", "What should I plant for them?", text
    )  # fmt: skip
    unary = _run(stack, ppb.RunAgentRequest(agent_id="streamer", conversation_id="s2", messages=messages))
    assert unary.reply == text and unary.memory.block_tokens == final.memory.block_tokens


def test_run_agent_stream_rejects_bad_input_before_streaming(stack: HostStack) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        list(stack.stub.RunAgentStream(ppb.RunAgentStreamRequest(agent_id="a"), timeout=30))
    error = from_rpc_error(caught.value)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert {v.field for v in error.field_violations} == {"conversation_id", "messages"}


def _grpcurl_call(target: str, method: str, data: dict[str, object]) -> dict[str, object]:
    command = [grpcurl_binary(), "-plaintext", "-max-time", "20", "-d", json.dumps(data), target, method]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.e2e
def test_run_agent_and_list_plugins_from_grpcurl(peers: FakePeers, tmp_path: Path) -> None:
    peers.memory.blocks["grpcurl-agent"] = memory_block("User prefers metric units")
    home = tmp_path / "home"
    write_grants(home, {"echo": {"permissions": ["inference"], "agents": ["grpcurl-agent"]}})
    args = ["--memoryd", peers.memory_target, "--inferd", peers.inference_target, "--no-entry-points",
            "--plugin-dir", str(TEST_PLUGINS / "echo")]  # fmt: skip
    host = spawn("plugin_host", home, args)
    try:
        reply = _grpcurl_call(
            host.target,
            "osaurus.plugin.v1.PluginHostService/RunAgent",
            {
                "agent_id": "grpcurl-agent",
                "conversation_id": "from-grpcurl",
                "messages": [{"role": "ROLE_USER", "content": "How tall is Everest?"}],
            },
        )
        assert reply["reply"] == f"ECHO: {memory_block('User prefers metric units')}\n\nHow tall is Everest?"
        assert reply["memory"] == {
            "injected": True, "section": "SECTION_PINNED", "reason": "trigger:scripted",
            "blockTokens": len(memory_block("User prefers metric units")) // 4, "recorded": True,
        }  # fmt: skip
        assert peers.memory.buffered_for("grpcurl-agent")[-1].user_message == "How tall is Everest?"

        listed = _grpcurl_call(host.target, "osaurus.plugin.v1.PluginHostService/ListPlugins", {})
        (echo,) = listed["plugins"]  # type: ignore[misc]
        assert (echo["name"], echo["state"]) == ("echo", "PLUGIN_STATE_RUNNING")
        assert echo["grantedPermissions"] == ["PERMISSION_INFERENCE"]

        invoked = _grpcurl_call(
            host.target,
            "osaurus.plugin.v1.PluginHostService/InvokePlugin",
            {"plugin": "echo", "command": "ping", "agent_id": "grpcurl-agent", "conversation_id": "c"},
        )
        assert json.loads(str(invoked["resultJson"]))["pong"] is True

        runner_pids = [
            int(p.name) for p in Path("/proc").iterdir()
            if p.name.isdigit() and _is_runner_of(p, home)
        ]  # fmt: skip
        assert len(runner_pids) == 1
    finally:
        host.stop(signal.SIGKILL)
    # The host died without cleaning up: its plugin process notices the closed lifeline and exits.
    assert _wait_gone(runner_pids[0], 10.0), "plugin process outlived its host"


def _is_runner_of(proc: Path, home: Path) -> bool:
    try:
        cmdline = (proc / "cmdline").read_bytes()
    except OSError:
        return False
    return b"plugin_host.runner" in cmdline and str(home).encode() in cmdline
