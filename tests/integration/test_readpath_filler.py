"""Assistant filler stays out of the transcript section (note 10: "Understood.", "Thanks, noted."), through a real
memoryd on a real SQLite file: the block keeps every user turn and the assistant lines that add something."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.memoryd_server import MemorydHandle
from tests.support.transcript_memoryd import memoryd_with_transcript

AGENT = "filler-agent"
TURNS = [
    ("Falcon launches on September 22, put it in the plan", "Understood."),
    ("The Falcon budget is 240k for the launch", "Thanks, noted."),
    ("Falcon's launch party is in Lisbon", "Got it, Lisbon for the Falcon launch party!"),
    ("Who runs the Falcon launch?", "Priya runs the Falcon launch, according to the March notes."),
]


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with memoryd_with_transcript(tmp_path, AGENT, TURNS, index=True) as handle:
        yield handle


def test_the_transcript_block_has_no_acknowledgement_lines(memoryd: MemorydHandle) -> None:
    reply: mpb.AssembleContextResponse = memoryd.memory.AssembleContext(
        mpb.AssembleContextRequest(agent_id=AGENT, query="what exactly did I say about the Falcon launch?"),
        timeout=10,
    )
    assert reply.section == mpb.SECTION_TRANSCRIPT, reply.reason
    lines = [line for line in reply.block.splitlines() if line.startswith("- [")]
    user_lines = [line for line in lines if ", user]" in line]
    assistant_lines = [line for line in lines if ", assistant]" in line]
    assert len(user_lines) == len(TURNS)
    assert [line.split("] ", 1)[1] for line in assistant_lines] == [TURNS[3][1]]
    assert "Understood." not in reply.block and "Thanks, noted." not in reply.block
