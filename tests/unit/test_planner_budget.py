"""Planner: one section under the budget (property-tested), skip-ahead, dedup, identity cut, usage bumps."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from memoryd.retrieval import blocks
from memoryd.retrieval.items import IdentityFact, IdentitySnapshot, ItemKind, ItemRef, MemoryHit, Section
from memoryd.retrieval.planner import (
    Candidate,
    Planner,
    fetch_limit,
    fit,
    hit_candidates,
    identity_candidates,
)
from memoryd.retrieval.tokens import EstimatingCounter, estimate_tokens
from tests.fakes.memory_reader import InMemoryReader

TODAY = "22 June 2026"


def frame(body: str) -> str:
    return blocks.render_block(TODAY, "", body)


class WordCounter:
    """A tokenizer whose whole-text count exceeds the sum of its parts (quadratic in line breaks)."""

    source = "test:words"

    def count(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) + t.count("\n") ** 2 // 3 + 1 if t else 0 for t in texts]


def candidate(i: int, text: str, rank: float) -> Candidate:
    return Candidate(ItemRef(ItemKind.PINNED_FACT, str(i)), blocks.pinned_line(text), rank, order_key=i)


texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=300)


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.tuples(texts, st.floats(0, 1)), max_size=40),
    budget=st.integers(min_value=0, max_value=1200),
    section=st.sampled_from([Section.PINNED, Section.EPISODES, Section.TRANSCRIPT, Section.IDENTITY]),
    non_additive=st.booleans(),
)
def test_budget_is_never_exceeded(
    lines: list[tuple[str, float]], budget: int, section: Section, non_additive: bool
) -> None:
    counter = WordCounter() if non_additive else EstimatingCounter()
    cands = [candidate(i, text, rank) for i, (text, rank) in enumerate(lines)]
    if section is Section.IDENTITY and cands:
        cands[0] = Candidate(None, blocks.one_line(lines[0][0], 4000), 2.0, is_truncatable=True)
    plan = fit(section, cands, budget, counter, frame)
    if plan.body:
        assert counter.count([frame(plan.body)])[0] <= budget
        assert plan.body.startswith(blocks.SECTION_HEADERS[section] + "\n")
    assert plan.considered == len(cands)
    assert 0 <= plan.dropped <= plan.considered
    assert len(plan.placed) <= plan.considered - plan.dropped
    assert len(set(plan.placed)) == len(plan.placed)


@settings(max_examples=200, deadline=None)
@given(text=texts)
def test_estimate_is_at_least_chars_over_four(text: str) -> None:
    assert estimate_tokens(text) >= len(text) / 4
    assert estimate_tokens(text) == 0 or estimate_tokens(text) >= 1


def test_no_bare_header_when_nothing_fits() -> None:
    plan = fit(Section.PINNED, [candidate(1, "x" * 2000, 1.0)], 40, EstimatingCounter(), frame)
    assert plan.body == ""
    assert plan.placed == ()
    assert (plan.considered, plan.dropped) == (1, 1)


def test_skips_a_line_that_does_not_fit_and_keeps_smaller_ones() -> None:
    cands = [
        candidate(1, "short fact one", 0.9),
        candidate(2, "y " * 400, 0.8),
        candidate(3, "short fact three", 0.7),
    ]
    plan = fit(Section.PINNED, cands, 60, EstimatingCounter(), frame)
    assert [r.id for r in plan.placed] == ["1", "3"]
    assert plan.dropped == 1


def test_near_duplicates_are_dropped() -> None:
    cands = [
        candidate(1, "User prefers Postgres for new projects", 0.9),
        candidate(2, "user prefers postgres for new projects!", 0.8),
        candidate(3, "User has a cat named Mochi", 0.7),
    ]
    plan = fit(Section.PINNED, cands, 800, EstimatingCounter(), frame)
    assert [r.id for r in plan.placed] == ["1", "3"]
    assert plan.dropped == 1


def test_episodes_are_shown_chronologically_but_chosen_by_rank() -> None:
    day = 86_400_000
    hits = [
        MemoryHit(
            ItemRef(ItemKind.EPISODE, "9"),
            "Planned the Lisbon trip",
            3.0,
            0.5,
            20_000 * day,
            "",
            ("Fly on May 3",),
        ),
        MemoryHit(ItemRef(ItemKind.EPISODE, "4"), "Compared Postgres and MySQL", 2.0, 0.5, 19_000 * day),
    ]
    plan = fit(Section.EPISODES, hit_candidates(Section.EPISODES, hits, "q"), 800, EstimatingCounter(), frame)
    assert plan.body.splitlines() == [
        "## What we discussed before",
        "- [2022-01-08] Compared Postgres and MySQL",
        "- [2024-10-04] Planned the Lisbon trip (decision: Fly on May 3)",
    ]


def test_transcript_skips_the_query_itself() -> None:
    hits = [
        MemoryHit(ItemRef(ItemKind.TRANSCRIPT_TURN, "1"), "What were my exact words?", 5.0, role="user"),
        MemoryHit(ItemRef(ItemKind.TRANSCRIPT_TURN, "2"), "The lease ends in May", 1.0, role="user"),
    ]
    cands = hit_candidates(Section.TRANSCRIPT, hits, "what were my EXACT words?")
    assert [c.ref.id for c in cands if c.ref] == ["2"]


def test_identity_narrative_is_cut_to_fit_and_facts_follow() -> None:
    identity = IdentitySnapshot(
        overrides=("My name is Terence",),
        narrative="User builds Swift apps for macOS and prefers Postgres. " * 40,
        facts=(IdentityFact("7", "Lives in Lisbon", 1), IdentityFact("8", "Works at Acme", 3)),
    )
    cands = identity_candidates(identity)
    plan = fit(Section.IDENTITY, cands, 120, EstimatingCounter(), frame)
    lines = plan.body.splitlines()
    assert lines[0] == "## About you"
    assert lines[1].endswith("…")
    assert estimate_tokens(frame(plan.body)) <= 120
    roomy = fit(Section.IDENTITY, cands, 4000, EstimatingCounter(), frame)
    assert roomy.body.splitlines()[2:] == ["- Works at Acme", "- Lives in Lisbon"]
    assert [r.id for r in roomy.placed] == ["8", "7"]


def test_fetch_limits_follow_the_top_k_for_the_budget_doubled() -> None:
    assert fetch_limit(Section.PINNED, 800) == 26
    assert fetch_limit(Section.EPISODES, 800) == 12
    assert fetch_limit(Section.TRANSCRIPT, 800) == 12  # one turn per ~130 tokens (the reference has 4)
    assert fetch_limit(Section.TRANSCRIPT, 4000) == 24
    assert fetch_limit(Section.TRANSCRIPT, 100) == 4
    assert fetch_limit(Section.PINNED, 100) == 6
    assert fetch_limit(Section.NONE, 800) == 0


def test_usage_is_bumped_only_for_placed_pinned_facts() -> None:
    reader = InMemoryReader()
    reader.add("a", Section.PINNED, "User prefers Postgres databases", salience=0.9)
    reader.add("a", Section.PINNED, "Postgres " + "filler words " * 300, salience=0.8)  # cannot fit
    reader.add("a", Section.PINNED, "Postgres backups run nightly", salience=0.2)
    reader.add("b", Section.PINNED, "Postgres belongs to agent b")
    planner = Planner(reader, EstimatingCounter(), now_ms=lambda: 1234)
    plan = planner.plan("a", Section.PINNED, "what about postgres", 200, frame)
    assert sorted(r.id for r in plan.placed) == ["1", "3"]
    assert plan.considered == 3
    assert plan.dropped == 1
    assert reader.bumps == [("a", ("1", "3"), 1234)]


def test_no_bump_when_nothing_is_placed_or_section_is_not_pinned() -> None:
    reader = InMemoryReader()
    reader.add("a", Section.PINNED, "Postgres " + "filler " * 900)
    reader.add("a", Section.EPISODES, "Talked about Postgres")
    planner = Planner(reader, EstimatingCounter(), now_ms=lambda: 1)
    assert planner.plan("a", Section.PINNED, "postgres", 100, frame).placed == ()
    assert planner.plan("a", Section.EPISODES, "postgres", 800, frame).placed != ()
    assert reader.bumps == []


def test_extra_texts_are_counted_in_the_verifying_call() -> None:
    calls: list[list[str]] = []

    class Recording(EstimatingCounter):
        def count(self, texts: Sequence[str]) -> list[int]:
            calls.append(list(texts))
            return super().count(texts)

    cands = [candidate(1, "User prefers Postgres", 0.9), candidate(2, "User has a cat named Mochi", 0.5)]
    plan = fit(Section.PINNED, cands, 800, Recording(), frame, extra=lambda body: [body, "overrides"])
    assert plan.extra_counts == (estimate_tokens(plan.body), estimate_tokens("overrides"))
    assert calls[-1] == [frame(plan.body), plan.body, "overrides"]
    assert len(calls) == 3  # header, lines, verification (+ extras)
    empty = fit(Section.PINNED, [], 800, Recording(), frame, extra=lambda body: [body])
    assert empty.extra_counts == ()


def test_lines_of_one_moment_show_in_the_order_they_were_stored() -> None:
    # Three turns stored in the same millisecond, ranked against their storage order: the block reads them in the
    # order they were stored whatever the ranks (each backend ranks with its own scores).
    said_at = 1_750_000_000_000
    cands = [
        Candidate(ItemRef(ItemKind.TRANSCRIPT_TURN, str(row)), f"- turn {row}", rank, said_at)
        for row, rank in ((7, 0.2), (12, 0.9), (9, 0.5))
    ]
    plan = fit(Section.TRANSCRIPT, cands, 400, EstimatingCounter(), frame)
    assert [line for line in plan.body.splitlines() if line.startswith("- turn")] == [
        "- turn 7",
        "- turn 9",
        "- turn 12",
    ]
