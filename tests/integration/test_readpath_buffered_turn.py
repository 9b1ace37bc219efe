"""A buffered turn reaches the next AssembleContext (the cached block is dropped), while the agent's known entities
are not read again: a turn changes the transcript only (ReadPath.transcript_changed, issue 17 item 4). Real memoryd
in-process on a real port, real SQLite; inferd unreachable (full text alone, estimated tokens)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.memoryd_server import MemorydHandle, buffer, running_memoryd

AGENT = "agent-buffered"
QUESTION = "What were my exact words about the blue van?"


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with running_memoryd(tmp_path) as handle:
        yield handle


def _assemble(handle: MemorydHandle) -> mpb.AssembleContextResponse:
    reply: mpb.AssembleContextResponse = handle.memory.AssembleContext(
        mpb.AssembleContextRequest(agent_id=AGENT, query=QUESTION), timeout=10
    )
    return reply


def test_a_buffered_turn_is_seen_without_reading_the_entities_again(
    memoryd: MemorydHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = memoryd.app.store.reads
    entity_reads: list[str] = []
    known_entities = reads.known_entities

    def counted(agent_id: str, now_ms: int) -> list[str]:
        entity_reads.append(agent_id)
        return known_entities(agent_id, now_ms)

    monkeypatch.setattr(reads, "known_entities", counted)
    buffer(memoryd.memory, AGENT, "c1", "I parked the blue van on Elm Street yesterday")
    first = _assemble(memoryd)
    assert "Elm Street" in first.block
    assert len(entity_reads) == 1
    buffer(memoryd.memory, AGENT, "c1", "Correction: the blue van is on Oak Avenue now")
    second = _assemble(memoryd)
    assert "Oak Avenue" in second.block  # not the cached block
    assert len(entity_reads) == 1  # the turn changed no entity
