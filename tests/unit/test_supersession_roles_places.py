"""Supersession by structure, each rule tested both ways: a role handed over by its verb (grounding/handover.py), a
from-to move placing older facts anew (grounding/relocation.py), a plan's event named outside its dated clause
(grounding/event.py), a change naming its slot (grounding/slotchange.py), a value the session says stays, the
person (not the firm) doing a role's work, the slot said by the assistant's message (grounding/replies.py), and a
standing instruction flipped (grounding/flips.py), a state said to hold no longer (grounding/negated.py), and one
thing replaced inside a mixed older fact (grounding/mixed.py), and a seasonal change that is over
(grounding/seasonal.py)."""

from __future__ import annotations

from memoryd.write.grounding.antonyms import excluded
from memoryd.write.grounding.event import same_event
from memoryd.write.grounding.extract import extract
from memoryd.write.grounding.flips import Flip, flips
from memoryd.write.grounding.handover import handovers
from memoryd.write.grounding.mixed import swapped_thing
from memoryd.write.grounding.model import SourceTurn
from memoryd.write.grounding.negated import negated_states
from memoryd.write.grounding.redated import redated
from memoryd.write.grounding.relocation import relocations
from memoryd.write.grounding.revisions import revisions
from memoryd.write.grounding.seasonal import seasons_over
from memoryd.write.grounding.slotchange import slot_changes
from memoryd.write.grounding.slotfill import relations
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded

WHEN_MS = 1_776_000_000_000  # 2026-04-12


def _turns(*said: str) -> list[SourceTurn]:
    return [SourceTurn(i, i + 1, text, "Noted.") for i, text in enumerate(said)]


def _revised(known: list[str], *said: str) -> list[tuple[str | None, set[int]]]:
    return [(r.fact.text if r.fact else None, set(r.retired)) for r in revisions(_turns(*said), [], known)]


# --- a role handed over by its verb -----------------------------------------------------------------------------------


def test_a_role_said_by_its_verb_passes_to_the_new_holder() -> None:
    coach = "The user's coach is Morwenna."
    said = "Morwenna's moving to Australia though, so Alasdair's coaching our crew from next week."
    ((text, retired),) = _revised([coach], said)
    assert retired == {0} and text is not None and "Alasdair" in text
    teacher = "The user's teacher is Mererid."
    (handed,) = handovers("Mererid doesn't teach pedal, so I've moved to Elinor in Machynlleth.", [teacher])
    assert handed.index == 0 and handed.new_name == "elinor"
    # Spanish: the coach by his noun's verb ("entrena").
    assert handovers(
        "Mathéo se va a Suiza, así que ahora me entrena Élodie.", ["Entrenador del usuario: Mathéo."]
    )


def test_a_holder_still_in_the_role_away_for_a_while_or_family_hands_nothing_over() -> None:
    coach = "The user's coach is Morwenna."
    # No part says she is gone: she coaches somewhere else too.
    assert handovers("Morwenna's coaching the juniors at Tyne now, and Alasdair helps.", [coach]) == []
    # Away for a while.
    assert handovers("Morwenna's away this week, so Alasdair's coaching us for now.", [coach]) == []
    # Someone added.
    assert handovers("Morwenna isn't coaching Sundays, so Alasdair coaches us too.", [coach]) == []
    # Family is no role.
    assert (
        handovers("My sister Ana moved to Leeds, so Bea teaches me now.", ["The user's sister is Ana."]) == []
    )
    # The role's verb is never said: "moving" alone says nothing of the coaching.
    assert handovers("Morwenna's moving to Australia, so Alasdair is sad.", [coach]) == []
    assert all(
        not retired for _t, retired in _revised([coach], "Morwenna's coaching the juniors at Tyne now.")
    )


# --- a from-to move -------------------------------------------------------------------------------------------------------


def test_a_move_from_one_place_to_another_places_older_facts_anew() -> None:
    known = [
        "El usuario es profesora de tango en Rosario.",
        "El usuario vive en Rosario.",
        "Plan: clases los martes.",
    ]
    moved = relocations("Ahora me mudo: me voy de Rosario a Córdoba en octubre.", known)
    assert {(m.index, m.text) for m in moved} == {
        (0, "El usuario es profesora de tango en Córdoba."),
        (1, "El usuario vive en Córdoba."),
    }
    (swap,) = relocations(
        "Ich ziehe auch um, von Kassel nach Göttingen, am 1. Juli.",
        ["Der Nutzer ist Lokführerin bei der Regionalbahn in Kassel."],
    )
    assert swap.text == "Der Nutzer ist Lokführerin bei der Regionalbahn in Göttingen."
    retired = {
        i
        for _t, r in _revised(["The user lives in Leeds."], "We're moving from Leeds to York in May.")
        for i in r
    }
    assert retired == {0}


