"""Supersession shapes the earlier rules missed, each tested both ways: synonyms name one slot (grounding/synonyms.py),
a short clause about one single-valued slot, a holder replaced by name without a slot word (revisions.py), and a
fact naming a holder its own turn says left (write/supersede.py `holder_who_left`)."""

from __future__ import annotations

from memoryd.write.grounding.event import same_event
from memoryd.write.grounding.extract import extract
from memoryd.write.grounding.model import SourceTurn
from memoryd.write.grounding.revisions import revisions
from memoryd.write.grounding.skeleton import same_slot
from memoryd.write.grounding.stale import stale_mentions
from memoryd.write.grounding.substitution import swaps
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import holder_who_left, plan_grounded

WHEN_MS = 1_776_000_000_000  # 2026-04-12


def _turns(*said: str) -> list[SourceTurn]:
    return [SourceTurn(i, i + 1, text, "Noted.") for i, text in enumerate(said)]


def _retired(said: str, *known: str) -> set[int]:
    return {i for r in revisions(_turns(said), [], list(known)) for i in r.retired}


# --- synonyms ------------------------------------------------------------------------------------------------------


def test_a_release_is_the_launch_it_moves() -> None:
    old = "Aiming to launch on Steam on 6 November. (2026-11-06)"
    assert same_event(old, "They want more polish, so release moves to 19 February (2027-02-19) next year.")
    assert same_event(
        "Le lancement est prévu le 3 mai. (2027-05-03)", "La sortie est repoussée au 10 mai. (2027-05-10)"
    )


def test_a_synonym_names_no_other_event() -> None:
    old = "Aiming to launch on Steam on 6 November. (2026-11-06)"
    assert not same_event(old, "We're doing a demo for Steam Next Fest in October. (2026-10)")
    assert not same_event("The exam is on 5 July. (2026-07-05)", "The launch moved to 9 July. (2026-07-09)")


def test_a_target_is_the_goal_it_replaces_by_skeleton() -> None:
    assert same_slot("My savings goal is 3000 euros by June.", "My savings target is now 3500 euros by June.")
    assert not same_slot(
        "My savings goal is 3000 euros by June.", "My sister's savings target is 3500 euros."
    )


# --- one single-valued slot, nothing else ----------------------------------------------------------------------------


def test_a_short_clause_about_the_slot_replaces_its_value() -> None:
    known = "The user's goal: under four hours, which their club mates say is ambitious."
    assert _retired("Just finish, ideally. So 4:30 is the target now.", known) == {0}
    assert _retired("My target is 70 kg now.", "The user's goal: get down to 75 kg.") == {0}


def test_a_clause_about_more_than_the_slot_or_another_measure_replaces_nothing() -> None:
    known = "The user's goal: run the marathon in 4 hours."
    assert _retired("The exam went well, my target grade is 7 now.", known) == set()
    assert _retired("My target is 70 kg now.", known) == set()


# --- a holder replaced by name ---------------------------------------------------------------------------------------


def test_a_holder_replaced_by_name_is_retired() -> None:
    known = "The user's supplier is Strathearn Sawmill."
    said = "Strathearn can't dry oak fast enough, I'm buying from Glen Affric Hardwoods now."
    assert _retired(said, known) == {0}
    (revision,) = revisions(_turns(said), [], [known])
    assert revision.fact is not None and "Glen Affric Hardwoods" in revision.fact.text
    assert "Strathearn" not in revision.fact.text


def test_a_holder_added_kept_for_a_while_or_family_is_not_replaced() -> None:
    supplier = "The user's supplier is Strathearn Sawmill."
    assert _retired("Strathearn is slow, I'm also buying from Glen Affric Hardwoods now.", supplier) == set()
    assert (
        _retired("Strathearn is shut this week, I'm buying from Glen Affric Hardwoods now.", supplier)
        == set()
    )
    assert _retired("Strathearn now delivers to Perth.", supplier) == set()
    assert (
        _retired("Kirsty is away this week, I'm cooking with Jamie now.", "The user's wife is Kirsty.")
        == set()
    )
    assert (
        _retired(
            "Dalia is visiting, and I'm now learning Spanish with Carlos.", "The user's friend is Dalia."
        )
        == set()
    )


