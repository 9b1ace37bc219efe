"""A short session that states a fact teaches it (note 10: "I moved to Lisbon last month." was skipped as low
novelty), through a real memoryd on a real SQLite file: below the novelty threshold, the deterministic extractor
reads the user's turns and its facts are distilled on the extractive path, with no model call (this inferd has no
Generate); small talk is still skipped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.write.distill import NOVELTY_MIN_CHARS
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.memoryd_server import MemorydHandle, running_memoryd

AGENT = "short-agent"


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with (
        running_fake_inferd() as (server, _state),
        running_memoryd(tmp_path, inferd_addr=server.target) as handle,  # type: ignore[attr-defined]
    ):
        yield handle


def _ingest(handle: MemorydHandle, conversation: str, user: str, assistant: str = "") -> mpb.IngestResponse:
    assert len(user) + len(assistant) < NOVELTY_MIN_CHARS
    reply: mpb.IngestResponse = handle.memory.Ingest(
        mpb.IngestRequest(
            agent_id=AGENT, conversation_id=conversation, turns=[mpb.Turn(user=user, assistant=assistant)]
        ),
        timeout=30,
    )
    return reply


def _pinned(handle: MemorydHandle) -> list[str]:
    reply = handle.console.ListItems(
        cpb.ListItemsRequest(agent_id=AGENT, kind=mpb.ITEM_KIND_PINNED_FACT), timeout=10
    )
    return [item.preview for item in reply.items]


def _stats(handle: MemorydHandle) -> mpb.AgentStats:
    reply = handle.memory.GetStats(mpb.GetStatsRequest(), timeout=10)
    return next(a for a in reply.agents if a.agent_id == AGENT)


def test_one_short_turn_with_a_preference_becomes_a_pinned_fact(memoryd: MemorydHandle) -> None:
    reply = _ingest(memoryd, "c1", "I'm vegetarian.", "Noted.")
    assert reply.distillation == "distilled" and reply.episode_id > 0
    assert _stats(memoryd).pinned_facts == 1
    assert any("vegetarian" in text for text in _pinned(memoryd))


def test_one_short_turn_about_a_move_becomes_an_identity_fact(memoryd: MemorydHandle) -> None:
    reply = _ingest(memoryd, "c1", "I moved to Lisbon last month.")
    assert reply.distillation == "distilled"
    identity = memoryd.memory.GetIdentity(mpb.GetIdentityRequest(agent_id=AGENT), timeout=10).identity
    assert any("Lisbon" in fact.text for fact in identity.facts)
    assert _stats(memoryd).episodes == 1


@pytest.mark.parametrize(("user", "assistant"), [("thanks!", ""), ("hi", "hello!"), ("ok cool", "")])
def test_small_talk_is_still_skipped(memoryd: MemorydHandle, user: str, assistant: str) -> None:
    reply = _ingest(memoryd, "c1", user, assistant)
    assert reply.distillation == f"skipped:low_novelty:{len(user) + len(assistant)}chars"
    stats = _stats(memoryd)
    assert (stats.pinned_facts, stats.episodes, stats.transcript_turns) == (0, 0, 2 if assistant else 1)