def test_no_move_a_place_that_stays_or_a_date_moves_nothing() -> None:
    distillery = ["The user runs a gin distillery in Dunoon."]
    said = ["We're moving the tasting room from Dunoon to Inveraray.", "No, the stills stay in Dunoon."]
    assert relocations(said[0], distillery, said) == []
    # A trip is no move.
    assert relocations("I drove from Leeds to York yesterday.", ["The user lives in Leeds."]) == []
    # Months and weekdays are dates, not places.
    assert relocations("We moved the launch from March to May.", ["The user has an exam in March."]) == []
    # An older fact already at the new place, or not at the old one, is left alone.
    assert relocations("We're moving from Leeds to York.", ["The user works in York and Leeds."]) == []
    assert relocations("We're moving from Leeds to York.", ["The user's brother is Leeds United mad."]) == []


# --- a plan's event named outside its dated clause ------------------------------------------------------------------------


def test_a_plan_event_named_before_its_dated_clause_is_the_same_event() -> None:
    old = "Planejado: Estou a preparar uma visita de estudo ao Gerês com o 10.º ano, marcada para 12 de março. (2026-03-12)"
    assert same_event(old, "Planejado: A visita ao Gerês passou para 26 de março (2026-03-26).")
    opening = "Plan: Abrimos a las 7:00 de lunes (2026-01-12) a sábado (2026-01-10) y el domingo (2026-01-11) cerramos."
    assert same_event(opening, "Plan: Cambio importante: desde marzo (2026-03) abrimos a las 6:30.")


def test_a_plan_naming_something_the_older_plan_never_said_is_another_event() -> None:
    old = "Planejado: Estou a preparar uma visita de estudo ao Gerês, marcada para 12 de março. (2026-03-12)"
    assert not same_event(old, "Planejado: A visita ao Porto passou para 26 de março (2026-03-26).")
    assert not same_event(
        "Aiming to launch on Steam on 6 November. (2026-11-06)",
        "We're doing a demo for Steam Next Fest in October.",
    )


# --- the swapped fact keeps the older fact's table and slot ----------------------------------------------------------


def test_a_moved_identity_fact_stays_an_identity_fact_in_its_slot() -> None:
    home = ExistingFact("7", "The user lives in Leeds.", 0.9, 1, "identity.home")
    turns = _turns("We're moving from Leeds to York in May, we found a house.")
    plan = plan_grounded(extract(turns, session_time_ms=WHEN_MS).facts, [], [home], tuple, None, turns=turns)
    moved = [n for n in plan.identity_inserts if "7" in n.supersedes]
    assert len(moved) == 1 and "York" in moved[0].content and moved[0].slot == "identity.home"
    assert not any("7" in n.supersedes_identity for n in plan.facts.inserts)
    assert sum(n.content == moved[0].content for n in plan.identity_inserts) == 1


def test_a_pinned_fact_with_a_value_swapped_stays_pinned() -> None:
    visits = ExistingFact("3", "The user visits Oma on Wednesdays and Saturdays.", 0.7, 1, "")
    turns = _turns("My visits are on Tuesdays instead of Wednesdays now.")
    plan = plan_grounded(
        extract(turns, session_time_ms=WHEN_MS).facts, [visits], [], tuple, None, turns=turns
    )
    assert any("3" in n.supersedes and "Tuesday" in n.content for n in plan.facts.inserts)
    assert not plan.identity_inserts


# --- a change naming its slot -------------------------------------------------------------------------------------------


def test_a_change_naming_its_slot_retires_the_older_holder() -> None:
    flour = "Respuesta del usuario sobre harina usáis: Harina ecológica del Molino Aurora, en Requena."
    said = "Y he cambiado de harina: ahora compro a Harinas Serrano, el Molino Aurora cerró."
    assert slot_changes(said, [flour, "El usuario tiene una panadería pequeña en Ruzafa."]) == (
        [0],
        frozenset({"harinas", "serrano"}),
    )
    # A task with the supplier the user left goes with it.
    order = "Lembrete pedido pelo usuário: fazer o pedido de chocolate na Doce Minas até sexta."
    said = "Mudei de fornecedor também: a Doce Minas atrasou três entregas, agora compro no Empório Cacau BH."
    assert slot_changes(said, [order, "O usuário se chama Fernanda."])[0] == [0]
    supplier = "The user's supplier is Pilkington Glass."
    said = "I've switched glass supplier, I'm ordering from Glasshouse Glass now rather than the catalogue people."
    assert slot_changes(said, [supplier, "The user lives in Shrewsbury."])[0] == [0]


