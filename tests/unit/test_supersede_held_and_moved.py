"""Two corrections the blind set v11 showed unlinked (distill40).

- A place, district or holder the user is no longer with, said after a preposition ("responsible for Radolfzell
  now, no longer for Petershausen"): grounding/stale.py scope "held"; supersede.py retires the facts that stored it
  as where the user lives or works, their employer, or a role's holder that is no person of their family.
- A thing dropped ("I've stopped using Zest") retires a role's holder that is no person too ("The user's supplier
  is Zest Flowers", relation.stem_supplier), never a friend or a sibling named the same.
- A date moved, said after an earlier date in passing ("It rained a lot in May, so the harvest moved to June 16"):
  the event is the clause that says the move (grounding/event.py), so the older plan of the harvest is replaced.
"""

from __future__ import annotations

import pytest

from memoryd.write.grounding import FactKind, GroundedFact, SourceTurn, ground
from memoryd.write.grounding.event import event_key, same_event
from memoryd.write.grounding.schedule import replaces_schedule
from memoryd.write.grounding.stale import HELD, THING, stale_mentions
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000
_DAY_MS = 86_400_000


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("From July I'm responsible for Radolfzell, no longer for Petershausen.", "Petershausen"),
        ("À partir de juillet je m'occupe de Radolfzell, plus pour Petershausen.", "Petershausen"),
        ("Desde julio llevo Radolfzell, ya no para Petershausen.", "Petershausen"),
        ("Ab Juli bin ich für Radolfzell zuständig, nicht mehr für Petershausen.", "Petershausen"),
        ("A partir de julho fico com Radolfzell, já não para Petershausen.", "Petershausen"),
        ("I buy at the market now, not at Zest any more.", "Zest"),
    ],
)
def test_a_place_or_holder_no_longer_the_users_is_said_held(said: str, value: str) -> None:
    assert (HELD, value) in [(m.scope, m.value) for m in stale_mentions(said)]


@pytest.mark.parametrize(
    "said",
    [
        "My sister is no longer in Leeds, she moved to York.",  # someone else's place
        "Meine Schwester wohnt nicht mehr in Leeds.",
        "Am I still responsible for Petershausen, or no longer for Petershausen?",  # a question
        "Il y a plus pour Marie que pour Paul.",  # "plus" as "more", no clause of the user's
        "I no longer for a moment believed it.",  # no name after the preposition
    ],
)
def test_someone_elses_place_a_question_or_no_name_is_not_held(said: str) -> None:
    assert HELD not in [m.scope for m in stale_mentions(said)]


def _retired(fact: GroundedFact, pool: list[ExistingFact]) -> set[str]:
    plan = plan_grounded([fact], pool, [], lambda idx: tuple(idx))
    return {i for new in plan.facts.inserts for i in new.supersedes}


def test_a_district_no_longer_held_retires_the_role_and_the_home_not_a_plan_or_a_friend() -> None:
    pool = [
        ExistingFact("1", "Kehrbezirk des Nutzers: Konstanz-Petershausen.", 0.7, 1, "relation.kehrbezirk"),
        ExistingFact("2", "Der Nutzer wohnt in Petershausen.", 0.7, 1, "identity.home"),
        ExistingFact("3", "Geplant: am 3. Mai Fest in Petershausen.", 0.7, 1, "plan.fest"),
        ExistingFact("4", "Freund des Nutzers: Petershausen.", 0.7, 1, "relation.friend.petershausen"),
    ]
    new = GroundedFact(
        FactKind.PLAN,
        "Geplant: Ab Juli (2026-07) bin ich für Radolfzell zuständig, nicht mehr für Petershausen.",
        "plan.radolfzel",
        "Ab Juli bin ich für Radolfzell zuständig, nicht mehr für Petershausen",
        (0,),
        0.7,
        False,
        replaces=((HELD, "Petershausen"),),
    )
    assert _retired(new, pool) == {"1", "2"}


