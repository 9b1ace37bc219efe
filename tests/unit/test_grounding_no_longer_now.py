"""The old value said as no longer holding and the new one as holding now swaps that one value in the older fact
about the same person or thing (grounding/substitution.py `_NO_LONGER`), in five languages; an older fact sharing no
word with the sentence, a sentence without the new value, a hypothetical or a question swaps nothing."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn
from memoryd.write.grounding.revisions import revisions
from memoryd.write.grounding.substitution import swaps


def _read(said: str, *known: str) -> tuple[set[int], list[str]]:
    read = revisions([SourceTurn(0, 1, said, "Noted.")], [], list(known))
    return {i for r in read for i in r.retired}, [
        r.fact.text for r in read if r.fact is not None and r.is_new
    ]


@pytest.mark.parametrize(
    ("said", "old", "new"),
    [
        (
            "Ah, y Ainhoa ya no viene los domingos, ahora viene los sábados por la mañana.",
            "Plan: Mi nieta Ainhoa me ayuda los domingos.",
            "Plan: Mi nieta Ainhoa me ayuda los sábados.",
        ),
        (
            "Tom no longer comes on Sundays, now he comes on Saturdays.",
            "Tom helps the user on Sundays.",
            None,
        ),
        (
            "Léa ne vient plus le dimanche, maintenant elle vient le samedi.",
            "Léa aide l'utilisateur le dimanche.",
            "Léa aide l'utilisateur le samedi.",
        ),
        (
            "Oma kommt nicht mehr sonntags, jetzt samstags.",
            "Der Nutzer besucht Oma sonntags.",
            "Der Nutzer besucht Oma samstags.",
        ),
        (
            "A Rita já não vem ao domingo, agora vem ao sábado.",
            "A Rita ajuda o utilizador ao domingo.",
            "A Rita ajuda o utilizador ao sábado.",
        ),
    ],
)
def test_no_longer_old_now_new_swaps_the_value(said: str, old: str, new: str | None) -> None:
    other = "The user waters the garden on Sundays."
    retired, stored = _read(said, other, old)
    assert retired == {1}
    assert (new or old.replace("Sundays", "Saturdays")) in stored


@pytest.mark.parametrize(
    "said",
    [
        "Mi vecino ya no viene los domingos, ahora los sábados.",  # shares no word with the older fact
        "Tom no longer comes on Sundays.",  # no new value said
    ],
)
def test_no_swap_without_both_values_of_the_same_thing(said: str) -> None:
    assert swaps(said, ["El usuario riega los domingos.", "The user waters the garden on Sundays."]) == []
    assert swaps(said, ["Tom helps the user on Sundays."]) == []


@pytest.mark.parametrize(
    "said",
    [
        "If Tom no longer came on Sundays, now Saturdays, what would we do?",  # hypothetical
        "Does Tom no longer come on Sundays, now on Saturdays?",  # a question
    ],
)
def test_a_hypothetical_or_a_question_swaps_nothing(said: str) -> None:
    retired, stored = _read(said, "Tom helps the user on Sundays.")
    assert retired == set()
    assert stored == []


def test_two_older_facts_holding_the_old_value_about_the_same_person_leave_the_choice_open() -> None:
    known = ["Tom helps the user on Sundays.", "Tom plays chess with the user on Sundays."]
    assert swaps("Tom no longer comes on Sundays, now he comes on Saturdays.", known) == []
