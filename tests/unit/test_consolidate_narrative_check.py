"""The identity-narrative verifier: each rule rejects what it should (a loop, an invented name or number, copied
prompt text, unsupported words or sentences) and paraphrase passes; the extractive narrative is the facts."""

from __future__ import annotations

import pytest

from memoryd.consolidate.narrative import (
    MAX_NARRATIVE_CHARS,
    FactLine,
    build_messages,
    extractive_narrative,
    scaffolding,
)
from memoryd.consolidate.narrative_check import is_loop, verify_narrative

FACTS = [
    "User's name is Ana Souza",
    "User works as a nurse",
    "User lives in São Paulo",
    "User has a dog named Miso",
    "User prefers tea over coffee",
    "User is 41 years old",
]


@pytest.mark.parametrize(
    "reply",
    [
        "The user is Ana Souza, a nurse who lives in São Paulo.",
        "Ana Souza works as a nurse and lives in Sao Paulo with her dog Miso.",  # accents folded
        "The user is Ana Souza. The user is a nurse. The user preferred tea to coffee.",  # stems, repeated subject
        "She is 41 years old and has a dog named Miso.",
        "The user is Ana Souza, a nurse. Additionally, she prefers tea over coffee.",  # a linking word
    ],
)
def test_paraphrase_of_the_facts_passes(reply: str) -> None:
    assert verify_narrative(reply, FACTS, scaffolding()).accepted


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("I'm 12 years old. I'm 12 years old. I'm 12 years old.", "loop"),
        ("The user is Ana Souza, a nurse. The user is Ana Souza, a nurse.", "loop"),
        ("The user is Ana Souza, a nurse married to Pedro.", "unsupported_name"),
        ("Maria works as a nurse in São Paulo.", "unsupported_name"),
        ("The user, Ana Souza, is a 34-year-old nurse.", "unsupported_number"),
        ("The user is Ana Souza (seen 3×), a nurse.", "scaffolding"),
        ("- The user is Ana Souza.\n- The user is a nurse.", "scaffolding"),
        ("Facts about the user, most often seen first: the user is a nurse.", "scaffolding"),
        ("Use only the facts given; do not guess. The user is a nurse.", "scaffolding"),
        ("The user is a vegan food blogger and a marathon runner who is a nurse.", "unsupported_words"),
        (
            "Ana Souza works as a nurse in São Paulo and has a dog named Miso. She adores vegan baking.",
            "unsupported_sentence",
        ),
        ("", "empty"),
        ("The. A. Is.", "empty"),
    ],
)
def test_each_rule_rejects_what_it_should(reply: str, reason: str) -> None:
    verdict = verify_narrative(reply, FACTS, scaffolding())
    assert (verdict.accepted, verdict.reason) == (False, reason)


def test_a_name_copied_from_the_facts_is_not_scaffolding() -> None:
    # A fact's own words are never "copied from the prompt", even though the prompt shows them.
    facts = ["User writes the profile now and then for the local paper"]
    assert verify_narrative(
        "The user writes the profile now and then for the local paper.", facts, scaffolding()
    )


def test_loops_need_a_content_word() -> None:
    assert not is_loop("The user is Ana. The user is a nurse. The user is in Porto.")
    assert is_loop("The user likes tea. The user likes tea.")


def test_extractive_narrative_is_the_facts_most_supported_first_capped() -> None:
    facts = [
        FactLine("User lives in Porto", 1),
        FactLine("user's name is Ana.", 3),
        FactLine("User lives in Porto", 1),
    ]
    assert extractive_narrative(facts) == "User's name is Ana. User lives in Porto."
    many = [FactLine(f"User has visited place number {i}", 1) for i in range(200)]
    text = extractive_narrative(many)
    assert 0 < len(text) <= MAX_NARRATIVE_CHARS and text.endswith(".")
    assert verify_narrative(extractive_narrative(facts), [f.text for f in facts], scaffolding()).accepted
    assert extractive_narrative([]) == ""


def test_the_prompt_holds_only_the_given_facts() -> None:
    prompt = build_messages([FactLine("User's name is Ana", 2)])[1].content
    assert "Ana (seen 2×)" in prompt and "older profile" not in prompt
