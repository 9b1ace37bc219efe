"""Tolerant parse of the model's digest (whole reply, fenced block, or first brace to last) that still validates."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from memoryd.write.digest_caps import (
    MAX_CANDIDATE_CHARS,
    MAX_CANDIDATES,
    MAX_ENTITIES,
    MAX_ENTITY_CHARS,
    MAX_IDENTITY_CHARS,
    MAX_IDENTITY_FACTS,
    MAX_ITEM_CHARS,
    MAX_LIST_ITEMS,
    MAX_SUMMARY_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TOPIC_CHARS,
    MAX_TOPICS,
)
from memoryd.write.retry import InvalidOutputError

DEFAULT_EPISODE_SALIENCE = 0.5
DEFAULT_FACT_SALIENCE = 0.6
#: Candidates this short carry no fact.
MIN_CANDIDATE_CHARS = 6

_FENCE = re.compile(r"```(?:json)?\s*\n?([\s\S]*?)```", re.IGNORECASE)
_PREAMBLES = (
    re.compile(r"^(?:certainly|sure|of course|here(?:'s| is| are))[!.,:]?\s*", re.IGNORECASE),
    re.compile(r"^here is (?:a |the )?(?:profile|description|summary)[^:]*:\s*", re.IGNORECASE),
    re.compile(r"^(?:the )?summary(?: of (?:the|this) (?:session|conversation))?\s*:\s*", re.IGNORECASE),
)


@dataclass(frozen=True)
class Candidate:
    """A pinned-fact candidate from the reply."""

    content: str
    salience: float
    tags: tuple[str, ...]


@dataclass(frozen=True)
class Digest:
    """A validated reply. `has_episode` is False when the reply carried no episode at all."""

    has_episode: bool
    summary: str
    topics: tuple[str, ...]
    decisions: tuple[str, ...]
    action_items: tuple[str, ...]
    salience: float
    entities: tuple[str, ...]
    candidates: tuple[Candidate, ...]
    identity_facts: tuple[str, ...]


def extract_json(text: str) -> dict[str, Any]:
    """The first JSON object found: the whole reply, then a ``` fence, then first `{` to last `}`."""
    stripped = text.strip()
    attempts = [stripped]
    fence = _FENCE.search(stripped)
    if fence:
        attempts.append(fence.group(1).strip())
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        attempts.append(stripped[start : end + 1])
    for attempt in attempts:
        try:
            value = json.loads(attempt)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict):
            return value
    raise InvalidOutputError("reply holds no JSON object")


def strip_preamble(text: str) -> str:
    """Drop chatty openers ("Sure! Here is the summary: …") from a summary."""
    result = text.strip()
    for pattern in _PREAMBLES:
        result = pattern.sub("", result).strip()
    return result


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def collapse_repeats(text: str) -> str:
    """Drop sentences that repeat an earlier one (small models loop: "I'm excited. I'm excited. …")."""
    seen: set[str] = set()
    kept: list[str] = []
    for sentence in _SENTENCE.split(text.strip()):
        key = " ".join(sentence.casefold().split()).rstrip(".!?… ")
        if key and key not in seen:
            seen.add(key)
            kept.append(sentence)
    return " ".join(kept)


def _clip(text: str, max_chars: int) -> str:
    return text if len(text) <= max_chars else text[:max_chars].rstrip()


def _strings(
    value: Any, field: str, max_items: int, max_chars: int, *, split_commas: bool = False
) -> tuple[str, ...]:
    """A list of strings: trimmed, empties and case-insensitive repeats dropped, clipped and capped."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.split(",") if split_commas else [value]
    if not isinstance(value, list):
        raise InvalidOutputError(f"{field} must be a list of strings")
    seen: set[str] = set()
    items: list[str] = []
    for item in value:
        if not isinstance(item, str):
            raise InvalidOutputError(f"{field} must be a list of strings")
        text = _clip(" ".join(item.split()), max_chars)
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            items.append(text)
    return tuple(items[:max_items])


def _salience(value: Any, field: str, default: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool):
        raise InvalidOutputError(f"{field} must be a number")
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError as error:
            raise InvalidOutputError(f"{field} must be a number") from error
    if not isinstance(value, (int, float)) or math.isnan(value):
        raise InvalidOutputError(f"{field} must be a number")
    return min(max(float(value), 0.0), 1.0)


def _candidates(value: Any) -> tuple[Candidate, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InvalidOutputError("pinned_candidates must be a list")
    result: list[Candidate] = []
    for index, item in enumerate(value):
        field = f"pinned_candidates[{index}]"
        if isinstance(item, str):
            item = {"content": item}
        if not isinstance(item, dict) or not isinstance(item.get("content"), str):
            raise InvalidOutputError(f"{field}.content must be a string")
        content = _clip(" ".join(item["content"].split()), MAX_CANDIDATE_CHARS)
        if len(content) < MIN_CANDIDATE_CHARS:
            continue
        salience = _salience(item.get("salience"), f"{field}.salience", DEFAULT_FACT_SALIENCE)
        tags = _strings(item.get("tags"), f"{field}.tags", MAX_TAGS, MAX_TAG_CHARS)
        result.append(Candidate(content, salience, tags))
    return tuple(result[:MAX_CANDIDATES])


def parse_reply(text: str) -> Digest:
    """Validate the model's reply; raises InvalidOutputError when it is not a digest of the schema's shape."""
    data = extract_json(text)
    episode = data.get("episode")
    if episode is not None and not isinstance(episode, dict):
        raise InvalidOutputError("episode must be an object")
    entities = _strings(data.get("entities"), "entities", MAX_ENTITIES, MAX_ENTITY_CHARS, split_commas=True)
    candidates = _candidates(data.get("pinned_candidates"))
    identity = _strings(data.get("identity_facts"), "identity_facts", MAX_IDENTITY_FACTS, MAX_IDENTITY_CHARS)
    if episode is None:
        return Digest(False, "", (), (), (), DEFAULT_EPISODE_SALIENCE, entities, candidates, identity)
    summary = episode.get("summary")
    if summary is not None and not isinstance(summary, str):
        raise InvalidOutputError("episode.summary must be a string")
    return Digest(
        has_episode=True,
        summary=_clip(collapse_repeats(strip_preamble(summary or "")), MAX_SUMMARY_CHARS),
        topics=_strings(
            episode.get("topics"), "episode.topics", MAX_TOPICS, MAX_TOPIC_CHARS, split_commas=True
        ),
        decisions=_strings(episode.get("decisions"), "episode.decisions", MAX_LIST_ITEMS, MAX_ITEM_CHARS),
        action_items=_strings(
            episode.get("action_items"), "episode.action_items", MAX_LIST_ITEMS, MAX_ITEM_CHARS
        ),
        salience=_salience(episode.get("salience"), "episode.salience", DEFAULT_EPISODE_SALIENCE),
        entities=entities,
        candidates=candidates,
        identity_facts=identity,
    )


__all__ = [
    "DEFAULT_EPISODE_SALIENCE",
    "DEFAULT_FACT_SALIENCE",
    "MIN_CANDIDATE_CHARS",
    "Candidate",
    "Digest",
    "collapse_repeats",
    "extract_json",
    "parse_reply",
    "strip_preamble",
]
