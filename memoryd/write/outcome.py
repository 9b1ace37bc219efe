"""Distillation outcomes and their API tokens, exactly as the spec lists them."""

from __future__ import annotations

from dataclasses import dataclass

DISTILLED = "distilled"
NO_SIGNALS = "no_signals"
SKIPPED_MEMORY_DISABLED = "skipped:memory_disabled"
SKIPPED_CORE_MODEL_UNSET = "skipped:core_model_unset"
SKIPPED_CORE_MODEL_UNAVAILABLE = "skipped:core_model_unavailable"
SKIPPED_NOT_RESIDENT = "skipped:not_resident"
SKIPPED_BREAKER_OPEN = "skipped:breaker_open"
SKIPPED_CANCELLED = "skipped:cancelled"
EMPTY_NO_EPISODE = "empty:no_episode"
EMPTY_SUMMARY = "empty:empty_summary"


def low_novelty(chars: int) -> str:
    """skipped:low_novelty:<n>chars"""
    return f"skipped:low_novelty:{chars}chars"


def dead_letter(attempts: int) -> str:
    """dead_letter:<attempts>"""
    return f"dead_letter:{attempts}"


def error(message: str) -> str:
    """error:<message> — the message is a short machine phrase, never memory content."""
    return f"error:{message}"


@dataclass(frozen=True)
class Outcome:
    """How one conversation's distillation ended; episode_id is set only when distilled."""

    agent_id: str
    conversation_id: str
    token: str
    episode_id: int = 0

    @property
    def is_distilled(self) -> bool:
        return self.token == DISTILLED


__all__ = [
    "DISTILLED",
    "EMPTY_NO_EPISODE",
    "EMPTY_SUMMARY",
    "NO_SIGNALS",
    "SKIPPED_BREAKER_OPEN",
    "SKIPPED_CANCELLED",
    "SKIPPED_CORE_MODEL_UNAVAILABLE",
    "SKIPPED_CORE_MODEL_UNSET",
    "SKIPPED_MEMORY_DISABLED",
    "SKIPPED_NOT_RESIDENT",
    "Outcome",
    "dead_letter",
    "error",
    "low_novelty",
]
