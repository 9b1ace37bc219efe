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


def test_literal_recall_with_the_words_in_a_turn_is_answered_from_the_transcript_first() -> None:
    from memoryd.retrieval.gate_evidence import decide_evidence
    from memoryd.retrieval.gate_model import CLASSES, GateModel
    from memoryd.retrieval.items import Section

    # A model that prefers pinned facts for everything.
    model = GateModel(
        version="test-1", features=("t_cov",), mean=(0.0,), scale=(1.0,),
        weights=tuple((0.0,) for _ in CLASSES),
        bias=tuple(3.0 if c is Section.PINNED else 0.0 for c in CLASSES),
    )  # fmt: skip
    query = "what exactly did I say about the Falcon launch?"
    literal = {"trig_literal_recall": 1.0, "t_cov": 0.5}
    decision = decide_evidence(query, literal, model, frozenset())
    assert decision.ranked[0] is Section.TRANSCRIPT and Section.PINNED in decision.ranked
    # Without the words in a turn, or without the request for the literal words, the model decides.
    assert decide_evidence(query, {**literal, "t_cov": 0.0}, model, frozenset()).ranked[0] is Section.PINNED
    assert decide_evidence(query, {"t_cov": 0.5}, model, frozenset()).ranked[0] is Section.PINNED


def test_a_request_about_the_user_is_never_none_when_there_is_an_identity() -> None:
    from memoryd.retrieval.gate_evidence import decide_evidence
    from memoryd.retrieval.gate_model import CLASSES, GateModel
    from memoryd.retrieval.items import Section

    # A model that answers none to everything.
    model = GateModel(
        version="test-1", features=("id_has",), mean=(0.0,), scale=(1.0,),
        weights=tuple((0.0,) for _ in CLASSES),
        bias=tuple(5.0 if c is Section.NONE else 0.0 for c in CLASSES),
    )  # fmt: skip
    query = "What do you know about me?"
    asked = {"trig_identity": 1.0, "id_has": 1.0}
    assert decide_evidence(query, asked, model, frozenset()).ranked == (Section.IDENTITY,)
    assert decide_evidence(query, {**asked, "id_has": 0.0}, model, frozenset()).section is Section.NONE
    assert decide_evidence(query, {"id_has": 1.0}, model, frozenset()).section is Section.NONE
