"""Read path: gate → planner → block for a query (AssembleContext), prepended to a chat (InjectMemory)."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from memoryd.config import MemoryConfig
from memoryd.retrieval import blocks, gate_lexicon
from memoryd.retrieval import gate_model as gate_model_file
from memoryd.retrieval.cache import AssemblyCache
from memoryd.retrieval.evidence import SectionEvidence
from memoryd.retrieval.gate import (
    GateClassifier,
    GateDecision,
    GateMode,
    RelevanceGate,
    prepare_entities,
    trigger_flags,
)
from memoryd.retrieval.gate_evidence import decide_evidence
from memoryd.retrieval.gate_features import SEARCHED, QueryEvidence, compute
from memoryd.retrieval.gate_model import GateModel
from memoryd.retrieval.items import IdentitySnapshot, ItemRef, MemoryHit, Section
from memoryd.retrieval.planner import NotedHits, Plan, Planner, fetch_limit
from memoryd.retrieval.stale import Correction, known_corrections, states_old_value
from memoryd.retrieval.tokens import EstimatingCounter, TokenCounter
from memoryd.write.grounding.secrets import redact_secrets

_log = logging.getLogger("memoryd.readpath")

#: Models with a context window below this many tokens get no memory (reason "context_too_small:<n>"). The
#: reference app's cut-off at 8,192 silently disabled memory for our 8,192-token default model; we scale instead.
MIN_CONTEXT_TOKENS = 2048
#: With a known window the budget is min(memoryBudgetTokens, this share of the window).
CONTEXT_BUDGET_FRACTION = 0.10
#: Characters of the query handed to search (the gate scans its own window).
MAX_SEARCH_QUERY_CHARS = 2000
#: The read path's own budget for waiting on inferd in heuristic mode: the query embedding gets at most this, then
#: search runs on full text alone (the `llm` gate's timeout is added on top in llm mode). Config: ServiceSettings.
DEFAULT_READ_BUDGET_S = 0.15
#: Sections that fall back to the transcript when they and the evidence gate's other candidates yield nothing
#: (before the first distillation there are no pinned facts, episodes or identity facts yet, but the transcript
#: already holds what the user said). The fallback places only turns that share a word with the query: nearest
#: vectors exist even when nothing is relevant.
FALLBACK_SECTIONS = frozenset({Section.PINNED, Section.EPISODES, Section.IDENTITY})


def budget_for_window(budget_tokens: int, model_context_tokens: int) -> int:
    """min(budget, 10% of the window) for a known window (> 0); the budget itself when the window is unknown."""
    if model_context_tokens <= 0:
        return budget_tokens
    return max(1, min(budget_tokens, int(model_context_tokens * CONTEXT_BUDGET_FRACTION)))


@runtime_checkable
class IdentityScorer(Protocol):
    """A reader that can also say how close a query is to the identity facts (StoreMemoryReader can)."""

    def identity_similarity(
        self, agent_id: str, query: str, texts: Sequence[str], *, timeout_s: float | None = None
    ) -> float | None:
        """Highest cosine of the query to the texts, or None when no vectors are available yet."""
        ...


@runtime_checkable
class CorrectionReader(Protocol):
    """A reader that knows the agent's corrections (StoreMemoryReader does): superseded facts and what replaced them."""

    def corrections(self, agent_id: str) -> Sequence[tuple[str, str]]:
        """(superseded text, replacing text) pairs whose replacement is active."""
        ...


@runtime_checkable
class EvidenceReader(Protocol):
    """A reader that measures a section's evidence without a full search (StoreMemoryReader can). Without it the
    read path searches every section and takes the evidence from the searches (and reuses the chosen one's hits).
    """

    def sections_evidence(
        self, agent_id: str, scopes: Sequence[Section], query: str, *, vector_timeout_s: float | None = None
    ) -> Mapping[Section, SectionEvidence]:
        """Keyword and vector evidence of each section (PINNED / EPISODES / TRANSCRIPT) for the query."""
        ...


@runtime_checkable
class EvidencePrefetcher(Protocol):
    """An EvidenceReader that can start measuring the evidence before it is asked for (StoreMemoryReader can): the
    read path starts it first thing, so the query embedding is on its way while the identity and entities are read.
    """

    def prefetch_evidence(
        self, agent_id: str, scopes: Sequence[Section], query: str, *, vector_timeout_s: float | None = None
    ) -> None:
        """Start what sections_evidence(agent_id, scopes, query) will return; that call then waits for it."""
        ...