def test_a_change_of_mind_of_something_else_or_for_a_while_retires_nothing() -> None:
    flour = "Respuesta del usuario sobre harina usáis: Harina ecológica del Molino Aurora, en Requena."
    assert slot_changes("I changed my mind, Molino Aurora is fine now.", [flour]) == ([], frozenset())
    assert slot_changes("I changed the tyres on the Volvo.", ["The user drives a Volvo."]) == (
        [],
        frozenset(),
    )
    said = "I've switched suppliers for now, ordering from Glasshouse Glass this week."
    assert slot_changes(said, ["The user's supplier is Pilkington Glass."]) == ([], frozenset())
    # The older fact already names the new holder: it is the new state.
    assert slot_changes(
        "I've switched suppliers, it's Glasshouse Glass now.", ["The user also buys from Glasshouse Glass."]
    ) == ([], frozenset())


def test_a_value_the_session_says_stays_is_not_swapped_out() -> None:
    distillery = "The user runs a wee gin distillery in Dunoon."
    opening = "Also moving the shop: we're opening a tasting room in Inveraray, not Dunoon, from September."
    revised = revisions(
        _turns(opening, "No, the stills stay in Dunoon. Just the tasting room."), [], [distillery]
    )
    assert all(0 not in r.retired for r in revised)
    assert any(0 in r.retired for r in revisions(_turns(opening), [], [distillery]))


# --- a verb relation with the holder's firm ------------------------------------------------------------------------------


def test_the_person_at_a_firm_doing_the_books_is_the_accountant_not_the_firm() -> None:
    said = "Moira's retired, Alastair Bain at Cowal Accounts does my books now."
    assert [f.value for f in relations(said, 0, "en")] == ["Alastair Bain"]
    assert [f.value for f in relations("Cowal Accounts does my books now.", 0, "en")] == ["Cowal Accounts"]


# --- one clause, one old value ------------------------------------------------------------------------------------------


def test_a_clause_anchoring_by_topic_to_unrelated_facts_retires_none() -> None:
    known = [
        "The user's boat licence renewal is due on 1 May. (2026-05-01)",
        "Felicity moved the user's deadline: final artwork is due 15 June (2026-06-15) now.",
        "The user asked to be reminded to pay the first quarter's mooring fee, it's due on the 20th (2026-05-20).",
    ]
    assert all(
        not r.retired for r in revisions(_turns("The new book's first roughs are due 2 November."), [], known)
    )


def test_one_slot_said_twice_still_goes_whole() -> None:
    known = ["The user lives in York.", "The user has lived in York since 2019 (2019)."]
    retired = {i for r in revisions(_turns("I live in Leeds now."), [], known) for i in r.retired}
    assert retired == {0, 1}


# --- the slot said by the assistant's message -------------------------------------------------------------------------


def _exchange(known: list[str], *pairs: tuple[str, str]) -> list[tuple[str | None, set[int]]]:
    turns = [SourceTurn(i, i + 1, user, assistant) for i, (user, assistant) in enumerate(pairs)]
    return [(r.fact.text if r.fact else None, set(r.retired)) for r in revisions(turns, [], known)]


def test_referring_back_revises_the_value_the_assistant_named() -> None:
    goal = "The user's goal: hit 1800 by the end of the year."
    revised = _exchange(
        [goal, "The user's coach is Stellan Berg."],
        ("My rating is now 1620.", "Excellent! The 1800 goal looks within reach."),
        (
            "Actually I've revised that. Stellan convinced me that 1700 by December is more realistic.",
            "Sensible.",
        ),
    )
    assert [(t, r) for t, r in revised if r] == [
        ("Stellan convinced the user that 1700 by December is more realistic.", {0})
    ]
    # Two older facts, one named value each: only the one whose kind the new value has is revised.
    revised = _exchange(
        ["The user's goal: hit 1800.", "Lessons are on Thursday."],
        ("Hi.", "The 1800 goal and the Thursday lessons, right?"),
        ("Actually that's changed. It's 1700 now.", "Ok."),
    )
    assert revised == [("It's 1700 now.", {0})]


