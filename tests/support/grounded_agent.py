"""An agent's memory run session by session through the extractor, the verifier and the writer's supersession plan.

`ground` and `plan_grounded` over an in-memory pool of the agent's active facts, in session order, as memoryd does
(tests of supersession: tests/unit/test_grounding_supersession.py, test_grounding_general_slots.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from memoryd.write.grounding import SourceTurn, ground
from memoryd.write.store_protocol import ExistingFact
from memoryd.write.supersede import plan_grounded

#: 2026-12-02, a Wednesday, 00:00 UTC; each later session is a week on.
SESSION_MS = 1_796_169_600_000
WEEK_MS = 7 * 86_400_000


@dataclass
class Agent:
    """An agent's facts (pinned and identity) with their slots and whether each is still active."""

    rows: dict[str, tuple[str, str, bool, bool]] = field(
        default_factory=dict
    )  # id → (text, slot, identity, active)
    #: Give the writer the session's turns, as memoryd does, so corrections are also read from them
    #: (grounding/revisions.py, an activity given up).
    with_turns: bool = False

    def session(self, *users: str) -> None:
        turns = [SourceTurn(i, 100 * len(self.rows) + i, user, "Okay.") for i, user in enumerate(users)]
        digest = ground(turns, None, session_time_ms=SESSION_MS + WEEK_MS * len(self.rows))
        pinned = [
            ExistingFact(k, t, 0.7, 1, s) for k, (t, s, ident, on) in self.rows.items() if on and not ident
        ]
        identity = [
            ExistingFact(k, t, 0.7, 1, s) for k, (t, s, ident, on) in self.rows.items() if on and ident
        ]
        said = turns if self.with_turns else ()
        plan = plan_grounded(digest.facts, pinned, identity, lambda idx: tuple(idx), turns=said)
        retired = [i for new in plan.facts.inserts for i in (*new.supersedes, *new.supersedes_identity)]
        retired += [i for new in plan.identity_inserts for i in (*new.supersedes, *new.supersedes_pinned)]
        for new in plan.facts.inserts:
            self.rows[str(len(self.rows) + 1)] = (new.content, new.slot, False, True)
        for learned in plan.identity_inserts:
            self.rows[str(len(self.rows) + 1)] = (learned.content, learned.slot, True, True)
        for old in retired:
            text, slot, is_identity, _ = self.rows[old]
            self.rows[old] = (text, slot, is_identity, False)

    def active(self, word: str) -> list[str]:
        return [t for t, _, _, on in self.rows.values() if on and word.casefold() in t.casefold()]

    def stored(self, word: str) -> list[str]:
        return [t for t, _, _, _ in self.rows.values() if word.casefold() in t.casefold()]


def corrected(old: str, new: str, *first: str, then: tuple[str, ...]) -> None:
    """After the `first` session holds `old` and the `then` session, `new` is active and `old` superseded."""
    agent = Agent()
    agent.session(*first)
    assert agent.active(old), (old, agent.rows)
    agent.session(*then)
    assert agent.active(new), (new, agent.rows)
    assert not agent.active(old), (old, agent.rows)
    assert agent.stored(old), "a superseded fact is kept for history"


def kept(old: str, *first: str, then: tuple[str, ...]) -> Agent:
    """After the `first` session holds `old`, the `then` session leaves it active."""
    agent = Agent()
    agent.session(*first)
    assert agent.active(old), (old, agent.rows)
    agent.session(*then)
    assert agent.active(old), (old, agent.rows)
    return agent


# -------------------------------------------------------------------------------------------------------- roles


__all__ = ["SESSION_MS", "WEEK_MS", "Agent", "corrected", "kept"]