# --- a fact naming the holder who left ------------------------------------------------------------------------------


def test_a_fact_naming_the_holder_its_turn_says_left_is_not_kept() -> None:
    turns = _turns(
        "Pero he cambiado de gestor: Ramón se jubiló y ahora nos lleva las cuentas la gestoría Nalón, en Arriondas."
    )
    left = [f for f in extract(turns, session_time_ms=WHEN_MS).facts if holder_who_left(f, turns)]
    assert [f.value for f in left] == ["Ramón"]


def test_the_new_holder_and_a_holder_who_stays_are_kept() -> None:
    turns = _turns("Bob left last month, so my manager is Ana now.", "My dentist is Dr. Ruiz, she is great.")
    facts = extract(turns, session_time_ms=WHEN_MS).facts
    assert {f.value for f in facts if f.slot.startswith("relation.")} >= {"Ana"}
    assert not any(holder_who_left(f, turns) for f in facts)


# --- a quantity raised or lowered ------------------------------------------------------------------------------------


def test_a_quantity_lowered_or_raised_replaces_the_older_number_of_its_unit() -> None:
    assert _retired(
        "I went down to two days a week at the shop.", "The user works four days a week at the shop."
    ) == {0}
    assert _retired(
        "Also drop the deposit to forty percent.", "The user takes a 50 percent deposit on orders."
    ) == {0}
    assert _retired("On a baissé le prix à 12 euros.", "Le prix est de 15 euros.") == {0}
    (revision,) = revisions(_turns("Also drop the deposit to forty percent."), [], ["A 50 percent deposit."])
    assert revision.fact is not None and "forty percent" in revision.fact.text


def test_another_unit_or_a_time_span_is_no_quantity_change() -> None:
    assert (
        _retired("I went down to two days a week at the shop.", "The user swims three times a week.") == set()
    )
    assert _retired("I'm back now, flying out again in 3 days.", "The user is away for 10 days.") == set()
    assert _retired("We cut the budget to 200 euros.", "The user walks 5 km a day.") == set()


# --- one value swapped in an older fact that says more --------------------------------------------------------------


def test_a_value_said_against_the_old_one_is_swapped_in_a_mixed_fact() -> None:
    known = "The user sings in a choir on Thursdays (2026-04-16) and Sundays."
    (revision,) = revisions(_turns("Choir is on Tuesdays, not Thursdays."), [], [known])
    assert revision.retired == (0,)
    assert (
        revision.fact is not None
        and revision.fact.text == "The user sings in a choir on Tuesdays and Sundays."
    )
    # The swap itself, in the old fact's words and forms (revisions.py reads it when no slot anchors the sentence).
    (swap,) = swaps(
        "On se voit le mardi au lieu du mercredi.", ["Prévu : on se voit le mercredi et le samedi au club."]
    )
    assert swap.text == "Prévu : on se voit le mardi et le samedi au club."
    (swap,) = swaps(
        "Meine Besuche sind jetzt dienstags statt mittwochs.",
        ["Ich besuche ihn jeden Mittwoch und samstags."],
    )
    assert swap.text == "Ich besuche ihn jeden Dienstag und samstags."
    # A time is one value: "3:55, not 3:45" swaps the time, not its hour.
    (swap,) = swaps(
        "New target is 3:55, not 3:45.", ["The user signed up for a marathon and wants to break 3:45."]
    )
    assert swap.text == "The user signed up for a marathon and wants to break 3:55."


def test_no_swap_when_two_facts_hold_the_old_value_or_the_types_differ() -> None:
    known = ("The user sings in a choir on Thursdays and Sundays.", "The user swims on Thursdays.")
    found = revisions(_turns("Choir is on Tuesdays, not Thursdays."), [], list(known))
    assert not any("Sundays" in (r.fact.text if r.fact else "") for r in found)
    assert all(r.retired == () for r in found)
    assert _retired("Actually, not Thursday.", "The user sings in a choir on Thursdays and Sundays.") == set()
    assert _retired("I drink coffee, not tea.", "The user likes tea and biscuits.") == set()
    assert swaps("Takayama and Kanazawa. And not Kyoto.", ["A trip to Kyoto and Nara in October."]) == []