def test_referring_back_to_nothing_named_or_restating_it_revises_nothing() -> None:
    goal = "The user's goal: hit 1800 by the end of the year."
    assert not any(
        r
        for _t, r in _exchange(
            [goal], ("Hi.", "How was Sheffield?"), ("I've revised that. It went 3 of 5.", "Ok.")
        )
    )
    assert not any(
        r
        for _t, r in _exchange(
            [goal],
            ("Hi.", "The 1800 goal looks close."),
            ("That's changed. Still 1800, but by March.", "Ok."),
        )
    )


def test_an_answer_to_a_question_about_now_replaces_the_older_value() -> None:
    vet = ["The user's vet is Dr Okafor.", "The user's dog is Biscuit."]
    assert _exchange(
        vet,
        ("Biscuit had her jabs.", "Great! Still with Dr Okafor?"),
        ("No, Dr Alves at Riverside now.", "Ok."),
    ) == [("No, Dr Alves at Riverside now.", {0})]
    opening = ["Plan: We open at 7:00 every day."]
    assert _exchange(
        opening, ("Morning!", "Still opening at 7:00?"), ("No, we open at 6:30 from March.", "Ok.")
    ) == [("No, we open at 6:30 from March.", {0})]


def test_a_confirming_answer_or_a_question_not_about_now_replaces_nothing() -> None:
    vet = ["The user's vet is Dr Okafor.", "The user's dog is Biscuit."]
    said = _exchange(
        vet, ("Biscuit had her jabs.", "Still with Dr Okafor?"), ("Yes, Dr Okafor and her nurse Ana.", "Ok.")
    )
    assert not any(r for _t, r in said)
    home = ["The user lives in York."]
    assert not any(
        r
        for _t, r in _exchange(home, ("Morning!", "Where do you live?"), ("In Leeds, near the park.", "Ok."))
    )


# --- a standing instruction flipped -------------------------------------------------------------------------------------


def test_a_flipped_instruction_retires_the_older_one_and_keeps_its_other_parts() -> None:
    no_emoji = "Instrução permanente do usuário: responde-me sempre em português, e sem emojis, por favor."
    (flip,) = flips("A partir de agora podes usar emojis, de vez em quando, não me importo.", [no_emoji])
    assert flip.index == 0 and "português" in flip.rest and "emoji" not in flip.rest
    reminders = "Standing instruction from the user: don't send me reminders on weekends."
    assert flips("Actually do send me reminders on weekends, I keep forgetting.", [reminders]) == [
        Flip(0, "")
    ]
    romaji = "Standing instruction from the user: give me romaji with the kana."
    assert [f.index for f in flips("Stop giving me romaji, kana only from now on.", [romaji])] == [0]
    revised = revisions(_turns("A partir de agora podes usar emojis, de vez em quando."), [], [no_emoji])
    assert [(r.retired, r.keeps_kind) for r in revised] == [((0,), True)]


def test_the_same_polarity_another_thing_or_a_statement_flips_nothing() -> None:
    no_emoji = "Instrução permanente do usuário: responde-me sempre em português, e sem emojis, por favor."
    assert flips("Sem emojis, continua assim.", [no_emoji]) == []
    assert flips("Still no emojis, please.", ["Standing instruction from the user: no emojis."]) == []
    metric = "Standing instruction from the user: keep everything in metric."
    assert flips("You can use imperial for the bike stuff.", [metric]) == []
    email = "Standing instruction from the user: write the weekly choir email every Monday."
    assert flips("I don't have time for the weekly email this week.", [email]) == []
    # Not an instruction: a fact about the user is no standing instruction to flip.
    assert flips("You can use emojis now.", ["The user never uses emojis."]) == []


def test_undated_facts_of_one_slot_all_give_way() -> None:
    known = [
        "The user's goal: their first marathon.",
        "The user's goal: under four hours, which is ambitious.",
    ]
    retired = {
        i
        for r in revisions(_turns("Just finish, ideally. So 4:30 is the target now."), [], known)
        for i in r.retired
    }
    assert retired == {0, 1}


# --- a state said to hold no longer ----------------------------------------------------------------------------------------


