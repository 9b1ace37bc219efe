"""Same slot by structure (grounding/skeleton.py): facts compared with their values masked supersede when the
relation holds one value, or when the newer fact says it changed; what must not supersede does not (two pets, a
second friend, a hypothetical, another person's change, a repeat, an added detail)."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import FactKind, GroundedFact
from memoryd.write.grounding.skeleton import masked, same_slot, single_valued
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded


def _fact(text: str, slot: str = "") -> GroundedFact:
    return GroundedFact(FactKind.PLAN, text, slot, "", (0,), 0.7, False)


def _retired(old: str, new: str, *, old_slot: str = "", new_slot: str = "") -> tuple[str, ...]:
    pool = [ExistingFact("1", old, 0.7, 1, old_slot)]
    plan = plan_grounded([_fact(new, new_slot)], pool, [], lambda idx: tuple(idx))
    return tuple(i for new_fact in plan.facts.inserts for i in new_fact.supersedes)


def test_values_are_masked_and_the_skeleton_is_stemmed() -> None:
    said = masked("The haul-out is booked for March 28th (2026-03-28).")
    assert said.skeleton == {"haul", "book"}
    assert said.values == {"march", "28th"}
    assert said.dated
    # A template's colon opens no sentence: the name after it is a value; an elided article is not.
    assert masked("Gestora del usuario: Marisa Ortún.").values == {"marisa", "ortun"}
    assert masked("Décision de l'utilisateur : J'ai décidé d'arrêter.").values == frozenset()
    # German capitalises nouns: one after an article or an adjective is no name.
    assert "honigernt" in masked("Geplant: Die erste Honigernte ist für den 7. Juni geplant.").skeleton


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "The haul-out is booked for March 28th (2026-03-28).",
            "The haul-out is booked for May 2nd (2026-05-02).",
        ),
        ("The practical is booked for June 18.", "The practical is booked for August 14."),
        ("Lessons are Mondays and Fridays at 4.", "Lessons are now Tuesdays and Thursdays at 4."),
        ("The user's landlord is Mr. Okafor.", "The user's landlord is Ms. Brandt."),
        ("L'utilisateur habite à Modane.", "L'utilisateur habite à Lanslebourg."),
        (
            "Der nächste Termin bei Dr. Wenzel ist am 12. Februar.",
            "Der nächste Termin bei Dr. Wenzel ist am 9. April.",
        ),
        ("The user's climbing gym is Ledge & Ladder.", "The user's climbing gym is now Bloc Haus."),
    ],
)
def test_the_same_thing_about_another_value_supersedes(old: str, new: str) -> None:
    assert same_slot(old, new), (masked(old), masked(new))
    assert _retired(old, new) == ("1",)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # Two pets, a second friend, a new colleague: relations with many values gain one.
        ("The user has a dog named Rex.", "The user has a dog named Bella."),
        ("The user's friend is Tom.", "The user's friend is Ana."),
        ("The user's friend is Tom.", "The user's new friend is Ana."),
        ("The user's colleague is Priya.", "The user's colleague is Jonas."),
        # A hypothetical replaces nothing.
        ("The user lives in Paris.", "If I moved to Lyon I would live in Lyon."),
        # Another person's change is theirs.
        ("The user lives in Paris.", "The user's sister lives in Lyon."),
        ("The user lives in Paris.", "The user's sister moved to Lyon."),
        # A repeat, or the same value with a detail added, replaces nothing.
        ("The user lives in Paris.", "The user lives in Paris, France."),
        ("The practical is booked for June 18.", "The practical is booked for June 18."),
        # Different things said with different values.
        ("The haul-out is booked for March 28th.", "The berth fee is due on June 1st."),
        ("The user's vet is Dr. Li.", "The user's dentist is Dr. Park."),
    ],
)
def test_what_must_not_supersede_does_not(old: str, new: str) -> None:
    assert not same_slot(old, new), (masked(old), masked(new))
    assert _retired(old, new) == ()


def test_a_change_cue_lets_a_relation_with_many_values_swap_one() -> None:
    old = "The user's hobby is Pilates on weekends."
    assert not same_slot(old, "The user's hobby is Bouldering on weekends.")
    assert same_slot(old, "The user's hobby is now Bouldering on weekends.")
    assert single_valued(frozenset({"live"}), dated=False)
    assert not single_valued(frozenset({"hobbi"}), dated=False)


def test_the_slot_readers_keep_their_decision() -> None:
    # A fact a slot reader filed under another slot is left to it: a vet is not replaced by a plan's date.
    assert (
        _retired(
            "The user's vet is Dr. Li.",
            "The user's vet is Dr. Park.",
            old_slot="relation.vet",
            new_slot="plan.vet",
        )
        == ()
    )
    # With both slots the same the reader decides, and the skeleton adds nothing.
    assert _retired(
        "The user's vet is Dr. Li.",
        "The user's vet is Dr. Park.",
        old_slot="relation.vet",
        new_slot="relation.vet",
    ) == ("1",)