def test_a_dropped_supplier_is_retired_a_friend_of_the_same_name_is_not() -> None:
    pool = [
        ExistingFact("1", "The user's supplier is Zest Flowers.", 0.7, 1, "relation.stem_supplier"),
        ExistingFact("2", "The user's friend is Zest.", 0.7, 1, "relation.friend.zest"),
    ]
    new = GroundedFact(
        FactKind.PLAN,
        "The user drives up to New Covent Garden market every Thursday now.",
        "routine.market",
        "I drive up to New Covent Garden market myself every Thursday now",
        (0,),
        0.7,
        False,
        replaces=((THING, "Zest"),),
    )
    assert _retired(new, pool) == {"1"}


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("It rained a lot in May (2026-05), so the harvest moved to June 16 (2026-06-16).", {"harvest"}),
        ("Il a plu en mai (2026-05), donc la récolte est passée au 16 juin (2026-06-16).", {"recolt"}),
        ("Llovió en mayo (2026-05), así que la cosecha pasó al 16 de junio (2026-06-16).", {"cosech"}),
        (
            "Im Mai (2026-05) hat es geregnet, deshalb wurde die Ernte auf den 16. Juni (2026-06-16) verschoben.",
            {"ernt"},
        ),
        (
            "Choveu imenso em maio (2026-05), por isso a tiragem passou para 16 de junho (2026-06-16).",
            {"tiragem"},
        ),
    ],
)
def test_the_event_is_the_clause_that_says_the_move(text: str, key: set[str]) -> None:
    assert event_key(text) == key


def test_without_a_move_the_first_dated_clause_still_names_the_event() -> None:
    # No clause says a move to its date: the earlier reading stands (the rain, which no older plan holds).
    assert event_key(
        "Choveu imenso em maio (2026-05), por isso a tiragem começa a 16 de junho (2026-06-16)."
    ) == {
        "choveu",
        "imens",
    }


def _later(users: list[str], pool: list[tuple[str, str]], days: int = 20) -> set[str]:
    turns = [SourceTurn(i, 700 + i, user, "Ok.") for i, user in enumerate(users)]
    facts = ground(turns, None, session_time_ms=SESSION_MS + days * _DAY_MS).facts
    existing = [ExistingFact(str(n), text, 0.7, 1, slot) for n, (text, slot) in enumerate(pool, 1)]
    plan = plan_grounded(facts, existing, [], lambda t: tuple(t))
    return {old for new in plan.facts.inserts for old in new.supersedes}


def test_a_moved_harvest_replaces_its_plan_not_another_events() -> None:
    old = "Planejado: A tiragem deste ano começa a 2 de junho (2027-06-02), se o tempo ajudar."
    other = "Planejado: A feira de Coruche é a 2 de junho (2027-06-02)."
    assert same_event(
        old, "Planejado: Choveu imenso em maio, por isso a tiragem passou para 16 de junho (2027-06-16)."
    )
    retired = _later(
        ["Choveu imenso em maio, por isso a tiragem passou para 16 de junho."],
        [(old, "plan.ano"), (other, "plan.feira")],
    )
    assert retired == {"1"}


# --- weekly schedules: an English plural day is a habit ("on Tuesdays"), and a day given up is the day left


def _facts(said: str) -> list[tuple[str, str]]:
    turns = [SourceTurn(0, 900, said, "Ok.")]
    return [(f.slot, f.text) for f in ground(turns, None, session_time_ms=SESSION_MS).facts]


def test_a_habit_on_plural_weekdays_is_read() -> None:
    facts = _facts("I go to the walking club on Tuesdays and Thursdays, round the canal.")
    assert (
        "routine.club",
        "The user goes to the walking club on Tuesdays and Thursdays, round the canal.",
    ) in facts


@pytest.mark.parametrize(
    "said",
    [
        "I hate Mondays.",  # no activity said with the day
        "Anna goes to the walking club on Tuesdays.",  # someone else's habit (family habits are kept by design)
        "I used to go to the walking club on Tuesdays.",  # past
        "My teacher is Mererid, she comes on Thursdays.",  # the teacher's schedule, not the user's habit
        "I've booked a tutor, Sensei Hanae, Mondays and Thursdays at 8am.",  # when she is met, no "on"
    ],
)
def test_a_plural_weekday_without_a_habit_of_the_users_is_no_routine(said: str) -> None:
    assert not [slot for slot, _ in _facts(said) if slot.startswith("routine.")]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "The user is open Tuesday to Saturday, ten till five.",
            "From April the user is dropping Saturdays: the user will work Monday to Thursday instead.",
        ),
        ("Ouvert du mardi au samedi.", "J'arrête le samedi : maintenant je travaille du lundi au jeudi."),
        ("Abro de martes a sábado.", "Dejo los sábados: ahora trabajo de lunes a jueves."),
        ("Geöffnet Dienstag bis Samstag.", "Samstag fällt weg, jetzt arbeite ich Montag bis Donnerstag."),
        ("Abro de terça a sábado.", "Deixo os sábados: agora trabalho de segunda a quinta."),
    ],
)
def test_a_day_given_up_is_the_day_the_new_schedule_leaves(old: str, new: str) -> None:
    assert replaces_schedule(old, new)


