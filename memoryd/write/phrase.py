"""The one model call of a distillation: a short prompt that asks only for the summary, and its parser.

The model is trusted for phrasing, never for facts: the extractor finds the facts, topics and entities, and whatever
the model returns is verified against the session's turns before it is stored. So the call carries only what the
summary needs and asks only for it: the user's turns (the summary says what the user talked about and decided; the
assistant's words are not evidence for it), no earlier episodes or narrative a small model would copy back, and a
reply of one JSON field. On SmolLM2-135M (the default core model, on the CPU) the call's time is the prompt's
tokens read plus the reply's tokens decoded under the JSON grammar, so both are kept small: about 300 prompt tokens
for an 8-turn session instead of 550, and a reply of about 40 tokens instead of 60-100.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from inferd.client import GenerateOptions, Message
from memoryd.write.distill import Prompt, format_date
from memoryd.write.grounding.lexicon import CHIT_CHAT, SMALL_TALK
from memoryd.write.grounding.text import sentences
from memoryd.write.grounding.verify import support
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

#: Longest summary the call may write (about 35 tokens): one or two plain sentences.
SUMMARY_MAX_CHARS = 150
#: Topics and facts a reply may still carry (a remote model given the older prompt): parsed, verified, never asked.
MAX_TOPICS = 2
TOPIC_MAX_CHARS = 24
MAX_FACTS = 1
FACT_MAX_CHARS = 100
#: Each user turn is cut to this many characters: a summary of 150 characters needs the gist, not every detail.
USER_TURN_CHARS = 320
#: ... but never to fewer than this, even in a long session (its middle turns are left out instead).
MIN_TURN_CHARS = 140
#: The whole user message stays within this many characters (~4 per token).
MAX_PROMPT_CHARS = 1600
#: Sampling: nearly greedy, and no more tokens than the summary's JSON takes (`{"summary":"…"}` + its closing).
PHRASE_OPTIONS = GenerateOptions(max_tokens=48, temperature=0.2)

#: The reply's JSON schema: {"summary"} and nothing else, so every decoded token is the summary's.
PHRASE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string", "minLength": 1, "maxLength": SUMMARY_MAX_CHARS}},
    "required": ["summary"],
    "additionalProperties": False,
}
PHRASE_SCHEMA_JSON = json.dumps(PHRASE_SCHEMA, separators=(",", ":"))

SYSTEM_PROMPT = (
    "Summarise in one or two short sentences what the user talked about and decided, "
    'speaking of them as "the user". Use only what the user said. Reply with JSON: {"summary": string}.'
)
_DATE_LINE = "Date: "
#: The line the session's turns follow in the prompt (tests find the distillation call by it).
TURNS_HEADER = "Messages:"

#: Lines of the prompt's own scaffolding: anything derived that copies one of them is rejected.
SCAFFOLDING: tuple[str, ...] = (
    SYSTEM_PROMPT,
    TURNS_HEADER,
    # Headers of the earlier prompts: replies and rows written with them must not come back either.
    "Summarise the chat below in one or two plain sentences about what the user talked about and decided.",
    "Chat:",
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


#: A sentence that only greets ("Hi!", "Bonjour à tous !", "Morning."): nothing a summary says, and what a small
#: model echoes back as a first-person "summary" when it opens the prompt.
_GREETING_ONLY = re.compile(
    r"^\W*(?:hi|hello|hey|hiya|morning|good (?:morning|afternoon|evening)|bonjour|bonsoir|salut|coucou|hola|buenas|"
    r"buenos días|buenas tardes|hallo|servus|moin|guten (?:tag|morgen|abend)|olá|ola|oi|bom dia|boa tarde|boa noite)"
    r"(?:\s+(?:there|again|everyone|à tous|a todos|zusammen))?\W*$",
    re.IGNORECASE,
)
#: Small talk longer than this is kept: "thanks, that settles it, we'll go with Postgres" says something.
_SMALL_TALK_CHARS = 40


def what_matters(user: str) -> str:
    """A user turn without what no summary needs: greetings alone, short thanks and goodbyes, chit-chat."""
    kept = [
        sentence
        for sentence in sentences(user)
        if not _GREETING_ONLY.match(sentence)
        and not (SMALL_TALK.search(sentence) and len(sentence) < _SMALL_TALK_CHARS)
        and not CHIT_CHAT.search(sentence)
    ]
    return " ".join(kept)


def build_phrase_prompt(
    turns: Sequence[tuple[str, str]], *, session_time_ms: int, max_prompt_chars: int = MAX_PROMPT_CHARS
) -> Prompt:
    """System + user messages for (user, assistant) turns: the user's turns only, a long session keeping its first
    and last ones."""
    said = [text for text in (what_matters(user) for user, _ in turns) if text]
    header = f"{_DATE_LINE}{format_date(session_time_ms)}\n{TURNS_HEADER}\n"
    # Each turn gets its share of the budget (never less than a sentence's worth), so 8 turns all fit; a line
    # adds "- ", a clipped turn "…", and a newline.
    share = (max_prompt_chars - len(header)) // max(1, len(said)) - 4
    rendered = [f"- {_clip(user, min(USER_TURN_CHARS, max(MIN_TURN_CHARS, share)))}" for user in said]
    kept = list(rendered)
    omitted = 0
    while kept and len(header) + sum(len(r) + 1 for r in kept) > max_prompt_chars and len(kept) > 2:
        kept.pop(len(kept) // 2)  # the middle goes first: openings and endings carry the session's point
        omitted += 1
    user = header + "\n".join(kept)
    messages = (Message("system", SYSTEM_PROMPT), Message("user", user))
    return Prompt(messages, len(kept), omitted, len(SYSTEM_PROMPT) + len(user))


#: Words a summary reports with, which no turn needs to say: "The user talked about …", "discussed", "asked".
_REPORTING = re.compile(
    r"\b(?:talk(?:s|ed)?|discuss(?:es|ed)?|mention(?:s|ed)?|said|says|spoke|speaks|explain(?:s|ed)|ask(?:s|ed)|"
    r"wonder(?:s|ed)|shar(?:es|ed)|describ(?:es|ed))\b(?:\s+(?:about|that|how|for))?",
    re.IGNORECASE,
)
#: Share of a model summary's content words the turns it was shown must hold. Verification proper (ground.py)
#: reads every turn, the assistant's too, and passes a summary most of whose words some turn has; a model that
#: was shown only the user's turns and writes "changed the password for the new role" (words of the assistant's
#: reply it never saw) or "le décès … une réussite" (words of no turn) is inventing, however many words it got right.
STRICT_SUPPORT = 0.9


def within_prompt(summary: str, prompt: Prompt) -> bool:
    """Whether a model summary says what the call showed it: at least STRICT_SUPPORT of its content words (the
    reporting verbs aside) occur in the turns it was sent."""
    return support(_REPORTING.sub(" ", summary), prompt.messages[-1].content) >= STRICT_SUPPORT


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


def whole_sentences(summary: str) -> str:
    """The summary without a trailing fragment: a reply cut off at its length ("… We decided to bring") keeps the
    sentences before the cut ("Dr. Li" ends none); a summary of one unfinished clause is kept as it is (verified
    alone like any summary)."""
    parts = sentences(summary)
    if len(parts) < 2 or parts[-1].endswith((".", "!", "?", "…", '"', "”", "»")):
        return summary
    return " ".join(parts[:-1])


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
        summary=whole_sentences(collapse_repeats(strip_preamble(summary or ""))[:SUMMARY_MAX_CHARS].strip()),
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
    "STRICT_SUPPORT",
    "SYSTEM_PROMPT",
    "TURNS_HEADER",
    "build_phrase_prompt",
    "parse_phrase",
    "what_matters",
    "whole_sentences",
    "within_prompt",
]
