"""Facts a session replaced within itself (write/supersede.py `replaced_in_session`): the later fact of a slot or
event keeps them as superseded history, and only when it changed the value in another turn."""

from __future__ import annotations

from memoryd.write.grounding.extract import extract
from memoryd.write.grounding.model import FactKind, GroundedFact, SourceTurn
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import latest_per_slot, plan_grounded, replaced_in_session

WHEN_MS = 1_764_590_400_000  # 2025-12-01


def _turns(*users: str) -> list[SourceTurn]:
    return [SourceTurn(i, i + 1, user, "Noted.") for i, user in enumerate(users)]


def _fact(text: str, slot: str, value: str, turn: int, *, identity: bool = False) -> GroundedFact:
    kind = FactKind.IDENTITY if identity else FactKind.PREFERENCE
    return GroundedFact(kind, text, slot, value, (turn,), 0.7, identity)


def _ids(indices: object) -> tuple[int, ...]:
    return tuple(100 + i for i in indices)  # type: ignore[attr-defined]


def test_a_date_moved_later_in_the_session_keeps_the_first_as_history() -> None:
    turns = _turns(
        "Our Ledgerly beta ships on December 15.",
        "I owe Marta the report on Wednesday.",
        "Actually the beta moved to December 18.",
    )
    facts = extract(turns, session_time_ms=WHEN_MS).facts
    plan = plan_grounded(facts, [], [], _ids, None, turns=turns)
    beta = [f for f in plan.facts.inserts if "beta" in f.content]
    assert len(beta) == 1 and "December 18" in beta[0].content
    assert [(r.content, r.source_turn_ids) for r in beta[0].replaced] == [
        ("Our Ledgerly beta ships on December 15 (2025-12-15).", (100,))
    ]
    report = [f for f in plan.facts.inserts if "report" in f.content]
    assert report and report[0].replaced == ()


def test_the_same_date_said_again_replaces_nothing() -> None:
    turns = _turns(
        "Our Ledgerly beta ships on December 15.", "Yes, the beta ships on December 15, as planned."
    )
    facts = extract(turns, session_time_ms=WHEN_MS).facts
    assert replaced_in_session(facts) == {}
    assert all(f.replaced == () for f in plan_grounded(facts, [], [], _ids, None, turns=turns).facts.inserts)


def test_another_value_of_a_slot_in_a_later_turn_is_a_replacement() -> None:
    paris = _fact("The user lives in Paris.", "identity.home", "Paris", 0, identity=True)
    lyon = _fact("The user lives in Lyon.", "identity.home", "Lyon", 2, identity=True)
    assert replaced_in_session([paris, lyon]) == {id(lyon): [paris]}
    assert latest_per_slot([paris, lyon]) == [lyon]
    plan = plan_grounded([paris, lyon], [], [], _ids, None)
    (inserted,) = plan.identity_inserts
    assert inserted.content == "The user lives in Lyon."
    assert [(r.content, r.is_identity, r.source_turn_ids) for r in inserted.replaced] == [
        ("The user lives in Paris.", True, (100,))
    ]


def test_the_value_said_again_with_more_detail_is_no_replacement() -> None:
    paris = _fact("The user lives in Paris.", "identity.home", "Paris", 0, identity=True)
    more = _fact("The user lives in Paris, in the 11th.", "identity.home", "Paris", 3, identity=True)
    assert replaced_in_session([paris, more]) == {}
    assert latest_per_slot([paris, more]) == [more]


def test_two_values_of_one_turn_are_no_line_the_user_took_back() -> None:
    ana = _fact("The user's manager is Ana.", "relation.manager", "Ana", 1)
    bob = _fact("The user's manager is Bob.", "relation.manager", "Bob", 1)
    assert replaced_in_session([ana, bob]) == {}


def test_a_value_memory_already_held_keeps_the_replaced_fact_under_the_existing_row() -> None:
    paris = _fact("The user lives in Paris.", "identity.home", "Paris", 0, identity=True)
    lyon = _fact("The user lives in Lyon.", "identity.home", "Lyon", 2, identity=True)
    held = ExistingFact("7", "The user lives in Lyon.", 1.0, 1, "identity.home")
    plan = plan_grounded([paris, lyon], [], [held], _ids, None)
    assert plan.identity_inserts == ()
    assert [(old.content, holder, is_identity) for old, holder, is_identity in plan.kept_history] == [
        ("The user lives in Paris.", "7", True)
    ]
