"""Issue 22, distill48: a decision's reason said after it is no part of the decision; a go-to person ("mein Mann für
alles") is no husband.

Every rule is tested both ways: what it must change or reject, and a near sentence it must leave alone."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import GroundedFact, SourceTurn, ground
from memoryd.write.grounding.reasons import without_reason

#: 2026-03-02, a Monday, 12:00 UTC.
SESSION_MS = 1_772_452_800_000


def _texts(said: str) -> list[str]:
    facts: list[GroundedFact] = list(
        ground([SourceTurn(0, 100, said, "Okay.")], None, session_time_ms=SESSION_MS).facts
    )
    return [f.text for f in facts]


@pytest.mark.parametrize(
    ("said", "kept", "dropped"),
    [
        ("We decided to go with the Transit, because the Berlingo is too small.", "Transit", "Berlingo"),
        ("Nous avons décidé de fermer le lundi, la salle n'est pas libre.", "fermer le lundi", "salle"),
        ("Hemos decidido cerrar los lunes, el horno no calienta bien.", "cerrar los lunes", "horno"),
        (
            "Wir haben beschlossen, keine elektronischen Orgeln mehr zu warten, weil sich das nicht lohnt.",
            "elektronischen Orgeln",
            "lohnt",
        ),
        (
            "Decidimos não aceitar mais trabalhos em fachadas no inverno, a cal não seca bem com esta humidade.",
            "fachadas no inverno",
            "humidade",
        ),
    ],
)
def test_a_decision_keeps_what_was_decided_not_why(said: str, kept: str, dropped: str) -> None:
    texts = _texts(said)
    assert any(kept in t for t in texts)
    assert not any(dropped in t for t in texts)


@pytest.mark.parametrize(
    "value",
    [
        # A comma that goes on with the decision: no negation, no conjunction of reason.
        "to go with Postgres, the managed one",
        "de prendre la salle du haut, celle avec la vue",
        "usar Holded, el plan básico",
        # A time after "since" is no reason; too little would be left before the comma.
        "to keep Xero, since 2019 the same plan",
        "no, because the van is too small",
    ],
)
def test_a_decision_without_a_reason_clause_is_left_whole(value: str) -> None:
    assert without_reason(value) == value


def test_a_go_to_person_is_no_husband() -> None:
    said = "Mein Holz hole ich beim Holzhandel Schmitt, da ist der Herr Weidinger mein Mann für alles."
    assert not any("Mann des Nutzers" in t for t in _texts(said))
    assert not any("husband" in t for t in _texts("Ifor Pughe, my man for everything at the yard, retired."))


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Da ist der Herr Weidinger, mein Mann.", "Mann des Nutzers: Herr Weidinger."),
        ("Emyr is my husband.", "The user's husband is Emyr."),
    ],
)
def test_a_husband_named_so_is_still_read(said: str, fact: str) -> None:
    assert fact in _texts(said)
