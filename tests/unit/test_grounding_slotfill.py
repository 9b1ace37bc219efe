"""The slot-filling reader: a correction lands in the slot of the fact it corrects, and supersedes it."""

from __future__ import annotations

from collections.abc import Sequence

from memoryd.write.grounding import Extraction, GroundedFact, SourceTurn, extract
from memoryd.write.grounding.slotfill import (
    contrast,
    goal,
    instruction_aspect,
    relations,
    shift,
    switched,
    tool_use,
)
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _run(*users: str) -> Extraction:
    turns = [SourceTurn(i, 700 + i, user, "Okay.") for i, user in enumerate(users)]
    return extract(turns, session_time_ms=SESSION_MS)


def _slots(extraction: Extraction) -> dict[str, str]:
    return {f.slot: f.text for f in extraction.facts if f.slot}


def _pool(*facts: tuple[str, str]) -> list[ExistingFact]:
    return [ExistingFact(str(n), text, 0.7, 1, slot) for n, (text, slot) in enumerate(facts, 1)]


def _retired(facts: Sequence[GroundedFact], pool: Sequence[ExistingFact]) -> set[str]:
    plan = plan_grounded(facts, pool, [], lambda turns: tuple(turns))
    pinned = {old for new in plan.facts.inserts for old in new.supersedes}
    # An identity fact replaces a pinned fact of its slot from the other table.
    return pinned | {old for new in plan.identity_inserts for old in new.supersedes_pinned}


# ------------------------------------------------------------------------------------------------ relations
def test_a_relation_noun_with_a_change_adjective_or_qualifier_fills_the_relation_slot() -> None:
    said = [
        (
            "I signed up with a new dentist, Dr. Mirza, near the office.",
            "en",
            "relation.dentist",
            "Dr. Mirza",
        ),
        ("Mon nouveau kiné du sport est M. Fabre.", "fr", "relation.physio", "M. Fabre"),
        ("A minha nova médica de família é a Dra. Lopes.", "pt", "relation.doctor", "Dra. Lopes"),
        ("Unser neuer Steuerberater heißt Herr Vogel.", "de", "relation.accountant", "Herr Vogel"),
    ]
    for text, lang, slot, name in said:
        found = relations(text, 0, lang)
        assert [(f.slot, f.value) for f in found] == [(slot, name)], text


def test_a_verb_class_names_the_relation_without_its_noun() -> None:
    assert [f.slot for f in relations("Since March Dr. Ana Costa is supervising me.", 0, "en")] == [
        "relation.manager"
    ]
    assert [f.value for f in relations("A woman called Jo Hart keeps our accounts now.", 0, "en")] == [
        "Jo Hart"
    ]
    assert [f.value for f in relations("Jo Hart keeps our dog when we travel.", 0, "en")] == []
    assert [f.slot for f in relations("Agora sou acompanhado pelo Dr. Rui Matos.", 0, "pt")] == [
        "relation.doctor"
    ]


def test_no_relation_without_a_name_or_without_the_user() -> None:
    assert relations("My new manager is great so far.", 0, "en") == []
    assert relations("Her doctor is Dr. Bell.", 0, "en") == []


# ---------------------------------------------------------------------------------------- shifts and goals
def test_a_work_shift_is_read_from_its_noun_in_five_languages() -> None:
    said = [
        ("They've moved me onto nights from next week.", "en", "night"),
        ("Je travaille désormais de nuit.", "fr", "de nuit"),
        ("Me han puesto en el turno de tarde.", "es", "turno de tarde"),
        ("Ab Mai habe ich Nachtschicht.", "de", "Nachtschicht"),
        ("Passei para o turno da manhã.", "pt", "turno da manhã"),
    ]
    for text, lang, value in said:
        fact = shift(text, 0, lang)
        assert fact is not None and fact.slot == "identity.shift" and fact.value == value, text
    assert shift("I finished two days ago.", 0, "en") is None
    assert shift("Mi hermana trabaja en el turno de noche.", 0, "es") is None


