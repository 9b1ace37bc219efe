"""Heuristic relevance gate: triggers per section, word boundaries, hard negatives, other languages, modes."""

from __future__ import annotations

import pytest

from memoryd.retrieval.gate import (
    GateDecision,
    GateMode,
    RelevanceGate,
    decide_heuristic,
    entity_hit,
    fold,
    normalise_entity,
    prepare_entities,
    strip_quoted,
)
from memoryd.retrieval.items import Section

ENTITIES = prepare_entities(["Mochi", "Project Falcon", "Dr. Patel", "over", "Ben", "Nova", "K8s"])


def section_of(query: str) -> Section:
    return decide_heuristic(query, ENTITIES).section


@pytest.mark.parametrize(
    "query",
    [
        "what happened 65 million years ago",
        "What happened 65 million years ago?",
        "sort exactly as given",
        "Sort exactly as given: banana, apple, cherry",
        "translate 'before'",
        "Translate 'before' into French.",
        "Traduis « hier » en anglais.",
        "Übersetze bitte „gestern“ ins Englische.",
        "When did the Berlin Wall fall?",
        "Before I deploy to production, what should I check?",
        "Earlier versions of Python didn't have f-strings; when were they added?",
        "Last time I checked, Node 20 was LTS. Is that still true?",
        "In March, what's the weather usually like in Kyoto?",
        "Quote a famous line from Shakespeare.",
        "What does 'verbatim' mean?",
        "Write a Python function that returns the exact words in a string that appear twice.",
        "Fix my code: for i in range(10) print(i)",
        "What are my options for deploying a Flask app?",
        "How do I improve my resume?",
        "What is the best way to remember vocabulary words?",
        "How do I make Git forget a file I already committed?",
        "Who am I supposed to contact to renew a passport?",
        "What do you know about black holes?",
        "What is our galaxy called?",
        "Write a story where the hero says 'we discussed this before'.",
        "I talked to my landlord yesterday; how do I write a formal complaint?",
        "¿Qué pasó hace dos siglos en Francia?",
        "Wie genau funktioniert Photosynthese?",
        "Ordena exactamente como te los doy: 3, 1, 2",
        "Qual é a capital da Austrália?",
        "hi",
        "",
    ],
)
def test_hard_negatives_stay_none(query: str) -> None:
    assert section_of(query) is Section.NONE


@pytest.mark.parametrize(
    ("query", "section", "reason"),
    [
        ("What's my name?", Section.IDENTITY, "trigger:identity"),
        ("who am i", Section.IDENTITY, "trigger:identity"),
        ("What do you know about me?", Section.IDENTITY, "trigger:identity"),
        ("Where do I work?", Section.IDENTITY, "trigger:identity"),
        ("What did we discuss yesterday?", Section.EPISODES, "trigger:prior_context"),
        ("Remember when we planned the Lisbon trip?", Section.EPISODES, "trigger:prior_context"),
        ("Which book did I mention last week?", Section.EPISODES, "trigger:temporal"),
        ("Where did we leave off?", Section.EPISODES, "trigger:prior_context"),
        ("What were my exact words about the budget?", Section.TRANSCRIPT, "trigger:literal_recall"),
        ("Repeat verbatim what I said about the deadline.", Section.TRANSCRIPT, "trigger:literal_recall"),
        ("Quote back what I wrote about the refund.", Section.TRANSCRIPT, "trigger:literal_recall"),
        ("Do you remember my preference?", Section.PINNED, "trigger:about_my"),
        ("Do you remember my sister's name?", Section.PINNED, "trigger:about_my"),
        ("What's my favourite coffee order?", Section.PINNED, "trigger:about_my"),
        ("When is my dentist appointment?", Section.PINNED, "trigger:about_my"),
        ("How is Mochi doing these days?", Section.PINNED, "trigger:entity"),
        ("Any updates on project falcon?", Section.PINNED, "trigger:entity"),
    ],
)
def test_english_triggers(query: str, section: Section, reason: str) -> None:
    assert decide_heuristic(query, ENTITIES) == GateDecision(section, reason)


