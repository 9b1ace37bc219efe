"""Corrections supersede, in the general case: the slot is named from the role noun, the verb class, the schedule's
days, the job or home change, or the event moved, and what must not supersede does not (two pets, a second friend,
an addition, a hypothetical, someone else's change).

Each test runs real sessions through the extractor and verifier (`ground`) and the writer's supersession plan
(`plan_grounded`) over an in-memory pool of the agent's active facts, in session order, as memoryd does."""

from __future__ import annotations

from memoryd.write.grounding.moves import job_change, moved_home
from memoryd.write.grounding.quantities import quantity
from memoryd.write.grounding.roles import read_roles, role_key
from memoryd.write.grounding.schedule import (
    DAILY,
    changes_schedule,
    moved_schedule,
    replaces_schedule,
    weekdays,
)
from memoryd.write.grounding.slotfill import instruction_aspect
from tests.support.grounded_agent import Agent, corrected, kept


def test_a_role_noun_outside_the_relation_lexicon_names_the_slot_in_five_languages() -> None:
    said = [
        ("Our supervising social worker is Bethan Pryce from the Swansea team.", "en", "social_worker"),
        ("Mon assistant à la mise en scène, c'est Gaël Le Bihan.", "fr", "assistant"),
        ("Mi higienista es Marisol y la recepcionista, Begoña.", "es", "hygienist"),
        ("Ja, mein Pate im Imkerverein ist Herr Baumgärtner.", "de", "mentor"),
        ("Minha barista principal é a Jussara, ela é incrível.", "pt", "barista"),
        ("My new endocrinologist is Dr. Anand Mistry.", "en", "endocrin"),
    ]
    for text, lang, key in said:
        assert [f.slot for f in read_roles(text, 0, lang)][:1] == [f"relation.{key}"], text


def test_one_role_in_other_genders_and_words_is_one_key() -> None:
    assert role_key("gestor") == role_key("gestora") == role_key("bookkeeper") == "accountant"
    assert role_key("assistant") == role_key("assistante") == role_key("Assistentin")
    assert role_key("Patin") == role_key("mentor")
    assert role_key("endocrinologist") == role_key("endocrinóloga")
    assert role_key("friend") == ""


def test_a_new_holder_of_a_role_supersedes_the_old_one() -> None:
    corrected(
        "Marisol",
        "Nuria Ferrando",
        "Mi higienista es Marisol.",
        then=("Marisol se ha ido a una clínica en Castellón; la nueva higienista es Nuria Ferrando.",),
    )
    corrected(
        "Ernesto",
        "Marisa",
        "Mi gestor es Ernesto Lasheras, me lleva la contabilidad.",
        then=("Mi nueva gestora es Marisa Ortún, de Ortún y Asociados.",),
    )
    corrected(
        "Bethan",
        "Owain",
        "Our supervising social worker is Bethan Pryce.",
        then=("Bethan has gone on maternity leave, so our new supervising social worker is Owain Rees.",),
    )
    corrected("Drummond", "Adeyemi", "My PI, Professor Hamish Drummond, is great.",
               then=("Funmilayo Adeyemi has taken over as my PI.",))  # fmt: skip


def test_a_supplier_by_its_verb_class_is_replaced_by_a_change_of_supplier() -> None:
    corrected(
        "Santa Inês",
        "Pedra Branca",
        "Compro café especial da Fazenda Santa Inês, no Sul de Minas.",
        then=("Troquei de fornecedor: agora o café vem do Sítio Pedra Branca, o preço é melhor.",),
    )
    corrected("Oakmill", "Ballyhale", "My flour comes from Oakmill Organics in Kilkenny.",
               then=("So, I switched flour suppliers, I'm with Ballyhale Mills now, Oakmill kept missing deliveries.",))  # fmt: skip


def test_someone_hurt_is_replaced_by_who_runs_the_job_now() -> None:
    corrected("Luis", "Carla", "My contractor is Luis Ortega, he did my brother's basement.",
               then=("Luis broke his wrist, so his business partner Carla Nguyen is running the job now.",))  # fmt: skip


