"""Corrections read against what memory holds (grounding/revisions.py, write/supersede.py): a sentence that says a
value changed retires the older fact in the same slot by structure and states the new value; a repeat, a question,
a hypothetical, someone else's relation, a fact that only mentions a name in passing, or a value of another type
replace nothing."""

from __future__ import annotations

from memoryd.write.grounding import FactKind, GroundedFact, SourceTurn
from memoryd.write.grounding.revisions import Revision, revisions
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded


def _turns(*said: str) -> list[SourceTurn]:
    return [SourceTurn(i, i + 1, text, "Noted.") for i, text in enumerate(said)]


def _read(said: str, *known: str) -> list[Revision]:
    return revisions(_turns(said), [], list(known))


def _retired(said: str, *known: str) -> set[int]:
    return {i for r in _read(said, *known) for i in r.retired}


def _new_texts(said: str, *known: str) -> list[str]:
    return [r.fact.text for r in _read(said, *known) if r.fact is not None and r.is_new]


# --- what must supersede -------------------------------------------------------------------------------------------


def test_another_date_of_the_same_event_retires_the_older_date() -> None:
    said = "The offsite moved to 19 March, the venue double-booked."
    assert _retired(said, "The team offsite is booked for 12 March in Leeds. (2026-03-12)") == {0}
    assert any("19 March" in t for t in _new_texts(said, "The team offsite is booked for 12 March in Leeds."))


def test_a_single_valued_relation_gets_its_new_holder() -> None:
    said = "My dentist is now Dr Osei, at the practice on Mill Lane."
    assert _retired(said, "The user's dentist is Dr Hale.") == {0}


def test_another_number_of_one_unit_replaces_a_limit() -> None:
    known = "Standing instruction from the user: keep summaries under 150 words, no jargon."
    assert _retired("From now on summaries can be 250 words.", known) == {0}


def test_a_name_said_to_be_dropped_retires_the_facts_naming_only_it() -> None:
    said = "We've dropped Ravenscourt, our beans now come from Hillside Coffee."
    known = (
        "The user buys coffee beans from Ravenscourt.",
        "The user asked to be reminded to pay Ravenscourt.",
    )
    assert _retired(said, *known) == {0, 1}
    assert any("Hillside" in t for t in _new_texts(said, *known))


def test_a_subject_that_left_is_retired_without_a_fact_about_it() -> None:
    said = "Petrov has retired, so an agency manages the flat now."
    found = _read(said, "The user's landlord is Petrov.")
    assert {i for r in found for i in r.retired} == {0}
    assert not any(r.fact is not None and "Petrov" in r.fact.text for r in found)


def test_a_named_thing_with_other_days_replaces_its_schedule() -> None:
    assert _retired("Kasia now comes every Friday instead.", "Kasia cleans on Mondays and Thursdays.") == {0}


def test_french_and_german_corrections() -> None:
    assert _retired("Mein neuer Chef ist Frau Kessler.", "Chef des Nutzers: Herr Braun.") == {0}
    assert _retired(
        "Le cours de poterie est maintenant le jeudi.", "Prévu : le cours de poterie est le mardi."
    ) == {0}


def test_a_change_said_plainly_is_a_fact_even_without_an_older_one() -> None:
    assert _new_texts("Now ordering parts from Velotech, next-day delivery.") == [
        "Now ordering parts from Velotech, next-day delivery."
    ]
    assert _new_texts("We moved house last weekend, from Didsbury to Chorlton.") != []


def test_a_bare_change_cues_the_sentence_after_it() -> None:
    found = revisions(_turns("We finally moved! Out of Didsbury and into a flat in Chorlton."), [], ["x"])
    assert [r.fact.text for r in found if r.fact is not None] == [
        "Out of Didsbury and into a flat in Chorlton."
    ]


def test_a_session_fact_stating_the_new_value_carries_the_retirement() -> None:
    session = [
        GroundedFact(FactKind.RELATION, "The user's dentist is Dr Osei.", "", "Dr Osei", (0,), 0.8, False)
    ]
    found = revisions(_turns("My dentist is now Dr Osei."), session, ["The user's dentist is Dr Hale."])
    assert [(r.fact, r.retired, r.is_new) for r in found] == [(session[0], (0,), False)]


