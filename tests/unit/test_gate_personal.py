"""gate-v8's personal-request frame, place-dependent requests and the pinned section's per-agent cosine lead."""

from __future__ import annotations

import pytest

from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate import fold
from memoryd.retrieval.gate_evidence import decide_evidence
from memoryd.retrieval.gate_features import FEATURE_NAMES, GATE_V8_FEATURES, QueryEvidence, compute
from memoryd.retrieval.gate_model import CLASSES, GateModel
from memoryd.retrieval.gate_personal import ask_for_user, asks_near
from memoryd.retrieval.items import IdentitySnapshot, Section


@pytest.mark.parametrize(
    "query",
    [
        "snack ideas?",
        "suggest a dinner recipe",
        "what should I cook tonight",
        "a gift for the dog",
        "beer recs for the stag do? lol",
        "good first dog toy that biscuit wont swallow?",
        "un jouet solide pour Kouign ?",
        "qu'est-ce que je prends au resto ce soir ?",
        "un antojito para la feria que pueda comer",
        "¿qué llevo a la cena?",
        "Was koche ich heute Abend für die Familie?",
        "Geschenkidee für die Zwillinge zu Weihnachten",
        "o que eu tomo pra dor de cabeça?",
        "prenda para o Rodrigo no Natal, algo de desporto?",
        "Bruno hat Winterfell, scheren oder nicht?",
    ],
)
def test_requests_for_something_chosen_for_the_asker(query: str) -> None:
    assert ask_for_user(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "what is 17 times 23?",
        "translate 'good morning' into French",
        "How many people live in Lisbon?",
        "Wer hat den Faust geschrieben?",
        "¿Cuándo es la prueba física?",
        "when does the beta ship?",
        "Coucou, ça va ?",
        "Quem inventou a máquina de espresso?",
    ],
)
def test_questions_that_ask_for_no_choice(query: str) -> None:
    assert not ask_for_user(fold(query))


def test_place_dependent_requests_in_five_languages() -> None:
    for query in (
        "any good neighbourhoods for a weekend walk near me?",
        "Gibt es in meiner Nähe einen guten Hundepark?",
        "Há algum sítio bom para almoçar perto de casa?",
        "un bon resto dans le coin ?",
        "¿algún parque bonito cerca de casa?",
    ):
        assert asks_near(fold(query)), query
    assert not asks_near(fold("How far is Lisbon from Porto?"))


def _pinned(cosine: float, gap: float) -> QueryEvidence:
    pinned = SectionEvidence(
        rows=4, terms=("snack", "ideas"), cosine_top=cosine, cosine_mean3=cosine, cosine_gap=gap
    )
    episodes = SectionEvidence(
        rows=4, terms=("snack", "ideas"), cosine_top=0.2, cosine_mean3=0.2, cosine_gap=0.05
    )
    return QueryEvidence(
        {Section.PINNED: pinned, Section.EPISODES: episodes}, IdentitySnapshot(), frozenset()
    )


def test_the_products_are_zero_unless_the_request_is_personal() -> None:
    assert set(GATE_V8_FEATURES) <= set(FEATURE_NAMES)
    personal = compute("snack ideas?", _pinned(0.3, 0.2))
    assert personal["ask_for_user"] == 1.0 and personal["p_gap_lead"] == 1.0
    assert personal["for_user_x_p_has"] == 1.0 and personal["for_user_x_p_lead"] == 1.0
    assert personal["for_user_x_p_gap"] == pytest.approx(0.2)
    general = compute("what is a snack?", _pinned(0.3, 0.2))
    assert general["ask_for_user"] == 0.0 and general["p_gap_lead"] == 1.0
    assert general["for_user_x_p_has"] == general["for_user_x_p_gap"] == general["for_user_x_p_lead"] == 0.0
    # pinned does not stand out more than the episodes: no lead
    assert compute("snack ideas?", _pinned(0.3, 0.01))["p_gap_lead"] == 0.0


def _always_none() -> GateModel:
    names = ("q_terms",)
    bias = [5.0 if c is Section.NONE else 0.0 for c in CLASSES]
    return GateModel("test", names, (0.0,), (1.0,), tuple((0.0,) for _ in CLASSES), tuple(bias), 0.5, 0.1)


def test_a_place_dependent_request_tries_the_durable_facts_when_the_model_declines() -> None:
    model = _always_none()
    query = "any good neighbourhoods for a weekend walk near me?"
    episodes_only = {"e_has": 1.0, "p_has": 0.0, "id_has": 0.0}
    decision = decide_evidence(query, episodes_only, model, frozenset())
    assert decision.section is Section.EPISODES and decision.reason == "evidence:episodes"
    every = {"e_has": 1.0, "p_has": 1.0, "id_has": 1.0}
    assert decide_evidence(query, every, model, frozenset()).ranked == (
        Section.IDENTITY,
        Section.PINNED,
        Section.EPISODES,
    )
    # memory holds nothing durable: none, as before; a request that is not place-dependent: none
    assert decide_evidence(query, {"t_has": 1.0}, model, frozenset()).reason == "none:no_evidence"
    assert (
        decide_evidence("any good neighbourhoods in Lisbon?", every, model, frozenset()).section
        is Section.NONE
    )
