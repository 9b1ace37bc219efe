"""Distil one conversation: snapshot → novelty gate → one model call → validated digest → one-transaction commit."""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from inferd.client import Generation
from memoryd.write import outcome as oc
from memoryd.write.breaker import CLOSED, CircuitBreaker
from memoryd.write.dedup import FactPlan
from memoryd.write.distill import (
    CONTEXT_EPISODE_MAX_AGE_DAYS,
    CONTEXT_EPISODES,
    NOVELTY_MIN_CHARS,
    strip_memory_blocks,
)
from memoryd.write.grounding import GroundedDigest, SourceTurn, contains_secret, ground, redact_secrets
from memoryd.write.model import InferdEmbedder, Inference, WriterSettings, availability
from memoryd.write.parse import Digest
from memoryd.write.phrase import (
    PHRASE_OPTIONS,
    PHRASE_SCHEMA_JSON,
    SCAFFOLDING,
    build_phrase_prompt,
    parse_phrase,
    within_prompt,
)
from memoryd.write.retry import (
    InvalidOutputError,
    RetryCancelledError,
    RetryPolicy,
    call_with_retries,
    is_model_unavailable,
    skip_reason,
)
from memoryd.write.store_protocol import (
    LOG_EMPTY,
    LOG_ERROR,
    LOG_SKIPPED,
    LOG_SUCCESS,
    TASK_DISTILL_SKIPPED,
    CommitResult,
    DerivedRow,
    DistillationWrite,
    LogEntry,
    NewEpisode,
    Signal,
    StaleSnapshotError,
    WriterStore,
)
from memoryd.write.supersede import GroundedPlan, plan_grounded
from servicekit.errors import DeadlineExceededError, ResourceExhaustedError, ServiceError, UnavailableError

_log = logging.getLogger("memoryd.writer.session")

#: Failures that say inferd is unwell (slow, overloaded, crashing) rather than that the session is bad.
_INFERD_TROUBLE = (DeadlineExceededError, ResourceExhaustedError, UnavailableError)

#: Facts joined into the summary of a session whose sentences made none.
FACT_SUMMARY_ITEMS = 3
#: Existing facts compared against (reference: 200).
DEDUP_POOL = 200
_DAY_MS = 86_400_000


class WriterHooks(Protocol):
    """What happens around the store: vector indexing and cache invalidation (wired by memoryd.app)."""

    def distilled(
        self, agent_id: str, write: DistillationWrite, result: CommitResult, plan: FactPlan
    ) -> None:
        """After a commit: embed/index the episode and new facts, invalidate the agent's context cache."""
        ...

    def rows_removed(self, agent_id: str, rows: Sequence[DerivedRow]) -> None:
        """After a re-ingest removed rows: drop their vectors, invalidate caches."""
        ...

    def transcript_written(self, agent_id: str, conversation_id: str, transcript_ids: Sequence[int]) -> None:
        """After Ingest stored transcript rows: index them."""
        ...


class NoHooks:
    """Hooks that do nothing (tests, or a memoryd without vectors)."""

    def distilled(
        self, agent_id: str, write: DistillationWrite, result: CommitResult, plan: FactPlan
    ) -> None:
        return None

    def rows_removed(self, agent_id: str, rows: Sequence[DerivedRow]) -> None:
        return None

    def transcript_written(self, agent_id: str, conversation_id: str, transcript_ids: Sequence[int]) -> None:
        return None


@dataclass(frozen=True)
class DistillPolicy:
    """Knobs of one distillation run."""

    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_attempts: int = 3
    call_timeout_s: float = 300.0
    allow_cold_load: bool = True
    #: Stranded work (inferd down or slow, breaker open): first re-sweep after this long, doubling to the max.
    resume_first_s: float = 30.0
    resume_max_s: float = 600.0


#: The policy used when none is given.
DEFAULT_POLICY = DistillPolicy()


def failure_phrase(error: BaseException) -> str:
    """A short machine phrase for error:<message>; never memory content."""
    if isinstance(error, InvalidOutputError):
        return "unparseable_output"
    if isinstance(error, DeadlineExceededError):
        return "timeout"
    if isinstance(error, ServiceError):
        return error.reason.lower()
    if isinstance(error, StaleSnapshotError):
        return "stale_snapshot"
    return type(error).__name__