# --- a thing moved to another place, an amount with its currency, a decision to drop a tool -------------------------


def test_a_thing_moved_to_another_named_place_replaces_the_older_place() -> None:
    known = "Planning our spring concert, it's on Saturday 28 March (2026-03-28) at St Cuthbert's church."
    said = "St Cuthbert's has a roof leak, so the concert is moving to Hexham Abbey. Same date, 28 March."
    assert _retired(said, known) == {0}
    # The older fact's date still holds (the correction moves where, not when): the new fact keeps it.
    (revision,) = revisions(_turns(said), [], [known])
    assert revision.fact is not None
    assert revision.fact.text == "The concert is moving to Hexham Abbey — 28 March (2026-03-28)."
    assert _retired("My sister is moving to Lyon.", "The user lives in Paris.") == set()
    assert _retired("The concert is moving to Thursday.", "The rehearsals are at Hexham Abbey.") == set()


def test_an_amount_in_one_currency_changes_on_the_same_day() -> None:
    known = "The user asked to be reminded to move the £500 on the 29th each month."
    assert _retired(
        "I'll bump the monthly transfer to £600 starting this month, same day, the 29th.", known
    ) == {0}
    assert _retired("I'll bump the monthly transfer to £600 on the 30th.", known) == set()
    assert _retired("I'll bump the monthly transfer to £600.", "The user walks 500 m a day.") == set()


def test_a_decision_to_drop_a_tool_is_a_stale_mention_and_dropping_someone_off_is_not() -> None:
    assert [m.value for m in stale_mentions("I decided to drop YNAB, the subscription went up.")] == ["YNAB"]
    assert [m.value for m in stale_mentions("J'ai décidé d'arrêter Etsy, les frais sont trop chers.")] == [
        "Etsy"
    ]
    assert stale_mentions("I'm going to drop Tom off at school.") == ()


def test_it_due_on_a_date_restates_no_earlier_plan() -> None:
    turns = _turns(
        "Felicity moved my deadline: final artwork is due 15 June now instead of March.",
        "Remind me to pay the mooring fee, it's due on the 20th.",
    )
    deadline = [f for f in extract(turns, session_time_ms=WHEN_MS).facts if "deadline" in f.text]
    assert deadline and all("20th" not in f.text for f in deadline)
    assert any("15 June" in f.text for f in deadline)


def test_a_dated_correction_keeps_no_older_date() -> None:
    said = "The offsite moved to 19 March, the venue double-booked."
    (revision,) = revisions(
        _turns(said), [], ["The team offsite is booked for 12 March in Leeds. (2026-03-12)"]
    )
    assert revision.fact is not None and "12 March" not in revision.fact.text


def test_a_count_shared_by_chance_names_no_event() -> None:
    known = ExistingFact(
        "9",
        "The user got a six-month extension, so the deadline is 31 March (2027-03-31) next year.",
        0.6,
        1,
        "plan.deadlin",
    )
    turns = _turns(
        "I'm on chapter six now. Helena wants the full draft by 15 January so she has time to read."
    )
    facts = extract(turns, session_time_ms=WHEN_MS).facts
    plan = plan_grounded(facts, [known], [], lambda ix: tuple(ix), None, turns=turns)
    assert all("9" not in new.supersedes for new in plan.facts.inserts)
    # The same turn naming the deadline's event with another date still moves it.
    moved = _turns("Update: the deadline moved, it's now 30 April.")
    facts = extract(moved, session_time_ms=WHEN_MS).facts
    plan = plan_grounded(facts, [known], [], lambda ix: tuple(ix), None, turns=moved)
    assert any("9" in new.supersedes for new in plan.facts.inserts)


# --- a holder hired after one left ------------------------------------------------------------------------------------


