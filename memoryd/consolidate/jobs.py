"""The consolidation steps, one function per step, over explicit dependencies (database, vectors, clock, model).

Every step reads outside the write lock and writes in short paced batches (consolidate/pacing.py), each batch one
transaction, so a pass never stalls BufferTurn and a crash at any point leaves a consistent store: a later pass
finishes the work (decay is measured per row from its last_decayed_at_ms, merge restarts from its watermark).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memoryd.consolidate import learned, mergeable, state
from memoryd.consolidate.context import (
    BatchTally,
    JobContext,
    NarrativeModel,
    PassSettings,
    PassStoppedError,
    VectorRemover,
    delete_matching,
)
from memoryd.consolidate.identity_step import identity_narrative
from memoryd.consolidate.merging import apply_merges, episode_vectors, screen_pairs
from memoryd.consolidate.report import (
    STEP_DECAY,
    STEP_EVICT,
    STEP_IDENTITY,
    STEP_MERGE,
    STEP_PROMOTE,
    STEP_PRUNE,
    STEP_PURGE,
    StepResult,
)
from memoryd.consolidate.similarity import EpisodeFeature, find_duplicates
from memoryd.consolidate.support import EpisodeSupport, WordIds
from memoryd.consolidate.text import content_words, is_identity_grade, jaccard
from memoryd.domain import KIND_EPISODE
from memoryd.storage.maintenance import (
    DECAY_TABLES,
    PinnedFactRow,
    episodes_learned_before,
    evictable_facts,
    log_rows_before,
    signals_before,
    turns_learned_before,
)

_log = logging.getLogger("memoryd.consolidate.jobs")

DAY_MS = 86_400_000
#: Spec: salience × exp(−Δdays / 30).
DECAY_TAU_DAYS = 30.0
#: Pinned facts below salienceFloor and unused this long are evicted.
EVICT_IDLE_DAYS = 30
#: Episodes this recent can support a pinned fact; at most PROMOTE_MAX_EPISODES per agent are considered.
PROMOTE_WINDOW_DAYS = 60
PROMOTE_MAX_EPISODES = 500
#: Supporting episodes needed for a salience boost, and the boost per day of elapsed time (capped at one day).
PROMOTE_MIN_SUPPORT = 3
PROMOTE_BOOST_PER_DAY = 0.05
#: An identity-grade pinned fact seen in this many episodes (or sessions) becomes an identity fact.
IDENTITY_MIN_SUPPORT = 2
IDENTITY_DUPLICATE_JACCARD = 0.8
#: Purge: processing_log rows and processed signals after 30 days (reference), dead letters after 90.
LOG_RETENTION_DAYS = 30
PROCESSED_SIGNAL_RETENTION_DAYS = 30
DEAD_LETTER_RETENTION_DAYS = 90
_MERGES_PER_BATCH = 64
#: Pinned facts read per query by promote (rowid order).
_FACT_CHUNK = 20_000


# --------------------------------------------------------------------------------------------------------- decay
def decay(ctx: JobContext) -> StepResult:
    """salience ×= exp(−Δdays/30) for active pinned facts and episodes, Δ from each row's last decay or, for a
    pinned fact used since, its last use (never compounding: n passes without use give exactly the closed form).
    A row never decayed (imported) is only stamped."""
    tau_ms = DECAY_TAU_DAYS * DAY_MS
    counts: dict[str, int] = {}
    for table in DECAY_TABLES:
        high = ctx.store.highest_id(table)
        changed, start = 0, 0
        while True:
            # Skip gaps in the ids (pruned ranges) with one index seek instead of empty batches.
            found = ctx.store.first_id_in(table, start, high)
            if found is None:
                break
            start, width = found, ctx.pacer.size()
            with ctx.batch(STEP_DECAY) as tally:
                tally.rows = ctx.store.decay_ids(table, start, start + width, ctx.now_ms, tau_ms)
            changed += tally.rows
            start += width
        counts[table] = changed
    return StepResult(rows_changed=sum(counts.values()), counts=counts)


# --------------------------------------------------------------------------------------------------------- merge
def merge(ctx: JobContext) -> StepResult:
    """Per agent, fold near-duplicate episodes (Jaccard >= 0.9 over summary+topics content words, or embedding
    cosine >= 0.95) into the older one. Only episodes new since the last pass's watermark are compared (with all
    others), and only what merge can read (consolidate/mergeable.py): unreadable summaries (trivial, looping,
    copied prompt scaffolding) take no part, a pair merges only when both are grounded in their own turns and
    the newer adds nothing, and an agent whose merges would exceed a bounded share of its episodes is left
    alone this pass (counted in `capped_agents`)."""
    watermark = ctx.state.get_int(state.MERGE_WATERMARK)
    top = ctx.store.highest_episode_id()
    if top < watermark:  # the table was emptied and ids started again
        watermark = 0
    agents = ctx.store.agents_with_active_episodes(watermark, top)
    merged = vectors = capped = 0
    changed: set[str] = set()
    tallies: dict[str, int] = {}
    for agent_id in agents:
        features: list[EpisodeFeature] = []
        active = 0
        for row_id, at_ms, summary, topics in ctx.store.active_episodes(agent_id, top):
            active += 1
            reason = mergeable.unreadable_reason(summary)
            if reason is not None:
                if row_id > watermark:  # counted once, in the pass that first sees it
                    tallies[f"unreadable_{reason}"] = tallies.get(f"unreadable_{reason}", 0) + 1
                continue
            features.append(
                EpisodeFeature(row_id, at_ms, mergeable.merge_words(summary, topics), row_id > watermark)
            )
            ctx.pacer.breathe()
        found = find_duplicates(features, episode_vectors(ctx, agent_id), breathe=ctx.pacer.breathe)
        screened = screen_pairs(ctx, agent_id, found)
        for reason, count in screened.refused.items():
            tallies[f"refused_{reason}"] = tallies.get(f"refused_{reason}", 0) + count
        pairs = list(screened.pairs)
        if len(pairs) > mergeable.allowance(active):
            # Many look-alikes at once is what junk summaries produce: delete none of them rather than a
            # large share of the agent's memory on word overlap alone.
            _log.warning(
                "merge skipped for one agent: %d merges exceed the bound of %d (of %d episodes)",
                len(pairs),
                mergeable.allowance(active),
                active,
            )
            capped += 1
            continue
        for start in range(0, len(pairs), _MERGES_PER_BATCH):
            with ctx.batch(STEP_MERGE) as tally:
                applied = apply_merges(ctx, agent_id, pairs[start : start + _MERGES_PER_BATCH])
                tally.rows = applied.merged
            ctx.forget_vectors(KIND_EPISODE, {agent_id: list(applied.vectors)} if applied.vectors else {})
            merged += applied.merged
            vectors += len(applied.vectors)
            if applied.merged:
                changed.add(agent_id)
    ctx.state.set(state.MERGE_WATERMARK, top, ctx.now_ms)
    counts = {"merged": merged, **dict(sorted(tallies.items()))}
    if capped:
        counts["capped_agents"] = capped
    return StepResult(rows_changed=merged, vectors_deleted=vectors, agents=frozenset(changed), counts=counts)


# ------------------------------------------------------------------------------------------------------- promote
@dataclass(frozen=True)
class _Candidate:
    agent_id: str
    content: str
    source_episode_id: int | None
    support: int


def _identity_inserts(ctx: JobContext, candidates: Sequence[_Candidate]) -> int:
    """Insert identity facts that no active identity fact already states; raise the support of those that do."""
    existing = [(fact_id, content_words(content)) for fact_id, content in ctx.store.active_identity_facts()]
    inserted = 0
    for candidate in candidates:
        words = content_words(candidate.content)
        twin = next(
            (fid for fid, other in existing if jaccard(words, other) >= IDENTITY_DUPLICATE_JACCARD), None
        )
        if twin is not None:
            ctx.store.raise_identity_support(twin, candidate.support, ctx.now_ms)
            continue
        fact_id = ctx.store.insert_identity_fact(
            candidate.agent_id, candidate.content, candidate.source_episode_id, candidate.support, ctx.now_ms
        )
        existing.append((fact_id, words))
        inserted += 1
    return inserted


def promote(ctx: JobContext) -> StepResult:
    """Boost pinned facts supported by >= 3 recent episodes of their agent (+0.05 per elapsed day, capped at one
    day per pass); identity-grade facts seen in >= 2 episodes or sessions become identity facts."""
    since = ctx.now_ms - PROMOTE_WINDOW_DAYS * DAY_MS
    last = ctx.state.get_int(state.PROMOTE_LAST_MS)
    elapsed_days = 1.0 if last <= 0 else min(1.0, max(0.0, (ctx.now_ms - last) / DAY_MS))
    boost = PROMOTE_BOOST_PER_DAY * elapsed_days
    agents = ctx.store.agents_with_episodes_between(
        since, ctx.now_ms, min(PROMOTE_MIN_SUPPORT, IDENTITY_MIN_SUPPORT)
    )
    vocabulary = WordIds()
    supports: dict[str, EpisodeSupport] = {}
    for agent_id in agents:
        texts = ctx.store.recent_episode_texts(agent_id, since, ctx.now_ms, PROMOTE_MAX_EPISODES)
        supports[agent_id] = EpisodeSupport(texts, vocabulary)
        ctx.pacer.breathe()
    boosts: list[int] = []
    candidates: list[_Candidate] = []
    changed: set[str] = set()
    # Facts stream in rowid order (sequential pages), a chunk at a time, grouped by agent.
    last_id = 0
    while True:
        chunk = ctx.store.active_pinned_facts(last_id, _FACT_CHUNK)
        if not chunk:
            break
        last_id = chunk[-1].id
        by_agent: dict[str, list[PinnedFactRow]] = {}
        for fact in chunk:
            by_agent.setdefault(fact.agent_id, []).append(fact)
        for agent_id, facts in by_agent.items():
            support = supports.get(agent_id)
            counts = (
                support.counts([f.content for f in facts], ctx.pacer.breathe).tolist() if support else None
            )
            for index, fact in enumerate(facts):
                count = counts[index] if counts is not None else 0
                if count >= PROMOTE_MIN_SUPPORT and fact.salience < 1.0 and boost > 0:
                    boosts.append(fact.id)
                    changed.add(agent_id)
                # Recurrence: supporting episodes now, or sessions that restated it (the writer's source_count).
                seen = max(fact.source_count, count)
                if seen >= IDENTITY_MIN_SUPPORT and is_identity_grade(fact.content, fact.tags_csv):
                    candidates.append(_Candidate(agent_id, fact.content, fact.source_episode_id, seen))
        ctx.pacer.breathe()
    # One transaction: the boosts and the promote watermark commit together, so a crash never boosts twice.
    with ctx.batch(STEP_PROMOTE) as tally:
        for start in range(0, len(boosts), 500):
            ctx.store.boost_pinned_facts(boosts[start : start + 500], boost)
        identity = _identity_inserts(ctx, candidates)
        ctx.state.set(state.PROMOTE_LAST_MS, ctx.now_ms, ctx.now_ms)
        tally.rows = len(boosts) + identity
    return StepResult(
        rows_changed=len(boosts) + identity,
        counts={"boosted": len(boosts), "identity_promoted": identity},
        agents=frozenset(changed),
    )


# ----------------------------------------------------------------------------------------- evict, prune, purge
def evict(ctx: JobContext) -> StepResult:
    """Delete active pinned facts below salienceFloor not used (nor created) in the last 30 days, and vectors."""
    cutoff = ctx.now_ms - EVICT_IDLE_DAYS * DAY_MS
    done = delete_matching(ctx, STEP_EVICT, evictable_facts(ctx.settings.salience_floor, cutoff))
    return StepResult(rows_changed=done.rows, vectors_deleted=done.vectors, agents=frozenset(done.agents))


def prune(ctx: JobContext) -> StepResult:
    """Delete episodes and transcript turns that memory learned more than episodeRetentionDays ago, with their
    vectors; 0 keeps everything. Never by conversation time: history backfilled with Ingest (a 2023 session)
    is kept for the retention from the day it was ingested.

    Episodes carry when they were learned (created_at_ms; conversation_at_ms is the session's date). Transcript
    rows carry only the conversation time, so when they were learned comes from the id marks of learned.py,
    which this step records on every pass (also with retention 0, so turning retention on later has them)."""
    days = ctx.settings.episode_retention_days
    high_id = ctx.store.transcript_high_id()
    marks = learned.usable(learned.load(ctx.state), high_id)
    if days <= 0:
        learned.save(ctx.state, learned.with_new_mark(marks, ctx.now_ms, high_id, days), ctx.now_ms)
        return StepResult(skip_reason="retention_forever")
    cutoff = ctx.now_ms - days * DAY_MS
    episodes = delete_matching(ctx, STEP_PRUNE, episodes_learned_before(cutoff))
    # A turn's conversation time is never after it was learned, hence the second test: it only guards rows an
    # import stored under an old id (console import keeps a file's ids when they are free).
    turns = delete_matching(ctx, STEP_PRUNE, turns_learned_before(learned.learned_by(marks, cutoff), cutoff))
    learned.save(ctx.state, learned.with_new_mark(marks, ctx.now_ms, high_id, days), ctx.now_ms)
    return StepResult(
        rows_changed=episodes.rows + turns.rows,
        vectors_deleted=episodes.vectors + turns.vectors,
        counts={"episodes": episodes.rows, "transcript": turns.rows},
        agents=frozenset(episodes.agents | turns.agents),
    )


def purge(ctx: JobContext) -> StepResult:
    """Delete processing_log rows and processed signals older than 30 days, dead-lettered signals after 90."""
    log = delete_matching(ctx, STEP_PURGE, log_rows_before(ctx.now_ms - LOG_RETENTION_DAYS * DAY_MS))
    processed = delete_matching(
        ctx, STEP_PURGE, signals_before("processed", ctx.now_ms - PROCESSED_SIGNAL_RETENTION_DAYS * DAY_MS)
    )
    dead = delete_matching(
        ctx, STEP_PURGE, signals_before("dead_letter", ctx.now_ms - DEAD_LETTER_RETENTION_DAYS * DAY_MS)
    )
    return StepResult(
        rows_changed=log.rows + processed.rows + dead.rows,
        counts={
            "processing_log": log.rows,
            "processed_signals": processed.rows,
            "dead_letter_signals": dead.rows,
        },
    )


#: The pass, in the spec's order.
STEPS: tuple[tuple[str, Callable[[JobContext], StepResult]], ...] = (
    (STEP_DECAY, decay),
    (STEP_MERGE, merge),
    (STEP_PROMOTE, promote),
    (STEP_EVICT, evict),
    (STEP_PRUNE, prune),
    (STEP_PURGE, purge),
    (STEP_IDENTITY, identity_narrative),
)

__all__ = [
    "STEPS",
    "BatchTally",
    "JobContext",
    "NarrativeModel",
    "PassSettings",
    "PassStoppedError",
    "VectorRemover",
    "decay",
    "evict",
    "identity_narrative",
    "merge",
    "promote",
    "prune",
    "purge",
]
