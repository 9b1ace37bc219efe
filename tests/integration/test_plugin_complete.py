"""ctx.complete / ctx.stream / ctx.search_memory through a real plugin_host and real plugin processes.

Peers are fakes on real ports: FakeMemory scripts the memory block and records BufferTurn; FakeInference echoes
the latest user message it received, so the reply shows exactly what reached the model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from tests.fakes.fake_plugin_peers import FakePeers, memory_block, start_fake_peers
from tests.support.plugin_host_stack import HostStack, start_host

GRANTS = {
    "echo": {"permissions": ["inference", "memory_search"], "agents": ["agent-a", "agent-b"]},
    "plain": {"permissions": ["inference"], "agents": ["*"]},
}


@pytest.fixture(scope="module")
def peers() -> Iterator[FakePeers]:
    started = start_fake_peers()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def stack(peers: FakePeers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostStack]:
    home: Path = tmp_path_factory.mktemp("home")
    started = start_host(home, peers, ["echo", "plain", "ungranted"], GRANTS)
    yield started
    started.close()


@pytest.fixture(autouse=True)
def reset_memory(peers: FakePeers) -> Iterator[None]:
    peers.memory.mode = "ok"
    peers.memory.blocks.clear()
    peers.memory.recall_agents.clear()
    yield
    peers.memory.mode = "ok"


def test_complete_reaches_model_with_memory_in_latest_user_message(
    stack: HostStack, peers: FakePeers
) -> None:
    block = memory_block("User drinks oolong tea")
    peers.memory.blocks["agent-a"] = block
    peers.memory.blocks["agent-b"] = memory_block("agent b's private fact")

    result = stack.invoke(
        "echo", "ask", {"text": "Which tea do I like?"}, agent="agent-a", conversation="conv-42"
    )

    prompt = peers.inference.prompts[-1]
    system = [content for role, content in prompt if role == 1]
    assert system == ["Be brief."], "memory must never go into the system prompt"
    assert peers.inference.latest_prompt_user() == f"{block}\n\nWhich tea do I like?"
    assert "agent b" not in result["reply"]
    assert result["memory"] == {
        "injected": True, "section": "pinned", "reason": "trigger:scripted",
        "block_tokens": len(block) // 4, "recorded": True,
    }  # fmt: skip
    recorded = peers.memory.buffered_for("agent-a")[-1]
    assert (recorded.conversation_id, recorded.user_message) == ("conv-42", "Which tea do I like?")
    assert recorded.assistant_message == result["reply"]
    assert not [t for t in peers.memory.buffered_for("agent-b") if t.conversation_id == "conv-42"]


def test_stream_gets_memory_and_records_the_whole_reply(stack: HostStack, peers: FakePeers) -> None:
    peers.memory.blocks["agent-b"] = memory_block("User lives in Lyon")

    result = stack.invoke("echo", "stream", {"text": "Where do I live?"}, agent="agent-b", conversation="s-1")

    assert len(result["deltas"]) > 1
    reply = "".join(result["deltas"])
    assert reply == f"ECHO: {memory_block('User lives in Lyon')}\n\nWhere do I live?"
    assert result["memory"]["injected"] is True and result["memory"]["recorded"] is True
    recorded = peers.memory.buffered_for("agent-b")[-1]
    assert (recorded.user_message, recorded.assistant_message) == ("Where do I live?", reply)


def _turns_of(peers: FakePeers, conversation: str) -> list[tuple[str, str]]:
    return [
        (t.user_message, t.assistant_message)
        for t in peers.memory.buffered_for("agent-a")
        if t.conversation_id == conversation
    ]


def test_a_schema_call_is_not_recorded_unless_the_plugin_asks(stack: HostStack, peers: FakePeers) -> None:
    block = memory_block("User drinks oolong tea")
    peers.memory.blocks["agent-a"] = block
    title = "Give this note a short title: buy milk"

    internal = stack.invoke("echo", "utility", {"text": title, "schema": True}, conversation="rec-1")
    asked = stack.invoke(
        "echo", "utility", {"text": "Title this: water the plants", "schema": True, "record": True},
        conversation="rec-1",
    )  # fmt: skip

    # The call itself still ran, with memory injected; only the recording is off.
    assert internal["reply"] == f"ECHO: {block}\n\n{title}"
    assert internal["memory"]["injected"] is True and internal["memory"]["recorded"] is False
    assert asked["memory"]["recorded"] is True
    assert _turns_of(peers, "rec-1") == [("Title this: water the plants", asked["reply"])]


def test_a_plain_call_is_recorded_unless_the_plugin_says_not_to(stack: HostStack, peers: FakePeers) -> None:
    peers.memory.blocks["agent-a"] = memory_block("User lives in Lyon")

    default = stack.invoke("echo", "utility", {"text": "I moved to Porto"}, conversation="rec-2")
    declined = stack.invoke(
        "echo", "utility", {"text": "Summarise the chat in five words", "record": False}, conversation="rec-2"
    )
    streamed = stack.invoke(
        "echo", "stream", {"text": "internal stream", "record": False}, conversation="rec-2"
    )

    assert default["memory"]["recorded"] is True
    assert declined["memory"]["recorded"] is False and streamed["memory"]["recorded"] is False
    # Recorded with the user's own words: the injected block is never part of the stored turn.
    assert _turns_of(peers, "rec-2") == [("I moved to Porto", default["reply"])]
    assert "[Memory]" in default["reply"]


def test_memory_down_still_answers_and_says_why(stack: HostStack, peers: FakePeers) -> None:
    peers.memory.blocks["agent-a"] = memory_block("never shown")
    peers.memory.mode = "down"
    before = len(peers.memory.buffered)

    result = stack.invoke("echo", "ask", {"text": "hello"})

    assert result["reply"] == "ECHO: hello"
    assert result["memory"]["injected"] is False
    assert result["memory"]["reason"] == "memory_unavailable:STORE_DOWN"
    assert result["memory"]["recorded"] is False
    assert len(peers.memory.buffered) == before


def test_unserved_inject_memory_means_no_memory_and_the_turn_is_still_recorded(
    stack: HostStack, peers: FakePeers
) -> None:
    peers.memory.blocks["agent-a"] = memory_block("User's cat is called Miso")
    peers.memory.mode = "inject_unimplemented"

    result = stack.invoke("echo", "ask", {"text": "What's my cat's name?"})

    assert peers.inference.latest_prompt_user() == "What's my cat's name?"
    assert result["memory"]["injected"] is False
    assert result["memory"]["reason"] == "memory_unavailable:NOT_YET_AVAILABLE"
    assert result["memory"]["recorded"] is True


def test_ungranted_agent_gets_permission_denied(stack: HostStack, peers: FakePeers) -> None:
    calls, buffered = len(peers.inference.prompts), len(peers.memory.buffered)

    error = stack.invoke_error("echo", "ask", {"text": "hi"}, agent="agent-c")

    assert error.code == grpc.StatusCode.PERMISSION_DENIED
    assert (error.reason, error.domain) == ("AGENT_NOT_ALLOWED", "plugin.osaurus.dev")
    assert (len(peers.inference.prompts), len(peers.memory.buffered)) == (calls, buffered)


def test_plugin_acting_for_another_agent_gets_typed_error_inside_the_plugin(stack: HostStack) -> None:
    complete = stack.invoke("echo", "probe", {"action": "complete", "agent": "agent-c"})
    search = stack.invoke("echo", "probe", {"action": "search", "agent": "agent-c"})

    assert complete == {"error": "PermissionDeniedError", "reason": "AGENT_NOT_ALLOWED"}
    assert search == {"error": "PermissionDeniedError", "reason": "AGENT_NOT_ALLOWED"}


def test_search_memory_needs_the_grant(stack: HostStack, peers: FakePeers) -> None:
    peers.memory.recall_agents.add("agent-a")
    searched = len(peers.memory.search_calls)

    result = stack.invoke("plain", "search", {})

    assert result == {"error": "PermissionDeniedError", "reason": "PERMISSION_NOT_GRANTED"}
    assert len(peers.memory.search_calls) == searched, "memoryd must not be asked"


def test_search_memory_needs_the_agents_memory_recall(stack: HostStack, peers: FakePeers) -> None:
    error = stack.invoke_error("echo", "search", {"query": "tea"})
    assert error.code == grpc.StatusCode.PERMISSION_DENIED
    assert error.reason == "MEMORY_RECALL_DISABLED"

    peers.memory.recall_agents.add("agent-a")
    hit = mpb.SearchHit(
        item=mpb.ItemRef(kind=mpb.ITEM_KIND_EPISODE, id="7"),
        score=0.9,
        text="We compared teas",
        topics=["tea"],
    )
    peers.memory.hits[("agent-a", mpb.SCOPE_EPISODES)] = [hit]
    result = stack.invoke("echo", "search", {"query": "tea", "scope": "episodes"})
    assert result == {"hits": [{"text": "We compared teas", "kind": "episode", "topics": ["tea"]}]}
    assert peers.memory.search_calls[-1] == ("agent-a", mpb.SCOPE_EPISODES, "tea")


def test_a_refused_memory_call_the_plugin_lets_escape_is_a_plugin_error(
    stack: HostStack, peers: FakePeers
) -> None:
    """memoryd's INVALID_ARGUMENT reaches the plugin as HostError; escaping the command it is the plugin's bug:
    INTERNAL / PLUGIN_ERROR (docs/plugins.md), not INTERNAL with memoryd's reason."""
    peers.memory.recall_agents.add("agent-a")
    error = stack.invoke_error("echo", "search", {"query": "   "})
    assert (error.code, error.reason) == (grpc.StatusCode.INTERNAL, "PLUGIN_ERROR")
    assert "HostError" in error.message
    assert error.metadata.get("downstream_reason") == "MISSING_FIELD"


