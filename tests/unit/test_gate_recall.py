"""gate-v10's presupposition frames (gate_recall.py) and the whole-message salutations (gate_signals.GREETING).

Each frame is tested both ways, in the five languages, on requests written for these tests.
"""

from __future__ import annotations

import pytest

from memoryd.retrieval.gate import fold
from memoryd.retrieval.gate_features import FEATURE_NAMES, GATE_V10_FEATURES, QueryEvidence, compute
from memoryd.retrieval.gate_recall import (
    ask_choice,
    ask_confirm,
    ask_current,
    ask_not_mine,
    ask_recall,
    memory_of_thing,
    recall_features,
)
from memoryd.retrieval.items import IdentitySnapshot


@pytest.mark.parametrize(
    "query",
    [
        "what was my landlord's name again?",
        "remind me which gym I signed up for",
        "le code du portail, c'est quoi déjà ?",
        "c'était quand le rendez-vous chez l'ostéo ?",
        "¿cómo se llamaba el perro de mi vecina?",
        "¿cuál era la contraseña del wifi de la oficina?",
        "Wie heißt der Tierarzt noch?",
        "wo war das Restaurant noch mal",
        "a consulta é a que horas mesmo?",
        "qual era o nome da escola do Pedro?",
    ],
)
def test_reminders_are_recall(query: str) -> None:
    assert ask_recall(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "what is the capital of Chile",
        "try again with a shorter sentence",
        "c'est quoi un fjord ?",
        "¿qué es un ornitorrinco?",
        "Wie heißt die Hauptstadt von Kanada?",
        "o que é uma ogiva?",
        "was it hard to build the pyramids",
    ],
)
def test_ordinary_questions_are_not_recall(query: str) -> None:
    assert not ask_recall(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "who's my line manager now?",
        "is the dentist still on Tuesdays?",
        "c'est qui mon interlocuteur maintenant ?",
        "¿dónde trabaja ahora mi hermana?",
        "Welche Schicht habe ich jetzt?",
        "qual é o meu horário agora?",
    ],
)
def test_questions_about_the_value_now_are_current(query: str) -> None:
    assert ask_current(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "write the summary now",  # an imperative, not a question about a value
        "book the table for Friday",
        "envoie-le maintenant",
        "¿cuál es la capital de Perú?",
        "Wie spät ist es in Tokio?",
        "mande o e-mail agora",
    ],
)
def test_imperatives_and_timeless_questions_are_not_current(query: str) -> None:
    assert not ask_current(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "how do owls turn their heads so far? just curious",
        "best way to learn a poem by heart? not for me, it's for a school project",
        "pourquoi le ciel est bleu, par curiosité",
        "¿cuántas lenguas se hablan en el mundo? por curiosidad",
        "Wie alt werden Schildkröten? Nur aus Neugier",
        "qual é o maior rio do mundo? curiosidade",
    ],
)
def test_requests_that_say_they_are_not_about_the_asker(query: str) -> None:
    assert ask_not_mine(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "suggest a lunch for me",
        "I'm curious what you remember about my trip",  # curious, but about the asker's memory
        "des idées de dîner pour moi ?",
        "¿qué ceno hoy?",
        "Was soll ich heute anziehen?",
        "o que eu levo pra praia?",
    ],
)
def test_requests_for_the_asker_are_not_not_mine(query: str) -> None:
    assert not ask_not_mine(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "which jacket would work best for the hike on Sunday",
        "pick a board game for Friday night",
        "heading to the market, anything I should avoid?",
        "quel sac pour le week-end à la montagne ?",
        "je pars en randonnée samedi, des conseils ?",
        "¿qué vino le llevo a mi suegra?",
        "welche Schuhe für den Umzug morgen?",
        "besser Fahrrad oder Bus morgen früh?",
        "que bolo levo pro aniversário da Ana?",
    ],
)
def test_choices_for_the_asker_are_choice(query: str) -> None:
    assert ask_choice(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "which planet is the largest",
        "what is the boiling point of water",
        "quel est le plus long fleuve de France ?",
        "¿qué país tiene más habitantes?",
        "Welcher Berg ist der höchste der Alpen?",
        "qual é a moeda do Japão?",
    ],
)
def test_questions_about_the_world_are_not_choice(query: str) -> None:
    assert not ask_choice(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "the plumber comes Thursday, right?",
        "my passport expires in May, is that correct",
        "la réunion est lundi, n'est-ce pas ?",
        "el vuelo sale a las 9, ¿verdad?",
        "Der Termin ist am Freitag, oder?",
        "a reunião é na sexta, né?",
    ],
)
def test_tag_questions_confirm(query: str) -> None:
    assert ask_confirm(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "is the right lane faster in the morning",
        "turn right or left at the roundabout in Paris?",
        "¿cuál es el número correcto de jugadores en un equipo de rugby?",
        "Wer hat das Telefon erfunden?",
        "o que é a teoria da relatividade?",
    ],
)
def test_ordinary_questions_do_not_confirm(query: str) -> None:
    assert not ask_confirm(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "my tablet keeps forgetting the bluetooth speaker",
        "how much memory should a gaming laptop have",
        "mon ordinateur n'a plus de mémoire, je supprime quoi ?",
        "¿cómo hago que el navegador recuerde mi usuario?",
        "Der Speicher von meinem Handy ist voll",
        "o cartão de memória da câmera está cheio",
        "techniques to memorize a list of capitals",
    ],
)
def test_memory_of_a_device_or_technique(query: str) -> None:
    assert memory_of_thing(fold(query))