def test_a_state_said_to_hold_no_longer_retires_the_facts_stating_it() -> None:
    known = [
        "The user is a second-year trainee solicitor at Pembury Lowe in Birmingham.",
        "The user is CEO of Loomwise.",
        "The user works at the library on Saturdays.",
        "Der Nutzer ist Azubi bei Siemens.",
    ]
    assert negated_states("Thanks! So I'm no longer a trainee from November.", known) == [0]
    assert negated_states("Also I'm not CEO any more, we hired an experienced CEO.", known) == [1]
    assert negated_states("I don't work at the library any more.", known) == [2]
    assert negated_states("Ich bin kein Azubi mehr.", known) == [3]
    retired = {
        i
        for r in revisions(_turns("So I'm no longer a trainee from November."), [], known)
        for i in r.retired
    }
    assert retired == {0}


def test_a_trait_someone_else_or_an_instruction_is_no_negated_state() -> None:
    known = [
        "The user is a morning person.",
        "The user's brother is a trainee pilot.",
        "Standing instruction from the user: treat me as a trainee.",
    ]
    assert negated_states("I'm not a morning person.", known) == []  # no "any more": a trait said now
    assert negated_states("She's no longer a trainee.", known) == []
    assert negated_states("I'm no longer a trainee.", known) == []  # the brother and the instruction stay


# --- one thing replaced inside a mixed older fact ------------------------------------------------------------------------


def test_a_new_thing_replaces_the_one_thing_of_a_mixed_fact_and_keeps_its_place() -> None:
    team = "The user's team uses Microsoft Teams, based in Leeds."
    assert (
        swapped_thing("The team is moving to Slack next month.", team)
        == "The user's team uses Slack, based in Leeds."
    )
    revised = revisions(_turns("The team is moving to Slack next month."), [], [team])
    assert [(r.fact.text if r.fact else None, r.retired, r.keeps_kind) for r in revised] == [
        ("The user's team uses Slack, based in Leeds.", (0,), True)
    ]


def test_a_placed_new_value_two_things_or_no_place_swap_nothing() -> None:
    team = "The user's team uses Microsoft Teams, based in Leeds."
    assert swapped_thing("We're moving to an office in York.", team) == ""
    assert (
        swapped_thing("The team is moving to Slack.", "The user's team uses Microsoft Teams and Jira.") == ""
    )
    assert swapped_thing("The team is moving to Slack.", "The user's team uses Microsoft Teams.") == ""


# --- a seasonal change that is over --------------------------------------------------------------------------------------


def test_the_earlier_state_back_ends_a_seasonal_change() -> None:
    summer = "Summer change too: from June (2026-06) to September (2026-09) we'll open seven days a week, Mondays included."
    known = [summer, "The user swims on Mondays."]
    assert seasons_over("We're back to being closed on Mondays for the winter, from 2 November.", known) == [
        0
    ]
    assert seasons_over(
        "Volvemos a cerrar los lunes en invierno.", ["De junio a septiembre abrimos los lunes."]
    ) == [0]
    retired = {
        i
        for r in revisions(_turns("We're back to being closed on Mondays for the winter."), [], known)
        for i in r.retired
    }
    assert retired == {0}


def test_no_return_cue_nothing_shared_or_no_period_ends_nothing() -> None:
    summer = "From June to September we open seven days a week, Mondays included."
    assert seasons_over("We're also closed on Mondays in January.", [summer]) == []
    assert seasons_over("We're back to normal hours.", [summer]) == []
    assert (
        seasons_over("We're back to closing on Mondays.", ["We open seven days a week, Mondays included."])
        == []
    )


def test_a_thing_the_user_left_retires_the_facts_about_it_and_the_leaving_is_stored() -> None:
    job = "The user also went down to three days a week at the call centre, Monday to Wednesday."
    (revision,) = revisions(_turns("I've also quit the call centre completely."), [], [job])
    assert (
        revision.retired == (0,)
        and revision.fact is not None
        and "quit the call centre" in revision.fact.text
    )
    assert negated_states(
        "Autre chose : j'ai quitté Kerhervé.", ["L'utilisateur est menuisier chez Kerhervé."]
    ) == [0]
    assert negated_states("I left my keys at the club.", ["The user trains at the club."]) == []


def test_off_a_treatment_ends_it_but_a_trip_or_a_day_off_does_not() -> None:
    known = [
        "The user is on haemodialysis three times a week.",
        "The user lives in Paris.",
        "The user works at Acme.",
    ]
    assert negated_states("The kidney is working. I'm off dialysis.", known) == [0]
    assert negated_states("I'm off to Paris next week.", known) == []
    assert negated_states("I'm off work today.", known) == []


