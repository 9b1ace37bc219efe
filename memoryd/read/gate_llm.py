"""LLM relevance gate: one schema-constrained classification call through inferd with a short deadline."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol

from inferd.client import GenerateOptions, Generation, Message
from memoryd.retrieval.gate import GateDecision
from memoryd.retrieval.items import Section

#: The reply schema: a section and a very short reason. Bounded so a small model cannot ramble.
GATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "section": {"type": "string", "enum": [s.value for s in Section]},
        "reason": {"type": "string", "maxLength": 60},
    },
    "required": ["section", "reason"],
    "additionalProperties": False,
}
GATE_SCHEMA_JSON = json.dumps(GATE_SCHEMA, separators=(",", ":"))

SYSTEM_PROMPT = "\n".join(
    [
        "You decide which memory helps answer the user's next message. Reply with JSON only.",
        "Sections:",
        "- identity: the user asks about themselves as a person (their name, job, age, where they live,"
        " what you know about them).",
        "- pinned: the user asks about a specific thing in their own life (my dog's name, my favourite food,"
        " a person or project they mentioned before).",
        "- episodes: the user refers to an earlier conversation with you (we discussed, last week you said,"
        " where did we leave off).",
        "- transcript: the user wants their own earlier words repeated exactly (my exact words,"
        " quote what I wrote).",
        "- none: the message can be answered without knowing the user: general knowledge, coding, writing,"
        " maths, translation, small talk, or it only refers to the current message.",
        "Pick none unless memory is clearly needed. reason: at most six words.",
    ]
)

#: Known entities shown to the model, at most this many.
MAX_PROMPT_ENTITIES = 20
#: Characters of the query shown to the model.
MAX_PROMPT_QUERY_CHARS = 600
_REASON_CHARS = re.compile(r"[^a-z0-9 _-]+")


class GateOutputError(ValueError):
    """The model's reply was not the expected JSON."""

    gate_token = "bad_output"


class GateCoolingDownError(RuntimeError):
    """Recent calls failed; the classifier is not asked again until the cool-down ends."""

    gate_token = "cooling_down"


class Generator(Protocol):
    """What the classifier needs from inferd.client.InferenceClient."""

    def generate(
        self,
        messages: Sequence[Message],
        *,
        model: str = "",
        json_schema: str = "",
        options: GenerateOptions | None = None,
        timeout_s: float | None = None,
    ) -> Generation: ...


#: Worked examples given as earlier turns: a 135M model follows them far better than instructions alone
#: (11/30 vs 3/30 correct on a dev sample, bench/bench_gate.py).
FEW_SHOT: tuple[tuple[str, str, str], ...] = (
    ("How do I sort a dict by value in Python?", "none", "general coding"),
    ("What's my name?", "identity", "about the user"),
    ("What did we talk about last week?", "episodes", "earlier conversation"),
    ("Do you remember my cat's name?", "pinned", "user's own thing"),
    ("Quote my exact words about the lease.", "transcript", "exact earlier words"),
    ("Translate 'good morning' into Spanish.", "none", "translation"),
)


def build_messages(query: str, known_entities: Collection[str]) -> list[Message]:
    """System instructions, the few-shot turns, then the query with a few known names."""
    messages = [Message("system", SYSTEM_PROMPT)]
    for example, section, reason in FEW_SHOT:
        messages.append(Message("user", f"Message: {example}"))
        messages.append(Message("assistant", json.dumps({"section": section, "reason": reason})))
    names = sorted(known_entities)[:MAX_PROMPT_ENTITIES]
    parts = []
    if names:
        parts.append("Names the user has mentioned before: " + ", ".join(names))
    parts.append("Message: " + query.strip()[:MAX_PROMPT_QUERY_CHARS])
    messages.append(Message("user", "\n".join(parts)))
    return messages


def parse_reply(text: str) -> GateDecision:
    """The decision in a reply; raises GateOutputError when it is not {section, reason} JSON."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise GateOutputError("reply is not JSON") from error
    if not isinstance(data, dict) or not isinstance(data.get("section"), str):
        raise GateOutputError("reply has no section")
    try:
        section = Section(data["section"].strip().lower())
    except ValueError as error:
        raise GateOutputError("unknown section") from error
    raw_reason = data.get("reason", "")
    reason = _REASON_CHARS.sub("", str(raw_reason).lower()).strip()[:40].replace(" ", "_")
    return GateDecision(section, f"llm:{reason}" if reason else "llm")


class LlmGateClassifier:
    """Classifies with the core model through inferd; after `max_failures` failures in a row it rests."""

    def __init__(
        self,
        generator: Generator,
        model: Callable[[], str] | str = "",
        *,
        max_tokens: int = 48,
        max_failures: int = 3,
        cooldown_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._generator = generator
        self._model = model if callable(model) else (lambda: model)
        self._max_tokens = max_tokens
        self._max_failures = max_failures
        self._cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._resting_until = 0.0

    def classify(
        self, query: str, known_entities: Collection[str], *, timeout_s: float | None = None
    ) -> GateDecision:
        """One Generate call with the {section, reason} schema; raises on failure (the gate falls back)."""
        with self._lock:
            if self._clock() < self._resting_until:
                raise GateCoolingDownError("classifier cooling down")
        try:
            reply = self._generator.generate(
                build_messages(query, known_entities),
                model=self._model(),
                json_schema=GATE_SCHEMA_JSON,
                options=GenerateOptions(max_tokens=self._max_tokens, temperature=0.0),
                timeout_s=timeout_s,
            )
            decision = parse_reply(reply.text)
        except Exception:
            with self._lock:
                self._failures += 1
                if self._failures >= self._max_failures:
                    self._resting_until = self._clock() + self._cooldown_s
                    self._failures = 0
            raise
        with self._lock:
            self._failures = 0
        return decision


__all__ = [
    "GATE_SCHEMA",
    "GATE_SCHEMA_JSON",
    "GateCoolingDownError",
    "GateOutputError",
    "LlmGateClassifier",
    "build_messages",
    "parse_reply",
]
