"""Non-facts the extractor no longer stores (issue 22, strict precision), each rule shown both ways."""

from __future__ import annotations

from memoryd.write.grounding import Extraction, FactKind, SourceTurn, extract
from memoryd.write.grounding.dates import find_dates
from memoryd.write.grounding.instructions import standing_instruction

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _run(*users: str) -> Extraction:
    return extract(
        [SourceTurn(i, 700 + i, u, "Okay.") for i, u in enumerate(users)], session_time_ms=SESSION_MS
    )


def test_a_month_word_opening_a_name_is_no_date() -> None:
    assert find_dates("My partner is a nurse in Mayo University Hospital.", SESSION_MS) == []
    assert find_dates("We live on March Road.", SESSION_MS) == []
    said = find_dates("We fly out in May to Lisbon.", SESSION_MS)
    assert [m.iso for m in said] == ["2027-05-01"]
    assert len(find_dates("Wir fahren im Mai Urlaub machen.", SESSION_MS)) == 1  # German capitalises nouns


def test_a_dont_about_what_was_just_said_is_no_standing_instruction() -> None:
    assert standing_instruction("Don't answer that, just thinking out loud.", "en", None) is None
    assert standing_instruction("Ne réponds pas à ça, je réfléchis à voix haute.", "fr", None) is None
    assert standing_instruction("Don't suggest pairing notes.", "en", None) is not None
    assert standing_instruction("Never answer that kind of question with a list.", "en", None) is not None


def test_a_pronoun_after_a_dropped_tool_is_not_the_tool_chosen() -> None:
    e = _run("And I'm ditching FreeAgent, Gareth wants everyone on Xero so that's what I'll use.")
    chosen = [f.value for f in e.facts if f.kind is FactKind.DECISION]
    assert "I'll" not in chosen
    assert not any(f.text == "The user chose I'll." for f in e.facts)


def test_an_it_said_after_a_plan_of_the_same_turn_moves_that_plan() -> None:
    e = _run(
        "Lambing starts around the 20th of March. I want reminders for scanning and vaccines.",
        "Scanning's booked for the 2nd of March. The scanner man is coming Monday morning. "
        "Sorry, no, Tuesday the 3rd, he changed it.",
    )
    texts = [f.text for f in e.facts if f.kind is FactKind.PLAN]
    assert any(t.startswith("Lambing starts around the 20th of March") for t in texts), texts
    assert not any(t.startswith("Sorry, no") for t in texts), texts


def test_an_it_in_a_later_turn_still_moves_the_plan_said_before() -> None:
    e = _run("The product launch is on May 3.", "Bad news, we pushed it to May 10.")
    assert any("launch" in f.text and "May 10" in f.text for f in e.facts), [f.text for f in e.facts]
