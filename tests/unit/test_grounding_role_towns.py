"""grounding/role_towns.py: the town a job is held in, said right after the role, is where the user works, said with
the role ("The user works as a farrier in Hexham."), in five languages; a workplace named with "at", a retired
role, a town of another clause and a capitalised word that is no town are not; a move retires it
(write/supersede.py `_town_of_old_job`)."""

from __future__ import annotations

import pytest

from memoryd.write.grounding.extract import extract
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.role_towns import role_towns
from tests.support.grounded_agent import Agent

_NOON = 1_770_120_000_000


def _role(value: str, lang: str) -> GroundedFact:
    return GroundedFact(FactKind.IDENTITY, "x", "identity.role", value, (0,), 0.9, True, "extractor", lang)


@pytest.mark.parametrize(
    ("value", "clause", "lang", "expected"),
    [
        (
            "a farrier",
            "I'm a farrier, working out of Hexham, mostly hunters",
            "en",
            "The user works as a farrier in Hexham.",
        ),
        (
            "fromager",
            "je suis fromager affineur à La Clusaz",
            "fr",
            "L'utilisateur travaille comme fromager affineur à La Clusaz.",
        ),
        (
            "ceramista",
            "soy ceramista en Talavera de la Reina",
            "es",
            "El usuario trabaja como ceramista en Talavera de la Reina.",
        ),
        (
            "Goldschmiedin",
            "ich bin Goldschmiedin mit eigener Werkstatt in Pforzheim",
            "de",
            "Der Nutzer arbeitet als Goldschmiedin mit eigener Werkstatt in Pforzheim.",
        ),
        (
            "conservadora de azulejos",
            "sou conservadora de azulejos em Lisboa",
            "pt",
            "O usuário trabalha como conservadora de azulejos em Lisboa.",
        ),
    ],
)
def test_the_town_said_after_a_role_is_where_the_user_works(
    value: str, clause: str, lang: str, expected: str
) -> None:
    found = role_towns([(_role(value, lang), clause)], [])
    assert [(f.text, f.slot, f.value.split()[-1]) for f, _ in found] == [
        (expected, "identity.workplace", expected.rstrip(".").split()[-1])
    ]


@pytest.mark.parametrize(
    ("value", "clause", "lang"),
    [
        ("a nurse", "I'm a nurse at St Mary's in Leeds", "en"),  # the workplace is named with "at"
        ("a nurse", "I'm a nurse and my sister lives in Leeds", "en"),  # another clause
        ("a teacher", "I'm a teacher in Year 6", "en"),  # no town
        ("a retired nurse", "I'm a retired nurse in Norwich", "en"),  # the home, not a workplace
        ("infirmière", "je suis infirmière chez Dr Martin à Lyon", "fr"),
        ("enfermera", "soy enfermera y mi hermana vive en Sevilla", "es"),
        ("Lehrerin", "ich bin Lehrerin und wohne in Kiel", "de"),
        ("enfermeira", "sou enfermeira aposentada em Braga", "pt"),
    ],
)
def test_what_is_no_town_of_the_job_is_not_read(value: str, clause: str, lang: str) -> None:
    assert role_towns([(_role(value, lang), clause)], []) == []


def test_a_town_already_placed_is_not_stated_again() -> None:
    held = GroundedFact(
        FactKind.IDENTITY, "The user works in Hexham.", "identity.workplace", "in Hexham", (0,), 0.9, True
    )
    assert role_towns([(_role("a farrier", "en"), "I'm a farrier, working out of Hexham")], [held]) == []


def test_the_extractor_stores_the_role_with_its_town() -> None:
    turns = [SourceTurn(0, 0, "Hola. Soy ceramista en Talavera de la Reina, hago azulejería.", "¡Hola!")]
    texts = [f.text for f in extract(turns, session_time_ms=_NOON).facts]
    assert "El usuario trabaja como ceramista en Talavera de la Reina." in texts


def test_a_move_retires_the_town_said_with_the_role() -> None:
    agent = Agent(with_turns=True)
    agent.session("Je suis Gaëtan, fromager affineur à La Clusaz.")
    assert [t for t in agent.active("Clusaz") if "travaille" in t]
    agent.session("J'habite à Annecy maintenant.")
    assert not [t for t in agent.active("Clusaz") if "travaille" in t], agent.rows


def test_a_role_already_said_with_its_town_is_not_said_again() -> None:
    held = GroundedFact(
        FactKind.IDENTITY,
        "The user is an independent town councillor in Frome.",
        "",
        "an independent town councillor in Frome",
        (0,),
        0.9,
        True,
    )
    clause = "I'm a retired librarian and an independent town councillor in Frome."
    assert role_towns([(_role("an independent town councillor", "en"), clause)], [held]) == []
