"""Self-introductions without "my name is" (grounding/introductions.py), read both ways through the extractor."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import Extraction, SourceTurn, extract
from memoryd.write.grounding.introductions import introduced

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _run(*users: str) -> Extraction:
    turns = [SourceTurn(i, 700 + i, user, "Okay.") for i, user in enumerate(users)]
    return extract(turns, session_time_ms=SESSION_MS)


def _values(extraction: Extraction, slot: str) -> list[str]:
    return [f.value for f in extraction.facts if f.slot == slot]


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("Morning! Corwin here, I run a small tattoo studio in Leeds called Black Fern.", "Corwin"),
        ("Moin! Volker hier. Ich fahre Taxi in Bremen, selbstständig, mit einem Wagen.", "Volker"),
        ("hey! juniper, 29, UX designer, remote for a fintech called Pelican Pay", "Juniper"),
        ("Hi. Desmond, head sommelier at Salt & Vine in Cape Town.", "Desmond"),
        ("Alright. Fergus. I run a two-man tree surgery outfit out of Inverness.", "Fergus"),
        ("Salut ! Margaux ici, je suis boulangère à Lyon.", "Margaux"),
        ("Hola. Inés aquí. Trabajo de enfermera en Sevilla.", "Inés"),
        ("Olá! Aurora aqui, sou enfermeira no Porto.", "Aurora"),
    ],
)
def test_an_opening_name_is_the_users_name(said: str, name: str) -> None:
    assert _values(_run(said), "identity.name") == [name]


def test_signed_with_an_age_keeps_age_and_job() -> None:
    e = _run("Hey. Arjun here, 34, quantity surveyor at Halden Build in Birmingham.")
    assert _values(e, "identity.name") == ["Arjun"]
    assert _values(e, "identity.age") == ["34"]


def test_apposition_gives_age_and_role() -> None:
    e = _run("hey! juniper, 29, UX designer, remote for a fintech called Pelican Pay")
    assert _values(e, "identity.age") == ["29"]
    assert _values(e, "identity.role") == ["a UX designer"]


@pytest.mark.parametrize(
    "said",
    [
        "Tegan here tomorrow, can you remind me to buy milk?",  # a place, not a signature
        "Hi. Tegan, my sister, asked me about pottery.",  # a third person
        "Hey Claude, can you help me with my essay?",  # the assistant called by name
        "Hi. Tegan, can you help?",
        "Alright. Fergus. He's my brother and he lives in Oban.",  # the name is someone else
        "Same here, I love that show.",
        "hey! tegan, what's up",  # a lowercase word without an age
        "I told her: Tegan here, now!",  # not the opening of the turn
    ],
)
def test_no_name_from_other_shapes(said: str) -> None:
    assert _values(_run(said), "identity.name") == []


def test_only_the_opening_is_read() -> None:
    parts = ["I had a long day.", "Fergus.", "I run a tree surgery outfit."]
    assert introduced(parts, "en", first_turn=True) == parts
    assert introduced(["Alright.", "Fergus.", "I run it."], "en", first_turn=True)[1] == "My name is Fergus."
    assert introduced(["Alright.", "Fergus.", "I run it."], "en", first_turn=False)[1] == "Fergus."


@pytest.mark.parametrize(
    "reply", ["Later. I'll check the kiln first.", "Mostly. I paint.", "Lovely. I'm in."]
)
def test_a_one_word_reply_is_no_name(reply: str) -> None:
    assert _values(_run(reply), "identity.name") == []
    assert _values(_run("Hi! I'm Ottoline.", reply), "identity.name") == ["Ottoline"]
