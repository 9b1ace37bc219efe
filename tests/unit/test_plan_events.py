"""A corrected date supersedes the plan of the same event, whatever head word each wording gives the slot."""

from __future__ import annotations

from memoryd.write.grounding import FactKind, GroundedFact, SourceTurn, ground
from memoryd.write.grounding.event import event_key, events_of, moves_date, same_event
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import latest_per_slot, plan_grounded

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000
_DAY_MS = 86_400_000


def _later(users: list[str], pool: list[tuple[str, str]], days: int = 20) -> set[str]:
    """The pool ids the plan of a later session retires."""
    turns = [SourceTurn(i, 700 + i, user, "Okay.") for i, user in enumerate(users)]
    facts = ground(turns, None, session_time_ms=SESSION_MS + days * _DAY_MS).facts
    existing = [ExistingFact(str(n), text, 0.7, 1, slot) for n, (text, slot) in enumerate(pool, 1)]
    plan = plan_grounded(facts, existing, [], lambda t: tuple(t))
    return {old for new in plan.facts.inserts for old in new.supersedes}


def _first(users: list[str]) -> list[tuple[str, str]]:
    turns = [SourceTurn(i, 500 + i, user, "Okay.") for i, user in enumerate(users)]
    return [(f.text, f.slot) for f in ground(turns, None, session_time_ms=SESSION_MS).facts]


def test_the_event_is_the_dated_clause_without_dates_verbs_or_reasons() -> None:
    # "launch" and "release" are one event (grounding/synonyms.py): the key holds their class's head word.
    assert event_key("We're launching the mobile app on October 1 (2027-10-01), so the user is busy.") == {
        "release",
        "mobil",
        "app",
    }
    assert event_key("The launch moves to October 6 (2027-10-06) because of the app store review.") == {
        "release"
    }
    # What a rescheduling verb acts on is the event, not who moved it.
    assert event_key("The department moved the deadline to September 11 (2026-09-11).") == {"deadline"}
    # A bare dated clause takes its label ("New launch date: May 3").
    assert event_key("New launch date: May 3 (2027-05-03).") == {"release"}
    # Who it is with names the event too, a pronoun as well.
    assert "with:ela" in event_key("Planejado: A consulta com ela é a 2 de abril. (2026-04-02)")


def test_a_later_wording_may_say_less_never_something_else() -> None:
    old = "The user's sister's wedding is on June 14 (2027-06-14) and the user is giving a speech."
    assert same_event(old, "The wedding got pushed to June 21 (2027-06-21), the venue double-booked.")
    dentist = "The user has a dentist appointment on March 3 (2027-03-03)."
    assert not same_event(dentist, "The user has a physio appointment on March 10 (2027-03-10).")
    assert not same_event(
        "The board meeting is on May 4 (2027-05-04).", "The team dinner is on May 9 (2027-05-09)."
    )


def test_a_date_must_change_and_the_event_must_be_unambiguous() -> None:
    assert moves_date("The launch is on May 3 (2027-05-03).", "The launch moves to May 9 (2027-05-09).")
    assert not moves_date(
        "The launch is on May 3 (2027-05-03).", "Reminder: the launch is May 3 (2027-05-03)."
    )
    grant = "The grant deadline is May 1 (2027-05-01)."
    thesis = "The thesis deadline is May 20 (2027-05-20)."
    # "The deadline moved" with two deadlines held: which one is unknown, so neither is retired.
    assert events_of("They moved the deadline to May 9 (2027-05-09).", [grant, thesis]) == []
    assert events_of("They moved the thesis deadline to June 2 (2027-06-02).", [grant, thesis]) == [1]


def test_corrected_dates_supersede_across_wordings_and_languages() -> None:
    cases = [
        (["We're launching the mobile app on October 1, so I'm busy with QA."],
         ["Quick update: the launch moves to October 6 because of the app store review."]),
        (["My sister's wedding is on June 14 and I'm giving a speech."],
         ["The wedding got pushed to June 21, the venue double-booked."]),
        (["A viagem a Lisboa é no dia 9 de abril."], ["Adiámos a viagem a Lisboa para 16 de abril."]),
        (["Tengo el examen de conducir el 5 de mayo."], ["Me cambiaron el examen de conducir al 12 de mayo."]),
        (["Das Kickoff-Meeting ist am 4. Februar in Berlin."], ["Das Kickoff-Meeting wurde auf den 11. Februar verschoben."]),
        (["Le vernissage est prévu le 14 mai."], ["Le vernissage a été repoussé au 21 mai."]),
    ]  # fmt: skip
    for before, after in cases:
        pool = [fact for fact in _first(before) if fact[1].startswith("plan.")]
        assert len(pool) == 1, (before, pool)
        assert _later(after, pool) == {"1"}, (before, after)


