"""A move from one place to another, end to end (Ingest twice on a real memoryd with a real SQLite file): "We're
moving from Leeds to York" after "I'm a piano teacher in Leeds" leaves the Leeds identity fact superseded and the
same fact placing the user in York active as an identity fact (grounding/relocation.py: the swapped fact keeps the older fact's table and slot);
a trip from Leeds to York moves nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.distilling_memoryd import Memoryd, distilling_memoryd, session_time

AGENT = "relocation-agent"
FIRST = [("Hi, I'm Tess, I'm a piano teacher in Leeds.", "Nice to meet you, Tess!")]


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[Memoryd]:
    with distilling_memoryd(tmp_path, "The user talked about where they live.") as handle:
        yield handle


def _ingest(handle: Memoryd, conversation: str, day: str, turns: list[tuple[str, str]]) -> None:
    reply: mpb.IngestResponse = handle.memory.Ingest(
        mpb.IngestRequest(
            agent_id=AGENT,
            conversation_id=conversation,
            turns=[mpb.Turn(user=u, assistant=a) for u, a in turns],
            session_time=session_time(day),
        ),
        timeout=60,
    )
    assert reply.distillation == "distilled"


def _places(handle: Memoryd) -> list[tuple[str, str]]:
    rows = handle.app.store.db.query(
        "SELECT content, status FROM identity_facts WHERE agent_id = ? AND (content LIKE '%Leeds%' OR "
        "content LIKE '%York%') ORDER BY id",
        (AGENT,),
    )
    return [(str(content), str(status)) for content, status in rows]


def test_a_move_supersedes_the_old_place_and_keeps_an_identity_fact(memoryd: Memoryd) -> None:
    _ingest(memoryd, "s1", "2026-11-01", FIRST)
    before = _places(memoryd)
    assert ("The user is a piano teacher in Leeds.", "active") in before, before
    _ingest(
        memoryd,
        "s2",
        "2026-12-01",
        [("We're moving from Leeds to York next month, we found a house.", "Wow!")],
    )
    places = _places(memoryd)
    assert {status for content, status in places if "Leeds" in content and "York" not in content} == {
        "superseded"
    }, places
    assert ("The user is a piano teacher in York.", "active") in places, places


def test_a_trip_from_one_place_to_another_moves_nothing(memoryd: Memoryd) -> None:
    _ingest(memoryd, "s1", "2026-11-01", FIRST)
    trip = [
        ("I drove from Leeds to York yesterday for a concert at the Minster.", "Fun!"),
        (
            "My student Amira passed her grade five piano exam with merit last week.",
            "Congratulations to her!",
        ),
    ]
    _ingest(memoryd, "s2", "2026-12-01", trip)
    places = _places(memoryd)
    assert {status for content, status in places if "Leeds" in content} == {"active"}, places