def test_another_persons_role_and_a_second_friend_supersede_nothing() -> None:
    assert read_roles("My sister's new tutor is Ana Lopez.", 0, "en") == []
    kept("Elena", "My tutor is Elena Ruiz.", then=("My sister's new tutor is Ana Lopez.",))
    agent = kept("Tom", "My friend Tom Baker is coming to the climbing trip.",
                  then=("Another friend, Sam Price, is coming too.",))  # fmt: skip
    assert not [t for t in agent.stored("Sam") if not agent.active("Sam")]


def test_two_different_roles_and_two_pets_are_two_slots() -> None:
    kept("Marisol", "Mi higienista es Marisol.", then=("La nueva recepcionista es Lorena Gil.",))
    kept("Rex", "My dog is called Rex, a collie.", then=("We also adopted a cat called Luna last week.",))


# ---------------------------------------------------------------------------------------------------- schedules
def test_weekdays_in_five_languages_plural_and_daily() -> None:
    assert weekdays("Meine Besuche sind jetzt dienstags statt mittwochs") == {1, 2}
    assert weekdays("le lundi soir, Les Tréteaux du Lundi") == {0}
    assert weekdays("aos domingos e às terças") == {6, 1}
    assert weekdays("Ich besuche ihn jetzt fast täglich") == {DAILY}


def test_a_changed_schedule_replaces_the_older_days_of_its_activity() -> None:
    old = "We train Wednesday evenings at Market Road pitches."
    assert replaces_schedule(old, "From April we train at Highbury Fields on Tuesdays instead.")
    assert replaces_schedule(
        "Les répétitions ont lieu le lundi soir.", "On passe au mardi soir, une seule répétition."
    )
    assert replaces_schedule("Quero lançar um brunch aos domingos.", "O brunch mudou pra sábado, no domingo não teve movimento.")  # fmt: skip
    assert replaces_schedule("We play every other Sunday afternoon at my flat.",
                             "We're going weekly now, Thursday evenings, because Sundays clash with new jobs.")  # fmt: skip
    corrected("Wednesday", "Tuesdays", "We train Wednesday evenings at Market Road pitches.",
               then=("The pitch is being resurfaced, so from April we train at Highbury Fields on Tuesdays instead.",))  # fmt: skip


def test_an_addition_another_activity_or_a_part_still_true_keeps_the_older_schedule() -> None:
    assert not changes_schedule("On ajoute une répétition le jeudi soir, en plus du lundi.")
    assert not replaces_schedule("Swimming is on Mondays.", "Yoga moved to Thursdays now.")
    # The matches on Sunday still hold when only training moves.
    assert not replaces_schedule(
        "We train Wednesday evenings at Market Road and play Sunday mornings in the Youth League.",
        "From April we train at Highbury Fields on Tuesdays instead.",
    )
    kept("lundis", "Nous répétons tous les lundis soir à Chantenay.",
          then=("On ajoute une répétition le jeudi soir à partir d'avril, en plus du lundi.",))  # fmt: skip


def test_a_moved_schedule_with_the_activity_as_subject_is_read() -> None:
    agent = Agent()
    agent.session("Rehearsals are Wednesday evenings in St Paul's church hall.")
    agent.session("And rehearsals moved to Thursdays, the church hall was sold.")
    assert agent.active("Thursday") and not agent.active("Wednesday")
    kept = Agent()
    kept.session("Rehearsals are Wednesday evenings in St Paul's church hall.")
    kept.session("If rehearsals moved to Thursdays I would have to quit.")
    assert kept.active("Wednesday")


# ----------------------------------------------------------------------------------------------- jobs and homes
def test_a_job_change_retires_the_older_role_and_employer() -> None:
    found = job_change("And I've changed jobs, left the National Park, now I work for the Environment Agency as a "
                       "flood-risk analyst.", 0, "en")  # fmt: skip
    assert [f.slot for f in found] == ["identity.employer", "identity.role"]
    corrected("Royal Infirmary", "Queen Elizabeth", "I'm Zara, I work as a radiographer at the Royal Infirmary.",
               then=("Big news, I got the senior radiographer post at the Queen Elizabeth University Hospital.",))  # fmt: skip


def test_someone_elses_job_or_a_hypothetical_one_changes_nothing() -> None:
    assert job_change("My sister left her job and works for Google now.", 0, "en") == []
    assert job_change("If I quit I'd work for a charity.", 0, "en") == []