def test_someone_hired_after_a_holder_left_takes_the_role() -> None:
    accountant = ExistingFact("1", "The user's accountant is Gillian Shaw.", 0.8, 1, "relation.accountant")
    turns = _turns("Gillian retired last month, so we hired Priya Shah to do our books.")
    plan = plan_grounded(
        extract(turns, session_time_ms=WHEN_MS).facts, [accountant], [], tuple, None, turns=turns
    )
    assert [(n.content, n.supersedes) for n in plan.facts.inserts if n.supersedes] == [
        ("The user's accountant is Priya Shah.", ("1",))
    ]
    said = "Mas a Matilde foi-se embora para a Austrália, por isso contratei o Kalani."
    assert any(f.value == "Kalani" for f in extract(_turns(said), session_time_ms=WHEN_MS).facts)


def test_someone_hired_with_no_one_leaving_replaces_no_one() -> None:
    accountant = ExistingFact("1", "The user's accountant is Gillian Shaw.", 0.8, 1, "relation.accountant")
    turns = _turns("We hired a new intern, Tom, last week.")
    plan = plan_grounded(
        extract(turns, session_time_ms=WHEN_MS).facts, [accountant], [], tuple, None, turns=turns
    )
    assert all(n.supersedes == () for n in plan.facts.inserts)


# --- a new date said as "instead" after a sentence saying the event moved ------------------------------------------


def test_a_date_said_instead_after_the_event_moved_is_that_events_date() -> None:
    said = (
        "And the coaching course got pushed. I never actually started in April because of the captaincy, so I'm "
        "booked on the winter one starting 9 January instead."
    )
    plans = [f for f in extract(_turns(said), session_time_ms=WHEN_MS).facts if "coaching course" in f.text]
    assert plans and any("9 January" in f.text for f in plans)


def test_instead_after_an_event_with_its_own_date_or_no_move_names_no_event() -> None:
    for said in (
        "The coaching course got pushed to 2 May. I'm meeting Ann on 9 January instead.",
        "The coaching course was great. I'm booked on the next one starting 9 January instead.",
    ):
        facts = extract(_turns(said), session_time_ms=WHEN_MS).facts
        assert not [f for f in facts if "coaching course" in f.text and "9 January" in f.text]


def test_a_date_after_another_event_moved_is_a_plan_of_its_own() -> None:
    course = ExistingFact(
        "1", "The user starts the coaching course on 11 April. (2026-04-11)", 0.6, 1, "plan.course"
    )
    turns = _turns("The coaching course got pushed. I'm seeing Sam on 9 January.")
    plan = plan_grounded(
        extract(turns, session_time_ms=WHEN_MS).facts, [course], [], tuple, None, turns=turns
    )
    assert all("1" not in n.supersedes for n in plan.facts.inserts if "Sam" in n.content)
    # Said with a cue of its own, the date is the moved event's ("Kittiwake now comes out on May 2nd").
    haulout = ExistingFact("2", "The haul-out is booked for March 28th. (2027-03-28)", 0.6, 1, "plan.haul")
    turns = _turns("The haul-out kept slipping. Kittiwake now comes out on May 2nd.")
    plan = plan_grounded(
        extract(turns, session_time_ms=WHEN_MS).facts, [haulout], [], tuple, None, turns=turns
    )
    assert any("2" in n.supersedes for n in plan.facts.inserts)


def test_it_named_in_its_own_sentence_restates_no_earlier_plan() -> None:
    turns = _turns(
        "I've moved to the twilight shift: it's now Tuesday, Thursday and Saturday, 5pm till 9.",
        "I need to remember my fistula check, it's on 12 May at 10am.",
    )
    shift = [f for f in extract(turns, session_time_ms=WHEN_MS).facts if "twilight" in f.text]
    assert shift and all("12 May" not in f.text for f in shift)
    # "it" opening its sentence still stands for the event said before.
    turns = _turns(
        "The product demo is on May 3.", "Update: we pushed it to May 10.", "Actually it is now May 17."
    )
    assert any("demo is on May 17" in f.text for f in extract(turns, session_time_ms=WHEN_MS).facts)
