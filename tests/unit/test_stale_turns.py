"""A transcript turn only superseded facts came from is a stale line (retrieval/stale.py): it is left out whatever
its wording, and only a line with its text is."""

from __future__ import annotations

from memoryd.retrieval.stale import corrections_from, stale_turn, states_old_value


def test_a_stale_source_turn_matches_its_own_text_only() -> None:
    turn = stale_turn("Our beta launches on  December 15,\nthat's the big milestone.")
    assert states_old_value("Our beta launches on December 15, that's the big milestone.", [turn])
    assert not states_old_value("The beta launch moved to December 18.", [turn])
    assert not states_old_value("Our beta launches on December 15", [turn])  # a part of it is another line


def test_stale_turns_and_replaced_values_work_together() -> None:
    found = (
        *corrections_from([("The user lives in Lisbon.", "The user lives in Porto.")]),
        stale_turn("Greetings from the coast, the move went fine."),
    )
    assert states_old_value("I still love Lisbon in spring.", found)
    assert states_old_value("Greetings from the coast, the move went fine.", found)
    assert not states_old_value("Porto is home now.", found)
