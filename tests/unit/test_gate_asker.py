"""gate-v11's asker frames (gate_asker.py): a question about the asker and a document about the asker.

Each rule is tested both ways, in the five languages, on requests written for these tests.
"""

from __future__ import annotations

import pytest

from memoryd.retrieval.gate import fold
from memoryd.retrieval.gate_asker import ask_about_me, ask_form, asker_features, first_person_verb
from memoryd.retrieval.gate_features import FEATURE_NAMES, GATE_V11_FEATURES, QueryEvidence, compute
from memoryd.retrieval.items import IdentityFact, IdentitySnapshot


@pytest.mark.parametrize(
    "query",
    [
        "where was I born?",
        "which city am I based in these days",
        "je bosse dans quelle boîte ?",
        "d'où je viens, au fait ?",
        "¿en qué ciudad vivo ahora?",
        "¿de dónde soy, según lo que te conté?",
        "bei welcher Firma bin ich angestellt?",
        "Wo wohne ich gerade?",
        "em que bairro eu moro?",
        "o que faço da vida, segundo você?",
    ],
)
def test_a_question_about_the_asker_is_about_me(query: str) -> None:
    assert ask_about_me(fold(query)), query


@pytest.mark.parametrize(
    "query",
    [
        "where was Napoleon born?",
        "I need a recipe with lentils.",
        "quelle est la capitale du Chili ?",
        "je voudrais une recette de crêpes.",
        "¿dónde vive el oso polar?",
        "Wo liegt Hannover?",
        "onde fica a Torre de Belém?",
        "o que faz um eletricista?",
    ],
)
def test_a_question_about_someone_else_or_a_statement_is_not(query: str) -> None:
    assert not ask_about_me(fold(query)), query


@pytest.mark.parametrize(
    "query",
    [
        "¿dónde trabajo?",
        "¿qué idioma hablo en casa?",
        "de onde sou?",
        "com que idade estou, afinal?",
    ],
)
def test_spanish_and_portuguese_carry_the_person_in_the_verb(query: str) -> None:
    assert first_person_verb(fold(query)), query


@pytest.mark.parametrize(
    "query",
    ["¿dónde hay trabajo de verano?", "el trabajo dignifica", "o trabalho de casa é longo", "vivo o muerto"],
)
def test_a_noun_or_an_adjective_is_no_first_person_verb(query: str) -> None:
    assert not first_person_verb(fold(query)), query


@pytest.mark.parametrize(
    "query",
    [
        "what do I put as occupation on the visa form",
        "help me fill in the registration for the climbing club",
        "update my CV headline",
        "qu'est-ce que je mets comme nationalité sur le dossier ?",
        "c'est pour le bail, il me faut mon adresse",
        "¿qué pongo en estado civil?",
        "para el formulario de la biblioteca: mi dirección",
        "Was trage ich beim Antrag als Wohnort ein?",
        "für meinen Lebenslauf: wie lange war ich in Graz?",
        "o que ponho na ficha de inscrição como profissão?",
    ],
)
def test_a_document_about_the_asker_is_a_form(query: str) -> None:
    assert ask_form(fold(query)), query


@pytest.mark.parametrize(
    "query",
    [
        "what is the capital of Peru",
        "translate 'good morning' into German",
        "how do forms of government differ",
        "c'est quoi un fjord ?",
        "¿cuánto es 17 por 23?",
        "Wie spät ist es in Tokio?",
        "qual é a raiz quadrada de 144?",
    ],
)
def test_ordinary_requests_are_no_form(query: str) -> None:
    assert not ask_form(fold(query)), query


def test_the_products_read_the_identity() -> None:
    with_identity = {"id_has": 1.0, "id_cos": 0.4}
    g = asker_features(fold("where did I grow up?"), with_identity)
    assert g["about_me_x_id_has"] == 1.0 and g["about_me_x_id_cos"] == pytest.approx(0.4)
    assert asker_features(fold("where did I grow up?"), {})["about_me_x_id_has"] == 0.0
    assert asker_features(fold("fill in the form for me"), with_identity)["form_x_id_has"] == 1.0
    assert asker_features(fold("where was Napoleon born?"), with_identity)["about_me_x_id_has"] == 0.0


def test_the_features_are_served() -> None:
    assert set(GATE_V11_FEATURES) <= set(FEATURE_NAMES)
    identity = IdentitySnapshot(facts=(IdentityFact(id="1", text="Works as a nurse in Porto"),))
    f = compute("o que ponho em profissão no formulário?", QueryEvidence({}, identity, frozenset(), None))
    assert f["ask_form"] == 1.0 and f["form_x_id_has"] == 1.0
    g = compute("how deep is Loch Ness", QueryEvidence({}, IdentitySnapshot(), frozenset(), None))
    assert g["ask_about_me"] == 0.0 and g["ask_form"] == 0.0
