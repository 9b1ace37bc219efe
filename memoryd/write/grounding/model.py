"""The grounding package's data: source turns in, grounded facts, entities and digests out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum


class FactKind(StrEnum):
    """What a fact is about; decisions and action items are facts too, with their own kind."""

    IDENTITY = "identity"
    PREFERENCE = "preference"
    INSTRUCTION = "instruction"
    RELATION = "relation"
    PLAN = "plan"
    DECISION = "decision"
    ACTION_ITEM = "action_item"


@dataclass(frozen=True)
class SourceTurn:
    """One exchange of the session, memory blocks already stripped; `index` is what provenance refers to."""

    index: int
    signal_id: int
    user: str
    assistant: str


@dataclass(frozen=True)
class GroundedFact:
    """A verified fact about the user, with the turns it came from.

    `slot` is "" or a stable key ("identity.home", "relation.manager", "choice.database", "plan.beta"): a newer fact
    with the same slot and another value is a correction. `source` says who phrased `text`: "extractor" or "model".
    """

    kind: FactKind
    text: str
    slot: str
    value: str
    turns: tuple[int, ...]
    salience: float
    is_identity: bool
    source: str = "extractor"
    language: str = "en"
    #: Old values its turn says no longer hold, as (scope, value): ("person", "Dr. Harris"), ("thing", "Jira").
    #: supersede.py retires the agent's active facts that state them (grounding/stale.py says which).
    replaces: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Entity:
    """A name said in the session (person, place, tool) and the turns it occurs in."""

    name: str
    turns: tuple[int, ...]


@dataclass(frozen=True)
class Extraction:
    """What the deterministic extractor found in the user's turns.

    `resolved_dates` are the ISO days relative dates of the session resolve to (the verifier accepts them);
    `evidence` maps a fact (by position in `facts`) to the sentences it was read from.
    """

    facts: tuple[GroundedFact, ...]
    entities: tuple[Entity, ...]
    resolved_dates: frozenset[str]
    evidence: tuple[tuple[str, ...], ...]
    language: str
    summary: str = ""
    summary_turns: tuple[int, ...] = ()
    topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroundedDigest:
    """The session's verified digest: what the writer may store, and what the verifier dropped (reason → count)."""

    summary: str
    summary_turns: tuple[int, ...]
    summary_source: str
    topics: tuple[str, ...]
    entities: tuple[Entity, ...]
    facts: tuple[GroundedFact, ...]
    decisions: tuple[GroundedFact, ...]
    action_items: tuple[GroundedFact, ...]
    dropped: Mapping[str, int] = field(default_factory=dict)
    salience: float = 0.5


def signal_ids(turn_indices: Sequence[int], turns: Sequence[SourceTurn]) -> tuple[int, ...]:
    """The signal ids behind provenance turn indices (what the writer stores as an item's source)."""
    by_index = {turn.index: turn.signal_id for turn in turns}
    return tuple(by_index[i] for i in turn_indices if i in by_index)


__all__ = ["Entity", "Extraction", "FactKind", "GroundedDigest", "GroundedFact", "SourceTurn", "signal_ids"]