def test_a_day_kept_is_not_left() -> None:
    # Nothing given up, and the days are an addition: the old schedule stands.
    assert not replaces_schedule(
        "The user is open Tuesday to Saturday.", "The user also works Mondays now, as well as Saturdays."
    )


# --- a weekly schedule said with "it" of the activity the sentence before says changed (grounding/reschedule.py)


@pytest.mark.parametrize(
    "said",
    [
        "The walking club's changed days on me. It's Mondays and Wednesdays now, the leader has a new job.",
        "Le club de marche a changé de jours. C'est le lundi et le mercredi maintenant.",
        "El club de marcha cambió los días. Ahora son los lunes y los miércoles.",
        "Der Wanderclub hat die Tage geändert. Jetzt ist es montags und mittwochs.",
        "O clube de caminhada mudou os dias. Agora é às segundas e quartas.",
    ],
)
def test_a_schedule_said_with_it_after_its_activity_changed_is_read(said: str) -> None:
    assert [slot for slot, _ in _facts(said) if slot.startswith("routine.")]


@pytest.mark.parametrize(
    "said",
    [
        "The walking club changed its leader. It's Mondays and Wednesdays, as always.",  # no change said of days
        "The walking club's changed days. Is it Mondays and Wednesdays now?",  # a question
        "The walking club might change days. It's Mondays and Wednesdays now, maybe.",  # a hedge
    ],
)
def test_a_schedule_said_with_it_and_no_change_is_not_read(said: str) -> None:
    assert not [slot for slot, _ in _facts(said) if slot.startswith("routine.")]


def test_the_walking_club_said_with_it_replaces_its_older_days() -> None:
    old = "The user goes to the walking club on Tuesdays and Thursdays, round the canal."
    retired = _later(
        ["The walking club's changed days on me. It's Mondays and Wednesdays now, the leader has a new job."],
        [(old, "routine.club"), ("The user swims on Saturdays.", "routine.swim")],
    )
    assert retired == {"1"}


# --- a start date said with "we" keeps the sentence before that names the work (grounding/antecedent.py)


@pytest.mark.parametrize(
    ("said", "word"),
    [
        ("Big job this year: the chapel roof at Saint-Patern. We begin on April 6.", "chapel"),
        ("Gros chantier cette année : la toiture de la chapelle. On démarre le 6 avril.", "chapelle"),
        ("Gran obra este año: el tejado de la capilla. Empezamos el 6 de abril.", "capilla"),
        ("Große Baustelle dieses Jahr: das Dach der Kapelle. Wir starten am 6. April.", "Kapelle"),
        ("Grande obra este ano: o telhado da capela. Começamos a 6 de abril.", "capela"),
    ],
)
def test_a_start_date_said_with_we_keeps_the_work_named_before(said: str, word: str) -> None:
    assert any(word in text for slot, text in _facts(said) if slot.startswith("plan."))


def test_a_start_date_with_its_work_said_keeps_no_sentence_before() -> None:
    facts = _facts("It's freezing today. We start the chapel roof on 6 April.")
    assert [text for slot, text in facts if slot.startswith("plan.") and "freezing" in text] == []


def test_a_start_verb_or_a_negation_names_no_event() -> None:
    # "la chapelle ne démarre que le 4 mai" is the chapel's date: neither "démarre" nor "ne" is the event.
    assert event_key("Prévu : la chapelle ne démarre que le 4 mai (2026-05-04).") == {"chapel"}
    assert event_key("Planejado: a obra da capela começa a 4 de maio (2026-05-04).") == {"obra", "capel"}
