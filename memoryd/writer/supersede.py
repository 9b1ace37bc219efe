"""Verified facts → rows to write: a repeat bumps the existing fact, a new value in a known slot supersedes it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from memoryd.writer.dedup import Embedder, FactPlan, bumped_salience, normalize_tokens, plan_facts
from memoryd.writer.grounding import GroundedFact
from memoryd.writer.parse import Candidate
from memoryd.writer.store import ExistingFact, FactBump, NewFact, NewIdentityFact

#: Maps a session's turn indices to the transcript ids they were stored as.
TurnIds = Callable[[Sequence[int]], tuple[int, ...]]


@dataclass(frozen=True)
class GroundedPlan:
    """What a distillation writes for its facts."""

    facts: FactPlan
    identity_inserts: tuple[NewIdentityFact, ...]
    identity_bumps: tuple[str, ...]
    #: Existing facts (pinned and identity) a new value replaced.
    superseded: int


def same_value(existing: str, value: str) -> bool:
    """Whether an existing fact already states `value` (every content word of the value occurs in it)."""
    wanted = normalize_tokens(value)
    return bool(wanted) and wanted <= normalize_tokens(existing)


def _slot_decision(
    fact: GroundedFact, pool: Sequence[ExistingFact]
) -> tuple[ExistingFact | None, tuple[str, ...]]:
    """(the existing fact this one repeats, or None; ids of the slot's facts it supersedes)."""
    if not fact.slot:
        return None, ()
    same_slot = [e for e in pool if e.slot == fact.slot]
    for existing in same_slot:
        if same_value(existing.content, fact.value or fact.text):
            return existing, ()
    return None, tuple(e.id for e in same_slot)


def latest_per_slot(facts: Sequence[GroundedFact]) -> list[GroundedFact]:
    """One fact per slot within a session: the one said last ("I live in Paris… actually, we moved to Lyon")."""
    last: dict[str, GroundedFact] = {}
    for fact in facts:
        if fact.slot:
            held = last.get(fact.slot)
            if held is None or max(fact.turns, default=-1) >= max(held.turns, default=-1):
                last[fact.slot] = fact
    return [f for f in facts if not f.slot or last[f.slot] is f]


def plan_grounded(
    facts: Sequence[GroundedFact],
    pinned: Sequence[ExistingFact],
    identity: Sequence[ExistingFact],
    turn_ids: TurnIds,
    embed: Embedder | None = None,
) -> GroundedPlan:
    """Split verified facts into inserts and bumps, with provenance and supersession links."""
    superseded = 0
    identity_inserts: list[NewIdentityFact] = []
    identity_bumps: list[str] = []
    slot_bumps: dict[str, float] = {}
    plain: list[GroundedFact] = []
    slotted_inserts: list[NewFact] = []
    for fact in latest_per_slot(facts):
        pool = identity if fact.is_identity else pinned
        repeat, supersedes = _slot_decision(fact, pool)
        if fact.is_identity:
            if repeat is not None:
                if repeat.id not in identity_bumps:
                    identity_bumps.append(repeat.id)
                continue
            if not fact.slot and any(
                normalize_tokens(fact.text) == normalize_tokens(e.content) for e in identity
            ):
                continue
            identity_inserts.append(NewIdentityFact(fact.text, turn_ids(fact.turns), fact.slot, supersedes))
            superseded += len(supersedes)
            continue
        if repeat is not None:
            slot_bumps[repeat.id] = max(
                slot_bumps.get(repeat.id, 0.0), bumped_salience(repeat.salience, fact.salience)
            )
            continue
        if fact.slot:
            slotted_inserts.append(
                NewFact(
                    fact.text,
                    fact.salience,
                    (),
                    turn_ids(fact.turns),
                    fact.slot,
                    fact.kind.value,
                    supersedes,
                )
            )
            superseded += len(supersedes)
        else:
            plain.append(fact)
    # Facts without a slot: the near-duplicate dedup (token Jaccard, embedding cosine) against the agent's facts.
    by_text: Mapping[str, GroundedFact] = {f.text: f for f in plain}
    # Tags stay empty: the read path treats pinned tags as known entities, and a kind is not an entity.
    dedup = plan_facts([Candidate(f.text, f.salience, ()) for f in plain], pinned, embed)
    inserts = [
        NewFact(
            new.content,
            new.salience,
            new.tags,
            turn_ids(by_text[new.content].turns) if new.content in by_text else (),
            "",
            by_text[new.content].kind.value if new.content in by_text else "",
        )
        for new in dedup.inserts
    ]
    bumps = {b.fact_id: b.salience for b in dedup.bumps}
    for fact_id, salience in slot_bumps.items():
        bumps[fact_id] = max(bumps.get(fact_id, 0.0), salience)
    vectors = (*((None,) * len(slotted_inserts)), *dedup.insert_vectors) if dedup.insert_vectors else ()
    plan = FactPlan(
        inserts=(*slotted_inserts, *inserts),
        bumps=tuple(FactBump(k, v) for k, v in bumps.items()),
        merged_in_reply=dedup.merged_in_reply,
        insert_vectors=vectors,
    )
    return GroundedPlan(plan, tuple(identity_inserts), tuple(identity_bumps), superseded)


__all__ = ["GroundedPlan", "TurnIds", "latest_per_slot", "plan_grounded", "same_value"]