def test_ungranted_plugin_is_listed_but_never_started(stack: HostStack) -> None:
    info = stack.plugin("ungranted")

    assert info.state == ppb.PLUGIN_STATE_STOPPED
    assert info.last_error == "not granted in config/plugins.json"
    assert list(info.granted_permissions) == [] and list(info.allowed_agents) == []
    assert not (stack.home / "plugin-data" / "ungranted").exists()
    error = stack.invoke_error("ungranted", "anything")
    assert (error.code, error.reason) == (grpc.StatusCode.PERMISSION_DENIED, "AGENT_NOT_ALLOWED")


def test_list_plugins_reports_state_permissions_and_commands(stack: HostStack) -> None:
    echo, plain = stack.plugin("echo"), stack.plugin("plain")
    both = [ppb.PERMISSION_INFERENCE, ppb.PERMISSION_MEMORY_SEARCH]

    assert (echo.state, echo.version) == (ppb.PLUGIN_STATE_RUNNING, "1.2.3")
    assert list(echo.requested_permissions) == both and list(echo.granted_permissions) == both
    assert list(echo.allowed_agents) == ["agent-a", "agent-b"]
    assert {c.name for c in echo.commands} == {
        "ask",
        "utility",
        "stream",
        "search",
        "probe",
        "keep",
        "reuse",
        "ping",
    }
    ask = next(c for c in echo.commands if c.name == "ask")
    assert '"required": ["text"]' in ask.payload_schema
    assert echo.source.endswith("tests/fakes/plugins/echo")
    assert list(plain.requested_permissions) == both
    assert list(plain.granted_permissions) == [ppb.PERMISSION_INFERENCE]
    assert list(plain.allowed_agents) == ["*"]


