"""The two example plugins, installed as folder plugins, run in a real host against fake peers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.fake_plugin_peers import FakePeers, memory_block, start_fake_peers
from tests.support.plugin_host_stack import EXAMPLES, HostStack, start_host

GRANTS = {
    "note-taker": {"permissions": ["inference"], "agents": ["writer"]},
    "daily-brief": {"permissions": ["inference"], "agents": ["writer"]},
}


@pytest.fixture(scope="module")
def peers() -> Iterator[FakePeers]:
    started = start_fake_peers()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def stack(peers: FakePeers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostStack]:
    started = start_host(
        tmp_path_factory.mktemp("home"), peers, ["note_taker", "daily_brief"], GRANTS, plugin_root=EXAMPLES
    )
    yield started
    started.close()


def test_note_taker_files_lists_and_answers(stack: HostStack, peers: FakePeers) -> None:
    peers.memory.blocks["writer"] = memory_block("User's plumber is called Sam")

    added = stack.invoke(
        "note-taker", "add", {"text": "Call the plumber on Friday", "tags": ["home"]}, agent="writer"
    )
    # The echo model does not answer JSON, so the title falls back to the note's first line.
    assert added == {"id": 1, "title": "Call the plumber on Friday", "tags": ["home"]}
    # The title call is the plugin's own (it has a JSON schema): never recorded as something the user said.
    assert not [t for t in peers.memory.buffered_for("writer") if "short title" in t.user_message]
    listed = stack.invoke("note-taker", "list", {"tag": "home"}, agent="writer")
    assert [n["text"] for n in listed["notes"]] == ["Call the plumber on Friday"]

    answer = stack.invoke("note-taker", "ask", {"question": "When do I call the plumber?"}, agent="writer")
    assert answer["memory"]["injected"] is True
    assert "Call the plumber on Friday" in answer["answer"] and "plumber is called Sam" in answer["answer"]

    recall = stack.invoke("note-taker", "recall", {"query": "plumber"}, agent="writer")
    assert recall == {"hits": [], "note": "memory search unavailable (PERMISSION_NOT_GRANTED)"}


def test_daily_brief_streams_without_memory_search(stack: HostStack, peers: FakePeers) -> None:
    result = stack.invoke("daily-brief", "brief", {}, agent="writer")

    assert result["memory_search"] == "denied:PERMISSION_NOT_GRANTED"
    assert result["episodes_used"] == 0
    assert "(no recent episodes available)" in result["brief"]
    assert peers.memory.buffered_for("writer"), "the brief's model call is recorded for the agent"
