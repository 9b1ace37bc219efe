"""memoryd.client.MemoryClient's runtime calls against a real memoryd on 127.0.0.1:0: typed answers and errors."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.client import MAX_AGENT_ID_CHARS, Attachment, ChatMessage, MemoryClient
from servicekit.errors import DeadlineExceededError, InvalidArgumentError, PermissionDeniedError
from tests.support.memoryd_server import running_memoryd

TUNA = "My cat Mochi is a tabby and loves tuna."
QUESTION = "What does my cat Mochi eat?"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[MemoryClient]:
    with running_memoryd(tmp_path) as handle, MemoryClient(handle.target, deadline_s=10.0) as c:
        yield c


def test_buffer_turn_stores_and_a_retry_with_the_same_request_id_is_replayed(client: MemoryClient) -> None:
    first = client.buffer_turn("a", "c1", TUNA, "Noted!", request_id="req-1")
    again = client.buffer_turn("a", "c1", TUNA, "Noted!", request_id="req-1")

    assert first.signal_id > 0 and len(first.transcript_ids) == 2 and first.replayed is False
    assert (again.signal_id, again.transcript_ids, again.replayed) == (
        first.signal_id,
        first.transcript_ids,
        True,
    )


def test_search_memory_finds_the_turn_once_recall_is_enabled(client: MemoryClient) -> None:
    stored = client.buffer_turn("a", "c1", TUNA, "Noted!")
    with pytest.raises(PermissionDeniedError) as refused:
        client.search_memory("a", "transcript", "what does Mochi love?")
    assert refused.value.reason == "MEMORY_RECALL_DISABLED"

    client.upsert_agent("a", search_memory_enabled=True)
    hits = client.search_memory("a", "transcript", "what does Mochi love?", limit=5)

    assert hits and hits[0].text == TUNA
    assert (hits[0].kind, hits[0].id, hits[0].role) == (
        "transcript_turn",
        str(stored.transcript_ids[0]),
        "user",
    )
    assert hits[0].conversation_id == "c1" and hits[0].occur_time_s is not None


def test_assemble_context_and_inject_memory_return_the_same_block(client: MemoryClient) -> None:
    client.add_override("Always reply in English")
    client.buffer_turn("a", "c1", TUNA, "Noted!")

    assembly = client.assemble_context("a", QUESTION, conversation_id="c2")
    injection = client.inject_memory(
        "a", [ChatMessage("system", "be brief"), ChatMessage("user", QUESTION)], conversation_id="c2"
    )

    assert assembly.block.startswith("[Memory]") and "Always reply in English" in assembly.block
    assert assembly.section == injection.section != "unspecified"
    assert injection.injected is True and injection.block_tokens > 0
    assert injection.messages[0] == ChatMessage("system", "be brief")
    assert injection.messages[1].content == f"{assembly.block}\n\n{QUESTION}"


def test_inject_memory_rules_are_memoryds(client: MemoryClient) -> None:
    """The rules plugin_host used to copy: a small window and a multimodal message get no memory."""
    client.add_override("Always reply in English")
    small = client.inject_memory("a", [ChatMessage("user", QUESTION)], model_context_tokens=1024)
    picture = ChatMessage("user", QUESTION, (Attachment("image/png", b"\x89PNG"),))
    multimodal = client.inject_memory("a", [picture])

    assert (small.injected, small.reason) == (False, "context_too_small:1024")
    assert small.messages == (ChatMessage("user", QUESTION),)
    assert (multimodal.injected, multimodal.reason) == (False, "multimodal")
    assert multimodal.messages == (picture,)


def test_end_session_flushes_the_pending_turns(client: MemoryClient) -> None:
    client.buffer_turn("a", "c1", TUNA, "Noted!")
    client.buffer_turn("a", "c1", "Mochi also likes salmon.", "Good to know.")

    ended = client.end_session("a", "c1")

    assert (ended.signals_flushed, ended.outcome, ended.episode_id) == (2, "", 0)


def test_errors_are_typed_and_deadlines_apply(client: MemoryClient) -> None:
    with pytest.raises(InvalidArgumentError):
        client.buffer_turn("a", "", TUNA)
    with pytest.raises(DeadlineExceededError):
        client.assemble_context("a", QUESTION, timeout_s=1e-6)


def test_importing_the_client_loads_none_of_memoryds_server_side() -> None:
    """plugin_host imports memoryd.client: it must not drag in storage, the writer or their libraries."""
    probe = (
        "import sys, memoryd.client\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in ('peewee', 'sqlcipher3', 'numpy', 'faiss')\n"
        "         or m.startswith(('memoryd.write', 'memoryd.consolidate', 'memoryd.storage.db'))]\n"
        "print(','.join(sorted(heavy)))\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=root, timeout=60
    )
    assert done.stdout.strip() == ""


def test_the_one_agent_id_limit_holds_on_the_write_read_and_console_paths(client: MemoryClient) -> None:
    longest, too_long = "a" * MAX_AGENT_ID_CHARS, "a" * (MAX_AGENT_ID_CHARS + 1)
    assert client.buffer_turn(longest, "c1", TUNA).signal_id > 0
    assert client.assemble_context(longest, QUESTION).reason
    assert client.search(TUNA, agent_id=longest) is not None
    for call in (
        lambda: client.buffer_turn(too_long, "c1", TUNA),
        lambda: client.assemble_context(too_long, QUESTION),
        lambda: client.search(TUNA, agent_id=too_long),
    ):
        with pytest.raises(InvalidArgumentError) as refused:
            call()
        assert refused.value.reason == "INVALID_AGENT_ID"
