"""A leaving said beside what holds now (grounding/revisions.py `_new_state_in_turn`): "And I've left the university.
I'm at NOAA now" retires the old fact and stores no "the user has left the university" beside the new state, which
would name the old value again; a leaving said alone, or beside an unrelated fact, is still stored as the new state.
And a plan said as where its date slid ("The opening slipped to 8 July", extract.py `_MOVED_PASSIVE`) is read."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import FactKind, GroundedFact, SourceTurn, extract
from memoryd.write.grounding.revisions import revisions

UNIVERSITY = "The user is a marine biologist at the university in Hilo."
#: 2026-06-20, noon UTC.
SESSION_MS = 1_781_956_800_000


def _noaa(turn: int) -> GroundedFact:
    return GroundedFact(
        FactKind.PLAN, "The user is at NOAA now, fisheries research.", "", "", (turn,), 0.6, False
    )


def _read(said: str, session: list[GroundedFact], known: str = UNIVERSITY) -> tuple[set[int], list[str]]:
    read = revisions([SourceTurn(0, 1, said, "Noted.")], session, [known])
    return {i for r in read for i in r.retired}, [
        r.fact.text for r in read if r.fact is not None and r.is_new
    ]


def test_leaving_beside_the_new_state_only_retires() -> None:
    retired, new = _read("And I've left the university. I'm at NOAA now, fisheries research.", [_noaa(0)])
    assert retired == {0}
    assert not [t for t in new if "university" in t]


def test_leaving_said_alone_is_the_new_state() -> None:
    retired, new = _read("And I've left the university.", [])
    assert retired == {0}
    assert any("left the university" in t for t in new)


def test_a_now_fact_of_another_turn_is_no_new_state_here() -> None:
    retired, new = _read("And I've left the university.", [_noaa(3)])
    assert retired == {0}
    assert any("left the university" in t for t in new)


def test_an_unrelated_fact_in_the_turn_keeps_the_leaving() -> None:
    dog = GroundedFact(FactKind.RELATION, "The user has a dog named Rex.", "pet.rex", "Rex", (0,), 0.7, False)
    retired, new = _read(
        "I've quit the call centre completely. My dog is Rex.", [dog], "The user works at a call centre."
    )
    assert retired == {0}
    assert any("quit the call centre" in t for t in new)


def test_a_date_said_as_where_the_event_slid_is_a_plan() -> None:
    said = "The opening slipped to 8 July in the end, the electrician was late."
    plans = extract([SourceTurn(0, 1, said, "Ok.")], session_time_ms=SESSION_MS).facts
    assert [f.slot for f in plans if f.kind is FactKind.PLAN] == ["plan.open"]
    assert "8 July (2026-07-08)" in plans[0].text


@pytest.mark.parametrize(
    "said",
    [
        "If the opening slipped to 8 July, would we lose the deposit?",  # hypothetical
        "Has the opening slipped to 8 July?",  # a question
        "The opening might slip to 8 July.",  # not decided
    ],
)
def test_a_slip_not_said_as_done_is_no_plan(said: str) -> None:
    facts = extract([SourceTurn(0, 1, said, "Ok.")], session_time_ms=SESSION_MS).facts
    assert not [f for f in facts if f.kind is FactKind.PLAN]