@pytest.mark.parametrize(
    "query",
    [
        "do you remember what I said about the boiler?",
        "what did I tell you about my phone contract?",  # the asker's memory, a device named after it
        "tu te souviens du nom du resto ?",
        "¿recuerdas qué vacuna le tocaba al gato?",
        "Weißt du noch, was ich über den Umzug gesagt habe?",
        "lembras-te do que eu disse sobre a viagem?",
    ],
)
def test_the_assistants_memory_is_not_a_things(query: str) -> None:
    assert not memory_of_thing(fold(query))


def test_route_requests_are_choices() -> None:
    for query in (
        "fastest way to get to the stadium on Saturday?",
        "le plus simple pour aller à la gare demain ?",
        "¿la mejor forma de llegar al aeropuerto a las 6?",
        "wie komme ich am schnellsten zum Hauptbahnhof?",
        "o melhor caminho pra rodoviária amanhã cedo?",
    ):
        assert ask_choice(fold(query)), query
    assert not ask_choice(fold("how far is the moon from the earth"))


def test_products_read_the_evidence() -> None:
    known = {"p_known": 0.6, "e_known": 0.2, "t_known": 0.4, "p_has": 1.0, "ask_for_user": 1.0}
    f = recall_features(fold("who's my line manager now?"), known)
    assert f["recall_x_known"] == pytest.approx(0.6)
    assert f["current_x_p_known"] == pytest.approx(0.6)
    assert recall_features(fold("any tips for juggling? just curious"), known)["not_mine_x_for_user"] == 1.0
    assert recall_features(fold("pick a wine for the stew"), known)["choice_x_p_has"] == 1.0
    assert recall_features(fold("pick a wine for the stew"), {})["choice_x_p_has"] == 0.0
    assert recall_features(fold("the dentist is at 3, right?"), known)["recall_x_known"] == pytest.approx(0.6)


def test_the_features_are_served() -> None:
    assert set(GATE_V10_FEATURES) <= set(FEATURE_NAMES)
    f = compute("what are the dogs called again?", QueryEvidence({}, IdentitySnapshot(), frozenset(), None))
    assert f["ask_recall"] == 1.0


@pytest.mark.parametrize("query", ["evening", "G'day", "Morning!", "hiya", "buenas noches", "Abend zusammen"])
def test_a_salutation_alone_is_a_greeting(query: str) -> None:
    f = compute(query, QueryEvidence({}, IdentitySnapshot(), frozenset(), None))
    assert f["sc_greeting"] == 1.0


@pytest.mark.parametrize(
    "query", ["morning routine for my knee?", "evening plans with Sam?", "afternoon shift swap — who covers?"]
)
def test_a_salutation_word_in_a_request_is_not(query: str) -> None:
    f = compute(query, QueryEvidence({}, IdentitySnapshot(), frozenset(), None))
    assert f["sc_greeting"] == 0.0
