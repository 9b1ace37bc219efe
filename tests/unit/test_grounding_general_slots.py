"""Supersession that does not hang on the verb (issue 22, session 15): the slot comes from the relation noun, the
shift, the event's head noun or the activity, whatever verb says the change.

Each rule is shown both ways: the correction it must read, in more than one language, and the look-alike it must
leave alone (a one-off weekday, a modal, a winner who is no one of the user's, a stop on the way, someone else's
activity, an imperative)."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import FactKind, SourceTurn, extract
from memoryd.write.grounding.dates import find_dates, weekday_span
from memoryd.write.grounding.stale import ACTIVITY, LEFT_JOB, PERSON, stale_mentions
from memoryd.write.grounding.text import fold, light_stem
from memoryd.write.grounding.word_family import same_family
from tests.support.grounded_agent import SESSION_MS, Agent, corrected, kept


def _facts(*users: str) -> list[tuple[str, str, str]]:
    turns = [SourceTurn(i, 900 + i, user, "Okay.") for i, user in enumerate(users)]
    return [(f.slot, f.value, f.text) for f in extract(turns, session_time_ms=SESSION_MS).facts]


# ------------------------------------------------------------------------------------ a span of the week is no date
@pytest.mark.parametrize(
    "said",
    [
        "I'm on nights Sunday to Wednesday.",
        "We're open Tuesday-Saturday.",
        "Je travaille du lundi au vendredi.",
        "Abrimos de lunes a viernes.",
        "Ich arbeite Montag bis Freitag.",
        "Trabalho de segunda a sexta.",
    ],
)
def test_two_weekdays_joined_as_a_span_are_a_weekly_pattern_not_dates(said: str) -> None:
    assert weekday_span(said) is not None
    assert find_dates(said, SESSION_MS) == []


@pytest.mark.parametrize(
    "said",
    ["I'm seeing her on Sunday.", "Je la vois lundi.", "Wir treffen uns am Freitag.", "Nos vemos el lunes."],
)
def test_a_single_weekday_is_still_the_next_such_day(said: str) -> None:
    assert weekday_span(said) is None
    assert len(find_dates(said, SESSION_MS)) == 1


def test_a_shift_keeps_its_days_and_a_new_shift_replaces_it() -> None:
    assert ("identity.shift", "night", "The user works the night shift, Sunday to Wednesday.") in _facts(
        "I'm on nights Sunday to Wednesday, so please never suggest things before noon."
    )
    # "May" the month is no modal: the shift said after "from May" is read.
    assert any(
        slot == "identity.shift" and value == "day" for slot, value, _ in _facts("From May I'm on days.")
    )
    corrected(
        "night shift",
        "day shift",
        "I'm on nights Sunday to Wednesday.",
        then=("Rota's changed: from May I'm on days, Monday to Thursday, 7 till 7.",),
    )


@pytest.mark.parametrize(
    "said",
    ["We're open Tuesday to Sunday, closed Mondays.", "Tenho uma ajudante, a Jéssica, de terça a sábado."],
)
def test_a_span_of_the_week_of_the_users_is_kept_as_a_routine_without_a_date(said: str) -> None:
    routines = [text for slot, _, text in _facts(said) if slot.startswith("routine.")]
    assert len(routines) == 1 and "(20" not in routines[0], _facts(said)


def test_a_span_said_with_a_shift_is_the_shifts_and_a_span_not_of_the_users_no_routine() -> None:
    facts = _facts("I'm on nights Sunday to Wednesday, so please never suggest things before noon.")
    assert not [f for f in facts if f[0].startswith(("routine.", "plan."))], facts
    assert not [
        f for f in _facts("The shop down the road is open Monday to Friday.") if f[0].startswith("routine.")
    ]


def test_a_modal_before_a_shift_still_reads_none() -> None:
    assert not any(slot == "identity.shift" for slot, _, _ in _facts("I may work nights next month."))


# ------------------------------------------------------------------------------- a role said without a possessive
@pytest.mark.parametrize(
    ("old", "new", "first", "then"),
    [
        (
            "Shona Grant",
            "Calum Reid",
            "Supervisor is Shona Grant, decent sort.",
            "New supervisor there is Calum Reid.",
        ),
        (
            "Gillian Hoskins",
            "Piran Trewin",
            "My ward manager is Gillian Hoskins.",
            "Our new ward manager is a lad called Piran Trewin.",
        ),
        ("Dr. Ruiz", "Dr. Park", "Dentist is Dr. Ruiz.", "My dentist is a woman named Dr. Park now."),
        (
            "Marc Dubois",
            "Luc Pasquier",
            "Mon comptable est Marc Dubois.",
            "Comptable est Luc Pasquier maintenant.",
        ),
    ],
)
def test_a_role_noun_names_its_slot_without_my_or_with_a_person_introduced(
    old: str, new: str, first: str, then: str
) -> None:
    corrected(old, new, first, then=(then,))


@pytest.mark.parametrize(
    "said",
    [
        "The winner is Tom Hale.",
        "Paris is lovely.",
        "London is Tom's city.",
        "Weather is Lovely today.",
        "Dinner is Thai tonight.",
    ],
)
def test_a_bare_noun_that_is_no_role_or_a_definite_one_without_a_person_names_no_one(said: str) -> None:
    assert not [f for f in _facts(said) if f[0].startswith("relation.")], _facts(said)


# ------------------------------------------------------------------------------------- a holder handing the role on
@pytest.mark.parametrize(
    ("said", "who"),
    [
        ("Philomena has stepped down from the rotas, Colm Furness took over.", "Philomena"),
        ("Rhys has sold Coral Cove, so I buy from Aquatic Haven now.", "Rhys"),
        ("Mme Bazin a passé la main à son fils.", "Mme Bazin"),
        ("Ramón dimitió el mes pasado.", "Ramón"),
        ("Herr Becker ist zurückgetreten.", "Herr Becker"),
        ("A Matilde demitiu-se.", "Matilde"),
    ],
)
def test_someone_who_stepped_down_or_sold_up_left_the_role(said: str, who: str) -> None:
    assert any(m.scope == PERSON and m.value.endswith(who.split()[-1]) for m in stale_mentions(said))


@pytest.mark.parametrize("said", ["I sold my car to Tom.", "Tom sold his bike.", "We stopped at Tesco."])
def test_selling_a_thing_or_stopping_on_the_way_retires_no_one(said: str) -> None:
    assert stale_mentions(said) == ()


def test_a_coordinator_who_stepped_down_is_replaced_by_who_took_over() -> None:
    corrected(
        "Philomena Pell",
        "Colm Furness",
        "The volunteer coordinator is a woman called Philomena Pell, she does the rotas.",
        then=("Philomena has stepped down from the rotas, Colm Furness took over last week.",),
    )


# --------------------------------------------------------------------------------------- an activity given up
@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("I no longer do the Ludlow market.", "Ludlow"),
        ("We've stopped going to Pilates.", "Pilates"),
        ("Par contre, je ne fais plus le marché de Lons le jeudi.", "Lons"),
        ("Ya no voy a la feria de Trujillo.", "Trujillo"),
        ("Ich gehe nicht mehr auf den Markt in Lons.", "Markt"),
        ("Já não faço a feira de Barcelos.", "Barcelos"),
    ],
)
def test_an_activity_given_up_names_what_it_retires(said: str, value: str) -> None:
    assert (ACTIVITY, value) in [(m.scope, m.value) for m in stale_mentions(said)]


@pytest.mark.parametrize(
    "said",
    [
        "My sister no longer does the Lons market.",
        "Should I stop going to Pilates?",
        "If I no longer did Lons, …",
    ],
)
def test_someone_elses_or_a_doubted_activity_retires_nothing(said: str) -> None:
    assert not [m for m in stale_mentions(said) if m.scope == ACTIVITY]


def test_a_market_given_up_retires_the_fact_that_named_it_and_other_facts_stay() -> None:
    agent = Agent(with_turns=True)
    agent.session(
        "Je vends surtout au marché de Lons-le-Saunier le jeudi.",
        "Mon vétérinaire, c'est le docteur Villemin, de Dole.",
    )
    assert agent.active("Lons-le-Saunier") and agent.active("Villemin")
    agent.session(
        "Par contre, je ne fais plus le marché de Lons le jeudi, je suis passé à Poligny le samedi."
    )
    assert not agent.active("Lons-le-Saunier"), agent.rows
    assert agent.stored("Lons-le-Saunier") and agent.active("Poligny") and agent.active("Villemin"), (
        agent.rows
    )


# ------------------------------------------------------------------------------ an event moved, named by its noun
def test_an_event_noun_opening_a_sentence_is_its_subject_not_an_imperative() -> None:
    plans = _facts("Show's been moved to 6 January because of the fields being flooded.")
    assert any(slot.startswith("plan.") and "(2027-01-06)" in text for slot, _, text in plans), plans
    assert not [f for f in _facts("Show me the plan on Monday.") if f[0].startswith("plan.")]


def test_a_show_moved_replaces_the_shows_date_and_not_another_event() -> None:
    agent = kept(
        "Cardiff",
        "I've got the county show on 30 December, shoeing demonstration at 2pm.",
        "The Cardiff fair is on 28 December.",
        then=("Show's been moved to 6 January because of the fields being flooded.",),
    )
    assert not agent.active("30 December") and agent.stored("30 December"), agent.rows
    assert agent.active("6 January"), agent.rows


def test_kinds_are_what_the_readers_store() -> None:
    turns = [SourceTurn(0, 1, "Supervisor is Shona Grant, decent sort.", "Okay.")]
    facts = extract(turns, session_time_ms=SESSION_MS).facts
    assert [f.kind for f in facts if f.slot == "relation.manager"] == [FactKind.RELATION]


# ----------------------------------------------------------------------- a date changed, its event by word family
@pytest.mark.parametrize(
    ("a", "b"),
    [("livrer", "livraison"), ("deliver", "delivery"), ("entrega", "entregar"), ("Lieferung", "liefern")],
)
def test_a_noun_and_its_verb_are_one_word_family(a: str, b: str) -> None:
    assert same_family(light_stem(fold(a)), light_stem(fold(b)))


@pytest.mark.parametrize(("a", "b"), [("parc", "partir"), ("dentist", "dental"), ("match", "market")])
def test_words_sharing_a_few_letters_are_no_family(a: str, b: str) -> None:
    assert not same_family(light_stem(a), light_stem(b))


def test_a_delivery_moved_replaces_the_task_dated_with_its_verb_and_not_another() -> None:
    agent = Agent()
    agent.session(
        "Je dois leur livrer la carte des sentiers de randonnée le 27 février.",
        "Je dois aussi envoyer le devis au musée le 20 février.",
    )
    assert agent.active("27 février") and agent.active("20 février"), agent.rows
    agent.session("Le parc a décalé la livraison : finalement ce sera le 13 mars.")
    assert not agent.active("27 février") and agent.stored("27 février"), agent.rows
    assert agent.active("13 mars") and agent.active("20 février"), agent.rows


def test_a_family_word_in_the_sentence_before_the_new_date_retires_nothing() -> None:
    kept(
        "14 juin",
        "On participe au concours des fromagers du Doubs, le dimanche 14 juin, à Ornans.",
        then=(
            "Gaëtan a quitté l'affaire, il part s'installer dans le Jura. "
            "C'est Maëlys qui fait les marchés du samedi maintenant.",
        ),
    )


# ------------------------------------------------------------------------------------------ a job the user left
@pytest.mark.parametrize(
    ("said", "who"),
    [
        ("I no longer work for Acme Corp, I'm freelance now.", "Acme Corp"),
        ("Je ne travaille plus pour M. Roux.", "M. Roux"),
        ("Ya no trabajo para Ortún.", "Ortún"),
        ("Ich arbeite nicht mehr für Frau Wolf.", "Frau Wolf"),
        ("E já não trabalho para a Custódia, agora sou eu a chefe.", "Custódia"),
    ],
)
def test_no_longer_working_for_someone_is_a_job_left(said: str, who: str) -> None:
    scopes = {m.scope for m in stale_mentions(said) if m.value == who}
    assert {PERSON, LEFT_JOB} <= scopes, stale_mentions(said)


@pytest.mark.parametrize(
    "said", ["My wife no longer works for Acme.", "Should I stop working for Acme?", "I work for Acme."]
)
def test_someone_elses_or_a_doubted_job_is_none_left(said: str) -> None:
    assert not [m for m in stale_mentions(said) if m.scope == LEFT_JOB]


def test_a_job_left_retires_the_workplace_and_the_boss_and_keeps_the_profession() -> None:
    agent = Agent(with_turns=True)
    agent.session(
        "Olá, sou a Leonor, sou restauradora, trabalho numa oficina na Rua das Flores.",
        "A minha chefe é a Custódia Pinheiro.",
    )
    assert agent.active("Rua das Flores") and agent.active("Custódia"), agent.rows
    agent.session("A oficina de Gaia já abriu. E já não trabalho para a Custódia, agora sou eu a chefe.")
    assert not agent.active("Rua das Flores") and not agent.active("Chefe do usuário"), agent.rows
    assert agent.active("restauradora"), agent.rows


SESSION_15_MS = 1_795_000_000_000  # 2026-11-18


@pytest.mark.parametrize(
    "text",
    ["I play at the Saturday market gigs in Camden.", "My Tuesday classes are full.", "our Sunday lunches"],
)
def test_a_weekday_naming_a_weekly_thing_is_no_date(text: str) -> None:
    """ "the Saturday market gigs" (hand check, session 15: resolved as 2026-11-07 and stored as a plan)."""
    assert find_dates(text, SESSION_15_MS) == []


@pytest.mark.parametrize(
    "text", ["The Saturday meeting is cancelled.", "my Saturday plans changed", "I see her on Saturday."]
)
def test_a_weekday_naming_one_occasion_keeps_its_date(text: str) -> None:
    assert [m.iso for m in find_dates(text, SESSION_15_MS)] == ["2026-11-21"]
