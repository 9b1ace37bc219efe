"""grounding/answer_form.py: standing requests on the form of answers said as a polite imperative, in five
languages, and what is not read (a one-off task, a question, someone else's rule, a hypothetical)."""

from __future__ import annotations

import pytest

from memoryd.write.grounding.answer_form import INSTRUCTION_SALIENCE, answer_forms
from memoryd.write.grounding.extract import SALIENCE, extract
from memoryd.write.grounding.model import FactKind, SourceTurn

_NOON = 1_770_120_000_000  # 2026-02-03 12:00 UTC


def _forms(text: str, lang: str) -> list[str]:
    return [f.value for f, _ in answer_forms([SourceTurn(0, 0, text, "OK.")], lang, [])]


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        (
            "I use R for the stats, please give code examples in R, not Python.",
            "en",
            "give code examples in R, not Python",
        ),
        ("Please write big and simple, my eyes aren't what they were.", "en", "write big and simple"),
        (
            "Give me practice plans in Welsh-free plain English please, my Welsh reading is slow.",
            "en",
            "Give me practice plans in Welsh-free plain English",
        ),
        ("Bitte immer auf Deutsch antworten und duzen.", "de", "immer auf Deutsch antworten und duzen"),
        ("Und du kannst mich ruhig duzen.", "de", "du kannst mich ruhig duzen"),
        ("Por favor, escríbeme en español, no en inglés.", "es", "escríbeme en español, no en inglés"),
        ("S'il te plaît, écris-moi en français.", "fr", "écris-moi en français"),
        ("Podes tratar-me por tu.", "pt", "Podes tratar-me por tu"),
        (
            "Por favor, escreve-me em português, não em inglês.",
            "pt",
            "escreve-me em português, não em inglês",
        ),
        ("Please answer in plain text, no tables.", "en", "answer in plain text, no tables"),
        ("Réponds-moi en français, s'il te plaît.", "fr", "Réponds-moi en français"),
        ("Por favor, contéstame en español.", "es", "contéstame en español"),
        ("Antworte bitte auf Deutsch.", "de", "Antworte auf Deutsch"),
    ],
)
def test_a_polite_request_on_the_form_of_answers_is_read(text: str, lang: str, expected: str) -> None:
    assert _forms(text, lang) == [expected]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Please write a short poem in French.", "en"),  # a one-off task
        ("What is 2+2? Please answer in French.", "en"),  # about the question beside it
        ("¿Qué hora es en Tokio? Contéstame en español, por favor.", "es"),  # the same in Spanish
        ("Please answer the question in one word.", "en"),  # a single thing
        ("Please give me the address in Leeds.", "en"),  # a single thing
        ("Could you give examples in R, please?", "en"),  # a question
        ("My boss says: write everything in German, please.", "en"),  # someone else's rule
        ("If you write in French, please keep it simple.", "en"),  # a hypothetical
        ("Give code examples in R, not Python.", "en"),  # no "please": a one-off order as likely as a rule
        ("Please send the invoice to Tom.", "en"),  # no form of answering
        ("Schreib mir bitte einen Brief auf Deutsch.", "de"),  # a one-off letter
        ("Tu peux me tutoyer ?", "fr"),  # a question
    ],
)
def test_no_request_without_a_standing_form(text: str, lang: str) -> None:
    assert _forms(text, lang) == []


def test_a_rule_already_read_is_not_read_twice() -> None:
    turns = [SourceTurn(0, 0, "Always answer in French, please. Please write in French, not English.", "OK.")]
    facts = [f for f in extract(turns, session_time_ms=_NOON).facts if f.kind is FactKind.INSTRUCTION]
    assert len({f.text for f in facts}) == len(facts)
    assert any("not English" in f.text or "French" in f.text for f in facts)


def test_through_the_extractor() -> None:
    turns = [SourceTurn(0, 0, "I use R for the stats, please give code examples in R, not Python.", "OK.")]
    texts = [f.text for f in extract(turns, session_time_ms=_NOON).facts if f.kind is FactKind.INSTRUCTION]
    assert texts == ["Standing instruction from the user: give code examples in R, not Python."]


def test_salience_is_the_extractors_instruction_salience() -> None:
    assert SALIENCE[FactKind.INSTRUCTION] == INSTRUCTION_SALIENCE


@pytest.mark.parametrize(
    "text",
    [
        "What is 2+2? Please answer in French.",
        "¿Qué hora es en Tokio? Contéstame en español, por favor.",
        "Wie spät ist es in Tokio? Antworte bitte auf Deutsch.",
    ],
)
def test_an_answer_request_beside_a_question_stores_no_instruction(text: str) -> None:
    """Every reader (the older language rule too) leaves it: the request is about the question beside it."""
    kinds = [f.kind for f in extract([SourceTurn(0, 0, text, "OK.")], session_time_ms=_NOON).facts]
    assert FactKind.INSTRUCTION not in kinds


@pytest.mark.parametrize(
    "text",
    [
        "Please answer in French.",  # asks nothing: a standing rule
        "Always answer in French. What is 2+2?",  # says it is one
        "Could you check my essay? Answer in English even if I write in German.",  # a condition over every answer
    ],
)
def test_an_answer_rule_said_as_one_is_still_stored(text: str) -> None:
    kinds = [f.kind for f in extract([SourceTurn(0, 0, text, "OK.")], session_time_ms=_NOON).facts]
    assert FactKind.INSTRUCTION in kinds


def test_the_instruction_is_rendered_in_the_language_it_was_said_in() -> None:
    """An English request in a German session reads as an English instruction, not under the German template."""
    turns = [
        SourceTurn(0, 0, "Hallo! Ich bin Greta und arbeite in Fulda.", "Hallo Greta!"),
        SourceTurn(1, 1, "Please answer in plain text, no tables.", "Sure."),
    ]
    [fact] = [f for f in extract(turns, session_time_ms=_NOON).facts if f.kind is FactKind.INSTRUCTION]
    assert fact.text == "Standing instruction from the user: answer in plain text, no tables."
    assert fact.language == "en"
