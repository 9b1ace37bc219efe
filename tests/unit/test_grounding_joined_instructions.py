"""Standing instructions joined by a comma or a semicolon (grounding/instructions.py `_joined_instructions`) and
"keep the answers short" said without "your" (grounding/manners.py): read when every part is an instruction on its
own, in five languages; a part that is someone else's, a reason, a question or a condition leaves the whole unread.
Names joined by "&" ("Salt & Vine") are kept whole (grounding/lexicon.py NAME)."""

from __future__ import annotations

import pytest

from memoryd.write.grounding import Extraction, FactKind, SourceTurn, extract
from memoryd.write.grounding.instructions import _joined_instructions, standing_instruction
from memoryd.write.grounding.manners import manner_instruction

#: 2026-12-02, a Wednesday, 00:00 UTC.
SESSION_MS = 1_796_169_600_000


def _run(*users: str) -> Extraction:
    turns = [SourceTurn(i, 900 + i, user, "Okay.") for i, user in enumerate(users)]
    return extract(turns, session_time_ms=SESSION_MS)


def _instructions(extraction: Extraction) -> list[str]:
    return [f.value for f in extraction.facts if f.kind is FactKind.INSTRUCTION]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Please keep answers short, no bullet points.", ("answers short", "bullet points")),
        ("Garde tes réponses courtes ; pas d'emojis.", ("courtes", "emojis")),
        ("Sé breve, nada de emojis.", ("breve", "emojis")),
        ("Halte die Antworten kurz, keine Emojis.", ("kurz", "Emojis")),
        ("Mantém as respostas curtas, sem listas.", ("curtas", "listas")),
    ],
)
def test_instructions_joined_by_a_comma_are_read(said: str, kept: tuple[str, ...]) -> None:
    values = _instructions(_run(said))
    assert len(values) == 1, values
    assert all(word in values[0] for word in kept), values


@pytest.mark.parametrize(
    "said",
    [
        "Keep answers short.",
        "Garde tes réponses courtes.",
        "Mantén las respuestas cortas.",
        "Halte die Antworten kurz.",
        "Mantém as respostas curtas.",
        "Sé breve.",
    ],
)
def test_keeping_answers_short_is_a_manner_rule(said: str) -> None:
    assert manner_instruction(said) is not None


@pytest.mark.parametrize(
    "said",
    [
        "She answers briefly, no bullet points.",  # someone else
        "Tegan keeps her answers short, no bullet points.",
        "If you kept answers short, no bullet points, I'd read more.",  # a hypothetical
        "Keep answers short, my boss says.",  # a part that is no instruction
        "No bullet points, I hate them.",
        "Do you keep answers short, no bullet points?",  # a question
    ],
)
def test_a_part_that_is_no_instruction_leaves_the_whole_unread(said: str) -> None:
    assert _joined_instructions(said, "en", None) is None


def test_a_whole_instruction_is_not_split() -> None:
    found = standing_instruction("Please keep your answers short, no bullet points.", "en", None)
    assert found is not None and "bullet points" in found[0]


@pytest.mark.parametrize(
    "said",
    ["Keep answers short, my boss says.", "Answer briefly, my boss says.", "Réponds court, dit ma cheffe."],
)
def test_a_rule_reported_as_someone_elses_is_not_the_users(said: str) -> None:
    assert manner_instruction(said) is None
    assert _instructions(_run(said)) == []


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("I work at Salt & Vine.", "Salt & Vine"),
        ("Ich arbeite bei Müller & Söhne.", "Müller & Söhne"),
        ("Je travaille chez Léa & Fils.", "Léa & Fils"),
        ("My partner is Mary-Jane O'Neil.", "Mary-Jane O'Neil"),
    ],
)
def test_a_name_with_an_ampersand_apostrophe_or_hyphen_is_kept_whole(said: str, name: str) -> None:
    assert name in [f.value for f in _run(said).facts]


def test_an_ampersand_before_i_joins_no_name() -> None:
    assert [
        f.value for f in _run("My sister Tom & I went hiking.").facts if f.slot.startswith("relation.")
    ] == ["Tom"]
