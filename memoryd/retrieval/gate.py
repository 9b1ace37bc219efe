"""Relevance gate: which one memory section (or none) helps answer a query; modes off/heuristic/llm."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from memoryd.retrieval import gate_patterns as p
from memoryd.retrieval.items import Section
from memoryd.text import fold as shared_fold

#: Queries shorter than this (after folding) never need memory.
MIN_QUERY_CHARS = 3
#: Only this much of a huge message is scanned: the head and the tail, where the question usually is.
MAX_SCAN_CHARS = 4000
#: Entities shorter than this are ignored (unless they contain a digit, like "K8s" or "A4").
MIN_ENTITY_CHARS = 3


class GateMode(StrEnum):
    """How the read path decides (memory.json relevanceGateMode)."""

    OFF = "off"
    HEURISTIC = "heuristic"
    LLM = "llm"


@dataclass(frozen=True)
class GateDecision:
    """The gate's verdict: the section and a short machine-friendly reason such as "evidence:pinned".

    ranked: the sections to try in order when the first yields nothing (the evidence gate's fall-through; empty
    for a single-section verdict). probabilities: the learned model's P(section), when it decided.
    """

    section: Section
    reason: str
    ranked: tuple[Section, ...] = ()
    probabilities: Mapping[Section, float] = field(default_factory=dict)


class GateClassifier(Protocol):
    """A model-backed classifier; raises (any Exception) when it cannot answer in time."""

    def classify(
        self, query: str, known_entities: Collection[str], *, timeout_s: float | None = None
    ) -> GateDecision: ...


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})
_DOUBLE_QUOTED = re.compile(
    r"\"[^\"]{0,200}\"|\u201c[^\u201d]{0,200}\u201d|\u00ab[^\u00bb]{0,200}\u00bb|\u201e[^\u201c\u201d]{0,200}[\u201c\u201d]"
)
# A single-quoted span: the opening quote is not inside a word (what's, j'ai), nor is the closing one.
_SINGLE_QUOTED = re.compile(r"(?<!\w)'[^'\n]{1,120}'(?!\w)")
_WORDS = re.compile(r"\w+")
_CLAUSE_PUNCT = re.compile(r"[,;:\u00bf\u00a1]")


def fold(text: str) -> str:
    """Casefold, strip accents, straighten apostrophes, collapse whitespace (what every pattern expects)."""
    return " ".join(shared_fold(text.translate(_APOSTROPHES), casefold=True).split())


def strip_quoted(folded: str) -> str:
    """Replace quoted spans with a placeholder: words the user quotes ("translate 'before'") are not triggers.

    Clause punctuation (, ; :) and Spanish inverted marks become spaces, so "weisst du noch, wie mein" reads
    as the phrase it is.
    """
    without_double = _DOUBLE_QUOTED.sub(" _q_ ", folded)
    without_single = _SINGLE_QUOTED.sub(" _q_ ", without_double)
    return " ".join(_CLAUSE_PUNCT.sub(" ", without_single).split())


def _clip(text: str) -> str:
    if len(text) <= MAX_SCAN_CHARS:
        return text
    half = MAX_SCAN_CHARS // 2
    return f"{text[:half]} {text[-half:]}"


def _compile(patterns: Iterable[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{source})" for source in patterns))


_TRANSCRIPT_STRONG = _compile(p.TRANSCRIPT_STRONG)
_TRANSCRIPT_MARKER = _compile(p.TRANSCRIPT_MARKERS)
_TRANSCRIPT_SELF = _compile(p.TRANSCRIPT_SELF)
_IDENTITY = _compile(p.IDENTITY)
_EPISODES_PRIOR = _compile(p.EPISODES_PRIOR)
_EPISODES_TEMPORAL = _compile(p.EPISODES_TEMPORAL)
_EPISODES_ANCHOR = _compile(p.EPISODES_ANCHOR)
_PINNED = _compile(p.PINNED)


@functools.lru_cache(maxsize=16384)
def normalise_entity(entity: str) -> str:
    """An entity as the matcher compares it: folded words joined by single spaces ("" when unusable)."""
    words = _WORDS.findall(fold(entity))
    if not words:
        return ""
    joined = " ".join(words)
    if len(words) == 1:
        word = words[0]
        if word in p.ENTITY_STOPWORDS or word.isdigit():
            return ""
        if len(word) < MIN_ENTITY_CHARS and not any(ch.isdigit() for ch in word):
            return ""
    elif all(word in p.ENTITY_STOPWORDS for word in words):
        return ""
    return joined


def prepare_entities(entities: Iterable[str]) -> frozenset[str]:
    """Normalise and filter known entities once, so each query check is cheap."""
    return frozenset(e for e in (normalise_entity(raw) for raw in entities) if e)


def entity_hit(folded_query: str, entities: Collection[str]) -> bool:
    """Whether a prepared entity occurs as whole words in the query ("over" never matches "discover")."""
    if not entities:
        return False
    padded = f" {' '.join(_WORDS.findall(folded_query))} "
    return any(f" {entity} " in padded for entity in entities)


def decide_heuristic(query: str, known_entities: Collection[str] = ()) -> GateDecision:
    """Pure rule-based verdict. known_entities should come from prepare_entities (raw strings get prepared).

    Order: literal recall, identity, earlier conversations, the user's own things; nothing fired means none.
    """
    folded = fold(_clip(query))
    if len(folded) < MIN_QUERY_CHARS:
        return GateDecision(Section.NONE, "none:too_short")
    text = strip_quoted(folded)
    if _TRANSCRIPT_STRONG.search(text):
        return GateDecision(Section.TRANSCRIPT, "trigger:literal_recall")
    if _TRANSCRIPT_MARKER.search(text) and _TRANSCRIPT_SELF.search(text):
        return GateDecision(Section.TRANSCRIPT, "trigger:literal_recall")
    if _IDENTITY.search(text):
        return GateDecision(Section.IDENTITY, "trigger:identity")
    if _EPISODES_PRIOR.search(text):
        return GateDecision(Section.EPISODES, "trigger:prior_context")
    if _EPISODES_TEMPORAL.search(text) and _EPISODES_ANCHOR.search(text):
        return GateDecision(Section.EPISODES, "trigger:temporal")
    entities = known_entities if isinstance(known_entities, frozenset) else prepare_entities(known_entities)
    if entity_hit(folded, entities):
        return GateDecision(Section.PINNED, "trigger:entity")
    if _PINNED.search(text):
        return GateDecision(Section.PINNED, "trigger:about_my")
    return GateDecision(Section.NONE, "none:no_trigger")


#: The trigger families, in the order decide_heuristic tries them; each is one feature of the evidence gate.
TRIGGERS = ("literal_recall", "identity", "prior_context", "temporal", "temporal_word", "entity", "about_my")


def trigger_flags(query: str, known_entities: frozenset[str]) -> dict[str, bool]:
    """Which trigger families fire on `query`, each on its own (decide_heuristic stops at the first)."""
    folded = fold(_clip(query))
    text = strip_quoted(folded)
    return {
        "literal_recall": bool(
            _TRANSCRIPT_STRONG.search(text)
            or (_TRANSCRIPT_MARKER.search(text) and _TRANSCRIPT_SELF.search(text))
        ),
        "identity": bool(_IDENTITY.search(text)),
        "prior_context": bool(_EPISODES_PRIOR.search(text)),
        "temporal": bool(_EPISODES_TEMPORAL.search(text) and _EPISODES_ANCHOR.search(text)),
        "temporal_word": bool(_EPISODES_TEMPORAL.search(text)),
        "entity": entity_hit(folded, known_entities),
        "about_my": bool(_PINNED.search(text)),
    }


def entity_hits(folded_query: str, entities: Collection[str]) -> int:
    """How many prepared entities occur as whole words in the query."""
    if not entities:
        return 0
    padded = f" {' '.join(_WORDS.findall(folded_query))} "
    return sum(f" {entity} " in padded for entity in entities)


def clip(text: str) -> str:
    """The part of a huge message the gate scans: its head and tail (MAX_SCAN_CHARS in all)."""
    return _clip(text)


class RelevanceGate:
    """Applies the configured mode; `llm` asks the classifier, falling back to the evidence gate on failure.

    `evidence` (when given) is the evidence gate's verdict for this query, computed lazily: it is the
    `heuristic` mode's answer and the `llm` mode's fallback. Without it both use the trigger phrases alone.
    """

    def __init__(self, classifier: GateClassifier | None = None, *, llm_timeout_s: float = 2.5) -> None:
        self._classifier = classifier
        self._llm_timeout_s = llm_timeout_s

    def decide(
        self,
        query: str,
        known_entities: Collection[str],
        mode: GateMode,
        *,
        deadline_s: float | None = None,
        evidence: Callable[[], GateDecision] | None = None,
    ) -> GateDecision:
        """Verdict for `query`; deadline_s (seconds left for the whole request) caps the model call."""
        if mode is GateMode.OFF:
            return GateDecision(Section.EPISODES, "mode:off")
        if len(fold(query)) < MIN_QUERY_CHARS:
            return GateDecision(Section.NONE, "none:too_short")

        def fallback_decision() -> GateDecision:
            return evidence() if evidence is not None else decide_heuristic(query, known_entities)

        if mode is GateMode.HEURISTIC:
            return fallback_decision()
        if self._classifier is None:
            return _fell_back("no_classifier", fallback_decision())
        timeout_s = self._llm_timeout_s
        if deadline_s is not None:
            # Leave room for the planner after the model answers.
            timeout_s = min(timeout_s, deadline_s * 0.6)
        if timeout_s <= 0.05:
            return _fell_back("deadline", fallback_decision())
        try:
            return self._classifier.classify(query, known_entities, timeout_s=timeout_s)
        except (
            Exception
        ) as error:  # any classifier failure degrades to the evidence gate, never fails the turn
            return _fell_back(failure_token(error), fallback_decision())


def _fell_back(token: str, decision: GateDecision) -> GateDecision:
    """`decision` with its reason prefixed by why the llm gate did not answer."""
    return GateDecision(
        decision.section, f"llm_fallback:{token};{decision.reason}", decision.ranked, decision.probabilities
    )


def failure_token(error: BaseException) -> str:
    """A short, content-free name for why the classifier failed (timeout, unavailable, bad_output…)."""
    token = getattr(error, "gate_token", None)
    if isinstance(token, str):
        return token
    name = type(error).__name__
    if name in {"DeadlineExceededError", "TimeoutError"}:
        return "timeout"
    if name in {"UnavailableError", "ResourceExhaustedError", "CancelledError"}:
        return "unavailable"
    if name in {"NotFoundError", "FailedPreconditionError", "UnimplementedError"}:
        return "model_unavailable"
    if name in {"ValueError", "JSONDecodeError", "KeyError", "TypeError"}:
        return "bad_output"
    return "error"


__all__ = [
    "TRIGGERS",
    "GateClassifier",
    "GateDecision",
    "GateMode",
    "RelevanceGate",
    "clip",
    "decide_heuristic",
    "entity_hit",
    "entity_hits",
    "fold",
    "normalise_entity",
    "prepare_entities",
    "strip_quoted",
    "trigger_flags",
]