def source_turns(signals: Sequence[Signal]) -> list[SourceTurn]:
    """The session's exchanges with memory blocks stripped, numbered in order; empty exchanges are left out."""
    out: list[SourceTurn] = []
    for signal in signals:
        user = strip_memory_blocks(signal.user_message)
        assistant = strip_memory_blocks(signal.assistant_message)
        if user or assistant:
            out.append(SourceTurn(len(out), signal.id, user, assistant))
    return out


def _is_safe_name(name: str, redacted_text: str) -> bool:
    """A name is kept only when it is no secret and still occurs in the session once its secrets are redacted."""
    return not contains_secret(name) and name in redacted_text


def _with_fact_summary(grounded: GroundedDigest) -> GroundedDigest:
    """No sentence made a summary, yet facts were verified: they summarise the session, true by construction."""
    if grounded.summary or not grounded.facts:
        return grounded
    shown = grounded.facts[:FACT_SUMMARY_ITEMS]
    return dataclasses.replace(
        grounded,
        summary=" ".join(f.text for f in shown),
        summary_turns=tuple(sorted({t for f in shown for t in f.turns})),
        summary_source="extractive",
    )


def dropped_details(dropped: Mapping[str, int]) -> str:
    """The processing_log note of what verification rejected, e.g. "dropped=loop:1,ungrounded_name:2"."""
    parts = [f"{reason}:{count}" for reason, count in sorted(dropped.items()) if count > 0]
    return f"dropped={','.join(parts)}" if parts else "dropped=none"


def _skip(agent_id: str, reason: str, model: str, duration_ms: int = 0) -> LogEntry:
    """The log row of a distillation skipped without a usable model reply."""
    return LogEntry(agent_id, LOG_SKIPPED, reason, model, 0, 0, duration_ms, TASK_DISTILL_SKIPPED)


