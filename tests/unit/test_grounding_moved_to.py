"""A move to a new place said without the old one (grounding/moved_to.py) retires the older fact holding the user's
one place and restates it with the new place; someone else's move, a plan not yet made, a hedged or hypothetical
move, a question, or a memory holding two places retires nothing."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.moved_to import moved_to
from memoryd.write.grounding.revisions import revisions

STUDIO = "The user runs a small tattoo studio in Leeds called Black Fern."
OUTFIT = "The user runs a two-man tree surgery outfit out of Inverness."
APPRENTICE = "The user's apprentice is Tegan."


def _home(place: str) -> GroundedFact:
    """The session's own fact placing the user's home (the extractor's, from "I live in York now")."""
    return GroundedFact(
        FactKind.IDENTITY, f"The user lives in {place}.", "identity.home", place, (1,), 0.9, True
    )


def _retired_and_new(said: str, *known: str, home: str = "") -> tuple[set[int], list[str]]:
    session = [_home(home)] if home else []
    read = revisions([SourceTurn(0, 1, said, "Noted.")], session, list(known))
    return {i for r in read for i in r.retired}, [
        r.fact.text for r in read if r.fact is not None and r.is_new
    ]


@pytest.mark.parametrize(
    ("said", "known", "home", "new_text"),
    [
        (
            "Big news: Black Fern is moving to York.",
            (STUDIO, APPRENTICE),
            "York",
            STUDIO.replace("Leeds", "York"),
        ),
        (
            "Moved the yard to Dingwall, cheaper rent.",
            (OUTFIT,),
            "Dingwall",
            OUTFIT.replace("Inverness", "Dingwall"),
        ),
        ("My studio moved to York last month.", (STUDIO,), "York", STUDIO.replace("Leeds", "York")),
        ("J'ai déménagé à Lyon.", ("L'utilisateur habite à Brest.",), "Lyon", "L'utilisateur habite à Lyon."),
        ("Me mudé a Córdoba.", ("El usuario vive en Rosario.",), "Córdoba", "El usuario vive en Córdoba."),
        (
            "Ich bin nach Kiel umgezogen.",
            ("Der Nutzer wohnt in Kassel.",),
            "Kiel",
            "Der Nutzer wohnt in Kiel.",
        ),
        ("Mudei-me para Braga.", ("O utilizador vive em Lisboa.",), "Braga", "O utilizador vive em Braga."),
    ],
)
def test_the_users_move_places_the_older_fact_anew(
    said: str, known: tuple[str, ...], home: str, new_text: str
) -> None:
    assert moved_to(said, list(known), [], [said]) == []  # no home said in the session: no place is known
    retired, new = _retired_and_new(said, *known, home=home)
    assert retired == {0}
    assert new_text in new


@pytest.mark.parametrize(
    "said",
    [
        "Tegan moved to York.",  # a third person, though memory names her
        "She moved up to Glasgow.",
        "My brother moved to York.",
        "Mon frère a déménagé à Lyon.",
        "We're thinking of moving to York.",  # not decided
        "We'll move to York next year.",  # not yet
        "Vielleicht ziehen wir nach York.",
        "If I moved to York, would rent be cheaper?",  # hypothetical
        "Should we move to York?",  # a question
    ],
)
def test_a_move_that_is_not_the_users_or_not_made_retires_nothing(said: str) -> None:
    retired, _ = _retired_and_new(said, STUDIO, APPRENTICE, home="York")
    assert retired == set()
    assert moved_to(said, [STUDIO, APPRENTICE], ["York"], [said]) == []


@pytest.mark.parametrize(
    "said",
    [
        "Mererid doesn't teach pedal, so I've moved to Elinor in Machynlleth.",
        "We moved to Jane for bookings.",
    ],
)
def test_a_teacher_or_a_tool_moved_to_is_no_place(said: str) -> None:
    assert moved_to(said, ["The user lives in Aberystwyth."], ["Aberystwyth"], [said]) == []


def test_two_places_held_leave_the_choice_open() -> None:
    assert moved_to("We moved to York.", [STUDIO, "The user grew up in Whitby."], ["York"]) == []


def test_a_dated_plan_keeps_its_own_place() -> None:
    plan = "The user has a guest spot at a studio in Bristol, 14 to 16 March. (2026-03-14)"
    swaps = moved_to("Black Fern is moving to York.", [STUDIO, plan], ["York"])
    assert [s.index for s in swaps] == [0]


def test_the_old_place_said_to_stay_is_not_moved() -> None:
    said = "We moved to York. The workshop stays in Leeds."
    assert moved_to("We moved to York.", [STUDIO], ["York"], [said]) == []
    assert moved_to("We moved to York.", [STUDIO], ["York"], ["We moved to York."]) != []


def test_a_home_said_only_as_the_move_is_no_evidence() -> None:
    """A home read from "I've moved to Elinor in Machynlleth" is the move itself, not where the user lives."""
    said = "Mererid doesn't teach pedal, so I've moved to Elinor in Machynlleth."
    moved = GroundedFact(
        FactKind.IDENTITY, "The user moved to Elinor.", "identity.home", "Elinor", (0,), 0.9, True
    )
    read = revisions([SourceTurn(0, 1, said, "Noted.")], [moved], ["The user lives in Aberystwyth."])
    assert not [r for r in read if r.fact is not None and "lives in Elinor" in r.fact.text]
