"""A from-to move of a thing the user uses (grounding/relocation.py): "we're moving the robot code from Java to
Kotlin" places anew the older instruction "use Java"; someone else's move, a hypothetical or a question places
nothing."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn
from memoryd.write.grounding.relocation import relocations
from memoryd.write.grounding.revisions import revisions

USE_JAVA = "Standing instruction from the user: use Java, that's what the robot runs."


def _read(said: str, *known: str) -> tuple[set[int], list[str]]:
    read = revisions([SourceTurn(0, 1, said, "Noted.")], [], list(known))
    return {i for r in read for i in r.retired}, [
        r.fact.text for r in read if r.fact is not None and r.is_new
    ]


@pytest.mark.parametrize(
    ("said", "known", "new_text"),
    [
        (
            "Next season we're moving the robot code from Java to Kotlin.",
            USE_JAVA,
            USE_JAVA.replace("Java", "Kotlin"),
        ),
        (
            "On migre : on déménage le site de Wix à Ghost.",
            "Consigne permanente de l'utilisateur : utilise Wix pour le site.",
            "Consigne permanente de l'utilisateur : utilise Ghost pour le site.",
        ),
    ],
)
def test_a_thing_used_moves_from_old_to_new(said: str, known: str, new_text: str) -> None:
    retired, new = _read(said, known)
    assert retired == {0}
    assert new_text in new


@pytest.mark.parametrize(
    "said",
    [
        "My brother is moving his code from Java to Kotlin.",  # someone else's
        "She's moving the app from Java to Kotlin.",
        "Mon frère déménage de Wix à Ghost.",
    ],
)
def test_someone_elses_move_places_nothing(said: str) -> None:
    assert (
        relocations(said, [USE_JAVA, "Consigne permanente de l'utilisateur : utilise Wix pour le site."])
        == []
    )


@pytest.mark.parametrize(
    "said",
    [
        "If we moved the code from Java to Kotlin, would it be faster?",  # hypothetical
        "Should we move the robot code from Java to Kotlin?",  # a question
    ],
)
def test_a_hypothetical_or_question_retires_nothing(said: str) -> None:
    assert _read(said, USE_JAVA)[0] == set()


def test_a_place_move_of_the_user_still_relocates() -> None:
    assert [s.text for s in relocations("Me voy de Rosario a Córdoba.", ["El usuario vive en Rosario."])] == [
        "El usuario vive en Córdoba."
    ]
