"""Merge never folds what it cannot read (issue 22 item 8): junk look-alike summaries are left alone, a newer
episode holding a correction survives its look-alike, ungrounded pairs and over-large batches are refused, and
a merge keeps the union of both episodes' provenance (source_turn_ids when the table has that column)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memoryd.config import ConfigStore
from memoryd.consolidate import mergeable
from memoryd.domain import KIND_EPISODE
from memoryd.storage.store import Store, open_store
from tests.support.consolidate_rows import (
    ManualClock,
    config_store,
    consolidator,
    days_ago,
    insert_episode,
    insert_turn,
    put_vectors,
)

LOOP = "I'm 12 years old. I'm 12 years old. I'm 12 years old."
HEADER = "Recent past sessions (for cross-session continuity):"
ADDRESS = "1.0.0.0.1:8080"
REAL = (
    "The user chose PostgreSQL for the analytics service and plans to migrate the reporting jobs next sprint"
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


@pytest.fixture
def config(tmp_path: Path) -> ConfigStore:
    return config_store(tmp_path, salience_floor=0.0, episode_retention_days=0)


def _ids(store: Store, agent: str = "a") -> list[int]:
    return [r[0] for r in store.db.query("SELECT id FROM episodes WHERE agent_id = ? ORDER BY id", (agent,))]


def _vector(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(16).astype(np.float32)


@pytest.mark.parametrize(
    ("summary", "reason"),
    [
        (ADDRESS, "trivial"),
        (LOOP, "loop"),
        (HEADER, "scaffolding"),
        (f"{HEADER}\n- [2024-12-01] {REAL}", "scaffolding"),
        ("Conversation date: 2024-12-01. The user talked about work.", "scaffolding"),
        ("The user discussed the session with the assistant.", "trivial"),
        (REAL, None),
        ("Ana moved from Lyon to Porto in March and starts at the new office on 3 April.", None),
    ],
)
def test_unreadable_summaries_are_told_apart(summary: str, reason: str | None) -> None:
    assert mergeable.unreadable_reason(summary) == reason


def test_a_name_said_twice_is_not_a_loop() -> None:
    assert not mergeable.is_loop(
        "We met at New York City Hall and later walked from New York City Hall to the park"
    )


def test_a_newer_name_number_or_correction_is_new_information() -> None:
    older = "Team standup moved to 9:30 on Mondays for the platform group"
    assert mergeable.adds_something(older, "Team standup moved to 10:00 on Mondays for the platform group")
    assert mergeable.adds_something(
        older, "Team standup moved to 9:30 on Mondays for the Berlin platform group"
    )
    assert mergeable.adds_something(older, "Actually the team standup moved to 9:30 on Mondays for the group")
    assert not mergeable.adds_something(
        older, "Team standup moved to 9:30 on Mondays for the platform group."
    )


def test_junk_look_alikes_are_never_merged_and_the_correction_survives(
    store: Store, config: ConfigStore
) -> None:
    clock = ManualClock()
    real = insert_episode(store, "a", REAL, at_ms=days_ago(clock, 9), decisions="Use PostgreSQL", said="")
    # The correction: near-identical words and vector, but it names ClickHouse and says "instead".
    correction = insert_episode(
        store,
        "a",
        REAL.replace("chose PostgreSQL", "chose ClickHouse instead of PostgreSQL"),
        at_ms=days_ago(clock, 2),
        decisions="Use ClickHouse instead of PostgreSQL",
        said="",
    )
    junk = [
        insert_episode(store, "a", text, at_ms=days_ago(clock, day), said="")
        for day, text in enumerate(
            [ADDRESS, ADDRESS, ADDRESS, LOOP, LOOP, HEADER, HEADER, f"{HEADER}\n- [2024-12-01] {REAL}"],
            start=1,
        )
    ]
    base = _vector(1)
    put_vectors(
        store,
        KIND_EPISODE,
        "a",
        [(real, base), (correction, base + 0.01 * _vector(2))]
        + [(j, base + 0.01 * _vector(3)) for j in junk],
    )

    report = consolidator(store, config, clock).run()

    merge = report.step("merge")
    assert merge.rows_changed == 0
    assert _ids(store) == [real, correction, *junk]
    assert merge.counts["unreadable_trivial"] == 3
    assert merge.counts["unreadable_loop"] == 2
    assert merge.counts["unreadable_scaffolding"] == 3
    assert merge.counts["refused_adds_information"] == 1
    decisions = store.db.scalar("SELECT decisions FROM episodes WHERE id = ?", (correction,))
    assert decisions == "Use ClickHouse instead of PostgreSQL"


def test_an_ungrounded_pair_is_not_merged(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    # Same summary twice, but no turn of either session says any of it (invented, or its turns are gone).
    first = insert_episode(store, "a", REAL, at_ms=days_ago(clock, 3), said="We talked about the weather.")
    second = insert_episode(store, "a", REAL, at_ms=days_ago(clock, 1))

    merge = consolidator(store, config, clock).run().step("merge")

    assert merge.rows_changed == 0 and merge.counts["refused_ungrounded"] == 1
    assert _ids(store) == [first, second]


def test_no_pass_folds_away_more_than_a_bounded_share_of_an_agents_episodes(
    store: Store, config: ConfigStore
) -> None:
    clock = ManualClock()
    copies = [insert_episode(store, "a", REAL, at_ms=days_ago(clock, 10 - i), said="") for i in range(5)]
    others = [
        insert_episode(store, "a", f"Planned trip {i} to city{i} with friend{i} for event{i}", said="")
        for i in range(7)
    ]
    assert mergeable.allowance(12) == 3  # 4 merges would be a third of the agent's memory

    merge = consolidator(store, config, clock).run().step("merge")

    assert merge.rows_changed == 0 and merge.counts["capped_agents"] == 1
    assert _ids(store) == sorted([*copies, *others])


def test_a_merge_keeps_the_union_of_provenance_and_source_turn_ids(store: Store, config: ConfigStore) -> None:
    # Migration 5 adds source_turn_ids (comma-separated transcript ids) to the three derived tables.
    clock = ManualClock()
    # Grounded through source_turn_ids alone: the turns live in another conversation id.
    turns = [
        insert_turn(store, "a", REAL, created_ms=days_ago(clock, 5), conversation="raw") for _ in range(3)
    ]
    older = insert_episode(
        store, "a", REAL, topics="databases", entities="PostgreSQL", decisions="Use PostgreSQL",
        at_ms=days_ago(clock, 5), conversation="s-1",
    )  # fmt: skip
    newer = insert_episode(
        store, "a", REAL + ".", topics="analytics", entities="PostgreSQL, reporting jobs",
        action_items="Migrate the reporting jobs", at_ms=days_ago(clock, 1), conversation="s-2",
    )  # fmt: skip
    with store.db.write():
        store.db.execute(
            "UPDATE episodes SET source_turn_ids = ? WHERE id = ?", (f"{turns[0]},{turns[1]}", older)
        )
        store.db.execute(
            "UPDATE episodes SET source_turn_ids = ? WHERE id = ?", (f"{turns[1]},{turns[2]}", newer)
        )

    merge = consolidator(store, config, clock).run().step("merge")

    assert merge.rows_changed == 1 and _ids(store) == [older]
    row = store.db.query(
        "SELECT topics_csv, entities_csv, decisions, action_items, source_turn_ids FROM episodes WHERE id = ?",
        (older,),
    )[0]
    assert row == (
        "databases, analytics",
        "PostgreSQL, reporting jobs",
        "Use PostgreSQL",
        "Migrate the reporting jobs",
        ",".join(str(t) for t in turns),
    )
