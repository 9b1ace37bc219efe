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


def test_what_someone_else_wants_the_user_to_do_is_not_the_users_task() -> None:
    for said in (
        "My granddaughter wants me to get a smartwatch so I stop missing her calls.",
        "My wife Anjali wants me to get a smart telescope like a Seestar next month.",
        "Ma femme veut que je vende la voiture avant le 12 mai.",
    ):
        e = _run(said)
        assert not any(f.kind in (FactKind.ACTION_ITEM, FactKind.PLAN) for f in e.facts), (said, e.facts)
    e = _run("I need to get a smartwatch so I stop missing calls.")
    assert any(f.kind is FactKind.ACTION_ITEM and "smartwatch" in f.text for f in e.facts), e.facts


def test_a_request_for_help_or_a_no_never_reply_is_no_standing_instruction() -> None:
    assert standing_instruction("I'd like you to help me keep track of the training.", "en", None) is None
    assert standing_instruction("Não, nunca, não é a nossa filosofia.", "pt", None) is None
    assert standing_instruction("nunca, não é a nossa filosofia.", "pt", None) is None
    assert standing_instruction("Nunca, nunca uses emojis.", "pt", None) is not None
    assert standing_instruction("I'd like you to always answer in French.", "en", None) is not None
    assert standing_instruction("Never, ever use emojis.", "en", None) is not None


def test_a_town_after_a_named_workplace_is_no_home() -> None:
    from memoryd.write.grounding.structure import structural_facts

    said = "I'm Philippa Thorold, senior archivist at the Lincolnshire Archives in Lincoln."
    facts = structural_facts(said, "en", 0, [])
    assert not [f for f in facts if f.slot == "identity.home"]
    assert any(f.slot == "identity.role" and "Lincoln" in f.text for f in facts)
    homes = [
        f.value
        for f in structural_facts("I'm Ellen, a retired nurse in Norwich.", "en", 0, [])
        if f.slot == "identity.home"
    ]
    assert homes == ["Norwich"]


def test_selling_through_a_channel_names_no_product() -> None:
    sold = [f.text for f in _run("I sell through a distributor in Bristol, Orchard Lane Drinks.").facts]
    assert not any(t.startswith("The user sells through") for t in sold), sold
    sold = [f.text for f in _run("I sell handmade candles on Shopify.").facts]
    assert "The user sells handmade candles on Shopify." in sold


def test_an_imperative_with_its_pronouns_is_a_request_not_a_plan() -> None:
    from memoryd.write.grounding.extract import _plan

    assert _plan("Recuérdamelo el lunes.", "es", SESSION_MS) is None
    assert _plan("La boda es el 3 de mayo.", "es", SESSION_MS) is not None
    assert _plan("Los recuerdos del viaje llegan el 3 de mayo.", "es", SESSION_MS) is not None


def test_where_the_user_teaches_from_is_no_subject_taught() -> None:
    from memoryd.write.grounding.rules import apply_rules

    assert not [
        h
        for h in apply_rules("I teach from a rented room at the Cowley community centre.", None)
        if h.slot == "identity.role"
    ]
    assert [
        h.text
        for h in apply_rules("I teach chemistry at a sixth-form college.", None)
        if h.slot == "identity.role"
    ] == ["The user teaches chemistry at a sixth-form college."]


def test_being_on_call_is_no_medicine_taken() -> None:
    from memoryd.write.grounding.rules import apply_rules

    said = "I do long days, and I'm on call for home births every other weekend."
    assert not [h for h in apply_rules(said, None) if h.slot.startswith("health.takes_")]
    taken = [
        h.text
        for h in apply_rules("I'm on metformin twice a day.", None)
        if h.slot.startswith("health.takes_")
    ]
    assert taken == ["The user takes metformin twice a day."]
