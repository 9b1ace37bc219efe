"""Read path: gate → planner → block for a query (AssembleContext), prepended to a chat (InjectMemory)."""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from memoryd.config import MemoryConfig
from memoryd.retrieval import blocks
from memoryd.retrieval.cache import AssemblyCache
from memoryd.retrieval.gate import GateClassifier, GateMode, RelevanceGate, prepare_entities
from memoryd.retrieval.items import IdentitySnapshot, ItemRef, MemoryHit, Section
from memoryd.retrieval.planner import Plan, Planner
from memoryd.retrieval.tokens import EstimatingCounter, TokenCounter

_log = logging.getLogger("memoryd.readpath")

#: Models with a context window at or below this many tokens never get memory (spec: tiny and small classes).
SMALL_CONTEXT_TOKENS = 8192
#: Characters of the query handed to search (the gate scans its own window).
MAX_SEARCH_QUERY_CHARS = 2000
#: The read path's own budget for waiting on inferd in heuristic mode: the query embedding gets at most this, then
#: search runs on full text alone (the `llm` gate's timeout is added on top in llm mode). Config: ServiceSettings.
DEFAULT_READ_BUDGET_S = 0.15
#: Sections that fall back to the transcript when they yield nothing (before the first distillation there are no
#: pinned facts, episodes or identity facts yet, but the transcript already holds what the user said). The fallback
#: places only turns that share a word with the query: nearest vectors exist even when nothing is relevant.
FALLBACK_SECTIONS = frozenset({Section.PINNED, Section.EPISODES, Section.IDENTITY})


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
    ) -> None:
        self._reader = reader
        self._settings = settings
        self._llm_timeout_s = llm_timeout_s
        self._read_budget_s = read_budget_s
        self._counter: TokenCounter = counter or EstimatingCounter()
        self._gate = RelevanceGate(classifier, llm_timeout_s=llm_timeout_s)
        self._clock: Clock = clock or SystemClock()
        self._cache: AssemblyCache[Assembly] = AssemblyCache(clock=self._clock.monotonic)
        self._entities: AssemblyCache[frozenset[str]] = AssemblyCache(clock=self._clock.monotonic)
        self._planner = Planner(reader, self._counter, self._now_ms)

    def _now_ms(self) -> int:
        return int(self._clock.now().timestamp() * 1000)

    def invalidate(self, agent_id: str | None = None) -> None:
        """Forget cached blocks and entities of one agent (None: every agent) after its memory changed."""
        self._cache.invalidate(agent_id)
        self._entities.invalidate(agent_id)

    def assemble(
        self,
        agent_id: str,
        query: str,
        budget_tokens: int = 0,
        *,
        deadline_s: float | None = None,
        is_preview: bool = False,
    ) -> Assembly:
        """The block for `query` (budget 0 = memoryBudgetTokens), served from the 10 s cache when possible.

        A preview (the console's PreviewContext) neither uses the cache nor bumps pinned-fact usage: its block
        never reaches a model.
        """
        settings = self._settings()
        if not settings.is_enabled:
            return _disabled("memory_disabled")
        if not self._reader.is_memory_enabled(agent_id):
            return _disabled("memory_disabled_for_agent")
        budget = budget_tokens if budget_tokens > 0 else settings.budget_tokens
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
        entities = self._known_entities(agent_id) if mode is not GateMode.OFF else frozenset()
        decision = self._gate.decide(query, entities, mode, deadline_s=deadline_s)
        identity = self._reader.identity(agent_id)
        today = blocks.format_date(self._clock.now().date())
        overrides_text = blocks.overrides_section(identity.overrides)

        def frame(body: str) -> str:
            # The budget covers everything but the always-on overrides.
            return blocks.render_block(today, "", body)

        def block_and_overrides(body: str) -> list[str]:
            # Counted in the planner's verifying call: one tokenizer round trip instead of two.
            return [blocks.render_block(today, overrides_text, body), overrides_text]

        def plan_section(section: Section, *, is_fallback: bool = False) -> Plan:
            return self._planner.plan(
                agent_id,
                section,
                query[:MAX_SEARCH_QUERY_CHARS],
                budget,
                frame,
                identity,
                block_and_overrides,
                is_usage_recorded=is_usage_recorded,
                vector_timeout_s=max(0.0, ends_at - self._clock.monotonic()),
                require_shared_term=is_fallback,
            )

        section, reasons = decision.section, [decision.reason]
        plan = plan_section(section)
        if plan.search_note:
            reasons.append(plan.search_note)
        if not plan.body and section in FALLBACK_SECTIONS:
            fallback = plan_section(Section.TRANSCRIPT, is_fallback=True)
            if fallback.search_note and fallback.search_note not in reasons:
                reasons.append(fallback.search_note)
            if fallback.body:
                reasons.append(f"fallback:{section.value}_empty->transcript")
                section = Section.TRANSCRIPT
                plan = replace(
                    fallback,
                    considered=plan.considered + fallback.considered,
                    dropped=plan.dropped + fallback.dropped,
                )
            else:
                reasons.append("fallback:transcript_empty")
        reason = ";".join(reasons)
        block = blocks.render_block(today, overrides_text, plan.body)
        if not block:
            return Assembly("", section, reason, 0, (), plan.considered, plan.dropped)
        counts = list(plan.extra_counts) or self._counter.count([block, overrides_text])
        return Assembly(
            block=block,
            section=section,
            reason=reason,
            tokens=counts[0],
            placed=plan.placed,
            considered=plan.considered,
            dropped=plan.dropped,
            overrides_tokens=counts[1],
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
        if 0 < model_context_tokens <= SMALL_CONTEXT_TOKENS:
            return Injection(original, False, Section.NONE, "small_context")
        target = next((i for i in range(len(original) - 1, -1, -1) if original[i].role == "user"), None)
        if target is None:
            return Injection(original, False, Section.NONE, "no_user_message")
        if original[target].is_multimodal:
            return Injection(original, False, Section.NONE, "multimodal", target_index=target)
        query = original[target].content
        if not query.strip():
            return Injection(original, False, Section.NONE, "empty_user_message", target_index=target)
        assembly = self.assemble(agent_id, query, budget_tokens, deadline_s=deadline_s)
        if not assembly.block:
            return Injection(original, False, assembly.section, assembly.reason, 0, target, assembly)
        rewritten = dataclasses.replace(original[target], content=blocks.prepend(assembly.block, query))
        out = (*original[:target], rewritten, *original[target + 1 :])
        return Injection(out, True, assembly.section, assembly.reason, assembly.tokens, target, assembly)


__all__ = [
    "SMALL_CONTEXT_TOKENS",
    "Assembly",
    "ChatMessage",
    "Clock",
    "Injection",
    "MemoryReader",
    "ReadPath",
    "ReadPathSettings",
    "SystemClock",
    "settings_from_config",
]