def test_a_goal_restated_with_a_quantity_is_in_the_slot_of_what_it_measures() -> None:
    weight = goal("Changed my target weight: 71 kg now.", 0, "en")
    time = goal("Mon objectif passe à 3h45 pour le marathon.", 0, "fr")
    amount = goal("Subimos la meta a 5000 euros.", 0, "es")
    assert weight is not None and (weight.slot, weight.value) == ("target.weight", "71 kg")
    assert time is not None and time.slot == "target.time"
    assert amount is not None and amount.slot == "target.amount"
    assert goal("My goal is to be happier.", 0, "en") is None


# -------------------------------------------------------------------------------------------------- tools
def test_a_tool_used_and_a_tool_switched_to_share_the_purpose_slot() -> None:
    used = tool_use("We invoice our clients with FreeAgent.", 0, "en")
    moved = switched("We switched to Xero for invoices last week.", 0, "en")
    assert used is not None and used.slot.startswith("tool.invoic")
    assert moved is not None and moved.slot == "choice." + used.slot[5:] and moved.value == "Xero"
    assert tool_use("We live in Leeds.", 0, "en") is None
    assert switched("I moved to Portland last weekend.", 0, "en") is None


def test_a_switch_retires_the_old_tool_named_in_its_sentence() -> None:
    pool = _pool(("The user uses Trello to plan sprints.", "tool.sprint"))
    facts = _run("We've migrated over to Jira, Trello couldn't cope with the load.").facts
    assert "1" in _retired(facts, pool)


# ------------------------------------------------------------------------------------------------ contrast
def test_a_corrected_alternative_is_cut_out_and_retired() -> None:
    assert contrast("The standup is on Wednesdays, not Mondays.") == (
        "The standup is on Wednesdays",
        "Monday",
    )
    assert contrast("We're staying in Porto instead of Lisbon.") == ("We're staying in Porto.", "Lisbon")
    # What the user asks for keeps its "not": a lowercase alternative is no corrected value.
    assert contrast("Give me amounts in grams, not cups.") == ("Give me amounts in grams, not cups.", "")
    pool = _pool(("Team retro is on Monday (2026-12-07).", "plan.retro"))
    facts = _run("The retro is on Friday, not Monday, sorry.").facts
    assert "1" in _retired(facts, pool)


# ------------------------------------------------------------------------------------- end to end, per slot
def test_corrections_supersede_the_fact_of_the_slot_they_name() -> None:
    cases = [
        (
            ("The user's dentist is Dr. Mirza.", "relation.dentist"),
            "I've registered with another dentist, Dr. Osei.",
        ),
        (("The user works night shift.", "identity.shift"), "From Monday they're putting me on earlies."),
        (("The user's goal: 90 kg.", "target.weight"), "I lowered the weight target to 85 kg."),
        (("The user is profesor.", "identity.role"), "Ya no enseño; ahora soy diseñador."),
    ]
    for old, said in cases:
        assert "1" in _retired(_run(said).facts, _pool(old)), said


def test_a_since_date_is_no_plan() -> None:
    assert not [
        f for f in _run("Seit Montag arbeite ich in der Spätschicht.").facts if f.slot.startswith("plan.")
    ]
    assert "identity.shift" in _slots(_run("Seit Montag arbeite ich in der Spätschicht."))


# ----------------------------------------------------------------------------------------------- successors
def test_someone_taking_over_gets_the_role_of_the_person_replaced() -> None:
    pool = _pool(
        ("The user's physio is Dr. Anand.", "relation.physio"),
        ("The user's manager is Claire Dubois.", "relation.manager"),
    )
    facts = _run("Dr. Anand retired, and Dr. Ruth Obi has taken over her patients.").facts
    plan = plan_grounded(facts, pool, [], lambda turns: tuple(turns))
    [new] = [f for f in plan.facts.inserts if "Obi" in f.content]
    assert (new.content, new.slot, new.supersedes) == (
        "The user's physio is Dr. Ruth Obi.",
        "relation.physio",
        ("1",),
    )
    # German word order, and someone away rather than gone.
    pool = _pool(("Fliesenleger des Nutzers: Herr Brandt.", "relation.tiler"))
    facts = _run("Herr Brandt ist krank, deshalb übernimmt sein Kollege Herr Aydin die Arbeiten.").facts
    assert "1" in _retired(facts, pool)