def test_bad_invocations_get_typed_errors(stack: HostStack) -> None:
    missing = stack.invoke_error("echo", "ask", {"wrong": 1})
    assert (missing.code, missing.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAYLOAD")
    assert "text" in missing.message

    request = ppb.InvokePluginRequest(
        plugin="echo", command="ask", payload_json="[1, 2]", agent_id="agent-a", conversation_id="c"
    )
    with pytest.raises(grpc.RpcError) as caught:
        stack.stub.InvokePlugin(request, timeout=10)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT

    unknown_command = stack.invoke_error("echo", "nope")
    assert (unknown_command.code, unknown_command.reason) == (grpc.StatusCode.NOT_FOUND, "COMMAND_NOT_FOUND")
    unknown_plugin = stack.invoke_error("nope", "ask")
    assert (unknown_plugin.code, unknown_plugin.reason) == (grpc.StatusCode.NOT_FOUND, "PLUGIN_NOT_FOUND")
    no_ids = stack.invoke_error("echo", "ping", agent="", conversation="")
    assert no_ids.code == grpc.StatusCode.INVALID_ARGUMENT
    assert {v.field for v in no_ids.field_violations} == {"agent_id", "conversation_id"}


def test_ping_reports_the_invocations_agent_and_conversation(stack: HostStack) -> None:
    assert stack.invoke("echo", "ping", agent="agent-b", conversation="c-9") == {
        "pong": True, "agent": "agent-b", "conversation": "c-9"
    }  # fmt: skip
