"""LoCoMo loading and scoring, following docs/references.md (LoCoMo baselines) exactly (turn text, evidence rule, metrics).

The data file is read from the shared folder and never copied into the repo (its licence is CC BY-NC 4.0).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PATH = REPO.parent / "shared" / "bench" / "locomo10.json"
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_EVIDENCE = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")
BUDGET_TOKENS = 800


@dataclass(frozen=True)
class Turn:
    """One dialog turn as indexed: id like "D3:7", text "{speaker}: {text} [shares {caption}]", session time."""

    dia_id: str
    session: int
    text: str
    occurred_at_ms: int


@dataclass(frozen=True)
class Question:
    """One QA item with normalised evidence turn ids."""

    conversation: str
    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    """One LoCoMo sample: its turns (in order) and its questions."""

    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def locomo_path() -> Path:
    """OSAURUS_LOCOMO_PATH, else ../shared/bench/locomo10.json next to the repo."""
    return Path(os.environ.get("OSAURUS_LOCOMO_PATH", str(DEFAULT_PATH)))


def _session_ms(text: str) -> int:
    try:
        return int(
            datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).timestamp() * 1000
        )
    except ValueError:
        return 0


def normalise_evidence(raw: Iterable[str], known: set[str]) -> tuple[str, ...]:
    """Regex-extract D<s>:<t> ids, strip leading zeros, dedupe, drop ids absent from the conversation."""
    found: dict[str, None] = {}
    for item in raw:
        for session, turn in _EVIDENCE.findall(str(item)):
            dia = f"D{int(session)}:{int(turn)}"
            if dia in known:
                found.setdefault(dia, None)
    return tuple(found)


def load(path: Path | None = None) -> list[Conversation]:
    """All ten conversations with their turns and category 1-4 questions (cat 5 and empty evidence excluded)."""
    data = json.loads((path or locomo_path()).read_text(encoding="utf-8"))
    conversations: list[Conversation] = []
    for sample in data:
        conv = sample["conversation"]
        turns: list[Turn] = []
        session = 1
        while f"session_{session}" in conv:
            stamp = _session_ms(conv.get(f"session_{session}_date_time", ""))
            for turn in conv[f"session_{session}"]:
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares {turn['blip_caption']}]"
                turns.append(Turn(turn["dia_id"], session, text, stamp))
            session += 1
        known = {t.dia_id for t in turns}
        questions = []
        for qa in sample["qa"]:
            category = int(qa["category"])
            if category not in CATEGORY_NAMES:
                continue
            evidence = normalise_evidence(qa.get("evidence", []), known)
            if evidence:
                questions.append(Question(sample["sample_id"], str(qa["question"]), category, evidence))
        conversations.append(Conversation(sample["sample_id"], tuple(turns), tuple(questions)))
    return conversations


def recall_at(ranking: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """|evidence in the top k| / |evidence|."""
    top = set(ranking[:k])
    return sum(e in top for e in evidence) / len(evidence)


def recall_within_budget(
    ranking: Sequence[str], evidence: Sequence[str], tokens: dict[str, float], budget: int = BUDGET_TOKENS
) -> float:
    """Recall inside the longest prefix of the ranking whose estimated tokens (len/4) sum to at most `budget`."""
    used, kept = 0.0, []
    for dia in ranking:
        used += tokens[dia]
        if used > budget:
            break
        kept.append(dia)
    return recall_at(kept, evidence, len(kept))


def estimate_tokens(text: str) -> float:
    """len(text) / 4, the baseline's estimate (not a tokenizer count)."""
    return len(text) / 4
