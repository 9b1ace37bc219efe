"""A credential the user typed stays in the transcript but a block quotes it only when the literal turn is asked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.memoryd_server import MemorydHandle, buffer, running_memoryd

AGENT = "secret-agent"
KEY = "sk-live-4f9aQ2xZ8rT1mB7nK3pL6wE0yU5iO9sD"


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    # Gate mode off: the planner falls back to transcript turns sharing a word, so both queries reach the turn.
    (tmp_path / "config").mkdir(parents=True)
    (tmp_path / "config" / "memory.json").write_text(
        json.dumps({"relevanceGateMode": "off", "coreModel": ""})
    )
    with (
        running_fake_inferd() as (server, _state),
        running_memoryd(tmp_path, inferd_addr=server.target) as handle,  # type: ignore[attr-defined]
    ):
        buffer(
            handle.memory, AGENT, "c1", f"The staging deploy key is {KEY}, the deploy runs at noon.", "Ok."
        )
        handle.app.indexer.run_once()
        yield handle


def _block(handle: MemorydHandle, query: str) -> str:
    reply = handle.memory.AssembleContext(mpb.AssembleContextRequest(agent_id=AGENT, query=query), timeout=10)
    return str(reply.block)


def test_a_block_redacts_a_credential_from_a_transcript_turn(memoryd: MemorydHandle) -> None:
    block = _block(memoryd, "When does the staging deploy run?")
    assert "staging deploy" in block and "noon" in block
    assert KEY not in block and "[redacted]" in block


def test_the_literal_turn_asked_for_is_quoted_whole(memoryd: MemorydHandle) -> None:
    block = _block(memoryd, "Repeat exactly what I said about the staging deploy key.")
    assert KEY in block
