"""The one model call of a distillation: a short prompt that asks only for the summary and topics, and its parser.

The model is trusted for phrasing, never for facts: the extractor finds the facts, and whatever the model returns is
verified against the session's turns before it is stored. So the prompt is small (the user's turns in full, the
assistant's clipped), shows no earlier episodes or narrative a small model would copy back, and asks for a reply
short enough to decode in a few seconds on a CPU.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from inferd.client import GenerateOptions, Message
from memoryd.write.distill import Prompt, format_date
from memoryd.write.parse import (
    DEFAULT_EPISODE_SALIENCE,
    DEFAULT_FACT_SALIENCE,
    MIN_CANDIDATE_CHARS,
    Candidate,
    Digest,
    collapse_repeats,
    extract_json,
    parse_reply,
    strip_preamble,
)
from memoryd.write.retry import InvalidOutputError

#: Longest summary the call may write (about 40 tokens: SmolLM2 decodes ~10 constrained tokens/s on 2 CPU cores,
#: so the whole call stays near the 10 s p50 target for an 8-turn session).
SUMMARY_MAX_CHARS = 170
#: Topics: a couple of short labels.
MAX_TOPICS = 2
TOPIC_MAX_CHARS = 24
#: Facts the model may phrase (verified against the user's turns before they count).
MAX_FACTS = 1
FACT_MAX_CHARS = 100
#: Each user turn is cut to this many characters, each assistant turn to far fewer: facts come from the user.
USER_TURN_CHARS = 600
ASSISTANT_TURN_CHARS = 120
#: The whole user message stays within this many characters (~4 per token).
MAX_PROMPT_CHARS = 6000
#: Sampling: short and nearly greedy; the schema bounds the reply anyway.
PHRASE_OPTIONS = GenerateOptions(max_tokens=120, temperature=0.2)

#: The reply's JSON schema: {"summary", "topics", "facts"}; summary first, so a cut-off reply still has it.
PHRASE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string", "minLength": 1, "maxLength": SUMMARY_MAX_CHARS},
        "topics": {
            "type": "array",
            "items": {"type": "string", "maxLength": TOPIC_MAX_CHARS},
            "maxItems": MAX_TOPICS,
        },
        "facts": {
            "type": "array",
            "items": {"type": "string", "maxLength": FACT_MAX_CHARS},
            "maxItems": MAX_FACTS,
        },
    },
    "required": ["summary", "topics", "facts"],
    "additionalProperties": False,
}
PHRASE_SCHEMA_JSON = json.dumps(PHRASE_SCHEMA, separators=(",", ":"))

SYSTEM_PROMPT = (
    "Summarise the chat below in one or two plain sentences about what the user talked about and decided. "
    "Use only what the user said. Reply with JSON: "
    '{"summary": string, "topics": [short strings], "facts": [facts the user stated about themself]}.'
)
_DATE_LINE = "Date: "
_TURNS_LINE = "Chat:"

#: Lines of the prompt's own scaffolding: anything derived that copies one of them is rejected.
SCAFFOLDING: tuple[str, ...] = (
    SYSTEM_PROMPT,
    _TURNS_LINE,
    # Headers of the earlier, longer prompt: replies and rows written with it must not come back either.
    "Recent past sessions (for cross-session continuity):",
    "What we already know about the user:",
    "Conversation turns:",
    "Distill this session into the JSON digest.",
    "You distill one chat session into a compact memory digest.",
    "middle turn(s) omitted to fit the core model's context",
)


def _clip(text: str, max_chars: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= max_chars else flat[:max_chars].rstrip() + "…"


def build_phrase_prompt(
    turns: Sequence[tuple[str, str]], *, session_time_ms: int, max_prompt_chars: int = MAX_PROMPT_CHARS
) -> Prompt:
    """System + user messages for (user, assistant) turns; a long session keeps its first and last turns."""
    rendered: list[str] = []
    for user, assistant in turns:
        line = f"User: {_clip(user, USER_TURN_CHARS)}" if user else ""
        if assistant:
            line += f"\nAssistant: {_clip(assistant, ASSISTANT_TURN_CHARS)}"
        if line:
            rendered.append(line.strip())
    header = f"{_DATE_LINE}{format_date(session_time_ms)}\n{_TURNS_LINE}\n"
    kept = list(rendered)
    omitted = 0
    while kept and len(header) + sum(len(r) + 1 for r in kept) > max_prompt_chars and len(kept) > 2:
        kept.pop(len(kept) // 2)  # the middle goes first: openings and endings carry the session's point
        omitted += 1
    user = header + "\n".join(kept)
    messages = (Message("system", SYSTEM_PROMPT), Message("user", user))
    return Prompt(messages, len(kept), omitted, len(SYSTEM_PROMPT) + len(user))


def _strings(value: Any, max_items: int, max_chars: int) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise InvalidOutputError("expected a list of strings")
    out: list[str] = []
    for item in value:
        if isinstance(item, str):
            text = " ".join(item.split())[:max_chars].strip()
            if text and text.casefold() not in {o.casefold() for o in out}:
                out.append(text)
    return tuple(out[:max_items])


def parse_phrase(text: str) -> Digest:
    """The reply as a Digest. Accepts the short shape above and the older full digest (remote models given it)."""
    data = extract_json(text)
    if "episode" in data or "pinned_candidates" in data:
        return parse_reply(text)
    summary = data.get("summary")
    if summary is not None and not isinstance(summary, str):
        raise InvalidOutputError("summary must be a string")
    facts = _strings(data.get("facts"), MAX_FACTS, FACT_MAX_CHARS)
    return Digest(
        has_episode=True,
        summary=collapse_repeats(strip_preamble(summary or ""))[:SUMMARY_MAX_CHARS].strip(),
        topics=_strings(data.get("topics"), MAX_TOPICS, TOPIC_MAX_CHARS),
        decisions=(),
        action_items=(),
        salience=DEFAULT_EPISODE_SALIENCE,
        entities=(),
        candidates=tuple(
            Candidate(f, DEFAULT_FACT_SALIENCE, ()) for f in facts if len(f) >= MIN_CANDIDATE_CHARS
        ),
        identity_facts=(),
    )


__all__ = [
    "PHRASE_OPTIONS",
    "PHRASE_SCHEMA",
    "PHRASE_SCHEMA_JSON",
    "SCAFFOLDING",
    "SYSTEM_PROMPT",
    "build_phrase_prompt",
    "parse_phrase",
]
