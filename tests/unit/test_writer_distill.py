"""Distillation input: memory blocks dropped, the novelty measure, the prompt's content and session trimming."""

from __future__ import annotations

from datetime import UTC, datetime

from memoryd.writer.distill import (
    MAX_PROMPT_CHARS,
    CleanTurn,
    build_prompt,
    clean_turns,
    novelty_chars,
    strip_memory_blocks,
)
from memoryd.writer.store import EpisodeDigest, Signal

DAY_MS = datetime(2024, 5, 7, 15, 30, tzinfo=UTC).timestamp() * 1000


def _signal(user: str, assistant: str = "", n: int = 1) -> Signal:
    return Signal(n, "a", "c", user, assistant, 0)


def test_memory_blocks_are_removed_from_turns() -> None:
    text = "[Memory]\nUser's name is Sam.\n[/Memory]\n\nWhat should I cook tonight?"
    assert strip_memory_blocks(text) == "What should I cook tonight?"
    assert strip_memory_blocks("a [memory]x[/memory] b") == "a b"
    turns = clean_turns([_signal("[Memory]only memory[/Memory]", ""), _signal("hi", "hello")])
    assert turns == [CleanTurn("hi", "hello")]


def test_novelty_counts_user_and_assistant_characters_without_memory() -> None:
    turns = clean_turns([_signal("[Memory]" + "x" * 500 + "[/Memory]hey", "yo")])
    assert novelty_chars(turns) == 5


def test_prompt_carries_date_narrative_and_recent_episodes() -> None:
    prompt = build_prompt(
        [CleanTurn("I moved to Lisbon", "Nice!")],
        session_time_ms=int(DAY_MS),
        narrative="User builds Swift apps.",
        episodes=[EpisodeDigest(int(DAY_MS) - 86_400_000, "Discussed Postgres indexes." + "z" * 300)] * 4,
    )
    system, user = prompt.messages
    assert system.role == "system" and "JSON" in system.content
    assert user.content.startswith("Conversation date: 2024-05-07")
    assert "What we already know about the user:\nUser builds Swift apps." in user.content
    assert user.content.count("- [2024-05-06] Discussed Postgres indexes.") == 3  # at most 3 episodes
    assert "z" * 161 not in user.content  # each summary clipped to 160 chars
    assert "\nUser: I moved to Lisbon\nAssistant: Nice!" in user.content
    assert user.content.endswith("Distill this session into the JSON digest.")
    assert prompt.turns_omitted == 0


def test_empty_narrative_and_no_episodes_leave_their_sections_out() -> None:
    prompt = build_prompt([CleanTurn("hi", "")], session_time_ms=0, narrative=" ", episodes=[])
    text = prompt.messages[1].content
    assert "already know" not in text and "Recent past sessions" not in text
    assert "Assistant:" not in text


def test_long_sessions_keep_start_and_end_and_say_what_was_omitted() -> None:
    turns = [CleanTurn(f"question {i}", f"answer {i}") for i in range(200)]
    prompt = build_prompt(turns, session_time_ms=0, narrative="", episodes=[])
    text = prompt.messages[1].content
    assert prompt.turns_sent == 80 and prompt.turns_omitted == 120
    assert "question 0\n" in text and "question 19\n" in text and "question 20\n" not in text
    assert "question 139\n" not in text and "question 140\n" in text and "question 199\n" in text
    assert "[... 120 middle turn(s) omitted to fit the core model's context ...]" in text


def test_prompt_budget_trims_further_and_truncates_huge_messages() -> None:
    turns = [CleanTurn("u" * 5000, "a" * 5000) for _ in range(30)]
    prompt = build_prompt(turns, session_time_ms=0, narrative="", episodes=[])
    assert prompt.chars <= MAX_PROMPT_CHARS + 3000  # system prompt on top of the user budget
    text = prompt.messages[1].content
    assert "…[truncated 3000 chars]" in text
    assert prompt.turns_omitted > 0 and prompt.turns_sent >= 2
    assert text.index("omitted") > text.index("User:")  # the start is kept before the marker
