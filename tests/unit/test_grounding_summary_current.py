"""The extractive summary states what the session ended with: a sentence whose fact a later fact of the same slot
in the same session replaced is not drawn on (grounding/extract.py `_current_evidence`), while the session's other
facts still are."""

from __future__ import annotations

from memoryd.write.grounding import SourceTurn, extract

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _turns(*users: str) -> list[SourceTurn]:
    return [SourceTurn(i, 10 + i, user, "Okay.") for i, user in enumerate(users)]


def test_a_value_the_session_corrected_is_not_in_the_summary() -> None:
    extraction = extract(
        _turns(
            "I am vegetarian and allergic to peanuts.",
            "Our Ledgerly beta ships on December 15.",
            "I owe Marta the quarterly report on Wednesday.",
            "Actually the beta moved to December 18.",
        ),
        session_time_ms=SESSION_MS,
    )
    beta = [fact for fact in extraction.facts if "beta" in fact.text]
    assert len({fact.slot for fact in beta}) == 1 and len(beta) == 2  # one slot, said twice
    assert "December 15" not in extraction.summary
    assert "vegetarian" in extraction.summary and "report" in extraction.summary


def test_a_value_said_once_stays_in_the_summary() -> None:
    extraction = extract(
        _turns("Our Ledgerly beta ships on December 15.", "I owe Marta the quarterly report on Wednesday."),
        session_time_ms=SESSION_MS,
    )
    assert "December 15" in extraction.summary