class SessionDistiller:
    """Runs one conversation's distillation. Callers guarantee one run per conversation at a time."""

    def __init__(
        self,
        store: WriterStore,
        inference: Inference,
        settings: Callable[[], WriterSettings],
        breaker: CircuitBreaker,
        *,
        policy: DistillPolicy = DEFAULT_POLICY,
        hooks: WriterHooks | None = None,
        cancelled: threading.Event | None = None,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        self._store = store
        self._inference = inference
        self._settings = settings
        self._breaker = breaker
        self._policy = policy
        self.hooks: WriterHooks = hooks or NoHooks()
        self.cancelled = cancelled or threading.Event()
        self._sleep = sleep

    def run(
        self,
        agent_id: str,
        conversation_id: str,
        *,
        require_resident: bool,
        session_time_ms: int | None = None,
    ) -> oc.Outcome:
        """Distil the conversation's pending signals and return the outcome (never raises for model trouble)."""
        settings = self._settings()

        def done(token: str, episode_id: int = 0) -> oc.Outcome:
            return oc.Outcome(agent_id, conversation_id, token, episode_id)

        if not settings.enabled or not self._store.is_memory_enabled(agent_id):
            return done(oc.SKIPPED_MEMORY_DISABLED)
        if not settings.core_model:
            self._store.log(_skip(agent_id, "core_model_unset", "none"))
            return done(oc.SKIPPED_CORE_MODEL_UNSET)
        if self.cancelled.is_set():
            return done(oc.SKIPPED_CANCELLED)
        signals = self._store.pending_signals(agent_id, conversation_id)
        if not signals:
            return done(oc.NO_SIGNALS)
        ids = tuple(s.id for s in signals)
        # Memory blocks are stripped once: the novelty gate, the prompt and verification all read these turns.
        sources = source_turns(signals)
        when_ms = session_time_ms if session_time_ms is not None else max(s.created_at_ms for s in signals)
        chars = sum(len(t.user) + len(t.assistant) for t in sources)
        if chars < NOVELTY_MIN_CHARS:
            # A short session is skipped unless its user turns state a fact the extractor finds ("I moved to
            # Lisbon last month."): that is distilled on the extractive path alone, without the model.
            short = ground(sources, None, session_time_ms=when_ms, scaffolding=SCAFFOLDING)
            if short.facts:
                return self._commit_extractive(
                    agent_id, conversation_id, ids, signals, sources, short, when_ms
                )
            token = oc.low_novelty(chars)
            self._store.mark_processed(ids, _skip(agent_id, token.removeprefix("skipped:"), ""))
            return done(token)
        # A half-open probe tests inferd's health more than this session: its timeout is not held against it.
        is_probe = self._breaker.snapshot().state != CLOSED
        if not self._breaker.allow():
            self._store.log(_skip(agent_id, "breaker_open", settings.core_model))
            return done(oc.SKIPPED_BREAKER_OPEN)
        reason = availability(
            self._inference,
            settings.core_model,
            require_resident=require_resident,
            allow_cold_load=self._policy.allow_cold_load,
        )
        if reason is not None:
            self._breaker.release_probe()
            self._store.log(_skip(agent_id, reason, settings.core_model))
            return done(f"skipped:{reason}")
        since_ms = when_ms - CONTEXT_EPISODE_MAX_AGE_DAYS * _DAY_MS
        prompt = build_phrase_prompt([(t.user, t.assistant) for t in sources], session_time_ms=when_ms)

        def call() -> tuple[Generation, Digest]:
            generation = self._inference.generate(
                prompt.messages,
                model=settings.core_model,
                json_schema=PHRASE_SCHEMA_JSON,
                options=PHRASE_OPTIONS,
                timeout_s=self._policy.call_timeout_s,
            )
            return generation, parse_phrase(generation.text)

        started = time.monotonic()
        generation: Generation | None
        digest: Digest | None
        try:
            (generation, digest), _calls = call_with_retries(
                call, self._policy.retry, cancelled=self.cancelled, sleep=self._sleep
            )
        except RetryCancelledError:
            self._breaker.release_probe()
            return done(oc.SKIPPED_CANCELLED)
        except InvalidOutputError:
            # The model answered, but nothing usable: the extractive result stands (no model text is trusted).
            generation, digest = None, None
        except Exception as failure:
            duration_ms = int((time.monotonic() - started) * 1000)
            if is_model_unavailable(failure):
                self._breaker.release_probe()
                reason = skip_reason(failure)
                self._store.log(_skip(agent_id, reason, settings.core_model, duration_ms))
                return done(f"skipped:{reason}")
            self._breaker.record_failure()
            if is_probe and isinstance(failure, _INFERD_TROUBLE):
                phrase = failure_phrase(failure)
                self._store.log(LogEntry(agent_id, LOG_ERROR, phrase, settings.core_model, 0, 0, duration_ms))
                # Signals stay pending with their attempts unchanged; the resume sweep tries again.
                return done(oc.error(phrase))
            return done(self._fail(agent_id, ids, failure, settings.core_model, duration_ms))
        self._breaker.record_success()
        earlier = [e.summary for e in self._store.recent_episodes(agent_id, CONTEXT_EPISODES, since_ms)]
        grounded = ground(sources, digest, session_time_ms=when_ms, scaffolding=SCAFFOLDING, earlier=earlier)
        if grounded.summary_source == "model" and not within_prompt(grounded.summary, prompt):
            # The model's summary says what it was not shown: the extractive one stands, and the drop is counted.
            extractive = ground(
                sources, None, session_time_ms=when_ms, scaffolding=SCAFFOLDING, earlier=earlier
            )
            dropped = Counter(grounded.dropped)
            dropped["summary_beyond_prompt"] += 1
            grounded = dataclasses.replace(
                grounded,
                summary=extractive.summary,
                summary_turns=extractive.summary_turns,
                summary_source=extractive.summary_source,
                dropped=dict(dropped),
            )
        duration_ms = int((time.monotonic() - started) * 1000)
        model = (generation.model if generation else "") or settings.core_model

        def log(status: str, details: str) -> LogEntry:
            return LogEntry(
                agent_id,
                status,
                details,
                model,
                generation.prompt_tokens if generation else 0,
                generation.completion_tokens if generation else 0,
                duration_ms,
            )

        if digest is not None and not digest.has_episode and not grounded.facts:
            self._store.mark_processed(ids, log(LOG_EMPTY, f"no_episode;{dropped_details(grounded.dropped)}"))
            return done(oc.EMPTY_NO_EPISODE)
        grounded = _with_fact_summary(grounded)
        if not grounded.summary:
            self._store.mark_processed(
                ids, log(LOG_EMPTY, f"empty_summary;{dropped_details(grounded.dropped)}")
            )
            return done(oc.EMPTY_SUMMARY)
        return self._commit(
            agent_id, conversation_id, ids, signals, sources, grounded, when_ms, model, settings, log
        )

    def _commit_extractive(
        self,
        agent_id: str,
        conversation_id: str,
        ids: tuple[int, ...],
        signals: Sequence[Signal],
        sources: Sequence[SourceTurn],
        grounded: GroundedDigest,
        when_ms: int,
    ) -> oc.Outcome:
        """Commit a short session's extractor facts; no model ran (the log and the episode name no model)."""
        settings = self._settings()

        def log(status: str, details: str) -> LogEntry:
            return LogEntry(agent_id, status, f"short_session;{details}", "", 0, 0, 0)

        grounded = _with_fact_summary(grounded)
        return self._commit(
            agent_id, conversation_id, ids, signals, sources, grounded, when_ms, "", settings, log
        )

    def _commit(
        self,
        agent_id: str,
        conversation_id: str,
        ids: tuple[int, ...],
        signals: Sequence[Signal],
        sources: Sequence[SourceTurn],
        grounded: GroundedDigest,
        when_ms: int,
        model: str,
        settings: WriterSettings,
        log: Callable[[str, str], LogEntry],
    ) -> oc.Outcome:
        embedder = (
            InferdEmbedder(self._inference, settings.embedding_model) if settings.embeddings_enabled else None
        )
        redacted_text = redact_secrets("\n".join(f"{t.user}\n{t.assistant}" for t in sources))
        transcript = dict(zip((s.id for s in signals), self._store.transcript_ids_for(signals), strict=True))
        by_index = {t.index: transcript.get(t.signal_id, ()) for t in sources}

        def turn_ids(indices: Sequence[int]) -> tuple[int, ...]:
            found = [row for i in sorted(set(indices)) for row in by_index.get(i, ())]
            return tuple(dict.fromkeys(found))

        plan: GroundedPlan = plan_grounded(
            grounded.facts,
            self._store.active_facts(agent_id, DEDUP_POOL),
            self._store.identity_facts(agent_id, DEDUP_POOL),
            turn_ids,
            embedder,
            turns=sources,
        )
        episode = NewEpisode(
            agent_id=agent_id,
            conversation_id=conversation_id,
            summary=grounded.summary,
            topics=tuple(t for t in grounded.topics if not contains_secret(t)),
            # Defence in depth: a credential (or a token inside one: "my password is Moustache2019") is never an
            # entity or a topic, whatever proposed it.
            entities=tuple(e.name for e in grounded.entities if _is_safe_name(e.name, redacted_text)),
            decisions=tuple(d.text for d in grounded.decisions),
            action_items=tuple(a.text for a in grounded.action_items),
            salience=grounded.salience,
            token_count=max(1, len(grounded.summary) // 4),
            model=model,
            conversation_at_ms=when_ms,
            source_turn_ids=turn_ids([t.index for t in sources]),
            summary_source=grounded.summary_source,
        )
        details = (
            f"distilled:facts={len(plan.facts.inserts)},bumped={len(plan.facts.bumps)},"
            f"identity={len(plan.identity_inserts)},superseded={plan.superseded},"
            f"summary={grounded.summary_source};{dropped_details(grounded.dropped)}"
        )
        write = DistillationWrite(
            episode,
            ids,
            plan.facts.inserts,
            plan.facts.bumps,
            plan.identity_inserts,
            plan.identity_bumps,
            log(LOG_SUCCESS, details),
            plan.kept_history,
        )
        try:
            result = self._store.commit_distillation(write)
        except StaleSnapshotError:
            _log.warning("snapshot changed under a distillation; leaving signals for the next run")
            return oc.Outcome(agent_id, conversation_id, oc.SKIPPED_CANCELLED)
        except Exception as failure:
            _log.exception("committing a distillation failed")
            token = self._fail(agent_id, ids, failure, model, 0)
            return oc.Outcome(agent_id, conversation_id, token)
        try:
            self.hooks.distilled(agent_id, write, result, plan.facts)
        except Exception:
            _log.exception("post-distillation hook failed")
        return oc.Outcome(agent_id, conversation_id, oc.DISTILLED, result.episode_id)

    def _fail(
        self, agent_id: str, ids: Sequence[int], failure: BaseException, model: str, duration_ms: int
    ) -> str:
        """Count an attempt on the snapshot; dead-letter at the cap."""
        phrase = failure_phrase(failure)
        entry = LogEntry(agent_id, LOG_ERROR, phrase, model, 0, 0, duration_ms)
        result = self._store.record_failure(ids, self._policy.max_attempts, entry)
        return oc.dead_letter(result.attempts) if result.dead_lettered else oc.error(phrase)


__all__ = [
    "DEDUP_POOL",
    "DEFAULT_POLICY",
    "DistillPolicy",
    "NoHooks",
    "SessionDistiller",
    "WriterHooks",
    "failure_phrase",
]
