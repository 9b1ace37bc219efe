"""Standing instructions said without "always"/"never" (grounding/manners.py), read both ways."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import Extraction, FactKind, SourceTurn, extract
from memoryd.write.grounding.manners import joined_rules, manner_instruction

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _run(*users: str) -> Extraction:
    turns = [SourceTurn(i, 800 + i, user, "Okay.") for i, user in enumerate(users)]
    return extract(turns, session_time_ms=SESSION_MS)


def _instructions(extraction: Extraction) -> list[str]:
    return [f.value for f in extraction.facts if f.kind is FactKind.INSTRUCTION]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Trátame de usted, por favor, y nada de emojis.", ("usted", "emojis")),
        ("Contésteme corto, que leer mucho me cansa la vista.", ("corto",)),
        ("Bitte duz mich und antworte kurz.", ("duz mich", "kurz")),
        ("please no bullet points with me, plain paragraphs", ("bullet points", "plain paragraphs")),
        ("Please use short, plain sentences.", ("short, plain sentences",)),
        ("Please stop suggesting protein shakes, I'm not into them.", ("protein shakes",)),
        ("Plain Scots-English with me, no corporate waffle.", ("Scots-English", "waffle")),
        ("Always British spelling, please.", ("British spelling",)),
        ("Pas d'emojis, s'il te plaît.", ("emojis",)),
        ("Keine Emojis bitte.", ("Emojis",)),
        ("Vouvoyez-moi, s'il vous plaît.", ("vouvoyez-moi",)),
        ("Responde curto, por favor.", ("curto",)),
    ],
)
def test_a_manner_rule_is_a_standing_instruction(said: str, kept: tuple[str, ...]) -> None:
    values = _instructions(_run(said))
    assert len(values) == 1, values
    assert all(word in values[0] for word in kept), values
    assert "I'm not into them" not in values[0]


@pytest.mark.parametrize(
    "said",
    [
        "She always answers briefly, please note.",  # about someone else
        "If you answered briefly, I would read more.",  # a hypothetical
        "Lunch with me tomorrow at the pub.",  # a plan, no rule
        "She was rude with me yesterday.",
        "Write a short poem about cats.",  # a one-off task
        "There were no emojis in her message.",
        "My boss told me to stop suggesting new tools.",
        "Tell Tom to answer briefly.",
        "Et vouvoyez-moi pas, on se tutoie.",  # the opposite of the formal you
    ],
)
def test_no_manner_rule_from_other_shapes(said: str) -> None:
    assert manner_instruction(said) is None
    assert not [v for v in _instructions(_run(said)) if "brief" in v or "emoji" in v or "short" in v]


def test_reason_after_the_rule_is_dropped() -> None:
    found = manner_instruction("Please stop suggesting protein shakes.")
    assert found == ("stop suggesting protein shakes", "")


def test_a_reason_after_the_register_is_left_out() -> None:
    assert joined_rules("duze mich, das Sie ist mir zu förmlich", 0, 9) == "duze mich"
    assert joined_rules("Trátame de usted, por favor, y nada de emojis.", 0, 16) == (
        "trátame de usted, por favor, y nada de emojis"
    )