class MemoryReader(Protocol):
    """Everything the read path needs from storage. The composition root adapts memoryd.storage to it.

    Every method is scoped to one agent except identity's overrides, which are global. Unknown agents are not
    errors: they have memory enabled, no entities and no rows.
    """

    def is_memory_enabled(self, agent_id: str) -> bool:
        """The agent's Memory toggle (Agent.memory_enabled); True for an agent never seen before."""
        ...

    def identity(self, agent_id: str) -> IdentitySnapshot:
        """Global overrides, the narrative, and the active auto identity facts relevant to this agent."""
        ...

    def known_entities(self, agent_id: str) -> Sequence[str]:
        """Names the gate treats as "about the user": entities of recent episodes, pinned tags."""
        ...

    def search(
        self, agent_id: str, scope: Section, query: str, limit: int, *, vector_timeout_s: float | None = None
    ) -> Sequence[MemoryHit]:
        """Hybrid search of one scope (PINNED / EPISODES / TRANSCRIPT), active rows only, best first.

        The query embedding may take vector_timeout_s at most (then full text alone). May return NotedHits.
        """
        ...

    def bump_pinned_usage(self, agent_id: str, fact_ids: Sequence[str], used_at_ms: int) -> None:
        """use_count += 1 and last_used_at_ms = used_at_ms for exactly these pinned facts of the agent."""
        ...


@dataclass(frozen=True)
class ReadPathSettings:
    """The memory.json values the read path obeys, read on every call so config changes apply at once."""

    is_enabled: bool = True
    gate_mode: GateMode = GateMode.HEURISTIC
    budget_tokens: int = 800


def settings_from_config(config: MemoryConfig) -> ReadPathSettings:
    """The read path's view of memory.json (enabled, relevanceGateMode, memoryBudgetTokens)."""
    return ReadPathSettings(
        is_enabled=config.enabled,
        gate_mode=GateMode(config.relevance_gate_mode),
        budget_tokens=config.memory_budget_tokens,
    )


@dataclass(frozen=True)
class Explanation:
    """The numbers that decided: named feature values, P(section) per section, and the model's version.

    Empty features and scores when no evidence was computed (memory off, mode off, a too-short query); empty
    scores and version when no learned model decided (llm answer, trigger fallback).
    """

    model_version: str = ""
    features: tuple[tuple[str, float], ...] = ()
    scores: tuple[tuple[Section, float], ...] = ()
    budget_tokens: int = 0


@dataclass(frozen=True)
class Assembly:
    """AssembleContext's answer: the block (maybe "") and why."""

    block: str
    section: Section
    reason: str
    tokens: int = 0
    placed: tuple[ItemRef, ...] = ()
    considered: int = 0
    dropped: int = 0
    cached: bool = False
    overrides_tokens: int = 0
    explanation: Explanation = Explanation()


@dataclass(frozen=True)
class ChatMessage:
    """One chat message as the read path sees it; is_multimodal when it carries attachments."""

    role: str
    content: str
    is_multimodal: bool = False


@dataclass(frozen=True)
class Injection:
    """InjectMemory's answer: the messages (the target user message rewritten when injected) and why."""

    messages: tuple[ChatMessage, ...]
    is_injected: bool
    section: Section
    reason: str
    block_tokens: int = 0
    target_index: int | None = None
    assembly: Assembly | None = None


class Clock(Protocol):
    """Time source: monotonic seconds for the cache, wall-clock now for dates and usage stamps."""

    def monotonic(self) -> float: ...

    def now(self) -> datetime: ...


class SystemClock:
    """The real clock (local time zone for the date shown to the model)."""

    def monotonic(self) -> float:
        """time.monotonic()."""
        return time.monotonic()

    def now(self) -> datetime:
        """Aware local now."""
        return datetime.now().astimezone()


def _disabled(reason: str) -> Assembly:
    return Assembly(block="", section=Section.NONE, reason=reason)