@pytest.mark.parametrize(
    ("query", "section"),
    [
        ("Comment je m'appelle ?", Section.IDENTITY),
        ("Que sais-tu de moi ?", Section.IDENTITY),
        ("De quoi on a parlé hier ?", Section.EPISODES),
        ("Tu te souviens de mon chat ?", Section.PINNED),
        ("Quels étaient mes mots exacts à propos du loyer ?", Section.TRANSCRIPT),
        ("¿Cómo me llamo?", Section.IDENTITY),
        ("¿De qué hablamos la semana pasada?", Section.EPISODES),
        ("¿Cuál es mi color favorito?", Section.PINNED),
        ("Repite textualmente lo que te dije.", Section.TRANSCRIPT),
        ("Wie heiße ich?", Section.IDENTITY),
        ("WIE HEISSE ICH?", Section.IDENTITY),
        ("Worüber haben wir gestern gesprochen?", Section.EPISODES),
        ("Erinnerst du dich an meinen Hund?", Section.PINNED),
        ("Wiederhole wortwörtlich, was ich gesagt habe.", Section.TRANSCRIPT),
        ("Qual é o meu nome?", Section.IDENTITY),
        ("Sobre o que conversamos ontem?", Section.EPISODES),
        ("Você lembra da minha viagem?", Section.PINNED),
        ("Quais foram minhas palavras exatas sobre o contrato?", Section.TRANSCRIPT),
    ],
)
def test_other_languages(query: str, section: Section) -> None:
    assert section_of(query) is section


def test_entities_are_word_bounded() -> None:
    # The reference app matched substrings: an entity "over" fired on "discover".
    assert section_of("Can you discover any pattern in 2, 4, 8, 16?") is Section.NONE
    assert section_of("Explain how a supernova forms.") is Section.NONE
    assert section_of("What are the benefits of benchmarking?") is Section.NONE
    assert section_of("Is Ben coming on Friday?") is Section.PINNED
    assert section_of("Is the K8s cluster still up?") is Section.PINNED
    assert section_of("Mochi's vet visit?") is Section.PINNED


def test_entities_match_inside_quotes_but_triggers_do_not() -> None:
    assert section_of("What's the status of 'Project Falcon'?") is Section.PINNED
    assert section_of("Define the phrase 'do you remember my'.") is Section.NONE


def test_entity_normalisation_filters_common_words_and_short_names() -> None:
    assert normalise_entity("  Dr.   Patel ") == "dr patel"
    assert normalise_entity("Café Über") == "cafe uber"
    assert normalise_entity("the") == ""
    assert normalise_entity("User") == ""
    assert normalise_entity("Al") == ""
    assert normalise_entity("A4") == "a4"
    assert normalise_entity("2024") == ""
    assert normalise_entity("in the") == ""
    assert entity_hit(fold("call Dr. Patel today"), prepare_entities(["dr patel"]))


def test_raw_entity_strings_are_prepared_on_the_fly() -> None:
    assert decide_heuristic("How is Mochi?", ["Mochi"]).section is Section.PINNED


def test_identity_wins_over_pinned_and_transcript_wins_over_all() -> None:
    assert section_of("What's my name, do you remember my name?") is Section.IDENTITY
    assert section_of("What were my exact words when we discussed Mochi?") is Section.TRANSCRIPT


def test_fold_and_quote_stripping() -> None:
    assert fold("  Où   ÉTAIS-je ? ") == "ou etais-je ?"
    assert fold("What’s") == "what's"
    assert strip_quoted(fold('say "we discussed" now')) == "say _q_ now"
    assert strip_quoted(fold("what's my 'name'")) == "what's my _q_"


def test_long_messages_are_scanned_head_and_tail() -> None:
    pasted = "lorem ipsum " * 5000
    assert section_of(pasted + " What did we discuss yesterday?") is Section.EPISODES
    assert section_of("What did we discuss yesterday? " + pasted) is Section.EPISODES
    assert section_of(pasted) is Section.NONE


def test_modes() -> None:
    gate = RelevanceGate()
    assert gate.decide("anything at all", ENTITIES, GateMode.OFF) == GateDecision(
        Section.EPISODES, "mode:off"
    )
    assert gate.decide("What's my name?", ENTITIES, GateMode.HEURISTIC).section is Section.IDENTITY
    no_model = gate.decide("What's my name?", ENTITIES, GateMode.LLM)
    assert no_model.section is Section.IDENTITY
    assert no_model.reason == "llm_fallback:no_classifier;trigger:identity"
    assert decide_heuristic("ok", ENTITIES) == GateDecision(Section.NONE, "none:too_short")
