"""Changed values said plainly (grounding/changes.py): "my X is now Y" becomes a fact in five languages, a contrast
names the old value it replaces, and what is no change of the user's (a question, a hypothetical, someone else's
thing, a contrast without a value) is left alone."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.changes import changed_values, now_statements, with_contrasts
from memoryd.write.grounding.model import FactKind, GroundedFact
from memoryd.write.grounding.stale import THING
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _turns(*users: str) -> list[SourceTurn]:
    return [SourceTurn(i, 10 + i, user, "Okay.") for i, user in enumerate(users)]


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        (
            "Also I've changed the email sign-off, it's now 'Warmly, Bao'. The 'x' felt too casual.",
            "The user's email sign-off is now 'Warmly, Bao'.",
        ),
        ("Our rent is now 1,050 a month, the landlord raised it.", "The user's rent is now 1,050 a month."),
        ("Ma signature est désormais « Amitiés, Léa ».", "Signature de l'utilisateur : « Amitiés, Léa »."),
        ("Mi cuota del gimnasio es ahora 45 euros.", "Cuota del gimnasio del usuario: 45 euros."),
        ("Meine Sprechstunde ist jetzt donnerstags.", "Sprechstunde des Nutzers: donnerstags."),
        ("O meu horário agora é das 9 às 17.", "Horário do usuário: das 9 às 17."),
    ],
)
def test_a_thing_said_to_hold_a_new_value_is_a_fact(said: str, fact: str) -> None:
    assert [f.text for f, _ in changed_values(_turns(said), "en")] == [fact]


@pytest.mark.parametrize(
    "said",
    [
        "Is my rent now 1,050 a month?",
        "If my salary is now 50k, I'd buy a house.",
        "His target is now 3:30.",
        "My sister's flat is bigger.",
    ],
)
def test_no_change_of_the_users_is_no_fact(said: str) -> None:
    assert changed_values(_turns(said), "en") == []


def test_a_value_another_reader_stated_is_not_said_twice() -> None:
    texts = [
        f.text for f in extract(_turns("My target is now 1:50 for York."), session_time_ms=SESSION_MS).facts
    ]
    assert sum("1:50" in t for t in texts) == 1


def _fact(text: str, value: str) -> GroundedFact:
    return GroundedFact(FactKind.PLAN, text, "", value, (0,), 0.7, False)


def test_a_contrast_names_the_old_value_on_the_fact_of_the_new_one() -> None:
    turns = _turns("So let's be realistic: new target is 3:55, not 3:45.")
    [goal] = with_contrasts([_fact("The user's goal: 3:55.", "3:55")], turns)
    assert goal.replaces == ((THING, "3:45"),)
    [trip] = with_contrasts(
        [_fact("We're going to Japan in April next year.", "April")],
        _turns("We're going to Japan in April next year instead of October."),
    )
    assert trip.replaces == ((THING, "October"),)


def test_a_contrast_without_a_value_or_on_another_fact_replaces_nothing() -> None:
    turns = _turns("I drink coffee, not because I like it.", "The berth fee is due on June 1st.")
    facts = [
        _fact("The user drinks coffee.", "coffee"),
        GroundedFact(FactKind.PLAN, "Fee due June 1st.", "", "June 1st", (1,), 0.7, False),
    ]
    assert [f.replaces for f in with_contrasts(facts, turns)] == [(), ()]
    # A question or a hypothetical contrasts nothing.
    asked = _turns("Should the target be 3:55, not 3:45?")
    assert with_contrasts([_fact("The user's goal: 3:55.", "3:55")], asked)[0].replaces == ()


def test_the_contrasted_value_is_retired_end_to_end() -> None:
    pool = [ExistingFact("1", "The user signed up for York and wants to break 3:45.", 0.7, 1, "plan.sign")]
    facts = extract(_turns("New target is 3:55, not 3:45."), session_time_ms=SESSION_MS).facts
    plan = plan_grounded(facts, pool, [], lambda idx: tuple(idx))
    retired = {i for new in plan.facts.inserts for i in new.supersedes}
    assert retired == {"1"}


@pytest.mark.parametrize(
    ("said", "fact"),
    [
        ("Back from Kielder, I bagged 19 new Messiers, so I'm at 90 now.", "the user is at 90 now"),
        (
            "They put the monthly pass up to 68 quid, so I joined Bloc Haus in Portobello instead.",
            "The user joined Bloc Haus in Portobello instead",
        ),
        (
            "He only does Tuesdays and Thursdays, so that's when my lessons are now.",
            "that's when the user's lessons are now",
        ),
        ("Ein Volk ist geschwärmt, jetzt habe ich nur noch fünf.", "jetzt habe ich nur noch fünf"),
        ("Desde octubre abrimos ahora también los sábados.", "abrimos ahora también los sábados"),
        ("Je vends maintenant sur mon propre site, fait avec Shopify.", "Je vends maintenant"),
    ],
)
def test_a_first_person_change_with_a_value_is_kept_in_the_users_words(said: str, fact: str) -> None:
    texts = [f.text for f, _ in now_statements(_turns(said), "en")]
    assert len(texts) == 1 and fact in texts[0], texts


@pytest.mark.parametrize(
    "said",
    [
        "My sister moved to Leeds and she lives in Leeds now.",  # someone else's change
        "She's in Leeds now.",
        "I don't want to learn anything else right now, Caro-Kann is enough.",  # "right now" is no change
        "Should I switch to Linear now?",  # a question
        "If I moved to Lyon now I would need a new job by March.",  # a hypothetical
        "I'm much happier now.",  # no value
        "I don't live in Madrid anymore.",  # only what is over: no new value
    ],
)
def test_what_is_no_change_of_the_users_is_not_kept(said: str) -> None:
    assert now_statements(_turns(said), "en") == []


def test_a_value_another_reader_read_from_the_turn_is_not_kept_twice() -> None:
    read = [GroundedFact(FactKind.PLAN, "The user is at 90 Messiers.", "", "90", (0,), 0.7, False)]
    assert now_statements(_turns("So I'm at 90 now."), "en", read) == []


def _agent_after(first: str, later: str) -> tuple[set[str], list[str]]:
    """(ids the later session's facts retire, the later facts) over a pool of the first session's facts."""
    earlier = extract(_turns(first), session_time_ms=SESSION_MS).facts
    pool = [ExistingFact(str(i), f.text, 0.7, 1, f.slot) for i, f in enumerate(earlier)]
    facts = extract(_turns(later), session_time_ms=SESSION_MS + 30 * 86_400_000).facts
    plan = plan_grounded(facts, pool, [], lambda idx: tuple(idx))
    retired = {pool[int(i)].content for new in plan.facts.inserts for i in new.supersedes}
    return retired, [f.text for f in facts]


def test_a_date_said_as_changed_retires_the_older_date_of_what_its_turn_names() -> None:
    retired, _ = _agent_after(
        "The haul-out is booked for March 28th.",
        "The yard's crane broke, so the haul-out kept slipping. Kittiwake now comes out on May 2nd.",
    )
    assert any("March 28th" in text for text in retired)


def test_a_date_of_something_else_or_without_a_change_retires_nothing() -> None:
    first = "The haul-out is booked for March 28th."
    # Another event's date, said as a change: the turn names no haul-out.
    retired, _ = _agent_after(first, "The berth fee moved, it's now due on June 1st.")
    assert not retired
    # The same event named, a date said without a change: a second date, not a correction.
    retired, _ = _agent_after(first, "After the haul-out we sail to Cowes on May 2nd.")
    assert not retired