# --- what must not supersede ---------------------------------------------------------------------------------------


def test_still_is_no_change() -> None:
    assert _read("Dr Hale is still my dentist, thankfully.", "The user's dentist is Dr Hale.") == []


def test_a_repeat_replaces_nothing() -> None:
    assert _retired("My dentist is now Dr Hale again.", "The user's dentist is Dr Hale.") == set()


def test_a_hypothetical_or_a_question_changes_nothing() -> None:
    known = "The team offsite is booked for 12 March in Leeds."
    assert _read("If the offsite moved to 19 March I would miss it.", known) == []
    assert _read("Has the offsite moved to 19 March?", known) == []


def test_someone_elses_relation_is_not_the_users() -> None:
    assert (
        _retired("His business partner Carla is running the job now.", "The user's wife is Tanya.") == set()
    )


def test_a_returning_name_is_not_the_one_that_left() -> None:
    said = "Lewis is back on piano from this term, Harriet has gone to Glasgow."
    assert _retired(said, "The user's accompanist is Lewis Thornton.") == set()


def test_a_place_named_in_passing_in_a_job_fact_stays() -> None:
    said = "I've moved out of Leeds city centre to Headingley."
    assert _retired(said, "The user is a nurse at St James's Hospital in Leeds.") == set()


def test_an_object_taking_cue_does_not_make_its_subject_gone() -> None:
    said = "Vallauris went brilliantly, I sold 62 bowls."
    assert _retired(said, "Plan: the Vallauris pottery market on 14 and 15 March. (2026-03-15)") == set()


def test_a_number_is_not_another_date() -> None:
    said = "I've given up plot 16, too much for the knee."
    assert (
        _retired(said, "Appointment with the physio on 22 April about the user's knee. (2026-04-22)") == set()
    )


def test_a_departure_alone_stores_no_fact_naming_the_old_value() -> None:
    assert _new_texts("Autre chose : j'ai quitté Kerhervé.") == []
    assert _new_texts("Y hemos dejado Booking.") == []


# --- the plan written to the store --------------------------------------------------------------------------------


def test_plan_grounded_inserts_the_correction_and_supersedes_the_older_facts() -> None:
    pinned = [
        ExistingFact("7", "The user buys coffee beans from Ravenscourt.", 0.7, 1, ""),
        ExistingFact("8", "The user's dentist is Dr Hale.", 0.7, 1, "relation.dentist"),
    ]
    identity = [ExistingFact("7", "The user lives in Leeds.", 0.9, 1, "identity.home")]
    turns = _turns("We've dropped Ravenscourt, our beans now come from Hillside Coffee.")
    plan = plan_grounded([], pinned, identity, lambda idx: tuple(idx), turns=turns)
    inserted = [(f.content, f.supersedes, f.supersedes_identity) for f in plan.facts.inserts]
    assert inserted == [("We've dropped Ravenscourt, our beans now come from Hillside Coffee.", ("7",), ())]
    assert plan.superseded == 1


def test_plan_grounded_without_turns_reads_no_corrections() -> None:
    pinned = [ExistingFact("7", "The user buys coffee beans from Ravenscourt.", 0.7, 1, "")]
    plan = plan_grounded([], pinned, [], lambda idx: tuple(idx))
    assert plan.facts.inserts == () and plan.superseded == 0


def test_a_contrast_or_a_moved_date_is_a_stated_change() -> None:
    assert _new_texts("Choir practice is on Tuesdays, not Thursdays, from next week.") != []
    assert _new_texts("The launch moves to 19 February, the printer is late.") != []
    assert _new_texts("Coffee, not because I like it but because I need it.") == []


def test_for_now_is_no_stated_change() -> None:
    assert _new_texts("Multiple daily injections for now.") == []


def test_a_name_in_passing_beside_a_change_retires_nothing() -> None:
    said = "Birmingham is lovely, I'm working at Selly Oak now."
    assert _retired(said, "The user lives in Birmingham.") == set()


def test_someone_elses_move_is_not_the_users() -> None:
    assert _retired("My sister moved to Lyon last month.", "The user lives in Paris.") == set()


def test_a_thing_moved_is_no_change_of_a_fact() -> None:
    assert _read("We moved the sofa to the back room.", "The user lives in Paris.") == []
