"""bench/distill_truth.py: the transcript check of unlabelled stored facts (the user's name, named relations)."""

from __future__ import annotations

import pytest

from bench import distill_scoring as ds
from bench.distill_truth import name_is_introduced, relation_is_said, true_to_transcript


@pytest.mark.parametrize(
    ("item", "turn"),
    [
        ("The user's name is Otis.", "Alright. Name's Otis, I'm a self-employed locksmith."),
        ("The user's name is Gwen.", "Morning! I'm Gwen, a community midwife."),
        ("The user's name is Arjun.", "Hey. Arjun here, 34, quantity surveyor."),
        ("The user's name is Callum.", "Hello. Callum, 41, PE teacher at a secondary."),
        ("L'utilisateur s'appelle Amélie.", "Bonjour, je m'appelle Amélie et j'enseigne les maths."),
        ("El usuario se llama Rodrigo.", "Hola, soy Rodrigo, de Valencia."),
        ("Der Nutzer heißt Fenja.", "Hallo, ich bin Fenja."),
        ("O usuário se chama Iara.", "Oi! Sou Iara, nadadora."),
        ("The user wants to be called Dieguito.", "Call me Dieguito, everyone does."),
        ("L'utilisateur s'appelle Gaspard.", "Bonjour, Gaspard, vigneron à Meursault."),
        ("O usuário se chama Thiago.", "Oi! Sou o Thiago, tenho uma cafeteria em Curitiba."),
    ],
)
def test_a_name_the_user_introduced_is_true(item: str, turn: str) -> None:
    assert true_to_transcript(item, [turn])


@pytest.mark.parametrize(
    ("item", "turn"),
    [
        ("The user's name is Dana.", "My manager is Dana, she's great."),  # someone else's name
        ("The user's name is Rosie.", "I'm meeting Rosie tomorrow."),  # no introduction
        ("The user's name is Tired.", "I'm tired today."),  # not a name
        ("The user's name is Otis.", "Hi, I'm Sam."),  # never said
        (
            "The user's name is Sam.",
            "Hi, Sam, Tom, Ana: the three of us share a flat.",
        ),  # a list, no role after it
    ],
)
def test_a_name_not_introduced_is_not_checked_true(item: str, turn: str) -> None:
    assert not true_to_transcript(item, [turn])


@pytest.mark.parametrize(
    ("item", "turn"),
    [
        ("The user's friend is Rosie.", "My friend Rosie says I should move to Trados."),
        ("The user's colleague is Hettie.", "My colleague Hettie adores medieval charters."),
        ("Collègue de l'utilisateur : Yanis.", "Mon collègue Yanis veut que je parte au Népal."),
        ("The user's manager is Dr. Okafor.", "My manager is Dr. Okafor."),
        ("The user's sister is Tabitha.", "Tabitha, my sister, is visiting."),
    ],
)
def test_a_relation_said_with_a_possessive_is_true(item: str, turn: str) -> None:
    assert true_to_transcript(item, [turn])


@pytest.mark.parametrize(
    ("item", "turn"),
    [
        ("The user's friend is Rosie.", "My old friend Rosie moved away."),  # a former one
        ("The user's friend is Rosie.", "Rosie's friend called me."),  # not the user's
        ("The user's new is CTO.", "My new CTO started on Monday."),  # no person named
        ("The user's partner is a nurse in Mayo.", "My partner Niamh is a nurse in Mayo."),  # no name stored
        ("The user likes the room.", "I like the room."),  # no shape the check settles
    ],
)
def test_other_items_are_not_checked_true(item: str, turn: str) -> None:
    assert not true_to_transcript(item, [turn])


def test_low_level_checks() -> None:
    assert name_is_introduced("Nkechi", ["Hello there. I'm Nkechi, 52."])
    assert not name_is_introduced("nkechi", ["hello there. i'm nkechi, 52."])  # never written as a name
    assert relation_is_said("friend", "Rosie", ["my friend, Rosie, says hi"])
    assert not relation_is_said("friend", "Rosie", ["my former friend Rosie"])


def test_scoring_counts_checked_items_apart_from_strict() -> None:
    session = ds.parse_session(
        {
            "id": "u-1",
            "split": "test",
            "agent_id": "u",
            "lang": "en",
            "date": "2026-01-01",
            "turns": [{"user": "Hi, I'm Otis. My friend Rosie says hi. I live in Leeds.", "assistant": "ok"}],
            "facts": [{"id": "u-1-home", "about": "identity", "match": [["leeds"]]}],
            "must_not": [{"why": "third_party", "match": [["rosie says"]]}],
        }
    )
    items = [
        ds.StoredItem(ds.IDENTITY_FACT, "1", "u", "The user lives in Leeds.", True, 0, "u-1"),
        ds.StoredItem(ds.IDENTITY_FACT, "2", "u", "The user's name is Otis.", True, 0, "u-1"),
        ds.StoredItem(ds.PINNED, "3", "u", "The user's friend is Rosie.", True, 0, "u-1"),
        ds.StoredItem(ds.PINNED, "4", "u", "The user's name is Rosie.", True, 0, "u-1"),
        ds.StoredItem(ds.PINNED, "5", "u", "Rosie says the user's friend is Rosie.", True, 0, "u-1"),
    ]
    totals = ds.totals([ds.score_agent("u", [session], items)])
    assert (totals.precision_items, totals.precision_true, totals.precision_checked) == (5, 1, 2)
    assert totals.precision_strict == pytest.approx(1 / 5)
    assert totals.precision_checked_strict == pytest.approx(3 / 5)
