"""gate-v4's request feature: how many numbers a request gives (its inputs), in any language."""

from __future__ import annotations

from memoryd.retrieval.gate_features import FEATURE_NAMES, REQUEST_FEATURES, QueryEvidence, compute
from memoryd.retrieval.gate_model import load
from memoryd.retrieval.items import IdentitySnapshot

EMPTY = QueryEvidence({}, IdentitySnapshot(), frozenset())


def numbers(query: str) -> float:
    return compute(query, EMPTY)["q_numbers"]


def test_the_numbers_a_request_gives_are_counted_and_capped() -> None:
    assert set(REQUEST_FEATURES) <= set(FEATURE_NAMES)
    assert numbers("600 bouteilles à 14 francs, ça fait combien") == 2 / 3
    assert numbers("si cobro 9500 la sesión y atiendo 23 chicos por semana (4 semanas)") == 1.0
    assert numbers("Si un plat coûte 6,40 $ et se vend 24 $, quel est le food cost ?") == 2 / 3
    assert numbers("1 2 3 4 5 6") == 1.0


def test_a_version_an_address_or_a_date_is_one_number_or_none() -> None:
    assert numbers("update k8s v1.2 on 10.0.0.1") == 1 / 3
    assert numbers("Zugverbindung nach Görlitz am 29.?") == 1 / 3
    assert numbers("suggest a dinner recipe") == 0.0


def test_gate_v4_reads_it() -> None:
    from memoryd.retrieval.gate_model import DEFAULT_MODEL_PATH

    # kept beside the shipped gate-v3 (docs/gate.md)
    model = load(DEFAULT_MODEL_PATH.parent / "gate_model_v4.json")
    assert model is not None and "q_numbers" in model.features
