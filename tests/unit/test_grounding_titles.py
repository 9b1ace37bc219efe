"""A bare job title the user says they hold now (grounding/titles.py) is their role, in five languages, in words
verification finds in the turn; no title word, someone else, a hypothetical, a hedge, a question or a title said
without a change is not read here, and a turn whose role was already read gets no second one."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.titles import title_changes
from memoryd.write.grounding.verify import verify

#: 2026-10-01, noon UTC.
SESSION_MS = 1_790_856_000_000


@pytest.mark.parametrize(
    ("said", "value"),
    [
        (
            "Also I'm not CEO any more, we hired an experienced CEO, Douglas Fairweather, and I'm Chief Product "
            "Officer now.",
            "Chief Product Officer",
        ),
        ("I'm now head of product and I love it.", "head of product"),
        ("I'm now the team lead for payments.", "team lead"),
        ("Je suis maintenant directrice technique.", "directrice technique"),
        ("Ahora soy jefa de cocina.", "jefa de cocina"),
        ("Ich bin jetzt Teamleiterin.", "Teamleiterin"),
        ("Agora sou diretora comercial.", "diretora comercial"),
    ],
)
def test_a_title_held_now_is_the_role(said: str, value: str) -> None:
    found = title_changes([SourceTurn(0, 1, said, "Okay.")], [])
    assert [f.value for f, _ in found] == [value]
    assert all(verify(f.text, [said]).ok for f, _ in found)
    facts = extract([SourceTurn(0, 1, said, "Okay.")], session_time_ms=SESSION_MS).facts
    # One role per turn: this rule's, or the role rules' where they read the turn first ("directrice").
    roles = [f.value for f in facts if f.slot == "identity.role"]
    assert len(roles) == 1 and roles[0] in value


@pytest.mark.parametrize(
    "said",
    [
        "I'm now in Leeds.",  # no title word
        "My wife is now head of sales.",  # someone else
        "If I were head of product, I'd hire more.",  # hypothetical
        "I might be head of product soon.",  # a hedge
        "Am I now head of product?",  # a question
        "I'm head of product.",  # no change said: the role rules read standing roles
    ],
)
def test_no_title_from_other_shapes(said: str) -> None:
    assert title_changes([SourceTurn(0, 1, said, "Okay.")], []) == []


def test_a_turn_whose_role_was_read_gets_no_second_one() -> None:
    assert title_changes([SourceTurn(0, 1, "I'm now head of product.", "Okay.")], [0]) == []
