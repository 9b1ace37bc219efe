"""A new holder given to the user by someone else's verb, answering the assistant's question for another holder
(grounding/assigned.py): read as the relation the question names, in five languages; a hypothetical, a question,
someone else moved, no question for a role, or a family relation asked for are not read."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import FactKind, SourceTurn, extract
from memoryd.write.grounding.assigned import assigned_holders

#: 2026-04-10, noon UTC.
SESSION_MS = 1_775_822_400_000


def _turns(asked: str, answer: str) -> list[SourceTurn]:
    return [
        SourceTurn(0, 1, "Ray Dunmore has retired from piloting, so the Sea Sprite is out.", asked),
        SourceTurn(1, 2, answer, "Noted."),
    ]


@pytest.mark.parametrize(
    ("asked", "answer", "slot", "name"),
    [
        (
            "Sorry to hear that. Have you been able to find another pilot?",
            "Yes, thank God. The federation moved me to Karen Achebe on the Morning Tern.",
            "relation.pilot",
            "Karen Achebe",
        ),
        (
            "Oh no. Do you have a new vet?",
            "Yes, the clinic put me with Dr. Alves.",
            "relation.vet",
            "Dr. Alves",
        ),
        (
            "Tu as un nouveau médecin ?",
            "Oui, la clinique m'a transféré chez Dr Roux.",
            "relation.doctor",
            "Dr Roux",
        ),
        ("¿Tienes otro fisioterapeuta?", "Sí, me pasaron a Marta Gil.", "relation.physio", "Marta Gil"),
        (
            "Hast du einen neuen Tierarzt?",
            "Ja, die Praxis hat mich an Dr. Keller überwiesen.",
            "relation.vet",
            "Dr. Keller",
        ),
        ("Já tens outro médico?", "Sim, passaram-me para a Dra. Pires.", "relation.doctor", "Dra. Pires"),
    ],
)
def test_a_holder_assigned_to_the_user_answers_the_role_asked(
    asked: str, answer: str, slot: str, name: str
) -> None:
    facts = [f for f, _ in assigned_holders(_turns(asked, answer), "en")]
    assert [(f.slot, f.value) for f in facts] == [(slot, name)]
    extracted = extract(_turns(asked, answer), session_time_ms=SESSION_MS).facts
    assert any(f.kind is FactKind.RELATION and f.value == name for f in extracted)


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("Have you been able to find another pilot?", "If they moved me to Karen Achebe I'd be happy."),
        ("Have you been able to find another pilot?", "Did they move me to Karen Achebe?"),
        ("Have you been able to find another pilot?", "They moved my sister to Karen Achebe."),
        ("How was your day?", "They moved me to Karen Achebe."),  # no role asked for
        ("Have you got another sister?", "They moved me to Karen Achebe."),  # family is no role
        (
            "Is Karen Achebe your new pilot?",
            "They moved me to Karen Achebe.",
        ),  # the question named her: no answer
    ],
)
def test_no_holder_without_a_role_asked_or_a_move_of_the_user(asked: str, answer: str) -> None:
    assert assigned_holders(_turns(asked, answer), "en") == []
