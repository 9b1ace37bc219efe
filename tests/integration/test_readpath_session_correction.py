"""A correction made within one session leaves no stale line, end to end (Ingest → AssembleContext on a real
memoryd): "Our Ledgerly beta ships on December 15" then, two turns later, "Actually the beta moved to December 18".
Only the later fact is active; the earlier one is stored superseded by it, with its source turn, so the read path's
stale-turn and old-value filters (retrieval/stale.py) know the December 15 line and the block leaves it out, unless
the user asks for the literal earlier turn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.distilling_memoryd import Memoryd, distilling_memoryd, session_time

AGENT = "session-correction-agent"
STALE_TURN = "Our Ledgerly beta ships on December 15."
CORRECTED = [
    ("I'm vegetarian and allergic to peanuts.", "Noted."),
    (STALE_TURN, "Great, December 15 it is."),
    ("I owe Marta the report on Wednesday.", "I'll remind you."),
    ("Actually the beta moved to December 18.", "Noted."),
]
#: The same session where the later turn says the date again: nothing was corrected.
REPEATED = [
    (STALE_TURN, "Great."),
    ("I owe Marta the report on Wednesday.", "I'll remind you."),
    ("Yes, the beta ships on December 15, as planned.", "Good."),
]


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[Memoryd]:
    with distilling_memoryd(tmp_path, "The user talked about the beta and a report.") as handle:
        yield handle


def _ingest(handle: Memoryd, turns: list[tuple[str, str]]) -> None:
    reply: mpb.IngestResponse = handle.memory.Ingest(
        mpb.IngestRequest(
            agent_id=AGENT,
            conversation_id="s1",
            turns=[mpb.Turn(user=u, assistant=a) for u, a in turns],
            session_time=session_time("2026-12-01"),
        ),
        timeout=60,
    )
    assert reply.distillation == "distilled"


def _block(handle: Memoryd, query: str) -> str:
    handle.app.indexer.run_once()
    handle.app.read_path.invalidate(AGENT)
    reply: mpb.AssembleContextResponse = handle.memory.AssembleContext(
        mpb.AssembleContextRequest(agent_id=AGENT, query=query), timeout=10
    )
    return reply.block


def _beta_rows(handle: Memoryd) -> list[tuple[str, str]]:
    rows = handle.app.store.db.query(
        "SELECT content, status FROM pinned_facts WHERE agent_id = ? AND content LIKE '%beta%' ORDER BY id",
        (AGENT,),
    )
    return [(str(content), str(status)) for content, status in rows]


def test_the_replaced_fact_is_kept_superseded_with_its_source_turn(memoryd: Memoryd) -> None:
    _ingest(memoryd, CORRECTED)
    rows = _beta_rows(memoryd)
    assert [status for content, status in rows if "December 18" in content] == ["active"], rows
    assert [status for content, status in rows if "December 15" in content] == ["superseded"], rows
    assert STALE_TURN in memoryd.app.store.reads.stale_turns(AGENT)


def test_the_stale_line_leaves_the_block_and_the_new_one_is_there(memoryd: Memoryd) -> None:
    _ingest(memoryd, CORRECTED)
    for query in ("when does the beta ship?", "remind me of the beta date"):
        block = _block(memoryd, query)
        assert "December 15" not in block, block
        assert "December 18" in block, block


def test_the_literal_earlier_turn_is_still_quoted_when_asked_for(memoryd: Memoryd) -> None:
    _ingest(memoryd, CORRECTED)
    assert "December 15" in _block(memoryd, "what exactly did I say about the beta?")


def test_a_date_said_again_supersedes_nothing(memoryd: Memoryd) -> None:
    _ingest(memoryd, REPEATED)
    assert all(status == "active" for _content, status in _beta_rows(memoryd))
    assert memoryd.app.store.reads.stale_turns(AGENT) == []
    assert "December 15" in _block(memoryd, "when does the beta ship?")
