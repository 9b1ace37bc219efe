"""Distil one conversation: snapshot → novelty gate → one model call → validated digest → one-transaction commit."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from inferd.client import Generation
from memoryd.writer import outcome as oc
from memoryd.writer.breaker import CLOSED, CircuitBreaker
from memoryd.writer.dedup import FactPlan, plan_facts, plan_identity
from memoryd.writer.distill import (
    CONTEXT_EPISODE_MAX_AGE_DAYS,
    CONTEXT_EPISODES,
    NOVELTY_MIN_CHARS,
    build_prompt,
    clean_turns,
    novelty_chars,
)
from memoryd.writer.model import InferdEmbedder, Inference, WriterSettings, availability, generate_digest
from memoryd.writer.parse import Digest, parse_reply
from memoryd.writer.retry import (
    InvalidOutputError,
    RetryCancelledError,
    RetryPolicy,
    call_with_retries,
    is_model_unavailable,
    skip_reason,
)
from memoryd.writer.store import (
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
    StaleSnapshotError,
    WriterStore,
)
from servicekit.errors import DeadlineExceededError, ResourceExhaustedError, ServiceError, UnavailableError

_log = logging.getLogger("memoryd.writer.session")

#: Failures that say inferd is unwell (slow, overloaded, crashing) rather than that the session is bad.
_INFERD_TROUBLE = (DeadlineExceededError, ResourceExhaustedError, UnavailableError)

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
        turns = clean_turns(signals)
        chars = novelty_chars(turns)
        if chars < NOVELTY_MIN_CHARS:
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
        when_ms = session_time_ms if session_time_ms is not None else max(s.created_at_ms for s in signals)
        since_ms = when_ms - CONTEXT_EPISODE_MAX_AGE_DAYS * _DAY_MS
        prompt = build_prompt(
            turns,
            session_time_ms=when_ms,
            narrative=self._store.identity_narrative(),
            episodes=self._store.recent_episodes(agent_id, CONTEXT_EPISODES, since_ms),
        )

        def call() -> tuple[Generation, Digest]:
            generation = generate_digest(
                self._inference, prompt.messages, settings.core_model, self._policy.call_timeout_s
            )
            return generation, parse_reply(generation.text)

        started = time.monotonic()
        try:
            (generation, digest), _calls = call_with_retries(
                call, self._policy.retry, cancelled=self.cancelled, sleep=self._sleep
            )
        except RetryCancelledError:
            self._breaker.release_probe()
            return done(oc.SKIPPED_CANCELLED)
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
        duration_ms = int((time.monotonic() - started) * 1000)

        def log(status: str, details: str) -> LogEntry:
            return LogEntry(
                agent_id,
                status,
                details,
                generation.model or settings.core_model,
                generation.prompt_tokens,
                generation.completion_tokens,
                duration_ms,
            )

        if not digest.has_episode:
            self._store.mark_processed(ids, log(LOG_EMPTY, "no_episode"))
            return done(oc.EMPTY_NO_EPISODE)
        if not digest.summary:
            self._store.mark_processed(ids, log(LOG_EMPTY, "empty_summary"))
            return done(oc.EMPTY_SUMMARY)
        return self._commit(agent_id, conversation_id, ids, digest, when_ms, generation, settings, log)

    def _commit(
        self,
        agent_id: str,
        conversation_id: str,
        ids: tuple[int, ...],
        digest: Digest,
        when_ms: int,
        generation: Generation,
        settings: WriterSettings,
        log: Callable[[str, str], LogEntry],
    ) -> oc.Outcome:
        embedder = (
            InferdEmbedder(self._inference, settings.embedding_model) if settings.embeddings_enabled else None
        )
        plan = plan_facts(digest.candidates, self._store.active_facts(agent_id, DEDUP_POOL), embedder)
        identity = plan_identity(digest.identity_facts, self._store.identity_facts(agent_id, DEDUP_POOL))
        episode = NewEpisode(
            agent_id=agent_id,
            conversation_id=conversation_id,
            summary=digest.summary,
            topics=digest.topics,
            entities=digest.entities,
            decisions=digest.decisions,
            action_items=digest.action_items,
            salience=digest.salience,
            token_count=max(1, len(digest.summary) // 4),
            model=generation.model or settings.core_model,
            conversation_at_ms=when_ms,
        )
        details = (
            f"distilled:facts={len(plan.inserts)},bumped={len(plan.bumps)},identity={len(identity.inserts)}"
        )
        write = DistillationWrite(
            episode,
            ids,
            plan.inserts,
            plan.bumps,
            identity.inserts,
            identity.bump_ids,
            log(LOG_SUCCESS, details),
        )
        try:
            result = self._store.commit_distillation(write)
        except StaleSnapshotError:
            _log.warning("snapshot changed under a distillation; leaving signals for the next run")
            return oc.Outcome(agent_id, conversation_id, oc.SKIPPED_CANCELLED)
        except Exception as failure:
            _log.exception("committing a distillation failed")
            token = self._fail(agent_id, ids, failure, generation.model, 0)
            return oc.Outcome(agent_id, conversation_id, token)
        try:
            self.hooks.distilled(agent_id, write, result, plan)
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
