"""Promote: pinned facts supported by >= 3 recent episodes are boosted; recurring identity-grade facts become
identity facts (never overrides)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.config import ConfigStore
from memoryd.consolidate.jobs import PROMOTE_BOOST_PER_DAY
from memoryd.storage.store import Store
from tests.support.consolidate_rows import (
    DAY_MS,
    ManualClock,
    config_store,
    consolidator,
    days_ago,
    insert_episode,
    insert_fact,
)
from tests.support.store_kinds import BACKEND_KINDS, open_kind

FACT = "The user prefers PostgreSQL for analytics workloads"
SUPPORTING = [
    "Compared PostgreSQL and ClickHouse for the analytics workloads; the user preferred PostgreSQL",
    "Tuned PostgreSQL indexes for the analytics workload the user runs weekly",
    "Migrated the analytics workload to PostgreSQL partitions, as the user prefers",
    "Discussed PostgreSQL vacuum settings for the analytics database the user prefers",
]
UNRELATED = "Planned a hiking trip to the Alps with friends"


@pytest.fixture(params=BACKEND_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = open_kind(tmp_path / "memory.sqlite", request.param)
    yield opened
    opened.close()


@pytest.fixture
def config(tmp_path: Path) -> ConfigStore:
    return config_store(tmp_path, salience_floor=0.0, episode_retention_days=0)


def _salience(store: Store, fact: int) -> float:
    return float(store.db.scalar("SELECT salience FROM pinned_facts WHERE id = ?", (fact,)))


def _episodes(store: Store, agent: str, clock: ManualClock, supporting: int, *, age_days: float = 5) -> None:
    for i in range(supporting):
        insert_episode(store, agent, SUPPORTING[i], at_ms=days_ago(clock, age_days + i), topics="databases")
    for i in range(3):
        insert_episode(store, agent, f"{UNRELATED} number {i}", at_ms=days_ago(clock, age_days + 10 + i))


@pytest.mark.parametrize(("supporting", "boosted"), [(2, False), (3, True), (4, True)])
def test_boost_needs_three_supporting_recent_episodes(
    store: Store, config: ConfigStore, supporting: int, boosted: bool
) -> None:
    clock = ManualClock()
    fact = insert_fact(store, "a", FACT, salience=0.5, created_ms=clock.now_ms)
    _episodes(store, "a", clock, supporting)
    report = consolidator(store, config, clock).run()
    assert report.step("promote").counts["boosted"] == int(boosted)
    assert _salience(store, fact) == pytest.approx(
        0.5 + (PROMOTE_BOOST_PER_DAY if boosted else 0.0), rel=1e-12
    )


def test_old_episodes_and_other_agents_do_not_count(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    fact = insert_fact(store, "a", FACT, salience=0.5, created_ms=clock.now_ms)
    _episodes(store, "a", clock, 4, age_days=61)  # outside the 60-day window
    _episodes(store, "b", clock, 4)  # recent, but another agent's
    assert consolidator(store, config, clock).run().step("promote").counts["boosted"] == 0
    assert _salience(store, fact) == 0.5


def test_boost_scales_with_time_so_hourly_passes_match_daily_ones(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    fact = insert_fact(store, "a", FACT, salience=0.5, created_ms=clock.now_ms)
    _episodes(store, "a", clock, 3, age_days=1)
    runner = consolidator(store, config, clock)
    runner.run()  # the first pass boosts by one day's worth
    expected = 0.5 + PROMOTE_BOOST_PER_DAY
    for _ in range(24):
        clock.advance_days(1 / 24)
        runner.run()
        expected = expected * math.exp(-1 / 24 / 30) + PROMOTE_BOOST_PER_DAY / 24
    assert _salience(store, fact) == pytest.approx(expected, rel=1e-9)
    # A day of hourly passes boosts about as much as one daily pass would (decay aside): not 24 × 0.05.
    assert _salience(store, fact) < 0.5 + 2.5 * PROMOTE_BOOST_PER_DAY


def test_salience_is_capped_at_one(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    fact = insert_fact(store, "a", FACT, salience=0.99, created_ms=clock.now_ms)
    _episodes(store, "a", clock, 3)
    consolidator(store, config, clock).run()
    assert _salience(store, fact) == 1.0


IDENTITY = "The user's name is Ana Souza"


def _identity_facts(store: Store) -> list[tuple[str, str, int]]:
    return store.db.query("SELECT agent_id, content, source_count FROM identity_facts ORDER BY id")


def test_a_recurring_identity_grade_fact_becomes_an_identity_fact_once(
    store: Store, config: ConfigStore
) -> None:
    clock = ManualClock()
    insert_fact(store, "a", IDENTITY, created_ms=clock.now_ms)
    insert_episode(
        store, "a", "Ana Souza introduced herself; the user's name is Ana Souza", at_ms=days_ago(clock, 3)
    )
    insert_episode(store, "a", "Ana Souza asked about her tax return", at_ms=days_ago(clock, 1))
    runner = consolidator(store, config, clock)
    assert runner.run().step("promote").counts["identity_promoted"] == 1
    assert _identity_facts(store) == [("a", IDENTITY, 2)]
    clock.advance_days(1)
    assert runner.run().step("promote").counts["identity_promoted"] == 0
    assert len(_identity_facts(store)) == 1
    overrides = store.db.scalar("SELECT overrides FROM identity WHERE id = 1")
    assert overrides == "[]"  # auto-derived facts never go into the user's overrides


def test_identity_promotion_thresholds(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    insert_fact(store, "a", "The user works as a nurse in Porto", created_ms=clock.now_ms)  # seen once
    insert_fact(
        store, "a", "The user prefers window seats", source_count=5, created_ms=clock.now_ms
    )  # not identity
    insert_fact(
        store, "b", "The user lives in Berlin", source_count=2, created_ms=clock.now_ms
    )  # two sessions
    insert_episode(store, "a", "The user mentioned working as a nurse in Porto", at_ms=days_ago(clock, 2))
    consolidator(store, config, clock).run()
    assert _identity_facts(store) == [("b", "The user lives in Berlin", 2)]


def test_an_existing_identity_fact_is_not_duplicated(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    with store.db.write():
        store.db.execute(
            "INSERT INTO identity_facts (agent_id, content, source_count, created_at_ms, updated_at_ms) "
            "VALUES ('a', 'User''s name is Ana Souza.', 1, ?, ?)",
            (clock.now_ms - DAY_MS, clock.now_ms - DAY_MS),
        )
    insert_fact(store, "b", IDENTITY, source_count=3, created_ms=clock.now_ms)
    consolidator(store, config, clock).run()
    assert _identity_facts(store) == [("a", "User's name is Ana Souza.", 3)]