def test_a_move_names_the_new_home_and_a_hypothetical_move_does_not() -> None:
    home = moved_home(
        "Et du coup je déménage de Modane à Lanslebourg, c'est à deux minutes des pistes.", 0, "fr"
    )
    assert home is not None and home.value == "Lanslebourg"
    corrected("Modane", "Lanslebourg", "Moi c'est Yannick, j'habite à Modane.",
               then=("Et du coup je déménage de Modane à Lanslebourg, c'est à deux minutes des pistes.",))  # fmt: skip
    assert moved_home("If I moved to Lisbon I'd learn Portuguese.", 0, "en") is None
    assert moved_home("My brother moved to Leeds last year.", 0, "en") is None
    kept("Porto", "I live in Porto.", then=("If I moved to Lisbon I'd learn to surf.",))


# ------------------------------------------------------------------------------------------------------- events
def test_a_new_date_said_of_it_after_the_event_moved_supersedes_that_event_only() -> None:
    agent = Agent()
    agent.session("My granddaughter Lily is getting married on June 6 in Halifax.", "My dentist appointment is on May 3.")  # fmt: skip
    agent.session("Oh dear, Lily moved the wedding. It's now September 12, the hotel had a flood.")
    assert agent.active("September 12")
    assert not agent.active("June 6")
    assert agent.active("May 3")


def test_a_this_year_earlier_start_is_the_same_event() -> None:
    corrected("outubro", "setembro", "A colheita começa em outubro, normalmente na segunda semana.",
               then=("Este ano a colheita começa mais cedo, a 28 de setembro, por causa do calor.",))  # fmt: skip


def test_a_plain_schedule_is_read_only_as_activity_copula_days() -> None:
    plain = moved_schedule("Lessons are Thursdays at 7pm over Zoom", 0, "en")
    assert plain is not None and plain.slot == "routine.lesson"
    assert moved_schedule("Swimming is great on Mondays", 0, "en") is None
    assert moved_schedule("My sister's lessons are Mondays", 0, "en") is None
    moved = moved_schedule(
        "A correction for your notes: my lessons are on Tuesdays now, Stellan started a course on Thursdays",
        0,
        "en",
    )
    assert moved is not None and "Stellan" not in moved.text
    corrected("Thursdays", "Tuesdays", "Lessons are Thursdays at 7pm over Zoom.",
               then=("A correction for your notes: my lessons are on Tuesdays now, Stellan started a course on "
                     "Thursdays.",))  # fmt: skip


def test_a_one_off_day_is_no_plain_schedule() -> None:
    assert moved_schedule("The kickoff is on Tuesday", 0, "en") is None
    assert moved_schedule("Las clases son los martes", 0, "es") is not None


# --------------------------------------------------------------------------------------------------- quantities
def test_a_count_of_the_same_noun_is_one_slot_and_a_new_number_replaces_it() -> None:
    rate = quantity("Yes please, but three sessions a week max", 0, "en")
    assert rate is not None and (rate.slot, rate.value) == ("count.sess", "3")
    assert quantity("Er hat Pflegegrad 2", 0, "de") is not None
    corrected("four players", "five players", "So we're four players now.",
               then=("Ife joined after all, so we're back to five players.",))  # fmt: skip
    corrected("magnitude 10", "magnitude 12", "Skip anything below magnitude 10, my scope struggles.",
               then=("Yes, you can go down to magnitude 12 now for target lists.",))  # fmt: skip


def test_another_persons_count_or_a_hypothetical_one_is_no_fact() -> None:
    assert quantity("My sister does three sessions a week", 0, "en") is None
    assert quantity("If we were five players I'd run a heist", 0, "en") is None
    kept("four players", "So we're four players now.", then=("My brother's group is six players.",))


def test_an_instruction_about_one_aspect_is_replaced_by_the_next_about_it() -> None:
    assert (
        instruction_aspect("cite everything in APA style, never numbered references")
        == "instruction.citation"
    )
    assert instruction_aspect("use Harvard referencing") == "instruction.citation"
    assert instruction_aspect("never add VAT") == "instruction.tax"
    assert instruction_aspect("sign them 'Bao x', never 'Best regards'") == "instruction.signoff"
    corrected("APA", "Harvard", "Please cite everything in APA style, never numbered references.",
               then=("From now on please use Harvard referencing, the school here insists on it.",))  # fmt: skip


