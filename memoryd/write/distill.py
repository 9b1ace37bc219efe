"""Distillation input: memory-block stripping, the novelty threshold and the shapes the one-call prompt shares."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from inferd.client import Message

#: Sessions with fewer combined user+assistant characters are skipped as low novelty (terminal).
NOVELTY_MIN_CHARS = 80
#: Recent episodes of the same agent checked against for copying (never shown to the model).
CONTEXT_EPISODES = 3
#: Only episodes this recent are checked.
CONTEXT_EPISODE_MAX_AGE_DAYS = 90

_MEMORY_BLOCK = re.compile(r"\[Memory\].*?\[/Memory\]\s*", re.DOTALL | re.IGNORECASE)


def strip_memory_blocks(text: str) -> str:
    """Remove injected `[Memory] … [/Memory]` blocks so the writer never re-learns its own context."""
    return _MEMORY_BLOCK.sub("", text).strip()


@dataclass(frozen=True)
class Prompt:
    """The messages of the one distillation call, and what trimming did."""

    messages: tuple[Message, ...]
    turns_sent: int
    turns_omitted: int
    chars: int


def format_date(epoch_ms: int) -> str:
    """UTC calendar date of an epoch-ms time, as shown to the model."""
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d")


__all__ = [
    "CONTEXT_EPISODES",
    "CONTEXT_EPISODE_MAX_AGE_DAYS",
    "NOVELTY_MIN_CHARS",
    "Prompt",
    "format_date",
    "strip_memory_blocks",
]