def test_a_day_or_a_month_is_no_thing_to_swap() -> None:
    old = "The user will put potatoes in around Good Friday, 3 April. (2026-04-03)"
    assert swapped_thing("Potatoes are going in this Saturday, 11 April, instead.", old) == ""


def test_a_flip_cuts_only_the_part_about_the_flipped_thing() -> None:
    vocab = (
        "Standing instruction from the user: When you give me vocab, always include the kana and the romaji, and the "
        "kanji only if it's on the N4 list."
    )
    (flip,) = flips("Stop giving me romaji, kana only from now on.", [vocab])
    assert "romaji" not in flip.rest and "kana" in flip.rest and "kanji" in flip.rest


def test_a_thing_sold_retires_the_users_answer_about_it_but_not_a_relations_fact() -> None:
    scope = "The user's answer about observe: A 200mm Dobsonian, a Skywatcher, I've had it three years."
    assert negated_states("Also I've sold the Dobsonian.", [scope]) == [0]
    assert negated_states("I've sold the Dobsonian.", ["The user's brother owns a Dobsonian."]) == []
    assert negated_states("I've sold the Dobsonian.", ["Frère de l'utilisateur : Dobsonian."]) == []


# --- one value of a closed slot excludes the other ---------------------------------------------------------------------


def test_full_time_now_retires_part_time() -> None:
    known = [
        "The user teaches music part-time at Queen Elizabeth High.",
        "The user teaches music at the Abbey.",
    ]
    said = "And I've been made head of music at the school, full-time now, so I need less admin."
    assert excluded(said, known) == [0]
    (revision,) = revisions(_turns(said), [], known)
    assert revision.retired == (0,) and revision.fact is not None and "head of music" in revision.fact.text


def test_someone_elses_time_or_the_same_value_retires_nothing() -> None:
    known = ["The user teaches music part-time at Queen Elizabeth High.", "The user's wife works full-time."]
    assert excluded("My wife is part-time now.", known) == []  # not the user's
    assert excluded("I'm still part-time, it suits me now.", known) == []  # the same value
    assert excluded("I'm full-time now.", known) == [0]  # the wife's fact stays


def test_a_yes_to_a_question_about_now_changes_nothing() -> None:
    known = [
        "The user is training for the Manchester marathon on 19 April.",
        "The user's coach is Deb Okafor.",
    ]
    said = _exchange(
        known,
        ("Hi.", "Still training with Deb for Manchester?"),
        ("Yes, Deb and Kirsty now, 19 April.", "Ok."),
    )
    assert not any(r for _t, r in said)


def test_a_thing_allowed_again_retires_the_list_its_verb_holds() -> None:
    diet = "Standing instruction from the user: never suggest bananas, potatoes unless double-boiled, or tomato stuff."
    # The thing sits with the instruction's verb: what the rest of its list still forbids is unknown.
    assert flips("And potassium isn't restricted any more, bananas are back!", [diet]) == [Flip(0, "")]
    assert flips("Bananas are a pain to carry.", [diet]) == []


# --- a date said to have changed, its event unsaid -----------------------------------------------------------------------


def test_a_rebooked_date_moves_the_one_plan_dated_near_it() -> None:
    practical = "The practical is booked for June 18 (2026-06-18)."
    assert redated(
        "Have you rebooked? Yeah, the next slot is August 14.",
        "The next slot is August 14 (2026-08-14).",
        [practical],
    ) == [0]
    turns = [
        SourceTurn(0, 1, "Failed the practical.", "Sorry. Have you rebooked?"),
        SourceTurn(1, 2, "Yeah, the next slot is August 14.", "Noted."),
    ]
    facts = extract(turns, session_time_ms=1_783_000_000_000).facts
    assert any(0 in r.retired for r in revisions(turns, facts, [practical]))


def test_two_plans_near_the_new_day_no_cue_or_a_far_plan_move_nothing() -> None:
    new = "The next slot is August 14 (2026-08-14)."
    both = ["The practical is booked for June 18 (2026-06-18).", "The theory test is on 2 July (2026-07-02)."]
    assert redated("Have you rebooked? Yeah, the next slot is August 14.", new, both) == []
    assert redated("Yeah, my cousin's wedding is August 14.", new, both[:1]) == []
    assert (
        redated("The next slot is August 14.", new, ["The practical was booked for 3 January (2026-01-03)."])
        == []
    )