def test_a_specialist_who_retires_is_replaced_by_the_one_the_user_is_handed_over_to() -> None:
    corrected("Hargreaves", "Mistry", "My endocrinologist is Dr. Felicity Hargreaves at St James's.",
               then=("News: Dr. Hargreaves is retiring, so I've been handed over to Dr. Anand Mistry at the same "
                     "clinic.",))  # fmt: skip


def test_a_budget_is_a_target_amount_and_a_new_one_replaces_it() -> None:
    corrected("25k", "30k", "Budget is 25k pounds maximum, that's non-negotiable.",
               then=("And the budget went up to 30k because the grandparents chipped in.",))  # fmt: skip


def test_a_role_said_as_changed_or_a_service_that_comes_names_the_holder() -> None:
    corrected("Olivenhaus", "Berger", "Temos um importador na Alemanha, a Olivenhaus, em Colónia.",
               then=("E o importador alemão mudou: a Olivenhaus fechou, agora vendemos para a Ölmühle Berger.",))  # fmt: skip
    corrected("Diakoniestation", "Lebensbaum", "Die Diakoniestation Baunatal kommt morgens und abends.",
               then=("Jetzt kommt der Pflegedienst Lebensbaum.",))  # fmt: skip
    assert read_roles("My sister's supplier changed, now it is Acme.", 0, "en") == []


def test_the_users_own_verb_names_a_changed_schedule_and_daily_replaces_a_weekday() -> None:
    moved = moved_schedule("Ich besuche ihn jetzt fast täglich kurz nach der Schule", 0, "de")
    assert moved is not None and moved.slot == "routine.besuch"
    assert replaces_schedule("Meine Besuche sind jetzt dienstags.", moved.text)
    assert moved_schedule("I go there on Mondays", 0, "en") is None  # no change said: the rules' business


def test_a_supplier_of_one_thing_is_not_replaced_by_a_supplier_of_another() -> None:
    kept("Dairy Best", "I buy my milk from Dairy Best.", then=("I buy my flour from Oakmill Organics.",))
    assert read_roles("My new favourite is Radiohead.", 0, "en") == []


def test_an_edition_by_its_year_and_a_limit_on_a_thing_are_counted() -> None:
    edition = quantity("We use 5e, the 2014 rules, not the 2024 revision", 0, "en")
    assert edition is not None and (edition.slot, edition.value) == ("count.rule", "2014")
    limit = quantity("Please keep practice plans under thirty minutes a day", 0, "en")
    later = quantity("You can make the practice plans up to 45 minutes now", 0, "en")
    assert limit is not None and later is not None and limit.slot == later.slot
    assert (limit.value, later.value) == ("30", "45")
    assert quantity("I was born in 1990", 0, "en") is None


def test_a_role_outside_the_lexicon_names_one_slot_in_both_genders() -> None:
    """ "Pfarrer" / "Pfarrerin" (no lexicon entry): the feminine is read in its masculine form, so a new holder of the
    other gender replaces the old one's slot; a word barely longer than the ending is left alone."""
    from memoryd.write.grounding.extract import extract
    from memoryd.write.grounding.model import SourceTurn
    from memoryd.write.grounding.roles import masculine

    def slots(text: str) -> list[str]:
        facts = extract([SourceTurn(0, 0, text, "OK.")], session_time_ms=1_770_120_000_000).facts
        return [f.slot for f in facts]

    assert slots("Unser Pfarrer ist Herr Dünnebier.") == slots(
        "Unsere neue Pfarrerin ist Frau Okafor-Lindner."
    )
    assert slots("Unser Pfarrer ist Herr Dünnebier.") == ["relation.pfarrer"]
    assert masculine("Coiffeuse") == masculine("coiffeur") == "coiffeur"
    assert masculine("infirmière") == "infirmier"
    assert masculine("abogada") == "abogado"
    assert masculine("nada") == "nada"
    assert masculine("plumber") == "plumber"
