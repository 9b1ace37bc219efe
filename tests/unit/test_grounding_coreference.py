"""A "there" of living or working names the place said before it in the turn (grounding/coreference.py), in five
languages; a place someone is "from", another person's "there", or a "there" with no place before it stays."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import SourceTurn, extract
from memoryd.write.grounding.coreference import with_places

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            "We're moving the studio to Black Mountain, 20 minutes from Asheville. I live there now.",
            "We're moving the studio to Black Mountain, 20 minutes from Asheville. I live in Black Mountain now.",
        ),
        (
            "Wir sind nach Kassel gezogen, ich wohne jetzt dort.",
            "Wir sind nach Kassel gezogen, ich wohne jetzt in Kassel.",
        ),
        (
            "Nos mudamos a Zaragoza y vivo allí desde mayo.",
            "Nos mudamos a Zaragoza y vivo en Zaragoza desde mayo.",
        ),
        ("Mudámos para Braga, moro lá agora.", "Mudámos para Braga, moro em Braga agora."),
        (
            "On a déménagé à Lille, j'habite là-bas depuis mars.",
            "On a déménagé à Lille, j'habite à Lille depuis mars.",
        ),
    ],
)
def test_a_there_of_living_names_the_place_before_it(said: str, meant: str) -> None:
    assert with_places(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "I drove 20 minutes from Asheville. I live there now.",  # only "from": no place the user went to
        "My sister moved to Leeds and she lives there now.",  # someone else lives there
        "I live there now.",  # no place named before it
    ],
)
def test_no_place_to_put_back_leaves_the_turn(said: str) -> None:
    assert with_places(said) == said


def test_the_extractor_reads_the_home_the_there_names() -> None:
    turns = [
        SourceTurn(0, 1, "Big news: we're moving the shop to Black Mountain. I live there now.", "Nice.")
    ]
    homes = [f.text for f in extract(turns, session_time_ms=SESSION_MS).facts if f.slot == "identity.home"]
    assert homes == ["The user lives in Black Mountain."]
