"""Self-repairs (grounding/corrections.py): the value a user takes back ("Dr. Roisin… no sorry, Dr. Walsh") is never
read, in five languages; a plain "no", an apology or a question is no repair."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.corrections import repaired

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            "From June I'll be under Dr. Roisin... no sorry, Dr. Sinead Walsh at York Hospital. Dr. Mistry knows.",
            "From June I'll be under Dr. Sinead Walsh at York Hospital. Dr. Mistry knows.",
        ),
        ("The meeting is on Tuesday, sorry, Thursday at 10.", "The meeting is on Thursday at 10."),
        ("The launch is on the 15th... no, the 18th.", "The launch is on the 18th."),
        ("We live in Lyon, I mean Lille.", "We live in Lille."),
        ("Mein Zahnarzt ist Dr. Kuhn, ich meine Dr. Kohl.", "Mein Zahnarzt ist Dr. Kohl."),
        ("A reunião é na quarta... não, desculpa, na quinta.", "A reunião é na quinta."),
        ("Notre véto, c'est le Dr Martin, pardon, le Dr Morel.", "Notre véto, c'est le Dr Morel."),
        (
            "La première est décalée au 23 mai, la salle a un souci de chauffage... enfin non, de sécurité incendie, "
            "pardon.",
            "La première est décalée au 23 mai, la salle a un souci de sécurité incendie.",
        ),
        (
            "Y desde octubre abrimos los sábados por la tarde... no, espera, me lío: los sábados seguimos solo por la "
            "mañana.",
            "Los sábados seguimos solo por la mañana.",
        ),
    ],
)
def test_the_value_taken_back_is_replaced_by_the_repair(said: str, meant: str) -> None:
    assert repaired(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "I don't like tea, no.",
        "Sorry for the delay. I live in Paris.",
        "My vet is Dr. Li. Sorry I was late.",
        "Is it Tuesday... or Thursday?",
        "No, I live in Paris.",
        "We moved to Lyon, no regrets.",
    ],
)
def test_no_repair_leaves_the_turn_as_said(said: str) -> None:
    assert repaired(said) == said


def test_the_extractor_reads_the_repaired_turn() -> None:
    turns = [
        SourceTurn(
            0, 1, "My new dentist is Dr. Kuhn... no sorry, Dr. Kohl, at the Hauptstrasse practice.", "Ok."
        )
    ]
    texts = " ".join(f.text for f in extract(turns, session_time_ms=SESSION_MS).facts)
    assert "Kohl" in texts
    assert "Kuhn" not in texts