def test_another_event_or_the_same_date_retires_nothing() -> None:
    pool = _first(["I have a dentist appointment on March 3."])
    assert _later(["I have a physio appointment on March 10."], pool) == set()
    assert _later(["Just confirming the dentist appointment on March 3."], pool, days=0) == set()


# ------------------------------------------------------------------------------------------- across tables
def _fact(text: str, slot: str, value: str, *, identity: bool) -> GroundedFact:
    kind = FactKind.IDENTITY if identity else FactKind.PREFERENCE
    return GroundedFact(kind, text, slot, value, (0,), 0.8, identity)


def test_a_pinned_fact_supersedes_an_identity_fact_of_its_slot_and_vice_versa() -> None:
    identity = [ExistingFact("7", "The user lives in Porto.", 1.0, 1, "identity.home")]
    pinned = [ExistingFact("7", "The user is vegetarian.", 0.7, 1, "preference.diet")]
    moved = _fact("The user moved to Braga.", "identity.home", "Braga", identity=False)
    plan = plan_grounded([moved], pinned, identity, lambda t: tuple(t))
    (insert,) = plan.facts.inserts
    assert (insert.supersedes, insert.supersedes_identity, plan.superseded) == ((), ("7",), 1)
    vegan = _fact("The user is vegan.", "preference.diet", "vegan", identity=True)
    plan = plan_grounded([vegan], pinned, identity, lambda t: tuple(t))
    (new,) = plan.identity_inserts
    assert (new.supersedes, new.supersedes_pinned, plan.superseded) == ((), ("7",), 1)


def test_a_value_the_other_table_already_holds_is_bumped_not_duplicated() -> None:
    identity = [ExistingFact("3", "The user lives in Porto.", 1.0, 1, "identity.home")]
    again = _fact("The user is based in Porto.", "identity.home", "Porto", identity=False)
    plan = plan_grounded([again], [], identity, lambda t: tuple(t))
    assert plan.facts.inserts == () and plan.identity_bumps == ("3",) and plan.superseded == 0


def test_within_a_session_plans_go_by_event_not_by_slot() -> None:
    def plan(text: str, turn: int) -> GroundedFact:
        return GroundedFact(FactKind.PLAN, text, "plan.appoint", text, (turn,), 0.7, False)

    dentist = plan("The user has a dentist appointment on March 3 (2027-03-03).", 0)
    physio = plan("The user has a physio appointment on March 10 (2027-03-10).", 1)
    assert latest_per_slot([dentist, physio]) == [dentist, physio]
    moved = plan("The dentist appointment moved to March 5 (2027-03-05).", 2)
    assert latest_per_slot([dentist, physio, moved]) == [physio, moved]


# ---------------------------------------------------------------------------------- qualified relations
def test_a_qualified_relation_replaces_the_bare_one_when_it_is_the_only_one() -> None:
    adviser = _fact(
        "The user's thesis adviser is Professor Okafor.", "relation.thesis_adviser", "Okafor", identity=False
    )
    one = [ExistingFact("4", "The user's adviser is Professor Lind.", 0.7, 1, "relation.adviser")]
    plan = plan_grounded([adviser], one, [], lambda t: tuple(t))
    assert plan.facts.inserts[0].supersedes == ("4",)
    # Two doctors held (an eye doctor and a GP): which one "my doctor" means is unknown, neither is replaced.
    doctor = _fact("The user's doctor is Dr. Green.", "relation.doctor", "Dr. Green", identity=False)
    two = [
        ExistingFact("5", "The user's eye doctor is Dr. Patel.", 0.7, 1, "relation.eye_doctor"),
        ExistingFact("6", "The user's family doctor is Dr. Moss.", 0.7, 1, "relation.family_doctor"),
    ]
    assert plan_grounded([doctor], two, [], lambda t: tuple(t)).facts.inserts[0].supersedes == ()
    # A relation that is not single-valued never competes this way.
    friend = _fact("The user's best friend is Ola.", "relation.best_friend.ola", "Ola", identity=False)
    friends = [ExistingFact("7", "The user's friend is Kai.", 0.7, 1, "relation.friend.kai")]
    assert plan_grounded([friend], friends, [], lambda t: tuple(t)).facts.inserts[0].supersedes == ()