class ReadPath:
    """Assembles the memory block of a turn and injects it into the latest user message."""

    def __init__(
        self,
        reader: MemoryReader,
        settings: Callable[[], ReadPathSettings],
        *,
        counter: TokenCounter | None = None,
        classifier: GateClassifier | None = None,
        llm_timeout_s: float = 2.5,
        clock: Clock | None = None,
        read_budget_s: float = DEFAULT_READ_BUDGET_S,
        gate_model: GateModel | None = None,
        use_default_gate_model: bool = True,
    ) -> None:
        """gate_model: the evidence gate's model; None with use_default_gate_model loads gate_model.DEFAULT_MODEL_PATH
        (without any model the gate uses the trigger phrases alone)."""
        if gate_model is None and use_default_gate_model:
            gate_model = gate_model_file.load()
        self._gate_model = gate_model
        gate_lexicon.preload()
        self._reader = reader
        self._settings = settings
        self._llm_timeout_s = llm_timeout_s
        self._read_budget_s = read_budget_s
        self._counter: TokenCounter = counter or EstimatingCounter()
        self._gate = RelevanceGate(classifier, llm_timeout_s=llm_timeout_s)
        self._clock: Clock = clock or SystemClock()
        self._cache: AssemblyCache[Assembly] = AssemblyCache(clock=self._clock.monotonic)
        self._entities: AssemblyCache[frozenset[str]] = AssemblyCache(clock=self._clock.monotonic)
        self._corrections: AssemblyCache[tuple[Correction, ...]] = AssemblyCache(clock=self._clock.monotonic)
        self._identities: AssemblyCache[IdentitySnapshot] = AssemblyCache(clock=self._clock.monotonic)
        self._planner = Planner(reader, self._counter, self._now_ms)

    def _now_ms(self) -> int:
        return int(self._clock.now().timestamp() * 1000)

    @property
    def gate_model(self) -> GateModel | None:
        """The evidence gate's model (None: trigger phrases only)."""
        return self._gate_model

    def invalidate(self, agent_id: str | None = None) -> None:
        """Forget cached blocks, entities, identities and corrections of one agent (None: every agent) after its
        memory changed."""
        self._cache.invalidate(agent_id)
        self._entities.invalidate(agent_id)
        self._corrections.invalidate(agent_id)
        self._identities.invalidate(agent_id)

    def transcript_changed(self, agent_id: str | None = None) -> None:
        """Forget the agent's cached blocks (None: every agent's) after turns were written to its transcript
        (BufferTurn); keep its entities, identity and corrections: they come from episodes, pinned facts and the
        identity tables, which a new turn does not change (their writers call invalidate). Re-reading them took
        5-10 ms of SQLite and Python on the assembly that follows every buffered turn (bench_assemble's store,
        issue 17 item 4)."""
        self._cache.invalidate(agent_id)

    def assemble(
        self,
        agent_id: str,
        query: str,
        budget_tokens: int = 0,
        *,
        deadline_s: float | None = None,
        is_preview: bool = False,
        model_context_tokens: int = 0,
    ) -> Assembly:
        """The block for `query` (budget 0 = memoryBudgetTokens), served from the 10 s cache when possible.

        model_context_tokens (0 = unknown): below MIN_CONTEXT_TOKENS nothing is assembled
        ("context_too_small:<n>"); otherwise the budget is at most 10% of it. A preview (the console's
        PreviewContext) neither uses the cache nor bumps pinned-fact usage: its block never reaches a model.
        """
        settings = self._settings()
        if not settings.is_enabled:
            return _disabled("memory_disabled")
        if 0 < model_context_tokens < MIN_CONTEXT_TOKENS:
            return _disabled(f"context_too_small:{model_context_tokens}")
        if not self._reader.is_memory_enabled(agent_id):
            return _disabled("memory_disabled_for_agent")
        budget = budget_for_window(
            budget_tokens if budget_tokens > 0 else settings.budget_tokens, model_context_tokens
        )
        if is_preview:
            return self._assemble_fresh(
                agent_id, query, budget, settings.gate_mode, deadline_s, is_usage_recorded=False
            )
        variant = (budget, settings.gate_mode.value)
        cached = self._cache.get(agent_id, query, variant)
        if cached is not None:
            return dataclasses.replace(cached, cached=True)
        stamp = self._cache.stamp(agent_id)
        assembly = self._assemble_fresh(agent_id, query, budget, settings.gate_mode, deadline_s)
        self._cache.put(agent_id, query, assembly, variant, stamp=stamp)
        return assembly

    def _known_entities(self, agent_id: str) -> frozenset[str]:
        cached = self._entities.get(agent_id, "")
        if cached is not None:
            return cached
        stamp = self._entities.stamp(agent_id)
        prepared = prepare_entities(self._reader.known_entities(agent_id))
        self._entities.put(agent_id, "", prepared, stamp=stamp)
        return prepared

    def _identity(self, agent_id: str) -> IdentitySnapshot:
        """The agent's identity, read once per change of its memory (like its entities): the read took 1-4 ms of
        SQLite and Python on every cache miss (issue 17, item 4). Overrides are global; a change to them invalidates
        every agent."""
        cached = self._identities.get(agent_id, "")
        if cached is not None:
            return cached
        stamp = self._identities.stamp(agent_id)
        identity = self._reader.identity(agent_id)
        self._identities.put(agent_id, "", identity, stamp=stamp)
        return identity

    def _known_corrections(self, agent_id: str) -> tuple[Correction, ...]:
        """The agent's corrections, read and parsed once per change of its memory (like its entities)."""
        if not isinstance(self._reader, CorrectionReader):
            return ()
        cached = self._corrections.get(agent_id, "")
        if cached is not None:
            return cached
        stamp = self._corrections.stamp(agent_id)
        found = known_corrections(self._reader, agent_id)
        self._corrections.put(agent_id, "", found, stamp=stamp)
        return found

    def _assemble_fresh(
        self,
        agent_id: str,
        query: str,
        budget: int,
        mode: GateMode,
        deadline_s: float | None,
        *,
        is_usage_recorded: bool = True,
    ) -> Assembly:
        # One deadline for everything the read path waits on inferd for: the llm gate (llm mode), then the query
        # embedding; never past the caller's own deadline.
        budget_s = self._read_budget_s + (self._llm_timeout_s if mode is GateMode.LLM else 0.0)
        if deadline_s is not None:
            budget_s = min(budget_s, deadline_s)
        ends_at = self._clock.monotonic() + budget_s
        search_query = query[:MAX_SEARCH_QUERY_CHARS]

        def vector_timeout_s() -> float:
            return max(0.0, ends_at - self._clock.monotonic())

        measures_evidence = mode is not GateMode.OFF and len(query.strip()) >= 3
        if (
            measures_evidence
            and isinstance(self._reader, EvidenceReader)
            and isinstance(self._reader, EvidencePrefetcher)
        ):
            self._reader.prefetch_evidence(
                agent_id, list(SEARCHED), search_query, vector_timeout_s=vector_timeout_s()
            )
        entities = self._known_entities(agent_id) if mode is not GateMode.OFF else frozenset()
        identity = self._identity(agent_id)
        today = blocks.format_date(self._clock.now().date())
        overrides_text = blocks.overrides_section(identity.overrides)

        def frame(body: str) -> str:
            # The budget covers everything but the always-on overrides.
            return blocks.render_block(today, "", body)

        def block_and_overrides(body: str) -> list[str]:
            # Counted in the planner's verifying call: one tokenizer round trip instead of two.
            return [blocks.render_block(today, overrides_text, body), overrides_text]

        # The evidence pass: what each section holds for the query. A reader that measures evidence on its own does
        # so cheaply and the chosen section is then searched; otherwise each section is searched once, with the
        # planner's own limit, and the chosen section's hits are placed without searching again.
        searched: dict[Section, Sequence[MemoryHit]] = {}
        features: dict[str, float] = {}
        sections: dict[Section, SectionEvidence | None] = {}
        if measures_evidence:
            if isinstance(self._reader, EvidenceReader):
                sections.update(
                    self._reader.sections_evidence(
                        agent_id, list(SEARCHED), search_query, vector_timeout_s=vector_timeout_s()
                    )
                )
            for section in SEARCHED if not sections else ():
                hits = self._reader.search(
                    agent_id,
                    section,
                    search_query,
                    fetch_limit(section, budget),
                    vector_timeout_s=vector_timeout_s(),
                )
                searched[section] = hits
                evidence = hits.evidence if isinstance(hits, NotedHits) else None
                if evidence is not None and isinstance(hits, NotedHits) and hits.note:
                    evidence = dataclasses.replace(evidence, note=hits.note)
                sections[section] = evidence
            identity_cosine = None
            identity_texts = [fact.text for fact in identity.facts if fact.text.strip()]
            if identity.narrative.strip():
                identity_texts.append(identity.narrative)
            if identity_texts and isinstance(self._reader, IdentityScorer):
                identity_cosine = self._reader.identity_similarity(
                    agent_id, search_query, identity_texts, timeout_s=vector_timeout_s()
                )
            features = compute(query, QueryEvidence(sections, identity, entities, identity_cosine))

        def evidence_decision() -> GateDecision:
            return decide_evidence(query, features, self._gate_model, entities)

        decision = self._gate.decide(query, entities, mode, deadline_s=deadline_s, evidence=evidence_decision)
        ranked = list(decision.ranked) or ([decision.section] if decision.section is not Section.NONE else [])

        # A credential in a transcript turn is quoted only when the user asks for the literal turn; so is a row that
        # states a value the user has since corrected (the old launch date once the new one is known).
        is_literal = trigger_flags(query, frozenset())["literal_recall"]
        redact = None if is_literal else redact_secrets
        is_stale = None
        if not is_literal:
            corrections = self._known_corrections(agent_id)
            if corrections:

                def is_stale(text: str) -> bool:
                    return states_old_value(text, corrections)

        def plan_section(section: Section, *, is_fallback: bool = False) -> Plan:
            return self._planner.plan(
                agent_id,
                section,
                search_query,
                budget,
                frame,
                identity,
                block_and_overrides,
                is_usage_recorded=is_usage_recorded,
                vector_timeout_s=vector_timeout_s(),
                require_shared_term=is_fallback,
                searched=searched.get(section),
                redact=redact,
                is_stale=is_stale,
            )

        reasons = [decision.reason]
        section = ranked[0] if ranked else Section.NONE
        plan = plan_section(section)
        considered, dropped = plan.considered, plan.dropped
        # How the searches ran: the first section's note names the cause ("embedding_timeout"); the later ones
        # only see its consequence ("no_time_left").
        first_note = next((e.note for e in sections.values() if e is not None and e.note), "")
        notes = [first_note or plan.search_note] if first_note or plan.search_note else []
        # An empty section falls through to the next one the evidence supports, then (for the distilled sections)
        # to transcript turns sharing a word with the query, then to none.
        for candidate in ranked[1:]:
            if plan.body:
                break
            reasons.append(f"fallthrough:{section.value}_empty")
            section = candidate
            plan = plan_section(candidate)
            considered, dropped = considered + plan.considered, dropped + plan.dropped
        if not plan.body and ranked and ranked[0] in FALLBACK_SECTIONS and Section.TRANSCRIPT not in ranked:
            fallback = plan_section(Section.TRANSCRIPT, is_fallback=True)
            considered, dropped = considered + fallback.considered, dropped + fallback.dropped
            if fallback.body:
                reasons.append(f"fallback:{section.value}_empty->transcript")
                section, plan = Section.TRANSCRIPT, fallback
            else:
                reasons.append("fallback:transcript_empty")
        if not plan.body and ranked:
            section = ranked[0]  # nothing placed: report the section the gate chose, as the reason explains
        for note in notes:
            if note not in reasons:
                reasons.insert(1, note)
        reason = ";".join(reasons)
        explanation = Explanation(
            model_version=self._gate_model.version if self._gate_model and decision.probabilities else "",
            features=tuple(features.items()),
            scores=tuple(decision.probabilities.items()),
            budget_tokens=budget,
        )
        block = blocks.render_block(today, overrides_text, plan.body)
        if not block:
            return Assembly("", section, reason, 0, (), considered, dropped, explanation=explanation)
        counts = list(plan.extra_counts) or self._counter.count([block, overrides_text])
        return Assembly(
            block=block,
            section=section,
            reason=reason,
            tokens=counts[0],
            placed=plan.placed,
            considered=considered,
            dropped=dropped,
            overrides_tokens=counts[1],
            explanation=explanation,
        )

    def inject(
        self,
        agent_id: str,
        messages: Sequence[ChatMessage],
        *,
        model_context_tokens: int = 0,
        budget_tokens: int = 0,
        deadline_s: float | None = None,
    ) -> Injection:
        """Prepend the block to the latest user message — never to a system prompt — when the rules allow."""
        original = tuple(messages)
        settings = self._settings()
        if not settings.is_enabled:
            return Injection(original, False, Section.NONE, "memory_disabled")
        if 0 < model_context_tokens < MIN_CONTEXT_TOKENS:
            return Injection(original, False, Section.NONE, f"context_too_small:{model_context_tokens}")
        target = next((i for i in range(len(original) - 1, -1, -1) if original[i].role == "user"), None)
        if target is None:
            return Injection(original, False, Section.NONE, "no_user_message")
        if original[target].is_multimodal:
            return Injection(original, False, Section.NONE, "multimodal", target_index=target)
        query = original[target].content
        if not query.strip():
            return Injection(original, False, Section.NONE, "empty_user_message", target_index=target)
        assembly = self.assemble(
            agent_id, query, budget_tokens, deadline_s=deadline_s, model_context_tokens=model_context_tokens
        )
        if not assembly.block:
            return Injection(original, False, assembly.section, assembly.reason, 0, target, assembly)
        rewritten = dataclasses.replace(original[target], content=blocks.prepend(assembly.block, query))
        out = (*original[:target], rewritten, *original[target + 1 :])
        return Injection(out, True, assembly.section, assembly.reason, assembly.tokens, target, assembly)


__all__ = [
    "CONTEXT_BUDGET_FRACTION",
    "MIN_CONTEXT_TOKENS",
    "Assembly",
    "ChatMessage",
    "Clock",
    "EvidencePrefetcher",
    "Explanation",
    "Injection",
    "MemoryReader",
    "ReadPath",
    "ReadPathSettings",
    "SystemClock",
    "budget_for_window",
    "settings_from_config",
]
