"""Retention and decay count from when memory learned a row (or last used it), never from the session's date:
backfilled 2023 history survives the first pass; rows learned longer than episodeRetentionDays ago go."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.consolidate import learned
from memoryd.consolidate.state import StateStore
from memoryd.storage.store import Store, open_store
from tests.support.consolidate_rows import (
    DAY_MS,
    ManualClock,
    config_store,
    consolidator,
    days_ago,
    insert_episode,
    insert_fact,
    insert_turn,
    mark_learned,
)

#: 2023-06-01, a LoCoMo-era session date.
SESSION_2023_MS = 1_685_577_600_000


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


def _ids(store: Store, table: str) -> list[int]:
    return [r[0] for r in store.db.query(f"SELECT id FROM {table} ORDER BY id")]


def test_backfilled_2023_history_survives_the_first_pass_and_goes_a_retention_after_it_was_learned(
    store: Store, tmp_path: Path
) -> None:
    clock = ManualClock()  # 2025-01-01: the session date is ~580 days before
    # As Ingest stores it: conversation time = the session date, learned (created_at_ms) = now.
    episode = insert_episode(
        store, "a", "Caroline went to a support group", at_ms=SESSION_2023_MS, created_ms=clock.now_ms
    )
    turns = [insert_turn(store, "a", f"2023 turn {i}", created_ms=SESSION_2023_MS) for i in range(3)]
    config = config_store(tmp_path, episode_retention_days=365, salience_floor=0.0)

    first = consolidator(store, config, clock).run()
    assert first.step("prune").counts == {"episodes": 0, "transcript": 0}
    assert _ids(store, "episodes") == [episode] and _ids(store, "transcript") == turns

    clock.advance_days(300)  # still within a retention of when memory learned them
    assert consolidator(store, config, clock).run().step("prune").rows_changed == 0

    clock.advance_days(66)
    last = consolidator(store, config, clock).run()
    assert last.step("prune").counts == {"episodes": 1, "transcript": 3}
    assert _ids(store, "episodes") == [] and _ids(store, "transcript") == []


def test_rows_learned_more_than_a_retention_ago_are_pruned(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    old_episode = insert_episode(store, "a", "learned long ago", at_ms=days_ago(clock, 400))
    # Said recently by the clock of the session, but memory learned it 400 days ago: learned time decides.
    old_but_recent_date = insert_episode(
        store, "a", "future-dated session", at_ms=days_ago(clock, 1), created_ms=days_ago(clock, 400)
    )
    kept = insert_episode(store, "a", "learned recently", at_ms=days_ago(clock, 10))
    old_turn = insert_turn(store, "a", "an old live turn", created_ms=days_ago(clock, 400))
    mark_learned(store, days_ago(clock, 400))
    new_turn = insert_turn(store, "a", "a new live turn", created_ms=days_ago(clock, 2))
    config = config_store(tmp_path, episode_retention_days=365, salience_floor=0.0)

    report = consolidator(store, config, clock).run()

    assert report.step("prune").counts == {"episodes": 2, "transcript": 1}
    assert old_episode not in _ids(store, "episodes") and old_but_recent_date not in _ids(store, "episodes")
    assert _ids(store, "episodes") == [kept]
    assert _ids(store, "transcript") == [new_turn] and old_turn not in _ids(store, "transcript")


def test_a_turn_stored_after_the_last_old_enough_mark_waits_for_a_later_pass(
    store: Store, tmp_path: Path
) -> None:
    clock = ManualClock()
    config = config_store(tmp_path, episode_retention_days=30, salience_floor=0.0)
    consolidator(store, config, clock).run()  # mark at T0: nothing stored yet
    clock.advance_days(1)
    turn = insert_turn(store, "a", "said a day after the first pass", created_ms=clock.now_ms)
    clock.advance_days(1)
    consolidator(store, config, clock).run()  # mark at T0+2d: the first one that covers the turn

    clock.advance_days(29.5)  # 30.5 days after the turn was stored, 29.5 after the mark that dates it
    consolidator(store, config, clock).run()
    assert _ids(store, "transcript") == [turn], "memory cannot yet show it learned the turn 30 days ago"

    clock.advance_days(1)
    consolidator(store, config, clock).run()
    assert _ids(store, "transcript") == []


def test_a_reset_id_sequence_forgets_the_marks(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    for i in range(5):
        insert_turn(store, "a", f"turn {i}", created_ms=days_ago(clock, 100))
    mark_learned(store, days_ago(clock, 100))
    with store.db.write():
        store.db.execute("DELETE FROM transcript")
        store.db.execute("DELETE FROM sqlite_sequence WHERE name = 'transcript'")
    # Ids start again at 1: the old mark (high id 5) must not make these look 100 days old.
    restarted = [insert_turn(store, "a", f"again {i}", created_ms=days_ago(clock, 100)) for i in range(2)]
    config = config_store(tmp_path, episode_retention_days=30, salience_floor=0.0)

    consolidator(store, config, clock).run()

    assert _ids(store, "transcript") == restarted


def test_marks_stay_few_over_many_passes(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    config = config_store(tmp_path, episode_retention_days=30, salience_floor=0.0)
    for _ in range(400):
        insert_turn(store, "a", "hello", created_ms=clock.now_ms)
        consolidator(store, config, clock).run()
        clock.advance_days(0.25)
    marks = learned.load(StateStore(store.db))
    assert 2 <= len(marks) <= learned.MAX_MARKS
    assert marks[0].at_ms <= clock.now_ms - 30 * DAY_MS, "the newest mark past the cutoff is kept"


def test_retention_zero_still_records_marks(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    insert_turn(store, "a", "kept forever", created_ms=clock.now_ms)
    report = consolidator(store, config_store(tmp_path, episode_retention_days=0), clock).run()
    assert report.step("prune").skip_reason == "retention_forever"
    assert learned.load(StateStore(store.db)) == [learned.Mark(clock.now_ms, 1)]


def test_a_used_fact_decays_from_its_last_use(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    idle = insert_fact(store, "a", "idle fact", salience=0.8, created_ms=days_ago(clock, 10))
    used = insert_fact(
        store, "a", "used fact", salience=0.8, created_ms=days_ago(clock, 10), last_used_ms=days_ago(clock, 2)
    )
    consolidator(store, config_store(tmp_path, episode_retention_days=0, salience_floor=0.0), clock).run()

    salience = dict(store.db.query("SELECT id, salience FROM pinned_facts"))
    assert salience[idle] == pytest.approx(0.8 * math.exp(-10 / 30))
    assert salience[used] == pytest.approx(0.8 * math.exp(-2 / 30))


def test_learned_marks_helpers() -> None:
    marks = [learned.Mark(100, 5), learned.Mark(200, 9)]
    assert learned.learned_by(marks, 99) == 0
    assert learned.learned_by(marks, 150) == 5 and learned.learned_by(marks, 200) == 9
    assert learned.usable(marks, 8) == [] and learned.usable(marks, 9) == marks
    assert learned.with_new_mark(marks, 210, 9, 30) == marks, "too soon after the last mark"
