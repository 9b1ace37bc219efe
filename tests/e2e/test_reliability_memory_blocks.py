"""Fed-back memory blocks never reach the transcript: BufferTurn and Ingest store only the user's own text, so search
never finds (and AssembleContext never re-injects) our own [Memory] block; a turn that is only a block stores
nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memoryd.api.memory_convert import own_text
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from tests.fakes.fake_writer_inferd import digest
from tests.support.reliability_rig import RecordingInferd, in_process_memoryd, read_rows

pytestmark = [pytest.mark.e2e]

AGENT = "blocks"
TEA = "I always drink green tea in the morning, never coffee. Please remember that."
QUESTION = "What do you remember about my tea preference?"


@dataclass
class Rig:
    stub: pb_grpc.MemoryServiceStub
    inferd: RecordingInferd
    db: Path

    def rows(self, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        return read_rows(self.db, sql, params)

    def transcript(self, conversation: str) -> list[tuple[object, ...]]:
        return self.rows(
            "SELECT role, content FROM transcript WHERE agent_id = ? AND conversation_id = ? ORDER BY chunk_index",
            (AGENT, conversation),
        )

    def buffer(self, conversation: str, user: str, assistant: str = "") -> pb.BufferTurnResponse:
        reply: pb.BufferTurnResponse = self.stub.BufferTurn(
            pb.BufferTurnRequest(
                agent_id=AGENT, conversation_id=conversation, user_message=user, assistant_message=assistant
            ),
            timeout=10,
        )
        return reply

    def fed_back(self, question: str) -> str:
        """The latest user message exactly as InjectMemory hands it to the model: block, blank line, question."""
        injected = self.stub.InjectMemory(
            pb.InjectMemoryRequest(
                agent_id=AGENT,
                conversation_id="live",
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content=question)],
                model_context_tokens=32768,
            ),
            timeout=10,
        )
        text = [m.content for m in injected.messages if m.role == pb.ROLE_USER][-1]
        assert text.startswith("[Memory]") and "green tea" in text and text.endswith(question), text
        return str(text)

    def block(self, question: str) -> str:
        """A live block for the question. Asked up to three times: under a loaded CI machine the first assembly
        after the session's distillation has been seen to decline (gate-v12, P(none) near its bar with one pinned
        fact), and this file tests what happens to a block fed back, not the gate."""
        for _attempt in range(3):
            reply = self.stub.AssembleContext(
                pb.AssembleContextRequest(agent_id=AGENT, query=question), timeout=10
            )
            if reply.block.startswith("[Memory]"):
                break
            time.sleep(0.5)
        assert reply.block.startswith("[Memory]"), reply
        return str(reply.block)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    with in_process_memoryd(tmp_path, agents=(AGENT,)) as memoryd:
        stub = pb_grpc.MemoryServiceStub(memoryd.channel)
        rig = Rig(stub, memoryd.inferd, memoryd.db)
        # Something to remember, so InjectMemory has a real block to prepend.
        memoryd.inferd.scripted.append(
            digest("Talked about tea.", pinned=[("The user prefers green tea in the morning", 0.9)])
        )
        rig.buffer("t1", TEA, "Noted: green tea in the morning.")
        ended = stub.EndSession(
            pb.EndSessionRequest(agent_id=AGENT, conversation_id="t1", wait=True), timeout=30
        )
        assert ended.outcome == "distilled", ended
        yield rig


def test_buffer_turn_stores_only_the_users_own_text(rig: Rig) -> None:
    fed_back = rig.fed_back(QUESTION)
    block = rig.block(QUESTION)
    rig.buffer("t2", fed_back, "You prefer green tea in the morning.")
    rig.buffer(
        "t2", f"Before that: {block}\n\nand a pastry with almonds?", f"Sure. {block} Try an almond croissant."
    )
    assert rig.transcript("t2") == [
        ("user", QUESTION),
        ("assistant", "You prefer green tea in the morning."),
        ("user", "Before that: and a pastry with almonds?"),
        ("assistant", "Sure. Try an almond croissant."),
    ]
    signals = rig.rows(
        "SELECT user_message, assistant_message FROM pending_signals WHERE conversation_id = 't2' ORDER BY id"
    )
    assert all("[Memory]" not in user and "[Memory]" not in assistant for user, assistant in signals), signals
    # Search finds the user's own words, never a line of our block (the pinned fact lives only inside it).
    hits = rig.stub.SearchMemory(
        pb.SearchMemoryRequest(
            agent_id=AGENT, scope=pb.SCOPE_TRANSCRIPT, query="prefers green tea", limit=20
        ),
        timeout=10,
    ).hits
    assert hits and not any("[Memory]" in h.text or "About you" in h.text for h in hits)
    assert not rig.rows(
        "SELECT id FROM transcript WHERE content LIKE '%[Memory]%' OR content LIKE '%/Memory]%'"
    )


def test_a_turn_that_is_only_a_block_stores_nothing(rig: Rig) -> None:
    before = (
        rig.rows("SELECT count(*) FROM transcript")[0][0],
        rig.rows("SELECT count(*) FROM pending_signals")[0][0],
    )
    block = rig.block(QUESTION)
    for user, assistant in (
        (block, ""),
        (f"  {block}\n\n", "A reply to nothing the user said."),
        (block, block),
    ):
        reply = rig.buffer("t3", user, assistant)
        assert reply.signal_id == 0 and list(reply.transcript_ids) == [], reply
        assert not reply.distillation_scheduled and not reply.HasField("flush_time"), reply
    after = (
        rig.rows("SELECT count(*) FROM transcript")[0][0],
        rig.rows("SELECT count(*) FROM pending_signals")[0][0],
    )
    assert after == before


def test_text_without_a_block_is_stored_verbatim(rig: Rig) -> None:
    texts = ("  spaced out \n", "brackets [Memory without a close", "[/Memory] then [memory ] not a block")
    for text in texts:
        rig.buffer("t4", text, "ok")
    assert [content for role, content in rig.transcript("t4") if role == "user"] == list(texts)


def test_ingest_stores_only_the_users_own_text(rig: Rig) -> None:
    fed_back = rig.fed_back(QUESTION)
    block = rig.block(QUESTION)
    reply = rig.stub.Ingest(
        pb.IngestRequest(
            agent_id=AGENT,
            conversation_id="i1",
            turns=[
                pb.Turn(user=fed_back, assistant="Green tea, in the morning."),
                pb.Turn(user=block, assistant="Dropped with its user text."),
                pb.Turn(user=f"Middle {block} of a message", assistant=f"{block}"),
            ],
            skip_extraction=True,
        ),
        timeout=30,
    )
    assert reply.turns_ingested == 2, reply
    assert rig.transcript("i1") == [
        ("user", QUESTION),
        ("assistant", "Green tea, in the morning."),
        ("user", "Middle of a message"),
    ]


def test_ingest_of_only_blocks_leaves_the_conversation_alone(rig: Rig) -> None:
    rig.stub.Ingest(
        pb.IngestRequest(
            agent_id=AGENT,
            conversation_id="i2",
            turns=[pb.Turn(user="Keep me", assistant="Kept")],
            skip_extraction=True,
        ),
        timeout=30,
    )
    block = rig.block(QUESTION)
    calls = len(rig.inferd.generate_requests)
    for skip in (True, False):
        reply = rig.stub.Ingest(
            pb.IngestRequest(
                agent_id=AGENT, conversation_id="i2", turns=[pb.Turn(user=block)], skip_extraction=skip
            ),
            timeout=30,
        )
        assert reply.turns_ingested == 0 and reply.episode_id == 0, reply
        assert reply.distillation == ("" if skip else "no_signals"), reply
    assert rig.transcript("i2") == [("user", "Keep me"), ("assistant", "Kept")]
    assert len(rig.inferd.generate_requests) == calls


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain text", "plain text"),
        ("  keeps its whitespace \n", "  keeps its whitespace \n"),
        ("[Memory]\nCurrent date: 1 May 2026\n[/Memory]\n\nHello", "Hello"),
        ("a [memory]x[/MEMORY] b", "a b"),
        ("[Memory]only[/Memory]", ""),
        ("[Memory] unclosed", "[Memory] unclosed"),
    ],
)
def test_own_text(text: str, expected: str) -> None:
    assert own_text(text) == expected
