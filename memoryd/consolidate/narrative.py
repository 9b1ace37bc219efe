"""One agent's identity narrative: the prompt built from that agent's identity facts, the model's reply cleaned
up, and the extractive narrative (the facts themselves) that stands when no model reply passes verification."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from inferd.client import GenerateOptions, Message
from memoryd.domain import EXTRACTIVE_NARRATIVE

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


#: identity narrative `model` of one built from the facts themselves, without a model.
EXTRACTIVE = EXTRACTIVE_NARRATIVE
#: The user message around the fact lines; the verifier rejects a reply that copies it.
_FACTS_HEADER = "Facts about the user, most often seen first:"
_FACTS_FOOTER = "Write the profile now."


def facts_digest(facts: Sequence[FactLine], model: str) -> str:
    """Stable fingerprint of the narrative's inputs; an unchanged digest means no model call is needed."""
    hasher = hashlib.sha256(model.encode("utf-8"))
    for fact in facts:
        hasher.update(
            b"\x00" + fact.text.strip().casefold().encode("utf-8") + b"\x01" + str(fact.source_count).encode()
        )
    return hasher.hexdigest()


def build_messages(facts: Sequence[FactLine]) -> list[Message]:
    """System + user messages for the ONE Generate call of one agent, from that agent's facts only."""
    lines = [f"- {fact.text.strip()} (seen {fact.source_count}×)" for fact in facts[:MAX_FACTS]]
    user = _FACTS_HEADER + "\n" + "\n".join(lines)
    return [Message("system", SYSTEM_PROMPT), Message("user", user + "\n\n" + _FACTS_FOOTER)]


def scaffolding() -> tuple[str, ...]:
    """The prompt's own text (everything but the facts), which a reply must not copy."""
    return (SYSTEM_PROMPT, _FACTS_HEADER, _FACTS_FOOTER)


def extractive_narrative(facts: Sequence[FactLine]) -> str:
    """The facts themselves as sentences, most supported first, whole facts up to MAX_NARRATIVE_CHARS: true by
    construction, so an agent with facts always has a narrative even when no model reply can be trusted."""
    seen: set[str] = set()
    narrative = ""
    for fact in sorted(facts, key=lambda f: -f.source_count):  # stable: equal support keeps the given order
        text = re.sub(r"\s+", " ", fact.text).strip()
        key = text.casefold().rstrip(".!?")
        if not text or key in seen:
            continue
        seen.add(key)
        text = text[0].upper() + text[1:] + ("" if text[-1] in ".!?" else ".")
        longer = f"{narrative} {text}" if narrative else text
        if len(longer) > MAX_NARRATIVE_CHARS:
            if not narrative:  # one fact longer than the cap: cut it at a word
                narrative = text[:MAX_NARRATIVE_CHARS].rsplit(" ", 1)[0]
            break
        narrative = longer
    return narrative


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
