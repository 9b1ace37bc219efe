"""The memory block format: [Memory] frame, current date, always-on overrides, one line format per section."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime

from memoryd.retrieval.items import Section

OPEN_TAG = "[Memory]"
CLOSE_TAG = "[/Memory]"
OVERRIDES_HEADER = "## What I should always remember"
SECTION_HEADERS: dict[Section, str] = {
    Section.IDENTITY: "## About you",
    Section.PINNED: "## Things I remember",
    Section.EPISODES: "## What we discussed before",
    Section.TRANSCRIPT: "## Earlier in our chats",
}
#: Transcript excerpts are cut to this many characters (then "…").
TRANSCRIPT_EXCERPT_CHARS = 220
#: A single memory line never exceeds this many characters, whatever the row holds.
MAX_LINE_CHARS = 600

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# Memory text must not be able to close the frame early or open a fake one (stored prompt injection).
_TAGS = re.compile(r"\[\s*/?\s*memory\s*\]", re.IGNORECASE)


def format_date(day: date) -> str:
    """en_US "d MMMM yyyy", as the reference app writes it: "22 June 2026"."""
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


def iso_day(epoch_ms: int) -> str:
    """UTC calendar day of an epoch-ms timestamp, "YYYY-MM-DD" ("undated" for 0)."""
    if epoch_ms <= 0:
        return "undated"
    return datetime.fromtimestamp(epoch_ms / 1000, tz=UTC).date().isoformat()


def one_line(text: str, max_chars: int = MAX_LINE_CHARS) -> str:
    """Memory text on one line: whitespace collapsed, frame tags neutralised, cut with "…" past max_chars."""
    flat = " ".join(_TAGS.sub("(memory)", text).split())
    return cut(flat, max_chars)


def cut(text: str, max_chars: int) -> str:
    """text, or its first max_chars-1 characters (at a word boundary when one is near) plus "…"."""
    if len(text) <= max_chars:
        return text
    head = text[: max(0, max_chars - 1)]
    space = head.rfind(" ")
    if space >= max_chars * 0.6:
        head = head[:space]
    return head.rstrip(" ,;:.-") + "…"


def overrides_section(overrides: Sequence[str]) -> str:
    """The always-on block of the user's explicit overrides ("" when there are none)."""
    lines = [f"- {one_line(o)}" for o in overrides if o.strip()]
    if not lines:
        return ""
    return "\n".join([OVERRIDES_HEADER, *lines])


def pinned_line(content: str) -> str:
    """ "- <fact>"."""
    return f"- {one_line(content)}"


def identity_fact_line(content: str) -> str:
    """ "- <auto-derived identity fact>"."""
    return f"- {one_line(content)}"


def episode_line(occurred_at_ms: int, summary: str, decisions: Sequence[str]) -> str:
    """ "- [YYYY-MM-DD] <summary> (decision: <first decision>)"."""
    line = f"- [{iso_day(occurred_at_ms)}] {one_line(summary)}"
    first = next((d.strip(" -•*\t") for d in decisions if d.strip(" -•*\t")), "")
    if first:
        line += f" (decision: {one_line(first, 200)})"
    return line


def transcript_line(occurred_at_ms: int, role: str, content: str) -> str:
    """ "- [YYYY-MM-DD, role] <excerpt, at most 220 characters>"."""
    return f"- [{iso_day(occurred_at_ms)}, {role or 'user'}] {one_line(content, TRANSCRIPT_EXCERPT_CHARS)}"


def section_text(section: Section, body_lines: Sequence[str]) -> str:
    """Header plus lines ("" when there are no lines: a bare header is never emitted)."""
    if not body_lines:
        return ""
    return "\n".join([SECTION_HEADERS[section], *body_lines])


def render_block(current_date: str, overrides_text: str, section_body: str) -> str:
    """The whole block; "" when there is neither an overrides section nor a memory section (no lone date)."""
    if not overrides_text and not section_body:
        return ""
    parts = [f"Current date: {current_date}", overrides_text, section_body]
    inner = "\n\n".join(part for part in parts if part)
    return f"{OPEN_TAG}\n{inner}\n{CLOSE_TAG}"


def prepend(block: str, user_text: str) -> str:
    """The latest user message with the block in front: "[Memory]…[/Memory]\\n\\n<original text>"."""
    if not block:
        return user_text
    return f"{block}\n\n{user_text}"


__all__ = [
    "CLOSE_TAG",
    "OPEN_TAG",
    "OVERRIDES_HEADER",
    "SECTION_HEADERS",
    "cut",
    "episode_line",
    "format_date",
    "identity_fact_line",
    "iso_day",
    "one_line",
    "overrides_section",
    "pinned_line",
    "prepend",
    "render_block",
    "section_text",
    "transcript_line",
]
