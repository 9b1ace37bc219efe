"""What the user left, then returned to without a verb (grounding/negated.py `returned_to`, revisions.py): "I've
dropped Fresha, too pricey. Back to a paper diary plus Google Calendar" retires every older fact of the user's
naming Fresha and stores what it returned to; a "back to" with nothing left before it, someone else's leaving, or a
hypothetical stores nothing."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn
from memoryd.write.grounding.negated import negated_states, returned_to
from memoryd.write.grounding.revisions import revisions

FRESHA = (
    "The user is moving bookings off Square Appointments onto Fresha from next week (week of 2026-03-23).",
    "The user chose Fresha.",
    "The user's apprentice is Isobel.",
)


def _read(said: str, *known: str) -> tuple[set[int], list[str]]:
    read = revisions([SourceTurn(0, 1, said, "Noted.")], [], list(known))
    return {i for r in read for i in r.retired}, [
        r.fact.text for r in read if r.fact is not None and r.is_new
    ]


def test_left_then_back_to_stores_what_replaces_it() -> None:
    retired, new = _read(
        "And I've dropped Fresha, too pricey. Back to a paper diary plus Google Calendar.", *FRESHA
    )
    assert retired == {0, 1}
    assert new == ["The user is back to a paper diary plus Google Calendar."]


@pytest.mark.parametrize(
    ("said", "back"),
    [
        ("Back to a paper diary plus Google Calendar.", "a paper diary plus Google Calendar"),
        ("Retour au carnet papier.", "carnet papier"),
        ("De vuelta al Excel de siempre.", "Excel de siempre"),
        ("Zurück zum Papierkalender.", "Papierkalender"),
        ("De volta ao caderno.", "caderno"),
    ],
)
def test_back_to_reads_what_was_returned_to(said: str, back: str) -> None:
    assert returned_to(said) == back


@pytest.mark.parametrize(
    ("said", "stems_left"),
    [
        ("J'ai laissé tomber Fresha.", True),
        ("Cancelé Fresha.", True),
        ("Larguei a Fresha.", True),
        ("Tegan dropped Fresha.", False),  # someone else
    ],
)
def test_dropping_a_tool_is_a_leaving_of_the_users(said: str, stems_left: bool) -> None:
    assert bool(negated_states(said, ["The user chose Fresha."], returned=True)) is stems_left
    assert (
        negated_states(said, ["The user chose Fresha."]) == []
    )  # with no "back to" after it, read elsewhere


@pytest.mark.parametrize(
    "said",
    [
        "Back to work tomorrow, sadly.",  # nothing left before it
        "Tegan dropped Fresha. Back to a paper diary.",  # someone else's leaving
        "If I dropped Fresha, would it be back to a paper diary?",  # hypothetical
    ],
)
def test_back_to_without_the_users_leaving_stores_nothing(said: str) -> None:
    _, new = _read(said, *FRESHA)
    assert not [t for t in new if "back to" in t]
