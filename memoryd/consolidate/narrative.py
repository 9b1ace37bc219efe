"""The identity-narrative prompt: built from auto-derived identity facts, and the model's reply cleaned up."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from inferd.client import GenerateOptions, Message

#: Most facts given to the model (most supported first); the narrative is a summary, not an archive.
MAX_FACTS = 60
#: Longest narrative stored; it is injected into prompts under the memory budget.
MAX_NARRATIVE_CHARS = 1500
NARRATIVE_OPTIONS = GenerateOptions(max_tokens=256, temperature=0.2)
NARRATIVE_TIMEOUT_S = 120.0

SYSTEM_PROMPT = """You maintain a short profile of the user, written from facts collected in earlier conversations.
Write 2 to 5 plain sentences in the third person ("The user ..."). Use only the facts given; do not guess or add
anything. When two facts conflict, keep the one seen more often. No lists, no headings, no preamble."""

_FENCE = re.compile(r"^```[a-z]*\s*|\s*```$", re.IGNORECASE)
_PREAMBLE = re.compile(
    r"^(?:here(?:'s| is) (?:the |a )?(?:updated )?(?:profile|narrative)[^:\n]*:|profile:|narrative:)\s*",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class FactLine:
    """One identity fact as the prompt shows it."""

    text: str
    source_count: int


def facts_digest(facts: Sequence[FactLine], model: str, imported: str = "") -> str:
    """Stable fingerprint of the narrative's inputs; an unchanged digest means no model call is needed."""
    hasher = hashlib.sha256(model.encode("utf-8"))
    for fact in facts:
        hasher.update(
            b"\x00" + fact.text.strip().casefold().encode("utf-8") + b"\x01" + str(fact.source_count).encode()
        )
    hasher.update(b"\x02" + imported.encode("utf-8"))
    return hasher.hexdigest()


def build_messages(facts: Sequence[FactLine], imported: str = "") -> list[Message]:
    """System + user messages for the ONE Generate call. `imported`: a 1.x profile to carry forward, if any."""
    lines = [f"- {fact.text.strip()} (seen {fact.source_count}×)" for fact in facts[:MAX_FACTS]]
    user = "Facts about the user, most often seen first:\n" + "\n".join(lines)
    if imported.strip():
        user += "\n\nAn older profile, still valid unless a fact above contradicts it:\n" + imported.strip()
    return [Message("system", SYSTEM_PROMPT), Message("user", user + "\n\nWrite the profile now.")]


def clean_reply(text: str) -> str:
    """Strip code fences, a "Here is the profile:" preamble and surrounding quotes; cap the length at a sentence."""
    cleaned = _FENCE.sub("", text.strip()).strip()
    cleaned = _PREAMBLE.sub("", cleaned).strip().strip('"').strip()
    cleaned = re.sub(r"\s+", " ", cleaned)
    if len(cleaned) <= MAX_NARRATIVE_CHARS:
        return cleaned
    cut = cleaned[:MAX_NARRATIVE_CHARS]
    end = cut.rfind(". ")
    return cut[: end + 1] if end > MAX_NARRATIVE_CHARS // 2 else cut.rstrip()
