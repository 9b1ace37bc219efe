"""grounding/noted_tasks.py: a task dictated after a note label ("Put down: …", "Note-moi : …", "Tome nota: …") is the
user's action item, in five languages; a statement after the label, another person's list, a question and a label
that is not about noting are not."""

from __future__ import annotations

import pytest

from memoryd.write.grounding.extract import extract
from memoryd.write.grounding.model import FactKind, SourceTurn
from memoryd.write.grounding.noted_tasks import noted_tasks

_NOON = 1_770_120_000_000  # Tuesday 2026-02-03 12:00 UTC


def _noted(text: str, lang: str) -> list[str]:
    return [f.text for f, _ in noted_tasks([SourceTurn(0, 0, text, "OK.")], lang, _NOON, [])]


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        (
            "Put down: write my reflective accounts for revalidation by the end of May.",
            "en",
            "The user needs to write the user's reflective accounts for revalidation by the end of May.",
        ),
        (
            "Right, job for this week: chase Madison about the chains that never came.",
            "en",
            "The user needs to chase Madison about the chains that never came.",
        ),
        (
            "Can you put a to-do in: send the bar plan to the organisers by the 10th.",
            "en",
            "The user needs to send the bar plan to the organisers by the 10th (2026-02-10).",
        ),
        (
            "Reminder please: treat the top hives for varroa before the end of March.",
            "en",
            "The user needs to treat the top hives for varroa before the end of March.",
        ),
        (
            "Put on my list to ring the hall about the piano tuning.",
            "en",
            "The user needs to ring the hall about the piano tuning.",
        ),
        (
            "Note-moi : commander les étiquettes neuves chez l'imprimeur.",
            "fr",
            "À faire pour l'utilisateur : commander les étiquettes neuves chez l'imprimeur.",
        ),
        (
            "Apúntame: llamar al gestor por lo del IVA.",
            "es",
            "Tarea del usuario: llamar al gestor por lo del IVA.",
        ),
        (
            "Bitte notieren: das Angebot für die Orgel an die Gemeinde schicken.",
            "de",
            "Aufgabe des Nutzers: das Angebot für die Orgel an die Gemeinde schicken.",
        ),
        (
            "Tome nota: enviar as fotografias ao Rui.",
            "pt",
            "Tarefa do usuário: enviar as fotografias ao Rui.",
        ),
    ],
)
def test_a_task_after_a_note_label_is_an_action_item(text: str, lang: str, expected: str) -> None:
    assert _noted(text, lang) == [expected]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Note: the shop is shut on Mondays.", "en"),  # a statement after the label
        ("To-do: I already booked the van.", "en"),
        ("Tom's to-do: fix the van.", "en"),  # someone else's list
        ("Quick update: order more nails.", "en"),  # no note label
        ("Can you put a to-do in: send the plan?", "en"),  # a question
        ("If I forget, note: call the vet.", "en"),  # a hypothetical
        ("Rappel : je suis en congé la semaine prochaine.", "fr"),
        ("Nota: el taller está cerrado los lunes.", "es"),
        ("Notiz: die Werkstatt ist montags zu.", "de"),
        ("Nota: a oficina fecha à segunda.", "pt"),
        ("Sa liste : appeler le plombier.", "fr"),
    ],
)
def test_what_is_no_dictated_task_is_not_read(text: str, lang: str) -> None:
    assert _noted(text, lang) == []


def test_a_task_already_read_is_not_stored_twice() -> None:
    turns = [SourceTurn(0, 0, "To-do: remind me to call the vet on Friday.", "OK.")]
    actions = [f for f in extract(turns, session_time_ms=_NOON).facts if f.kind is FactKind.ACTION_ITEM]
    assert len(actions) == 1


def test_the_extractor_stores_the_dictated_task_with_its_turn() -> None:
    turns = [
        SourceTurn(0, 0, "I run a bike shop in Galway.", "Nice."),
        SourceTurn(1, 1, "To-do: order the club jerseys from the printer by the end of the month.", "Noted."),
    ]
    actions = [f for f in extract(turns, session_time_ms=_NOON).facts if f.kind is FactKind.ACTION_ITEM]
    assert [(f.text, f.turns) for f in actions] == [
        ("The user needs to order the club jerseys from the printer by the end of the month.", (1,))
    ]


def test_the_formal_german_reminder_is_read() -> None:
    turns = [SourceTurn(0, 0, "Erinnern Sie mich, die Pfeifen bis zum 30. April zu bestellen.", "Gern.")]
    actions = [f.text for f in extract(turns, session_time_ms=_NOON).facts if f.kind is FactKind.ACTION_ITEM]
    assert actions == ["Erinnerung für den Nutzer: die Pfeifen bis zum 30. April (2026-04-30) zu bestellen."]