def test_a_successor_without_a_known_role_stays_a_plain_fact() -> None:
    facts = _run("Marta left the company and Jonas Berg took over.").facts
    plan = plan_grounded(facts, [], [], lambda turns: tuple(turns))
    assert [(f.slot, f.supersedes) for f in plan.facts.inserts if "Jonas" in f.content] == [("", ())]
    assert not _run("My colleague Tom took over the project.").facts or all(
        f.slot != "relation.successor" for f in _run("My colleague Tom took over the project.").facts
    )


def test_tools_in_other_languages_are_read_with_prepositions_of_means_only() -> None:
    fr = tool_use("On gère les devis avec Pennylane.", 0, "fr")
    de = tool_use("Wir verwalten unsere Tickets mit Jira.", 0, "de")
    assert fr is not None and fr.value == "Pennylane" and fr.slot.startswith("tool.devi")
    assert de is not None and de.value == "Jira"
    # "in" is followed by a place as often as by a tool.
    assert tool_use("Wir verwalten das Geld in Frankfurt.", 0, "de") is None
    assert tool_use("We plan to stay in Rome.", 0, "en") is None


def test_a_provider_or_employer_said_as_where_the_user_is_now() -> None:
    provider = switched("I'm now with Octopus for electricity.", 0, "en")
    assert provider is not None and provider.value == "Octopus"
    assert switched("I'm with Sam now.", 0, "en") is None
    [bank] = [f for f in _run("We're with Monzo now, not Lloyds.").facts if f.value == "Monzo"]
    assert ("thing", "Lloyds") in bank.replaces
    slots = _slots(_run("I quit my job at Deloitte; I'm at KPMG now."))
    assert slots.get("identity.employer") == "The user works at KPMG."
    assert "identity.employer" not in _slots(_run("I'm at Gatwick now, the flight is late."))


def test_a_relation_held_by_a_company_is_named() -> None:
    [fact] = relations("Our new landlord is a firm called Homely.", 0, "en")
    assert (fact.slot, fact.value) == ("relation.landlord", "Homely")
    assert relations("Our new landlord is a nice guy.", 0, "en") == []


def test_a_changed_relation_takes_the_person_said_as_the_new_one() -> None:
    assert (
        _slots(_run("Cambié de dentista; ahora voy a la Dra. Soler."))
        .get("relation.dentist", "")
        .endswith("Dra. Soler.")
    )
    assert "relation.doctor" in _slots(_run("Troquei de médico. Agora vou ao Dr. Neves."))
    # A name nearby that is not said as the new one (a pet, here) is no vet.
    assert "relation.vet" not in _slots(_run("We're changing vets. Biscuit hated the old place."))
    # The user moving is nobody leaving a role.
    assert not [
        f for f in _run("We've moved to a new vet, Dr. Ng.").facts if ("person", "We've") in f.replaces
    ]


def test_a_standing_instruction_about_one_aspect_is_replaced_by_the_next_about_it() -> None:
    assert instruction_aspect("keep the answers short") == "instruction.length"
    assert instruction_aspect("réponds-moi toujours de façon détaillée") == "instruction.length"
    assert instruction_aspect("give me quantities in grams") == "instruction.units"
    assert instruction_aspect("keep it short and give code in Python") == ""  # two aspects: no slot
    assert instruction_aspect("never use bullet points") == ""  # formats add up
    pool = _pool(("Standing instruction from the user: always keep answers short.", "instruction.length"))
    assert "1" in _retired(_run("From now on, give me detailed answers please.").facts, pool)


def test_no_relation_from_a_verb_a_name_with_its_own_verb_or_someone_who_left() -> None:
    assert relations("My dentist is great, Dr. Ruiz is retiring though.", 0, "en") == []
    assert relations("I'd love a new GP, Dr. Amin is always late.", 0, "en") == []
    assert "relation.dentist" not in _slots(_run("My dentist is lovely; Dr. Ruiz retired though."))
    assert shift("I need to work nights to finish the report.", 0, "en") is None


def test_another_persons_change_is_not_the_users() -> None:
    assert "relation.doctor" not in _slots(_run("Mon frère a changé de médecin, c'est maintenant le Dr Roy."))
    assert "relation.doctor" in _slots(_run("He cambiado de médico: ahora es la Dra. Ruiz."))  # "he" = I have
    assert shift("My partner switched to night shifts.", 0, "en") is None
    assert shift("He cambiado al turno de noche.", 0, "es") is not None
