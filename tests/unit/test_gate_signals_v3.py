"""gate-v3's query signals: general-knowledge question forms (complete in themselves) and personal topics."""

from __future__ import annotations

import pytest

from memoryd.retrieval.gate_features import QueryEvidence, compute
from memoryd.retrieval.items import IdentitySnapshot

NO_MEMORY = QueryEvidence({}, IdentitySnapshot(), frozenset())


@pytest.mark.parametrize(
    "query",
    [
        "How long is the Prince of Wales Bridge?",
        "What does 'Fear Free certified' mean for a vet clinic?",
        "Quelle est l'altitude de Font-Romeu ?",
        "Quelle est la distance entre Lille et Rennes ?",
        "¿Cuál es la diferencia entre un IPA y una lager?",
        "Wie viele Kilometer hat ein Marathon?",
        "Wie hoch liegt Schladming?",
        "De onde vem o café originalmente?",
        "Quando começou a Era Vargas?",
    ],
)
def test_general_knowledge_forms(query: str) -> None:
    assert compute(query, NO_MEMORY)["sc_general"] == 1.0


@pytest.mark.parametrize(
    "query",
    [
        "how long is my flight?",
        "when did we start the project?",
        "how many km do I still have to run?",
        "wie viele Kilometer hatte der Octavia?",
    ],
)
def test_the_users_own_things_are_no_general_question(query: str) -> None:
    assert compute(query, NO_MEMORY)["sc_general"] == 0.0


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("suggest a dinner recipe", 1.0),
        ("Hast du ein Rezept für ein schnelles Mittagessen?", 1.0),
        ("¿Qué antibiótico debería evitar?", 1.0),
        ("um café da manhã rápido pra antes do consultório?", 1.0),
        ("What is the capital of Portugal?", 0.0),
        ("when does the beta ship?", 0.0),
    ],
)
def test_personal_topics(query: str, expected: float) -> None:
    assert compute(query, NO_MEMORY)["personal_topic"] == expected
