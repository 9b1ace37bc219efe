"""grounding/reminder_questions.py: a reminder asked for as a question is the user's action item, in five languages;
a reminder of information, someone else reminded and a hypothetical are not."""

from __future__ import annotations

import pytest

from memoryd.write.grounding.extract import SALIENCE, extract
from memoryd.write.grounding.model import FactKind, SourceTurn
from memoryd.write.grounding.reminder_questions import asked_reminders
from memoryd.write.grounding.task_facts import ACTION_SALIENCE

_NOON = 1_770_120_000_000  # Tuesday 2026-02-03 12:00 UTC


def _asked(text: str, lang: str) -> list[str]:
    return [f.text for f, _ in asked_reminders([SourceTurn(0, 0, text, "OK.")], lang, _NOON, [])]


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        (
            "I'd better go. Remind me to send Delyth my reflective log by Friday?",
            "en",
            "The user asked to be reminded to send Delyth the user's reflective log by Friday (2026-02-06).",
        ),
        (
            "Tu peux me rappeler de facturer l'acompte avant vendredi ?",
            "fr",
            "Rappel demandé par l'utilisateur : facturer l'acompte avant vendredi (2026-02-06).",
        ),
        (
            "¿Me puedes recordar que pague el alquiler?",
            "es",
            "Recordatorio pedido por el usuario: pague el alquiler.",
        ),
        (
            "Kannst du mich erinnern, die Miete zu zahlen?",
            "de",
            "Erinnerung für den Nutzer: die Miete zu zahlen.",
        ),
        (
            "Podes lembrar-me de pagar a renda?",
            "pt",
            "Lembrete pedido pelo usuário: pagar a renda.",
        ),
    ],
)
def test_a_reminder_asked_as_a_question_is_read(text: str, lang: str, expected: str) -> None:
    assert _asked(text, lang) == [expected]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Can you remind me what the dose was?", "en"),  # information, not a task
        ("Can you remind Tom to bring the chairs?", "en"),  # someone else
        ("Should I remind her to call the vet?", "en"),
        ("If I forget, can you remind me to call the vet?", "en"),  # a hypothetical
        ("Tu peux me rappeler quand arrive le colis ?", "fr"),
        ("¿Me puedes recordar qué dijo el médico?", "es"),
        ("Kannst du mich erinnern, wann der Termin war?", "de"),
        ("Podes lembrar-me de quando é a reunião?", "pt"),
        ("Remind me to call the vet.", "en"),  # a statement: the clause rules' matter
    ],
)
def test_no_reminder_without_a_task_of_the_users(text: str, lang: str) -> None:
    assert _asked(text, lang) == []


def test_one_action_item_through_the_extractor() -> None:
    turns = [SourceTurn(0, 0, "Can you remind me to call the vet on Monday?", "Sure.")]
    items = [f for f in extract(turns, session_time_ms=_NOON).facts if f.kind is FactKind.ACTION_ITEM]
    assert len(items) == 1  # the statement rules read it; the question rule does not add a twin


def test_salience_is_the_extractors_action_item_salience() -> None:
    assert SALIENCE[FactKind.ACTION_ITEM] == ACTION_SALIENCE
