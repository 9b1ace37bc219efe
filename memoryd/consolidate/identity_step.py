"""The identity step of a pass: each agent's narrative, rebuilt from that agent's identity facts only.

Per agent whose active facts (or the core model) changed since its narrative was written, ONE Generate call asks
for a short profile; the reply is verified against that agent's facts (consolidate/narrative_check.py) and stored
only if it passes. Otherwise, and without a model, the agent's narrative is extractive: its facts joined as
sentences, true by construction. An agent left without active facts loses its narrative ("delete means delete").
The global identity row is not this step's: it holds only an imported narrative (1.x profile, Import) and the
user's overrides, both left as they are (docs/identity.md says why narratives are per agent).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from memoryd.consolidate import narrative
from memoryd.consolidate.context import JobContext
from memoryd.consolidate.narrative_check import verify_narrative
from memoryd.consolidate.report import STEP_IDENTITY, StepResult
from memoryd.storage.narratives import StoredNarrative
from servicekit.errors import (
    FailedPreconditionError,
    NotFoundError,
    ServiceError,
    UnavailableError,
    UnimplementedError,
)

_log = logging.getLogger("memoryd.consolidate.identity_step")

#: Most agents one pass asks the model about (one call each, up to NARRATIVE_TIMEOUT_S apiece); the others get
#: their extractive narrative now and their model call in a later pass.
MODEL_CALLS_PER_PASS = 8
#: Errors meaning "no model to ask right now": the pass stops asking and the facts stand in.
_MODEL_DOWN = (UnavailableError, FailedPreconditionError, NotFoundError, UnimplementedError)


class NarrativeModelError(RuntimeError):
    """The core model failed for another reason than being unavailable; the agents got extractive narratives."""


@dataclass(frozen=True)
class _Narrative:
    content: str
    model: str
    tokens: int
    digest: str


@dataclass
class _Tally:
    written: int = 0
    rejected: int = 0
    extractive: int = 0
    deleted: int = 0
    deferred: int = 0
    agents: set[str] = field(default_factory=set)
    model_used: str = ""
    model_down: bool = False
    failure: str = ""

    def counts(self) -> dict[str, int]:
        return {
            "narratives_written": self.written,
            "narratives_rejected": self.rejected,
            "narratives_extractive": self.extractive,
            "narratives_deleted": self.deleted,
            "narratives_deferred": self.deferred,
        }


def _facts_by_agent(ctx: JobContext) -> dict[str, list[narrative.FactLine]]:
    """Active identity facts per agent, most supported first, at most MAX_FACTS each."""
    by_agent: dict[str, list[narrative.FactLine]] = {}
    for agent_id, content, count in ctx.narratives.active_facts():
        facts = by_agent.setdefault(agent_id, [])
        if len(facts) < narrative.MAX_FACTS:
            facts.append(narrative.FactLine(content, count))
    return by_agent


def _delete_orphans(ctx: JobContext, tally: _Tally) -> None:
    """Delete the narratives of agents with no active identity fact left (re-checked under the write lock)."""
    if not ctx.narratives.has_orphans():
        return
    with ctx.batch(STEP_IDENTITY) as batch:
        agents = ctx.narratives.delete_orphans()
        batch.rows = len(agents)
    tally.deleted += batch.rows
    tally.agents.update(agents)


def _extractive(facts: Sequence[narrative.FactLine], digest: str) -> _Narrative:
    text = narrative.extractive_narrative(facts)
    return _Narrative(text, narrative.EXTRACTIVE, math.ceil(len(text) / 4), digest)


def _ask_model(ctx: JobContext, model: str, facts: Sequence[narrative.FactLine], tally: _Tally) -> _Narrative:
    """ONE Generate call for one agent; its reply if it passes verification, else the extractive narrative."""
    assert ctx.inference is not None
    asked = narrative.facts_digest(facts, model)
    try:
        reply = ctx.inference.generate(
            narrative.build_messages(facts),
            model=model,
            options=narrative.NARRATIVE_OPTIONS,
            timeout_s=narrative.NARRATIVE_TIMEOUT_S,
        )
    except _MODEL_DOWN as error:
        _log.info("identity narrative: core model unavailable (%s); facts stand in", error.reason)
        tally.model_down = True
        return _extractive(facts, narrative.facts_digest(facts, narrative.EXTRACTIVE))
    except ServiceError as error:
        _log.warning("identity narrative: core model failed (%s); facts stand in", type(error).__name__)
        tally.model_down, tally.failure = True, f"{type(error).__name__}: {error.reason}"
        return _extractive(facts, narrative.facts_digest(facts, narrative.EXTRACTIVE))
    text = narrative.clean_reply(reply.text)
    verdict = verify_narrative(text, [f.text for f in facts], narrative.scaffolding())
    if not verdict.accepted:
        # Kept with the model's digest: the same facts are not sent again until they (or the model) change.
        _log.info("identity narrative rejected (%s); facts stand in", verdict.reason)
        tally.rejected += 1
        return _extractive(facts, asked)
    used = reply.model or model
    tally.model_used = used
    return _Narrative(text, used, reply.completion_tokens or math.ceil(len(text) / 4), asked)


def _write(
    ctx: JobContext, agent_id: str, built: _Narrative, stored: StoredNarrative | None, tally: _Tally
) -> None:
    """Store one agent's narrative unless it is what is already there (then only its digest moves: not a new
    version, nothing for caches); not for an agent whose facts went away meanwhile (re-checked under the lock)."""
    if stored is not None and (stored.content, stored.model) == (built.content, built.model):
        if stored.digest != built.digest:
            with ctx.batch(STEP_IDENTITY) as batch:
                batch.rows = ctx.narratives.set_digest(agent_id, built.digest)
        return
    with ctx.batch(STEP_IDENTITY) as batch:
        batch.rows = ctx.narratives.write(
            agent_id, built.content, built.tokens, built.model, built.digest, ctx.now_ms
        )
    if batch.rows:
        tally.written += 1
        tally.extractive += built.model == narrative.EXTRACTIVE
        tally.agents.add(agent_id)


def _is_current(
    facts: Sequence[narrative.FactLine], stored: StoredNarrative, model: str, model_usable: bool
) -> bool:
    """Whether the stored narrative was built from these facts with what is available now: the configured
    model when it can be asked (accepted or rejected), else any writer of it (a verified reply stays true)."""
    if model_usable:
        return stored.digest == narrative.facts_digest(facts, model)
    writers = {narrative.EXTRACTIVE, stored.model, model} - {""}
    return any(stored.digest == narrative.facts_digest(facts, w) for w in writers)


def identity_narrative(ctx: JobContext) -> StepResult:
    """Rebuild the narrative of every agent whose identity facts changed, from that agent's facts only (at most
    MODEL_CALLS_PER_PASS model calls, each reply verified); delete those of agents without facts."""
    tally = _Tally()
    _delete_orphans(ctx, tally)
    by_agent = _facts_by_agent(ctx)
    if not by_agent:
        if not tally.deleted:
            return StepResult(skip_reason="no_identity_facts")
        return StepResult(rows_changed=tally.deleted, counts=tally.counts(), agents=frozenset(tally.agents))
    stored = ctx.narratives.stored()
    model = ctx.settings.core_model
    model_usable = bool(model) and ctx.inference is not None
    # Agents without any narrative first, so every agent with facts soon has one.
    pending = sorted(
        (
            a
            for a, facts in by_agent.items()
            if a not in stored or not _is_current(facts, stored[a], model, model_usable)
        ),
        key=lambda a: (a in stored, a),
    )
    calls = 0
    for agent_id in pending:
        facts = by_agent[agent_id]
        if model_usable and not tally.model_down and calls < MODEL_CALLS_PER_PASS:
            calls += 1
            built = _ask_model(ctx, model, facts, tally)
        else:
            if model_usable and not tally.model_down:
                tally.deferred += 1
            if agent_id in stored and _is_current(facts, stored[agent_id], model, model_usable=False):
                continue  # still true for these facts (e.g. another model's verified reply): kept until asked
            built = _extractive(facts, narrative.facts_digest(facts, narrative.EXTRACTIVE))
        _write(ctx, agent_id, built, stored.get(agent_id), tally)
        ctx.pacer.breathe()
    if tally.failure:
        raise NarrativeModelError(f"the core model failed: {tally.failure}")
    changed = tally.written + tally.deleted
    if not changed:
        reason = "core_model_unavailable" if tally.model_down else "unchanged"
        return StepResult(skip_reason=reason, counts=tally.counts())
    return StepResult(
        rows_changed=changed, counts=tally.counts(), agents=frozenset(tally.agents), model=tally.model_used
    )


__all__ = ["MODEL_CALLS_PER_PASS", "NarrativeModelError", "identity_narrative"]
