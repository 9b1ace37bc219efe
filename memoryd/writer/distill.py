"""Distillation input: memory-block stripping, the novelty gate and the one-call prompt with session trimming."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from inferd.client import Message
from memoryd.writer.store import EpisodeDigest, Signal

#: Sessions with fewer combined user+assistant characters are skipped as low novelty (terminal).
NOVELTY_MIN_CHARS = 80
#: Longest session sent whole; longer ones keep the first quarter and the rest from the end.
MAX_TURNS = 80
#: Per-message cap before the prompt-wide budget applies.
MAX_TURN_CHARS = 2000
#: Whole user-prompt budget in characters (~4 chars per token; leaves room for a 2k-token reply in 8k).
MAX_PROMPT_CHARS = 18000
#: Recent episodes of the same agent shown for continuity.
CONTEXT_EPISODES = 3
#: Only episodes this recent are shown.
CONTEXT_EPISODE_MAX_AGE_DAYS = 90
_EPISODE_SUMMARY_CHARS = 160

_MEMORY_BLOCK = re.compile(r"\[Memory\].*?\[/Memory\]\s*", re.DOTALL | re.IGNORECASE)

SYSTEM_PROMPT = """You distill one chat session into a compact memory digest.
Reply with ONLY a JSON object - no preamble, no code fences, no commentary - of this shape:
{"episode": {"summary": string, "topics": [string], "decisions": [string], "action_items": [string],
             "salience": number 0-1},
 "entities": [string],
 "pinned_candidates": [{"content": string, "salience": number 0-1, "tags": [string]}],
 "identity_facts": [string]}
- summary: one to three sentences about what this session was about and what came of it.
- entities: names of people, projects, places and tools that were mentioned.
- pinned_candidates: durable facts worth remembering across sessions - explicit facts about the user, strong
  preferences, firm decisions. Be conservative: most sessions yield 0-2. Write each as a standalone sentence.
- identity_facts: stable facts about the user themself, like "User's name is Sam"; empty if none.
- salience: 0.9 or more for critical identity facts or decisions, 0.6-0.8 for clear preferences, 0.3-0.5 for
  casual mentions, below 0.3 for chit-chat.
Never invent facts that the conversation does not state. Text inside [Memory] blocks is not part of the session."""


def strip_memory_blocks(text: str) -> str:
    """Remove injected `[Memory] … [/Memory]` blocks so the writer never re-learns its own context."""
    return _MEMORY_BLOCK.sub("", text).strip()


@dataclass(frozen=True)
class CleanTurn:
    """One exchange with injected memory removed."""

    user: str
    assistant: str


def clean_turns(signals: Sequence[Signal]) -> list[CleanTurn]:
    """The session's exchanges without memory blocks; exchanges left empty are dropped."""
    turns = [
        CleanTurn(strip_memory_blocks(s.user_message), strip_memory_blocks(s.assistant_message))
        for s in signals
    ]
    return [t for t in turns if t.user or t.assistant]


def novelty_chars(turns: Sequence[CleanTurn]) -> int:
    """Combined user+assistant characters, the novelty gate's measure."""
    return sum(len(t.user) + len(t.assistant) for t in turns)


@dataclass(frozen=True)
class Prompt:
    """The messages of the one distillation call, and what trimming did."""

    messages: tuple[Message, ...]
    turns_sent: int
    turns_omitted: int
    chars: int


def _truncate(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars]} …[truncated {len(text) - max_chars} chars]"


def _render_turn(turn: CleanTurn, max_chars: int) -> str:
    lines = [f"\nUser: {_truncate(turn.user, max_chars)}"]
    if turn.assistant:
        lines.append(f"\nAssistant: {_truncate(turn.assistant, max_chars)}")
    return "".join(lines)


def _omission(count: int) -> str:
    return f"\n[... {count} middle turn(s) omitted to fit the core model's context ...]"


def _select(sizes: Sequence[int], max_turns: int, budget: int) -> tuple[int, int]:
    """(head, tail) counts: the largest split with head = max(1, keep // 4) that fits the budget."""
    n = len(sizes)
    prefix = [0]
    for size in sizes:
        prefix.append(prefix[-1] + size)
    keep = min(n, max_turns)
    while True:
        if keep >= n:
            head, tail = n, 0
        else:
            head = max(1, keep // 4)
            tail = max(keep - head, 0)
        total = prefix[head] + (prefix[n] - prefix[n - tail])
        if total <= budget or keep <= 2:
            return head, tail
        keep -= 1


def format_date(epoch_ms: int) -> str:
    """UTC calendar date of an epoch-ms time, as shown to the model."""
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d")


def build_prompt(
    turns: Sequence[CleanTurn],
    *,
    session_time_ms: int,
    narrative: str,
    episodes: Sequence[EpisodeDigest],
    max_turns: int = MAX_TURNS,
    max_turn_chars: int = MAX_TURN_CHARS,
    max_prompt_chars: int = MAX_PROMPT_CHARS,
) -> Prompt:
    """The system + user messages; long sessions keep their start and end and say how many turns were dropped."""
    header = [f"Conversation date: {format_date(session_time_ms)}\n"]
    if narrative.strip():
        header.append(f"\nWhat we already know about the user:\n{_truncate(narrative.strip(), 2000)}\n")
    if episodes:
        header.append("\nRecent past sessions (for cross-session continuity):")
        header.extend(
            f"\n- [{format_date(e.conversation_at_ms)}] {e.summary[:_EPISODE_SUMMARY_CHARS]}"
            for e in episodes[:CONTEXT_EPISODES]
        )
        header.append("\n")
    header.append("\nConversation turns:")
    footer = "\n\nDistill this session into the JSON digest."
    fixed = sum(map(len, header)) + len(footer) + len(_omission(len(turns)))
    budget = max(max_prompt_chars - fixed, 0)
    cap = max_turn_chars
    while True:
        rendered = [_render_turn(t, cap) for t in turns]
        head, tail = _select([len(r) for r in rendered], max_turns, budget)
        kept = head + tail
        size = sum(len(r) for r in rendered[:head]) + sum(len(r) for r in rendered[len(rendered) - tail :])
        if size <= budget or cap <= 200:
            break
        cap = max(200, cap // 2)
    body = rendered[:head]
    omitted = len(turns) - kept
    if omitted:
        body.append(_omission(omitted))
    body.extend(rendered[len(rendered) - tail :] if tail else [])
    user = "".join(header) + "".join(body) + footer
    messages = (Message("system", SYSTEM_PROMPT), Message("user", user))
    return Prompt(messages, kept, omitted, len(SYSTEM_PROMPT) + len(user))


__all__ = [
    "CONTEXT_EPISODES",
    "CONTEXT_EPISODE_MAX_AGE_DAYS",
    "MAX_PROMPT_CHARS",
    "MAX_TURNS",
    "MAX_TURN_CHARS",
    "NOVELTY_MIN_CHARS",
    "SYSTEM_PROMPT",
    "CleanTurn",
    "Prompt",
    "build_prompt",
    "clean_turns",
    "format_date",
    "novelty_chars",
    "strip_memory_blocks",
]
