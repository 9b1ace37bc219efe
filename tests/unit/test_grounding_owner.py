"""One word shared with an older fact makes one topic only when it is the user's word (grounding/owner.py): another
person's job, offer or move is no revision of the user's work, plans or schedule (issue 22, session 15)."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract, ground
from memoryd.write.grounding.owner import someone_elses
from memoryd.write.grounding.revisions import _anchored, _masked, revisions
from memoryd.write.grounding.text import light_stem
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded
from tests.support.grounded_agent import SESSION_MS, WEEK_MS, Agent, kept


def _shared(word: str) -> frozenset[str]:
    return frozenset({light_stem(word)})


@pytest.mark.parametrize(
    ("said", "word", "names"),
    [
        ("A Andrés le han ofrecido trabajo en Alicante.", "trabajo", {"andres"}),
        ("My husband got offered a job in Leeds.", "job", set()),
        ("Mon mari a trouvé un travail à Lyon.", "travail", set()),
        ("Ihm wurde eine Stelle in Köln angeboten.", "stelle", set()),
        ("Ao Pedro ofereceram trabalho em Braga.", "trabalho", {"pedro"}),
    ],
)
def test_a_word_of_someone_elses_is_theirs(said: str, word: str, names: set[str]) -> None:
    assert someone_elses(said, _shared(word), frozenset(names))


@pytest.mark.parametrize(
    ("said", "word"),
    [
        ("Me han ofrecido trabajo en Alicante.", "trabajo"),
        ("I got offered a job in Leeds.", "job"),
        ("On m'a proposé un travail à Lyon.", "travail"),
        ("Mir wurde eine Stelle in Köln angeboten.", "stelle"),
        ("My boss moved my review to Friday.", "review"),
        ("Potatoes are going in on 11 April instead.", "potatoes"),
        ("Ofereceram-me trabalho em Braga.", "trabalho"),
    ],
)
def test_a_word_of_the_users_or_of_no_one_is_not(said: str, word: str) -> None:
    assert not someone_elses(said, _shared(word), frozenset({"braga", "leeds", "lyon", "koln", "alicante"}))


def test_a_name_after_a_place_preposition_is_where_not_who() -> None:
    assert not someone_elses("I start work in Alicante in May.", _shared("work"), frozenset({"alicante"}))


_SCHEDULE = "Plan: Cambio de horario: desde marzo (2027-03) trabajo de mañana todos los días."


def test_another_persons_job_offer_does_not_anchor_to_the_users_work_schedule() -> None:
    said = "A Andrés le han ofrecido trabajo en Alicante y nos mudamos en septiembre."
    assert _anchored([said], [_masked(_SCHEDULE)], [_SCHEDULE])[0] == []


def test_the_users_own_change_of_that_schedule_still_anchors() -> None:
    said = "Me han movido el trabajo al turno de noche desde septiembre."
    assert _anchored([said], [_masked(_SCHEDULE)], [_SCHEDULE])[0] == [0]
    plan = "The user starts the job on 20 April (2027-04-20)."
    assert _anchored(["I start the job on 4 May instead."], [_masked(plan)], [plan])[0] == [0]


def _retired_by(said: str, older: str) -> list[str]:
    turns = [SourceTurn(0, 7, said, "Okay.")]
    facts = ground(turns, None, session_time_ms=SESSION_MS + 12 * WEEK_MS).facts
    pinned = [ExistingFact("old", older, 0.7, 1, "plan.horari")]
    plan = plan_grounded(facts, pinned, [], lambda idx: tuple(idx), turns=turns)
    return [i for new in plan.facts.inserts for i in new.supersedes]


def test_lucias_schedule_survives_her_husbands_job_offer() -> None:
    """The shape of the main set's lucia-3: the husband's offer, said with a date and "nos mudamos", retired the
    user's schedule plan through one shared word (changes.py's changed date, supersede.py `_older_dates`)."""
    old = "Plan: Cambio de horario: desde marzo (2027-03) trabajo de mañana todos los días."
    assert (
        _retired_by("Hola. A Andrés le han ofrecido trabajo en Alicante y nos mudamos en septiembre.", old)
        == []
    )
    assert _retired_by("Hola. Me han ofrecido trabajo en Alicante y nos mudamos en septiembre.", old) == [
        "old"
    ]


# ------------------------------------------------------------------------- the town of a job is where one works
@pytest.mark.parametrize(
    ("said", "works", "lives"),
    [
        ("I'm Tom, a nurse in Leeds.", "The user works as a nurse in Leeds.", "The user lives in Leeds."),
        (
            "Je suis Marie, infirmière à Lyon.",
            "L'utilisateur travaille comme infirmière à Lyon.",
            "L'utilisateur habite à Lyon.",
        ),
        (
            "Soy Ana, enfermera en Sevilla.",
            "El usuario trabaja como enfermera en Sevilla.",
            "El usuario vive en Sevilla.",
        ),
        (
            "Ich bin Anna Weber, Gemeindereferentin in Fulda.",
            "Der Nutzer arbeitet als Gemeindereferentin in Fulda.",
            "Der Nutzer wohnt in Fulda.",
        ),
        (
            "Sou a Rita, enfermeira em Braga.",
            "O usuário trabalha como enfermeira em Braga.",
            "O usuário mora em Braga.",
        ),
    ],
)
def test_the_town_of_a_job_held_is_where_the_user_works_not_where_they_live(
    said: str, works: str, lives: str
) -> None:
    texts = [f.text for f in extract([SourceTurn(0, 0, said, "Okay.")], session_time_ms=SESSION_MS).facts]
    assert works in texts and lives not in texts, texts


def test_the_town_of_a_retired_role_stays_where_the_user_lives() -> None:
    said = "I'm Dolores Finch, I'm 71 and a retired nurse in Norwich."
    texts = [f.text for f in extract([SourceTurn(0, 0, said, "Okay.")], session_time_ms=SESSION_MS).facts]
    assert "The user lives in Norwich." in texts and "The user works in Norwich." not in texts


@pytest.mark.parametrize(
    ("first", "then", "town"),
    [
        ("Hi, I'm Omar, a nurse in Birmingham.", "We've moved, I'm in Bristol now.", "Birmingham"),
        ("Hola, soy Amparo, farmacéutica en Zaragoza.", "Vivo en Huesca desde marzo.", "Zaragoza"),
        ("Je suis Marie, infirmière à Lyon.", "J'habite à Grenoble maintenant.", "Lyon"),
    ],
)
def test_a_new_home_elsewhere_retires_the_town_the_job_was_placed_in(
    first: str, then: str, town: str
) -> None:
    agent = Agent(with_turns=True)
    agent.session(first)
    # The job's town is stored: as the workplace said with the role ("… travaille comme infirmière à Lyon."), or,
    # where the role fact already says it ("The user is a nurse in Birmingham."), in the role's words (the
    # workplace said with the same role and town is then the same statement, not stored twice).
    assert agent.active(town)
    agent.session(then)
    assert not [t for t in agent.active(town) if "works" in t or "trabaja" in t or "travaille" in t], (
        agent.rows
    )


def test_a_home_in_the_same_town_or_a_workplace_named_otherwise_stays() -> None:
    agent = Agent(with_turns=True)
    agent.session("Ich bin Anna, Gemeindereferentin in Fulda.")
    agent.session("Ich wohne in Fulda.")
    assert "Der Nutzer arbeitet als Gemeindereferentin in Fulda." in agent.active("arbeitet")
    kept("works at a bakery", "I work at a bakery.", then=("We've moved, I'm in Bristol now.",))


# ------------------------------------------------------------------------------- a change named as a noun is a cue
_WEEK = (
    "Plan: Trabajo de mañana lunes (2026-01-26), miércoles (2026-01-28) y viernes (2026-01-30), y de tarde martes "
    "(2026-01-27) y jueves (2026-01-29)."
)


def _retires(known: str, said: str) -> bool:
    turns = [SourceTurn(0, 0, said, "Okay.")]
    session = extract(turns, session_time_ms=SESSION_MS).facts
    return any(0 in r.retired for r in revisions(turns, session, [known]))


def test_a_change_named_as_a_noun_revises_the_users_schedule() -> None:
    assert _retires(
        _WEEK, "Cambio de horario: desde marzo trabajo de mañana todos los días, se acabaron las tardes."
    )


def test_a_change_of_subject_is_no_revision_of_the_schedule() -> None:
    assert not _retires(_WEEK, "Cambio de tema: Marta empieza ballet los jueves a las cinco.")
