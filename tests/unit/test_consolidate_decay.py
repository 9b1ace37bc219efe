"""Decay: salience × exp(−Δdays/30) from each row's last decay, so any number of passes equals the closed form."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.config import ConfigStore
from memoryd.storage.store import Store
from tests.support.consolidate_rows import (
    DAY_MS,
    ManualClock,
    config_store,
    consolidator,
    insert_episode,
    insert_fact,
)
from tests.support.store_kinds import BACKEND_KINDS, open_kind


@pytest.fixture(params=BACKEND_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = open_kind(tmp_path / "memory.sqlite", request.param)
    yield opened
    opened.close()


def quiet_config(home: Path) -> ConfigStore:
    """Eviction and pruning off, so only decay changes these rows."""
    return config_store(home, salience_floor=0.0, episode_retention_days=0)


def _salience(store: Store, table: str, row_id: int) -> float:
    return float(store.db.scalar(f"SELECT salience FROM {table} WHERE id = ?", (row_id,)))


def closed_form(initial: float, elapsed_ms: int) -> float:
    return initial * math.exp(-(elapsed_ms / DAY_MS) / 30.0)


@pytest.mark.parametrize("passes", [1, 2, 10])
def test_decay_over_n_passes_equals_the_closed_form(store: Store, tmp_path: Path, passes: int) -> None:
    clock = ManualClock()
    start = clock.now_ms
    fact = insert_fact(store, "a", "The user prefers tea over coffee", salience=0.9, created_ms=start)
    episode = insert_episode(store, "a", "Planned the garden layout", at_ms=start, salience=0.7)
    runner = consolidator(store, quiet_config(tmp_path), clock)
    # Irregular gaps: the result may depend only on the total time, never on how often passes ran.
    gaps = [1.0, 2.5, 0.25, 7.0, 3.0, 0.5, 11.0, 4.0, 1.75, 9.0][:passes]
    for gap in gaps:
        clock.advance_days(gap)
        report = runner.run()
        assert report.step("decay").rows_changed == 2
    elapsed = clock.now_ms - start
    assert _salience(store, "pinned_facts", fact) == pytest.approx(closed_form(0.9, elapsed), rel=1e-12)
    assert _salience(store, "episodes", episode) == pytest.approx(closed_form(0.7, elapsed), rel=1e-12)


def test_daily_passes_do_not_compound_like_the_reference_app(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    fact = insert_fact(store, "a", "The user lives in Lyon", salience=1.0, created_ms=clock.now_ms)
    runner = consolidator(store, quiet_config(tmp_path), clock)
    for _ in range(30):
        clock.advance_days(1)
        runner.run()
    # exp(-1) after 30 idle days — not the ~0.5^15.5 the reference app's daily passes produce.
    assert _salience(store, "pinned_facts", fact) == pytest.approx(math.exp(-1.0), rel=1e-12)


def test_a_second_pass_at_the_same_instant_changes_nothing(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    fact = insert_fact(store, "a", "The user codes in Rust", salience=0.8, created_ms=clock.now_ms)
    runner = consolidator(store, quiet_config(tmp_path), clock)
    clock.advance_days(5)
    runner.run()
    after_first = _salience(store, "pinned_facts", fact)
    assert runner.run().step("decay").rows_changed == 0
    assert _salience(store, "pinned_facts", fact) == after_first


def test_a_row_added_between_passes_decays_from_its_own_creation(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    runner = consolidator(store, quiet_config(tmp_path), clock)
    insert_fact(store, "a", "first fact about gardening", created_ms=clock.now_ms)
    clock.advance_days(10)
    runner.run()
    late = insert_fact(store, "a", "second fact about cycling", salience=0.6, created_ms=clock.now_ms)
    clock.advance_days(3)
    runner.run()
    assert _salience(store, "pinned_facts", late) == pytest.approx(closed_form(0.6, 3 * DAY_MS), rel=1e-12)


def test_never_decayed_rows_are_stamped_not_crushed(store: Store, tmp_path: Path) -> None:
    """An imported row (last_decayed_at_ms = 0, created years ago) keeps its salience on the first pass."""
    clock = ManualClock()
    old = clock.now_ms - 800 * DAY_MS
    episode = insert_episode(
        store, "a", "An imported 1.x summary", at_ms=old, salience=0.5, last_decayed_ms=0
    )
    runner = consolidator(store, quiet_config(tmp_path), clock)
    runner.run()
    assert _salience(store, "episodes", episode) == 0.5
    clock.advance_days(30)
    runner.run()
    assert _salience(store, "episodes", episode) == pytest.approx(0.5 * math.exp(-1.0), rel=1e-12)


def test_disabled_rows_do_not_decay_while_disabled_but_catch_up_after(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    fact = insert_fact(
        store,
        "a",
        "The user is allergic to peanuts",
        salience=0.9,
        created_ms=clock.now_ms,
        status="disabled",
    )
    runner = consolidator(store, quiet_config(tmp_path), clock)
    clock.advance_days(10)
    runner.run()
    assert _salience(store, "pinned_facts", fact) == 0.9
    with store.db.write():
        store.db.execute("UPDATE pinned_facts SET status = 'active' WHERE id = ?", (fact,))
    clock.advance_days(5)
    runner.run()
    assert _salience(store, "pinned_facts", fact) == pytest.approx(closed_form(0.9, 15 * DAY_MS), rel=1e-12)


def test_decay_runs_in_batches_and_covers_every_row(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    ids = [
        insert_fact(store, "a", f"fact number {i} about topic {i}", salience=0.5, created_ms=clock.now_ms)
        for i in range(57)
    ]
    batches: list[str] = []
    runner = consolidator(store, quiet_config(tmp_path), clock, batch_rows=10, on_batch=batches.append)
    clock.advance_days(30)
    assert runner.run().step("decay").rows_changed == 57
    assert batches.count("decay") >= 6
    for row_id in ids:
        assert _salience(store, "pinned_facts", row_id) == pytest.approx(0.5 * math.exp(-1.0), rel=1e-12)
