"""gate-v12's duty features (gate_duty.py): a commitment presupposed, a personal request naming its own object.

Each rule is tested both ways, in the five languages, on requests written for these tests.
"""

from __future__ import annotations

import pytest

from memoryd.retrieval.gate import fold
from memoryd.retrieval.gate_duty import ask_due, duty_features
from memoryd.retrieval.gate_features import FEATURE_NAMES, GATE_V12_FEATURES, QueryEvidence, compute
from memoryd.retrieval.items import IdentitySnapshot


@pytest.mark.parametrize(
    "query",
    [
        "when is the rent payment due?",
        "by when do the invoices go out",
        "when do the tiles need to be picked up by?",
        "what do I have to hand in on friday",
        "la facture, c'est pour quand ?",
        "quand faut-il rappeler le garage ?",
        "¿hasta cuándo puedo devolver la chaqueta?",
        "¿cuándo tengo que llevar el coche al taller?",
        "Bis wann muss die Miete überwiesen sein?",
        "Was muss ich morgen beim Amt abgeben?",
        "até quando dá para pagar a inscrição?",
        "quando tenho de levar o cão ao veterinário?",
    ],
)
def test_a_deadline_or_a_duty_is_due(query: str) -> None:
    assert ask_due(fold(query)), query


@pytest.mark.parametrize(
    "query",
    [
        "when did the Berlin wall fall?",
        "flights were delayed due to fog, what does 'fog' mean in Spanish?",
        "what is the boiling point of water",
        "quand a été construite la tour Eiffel ?",
        "qu'est-ce qu'un volcan ?",
        "¿cuándo se independizó México?",
        "¿qué significa 'plazuela'?",
        "Wann wurde die Zugspitze zum ersten Mal bestiegen?",
        "Wie funktioniert ein Kühlschrank?",
        "quando foi fundada a cidade do Porto?",
        "o que é uma ria?",
    ],
)
def test_a_question_about_the_world_is_not_due(query: str) -> None:
    assert not ask_due(fold(query)), query


def test_due_counts_with_what_memory_holds() -> None:
    f = duty_features(fold("when's the deposit due?"), {"p_known": 0.2, "e_known": 0.7, "t_known": 0.0})
    assert f["ask_due"] == 1.0 and f["due_x_known"] == pytest.approx(0.7)
    f = duty_features(fold("when did Rome fall?"), {"p_known": 0.2, "e_known": 0.7})
    assert f["ask_due"] == 0.0 and f["due_x_known"] == 0.0


def test_a_personal_request_naming_an_unknown_thing() -> None:
    # "a recipe for <a dish memory does not hold>" brings its own object; "a dinner recipe" leaves it to the asker.
    named = duty_features("", {"ask_for_user": 1.0, "rare_unknown": 2 / 3})
    assert named["for_user_x_unknown"] == pytest.approx(2 / 3)
    assert duty_features("", {"ask_for_user": 1.0, "rare_unknown": 0.0})["for_user_x_unknown"] == 0.0
    assert duty_features("", {"ask_for_user": 0.0, "rare_unknown": 1.0})["for_user_x_unknown"] == 0.0


def test_the_read_path_computes_them() -> None:
    assert set(GATE_V12_FEATURES) <= set(FEATURE_NAMES)
    f = compute(
        "bis wann muss die Laterne abgeholt werden?", QueryEvidence({}, IdentitySnapshot(), frozenset())
    )
    assert f["ask_due"] == 1.0 and f["due_x_known"] == 0.0
