"""Working for oneself as the value of the employer slot (grounding/selfemployed.py), in five languages, in the
user's words said of the user (so verification finds them in the turn); someone else, a hypothetical, a hedge, a
wish or a question is not read."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.selfemployed import self_employment
from memoryd.write.grounding.verify import verify

#: 2026-04-10, noon UTC.
SESSION_MS = 1_775_822_400_000


def _employer(said: str) -> list[str]:
    facts = extract([SourceTurn(0, 1, said, "Okay.")], session_time_ms=SESSION_MS).facts
    return [f.text for f in facts if f.slot == "identity.employer"]


@pytest.mark.parametrize(
    ("said", "text"),
    [
        (
            "Autre chose : j'ai quitté Kerhervé. Je me suis mis à mon compte, auto-entrepreneur.",
            "L'utilisateur s'est mis à son compte.",
        ),
        ("I've gone freelance since March.", "The user has gone freelance."),
        ("Me he hecho autónoma este año.", "El usuario se ha hecho autónoma."),
        ("Ich habe mich selbstständig gemacht.", "Der Nutzer hat sich selbstständig gemacht."),
        ("Agora estou por conta própria.", "O usuário está por conta própria."),
    ],
)
def test_working_for_oneself_is_the_employer_slot(said: str, text: str) -> None:
    assert _employer(said) == [text]
    assert verify(text, [said]).ok


@pytest.mark.parametrize(
    "said",
    [
        "My sister went freelance.",  # someone else
        "If I went freelance, would I earn more?",  # hypothetical
        "I'm thinking of going freelance.",  # a hedge
        "Je voudrais me mettre à mon compte.",  # a wish
        "Quiero trabajar por mi cuenta.",
        "Should I work for myself?",  # a question
        "Mein Bruder ist selbstständig.",
    ],
)
def test_no_self_employment_from_other_shapes(said: str) -> None:
    assert self_employment([SourceTurn(0, 1, said, "Okay.")]) == []
