"""Evict (low salience and idle 30 days), prune (episodeRetentionDays, 0 = forever) and purge (logs, signals):
rows and their vectors go together."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage.store import Store
from memoryd.vectors.registry import VectorRegistry
from tests.support.consolidate_rows import (
    DAY_MS,
    MODEL,
    ManualClock,
    config_store,
    consolidator,
    days_ago,
    insert_episode,
    insert_fact,
    insert_turn,
    mark_learned,
    put_vectors,
)
from tests.support.store_kinds import BACKEND_KINDS, open_kind


@pytest.fixture(params=BACKEND_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = open_kind(tmp_path / "memory.sqlite", request.param)
    yield opened
    opened.close()


def _ids(store: Store, table: str) -> list[int]:
    return [r[0] for r in store.db.query(f"SELECT id FROM {table} ORDER BY id")]


def _vec(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(8).astype(np.float32)


def test_evict_thresholds(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    # Salience is read after this pass's decay; last_decayed = now keeps it exact.
    now = clock.now_ms
    gone = insert_fact(
        store,
        "a",
        "low and idle",
        salience=0.1,
        created_ms=days_ago(clock, 40),
        last_used_ms=days_ago(clock, 30),
        last_decayed_ms=now,
    )
    used = insert_fact(
        store,
        "a",
        "low but used 29 days ago",
        salience=0.1,
        created_ms=days_ago(clock, 40),
        last_used_ms=days_ago(clock, 29),
        last_decayed_ms=now,
    )
    young = insert_fact(
        store,
        "a",
        "low but created 10 days ago",
        salience=0.1,
        created_ms=days_ago(clock, 10),
        last_used_ms=0,
        last_decayed_ms=now,
    )
    floor = insert_fact(
        store, "a", "exactly at the floor", salience=0.2, created_ms=days_ago(clock, 90), last_decayed_ms=now
    )
    disabled = insert_fact(
        store,
        "a",
        "disabled by the user",
        salience=0.01,
        created_ms=days_ago(clock, 90),
        status="disabled",
        last_decayed_ms=now,
    )
    put_vectors(store, KIND_PINNED, "a", [(gone, _vec(1)), (used, _vec(2))])
    registry = VectorRegistry(tmp_path / "vectors", store.embeddings)
    assert {r for r, _ in registry.search("a", KIND_PINNED, MODEL, _vec(1)[None, :], 5)} == {gone, used}
    config = config_store(tmp_path, salience_floor=0.2, episode_retention_days=0)

    report = consolidator(store, config, clock, vectors=registry).run()

    assert (report.step("evict").rows_changed, report.step("evict").vectors_deleted) == (1, 1)
    assert _ids(store, "pinned_facts") == [used, young, floor, disabled]
    assert store.db.query("SELECT row_id FROM embeddings WHERE kind = ?", (KIND_PINNED,)) == [(used,)]
    assert [r for r, _ in registry.search("a", KIND_PINNED, MODEL, _vec(1)[None, :], 5)] == [used]


def test_evict_follows_the_configured_floor(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    fact = insert_fact(
        store, "a", "a fact", salience=0.5, created_ms=days_ago(clock, 60), last_decayed_ms=clock.now_ms
    )
    consolidator(store, config_store(tmp_path, salience_floor=0.5), clock).run()
    assert _ids(store, "pinned_facts") == [fact]
    consolidator(store, config_store(tmp_path, salience_floor=0.51), clock).run()
    assert _ids(store, "pinned_facts") == []


def test_prune_with_retention_zero_keeps_everything(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    episode = insert_episode(store, "a", "ten years ago", at_ms=days_ago(clock, 3650), last_decayed_ms=0)
    turn = insert_turn(store, "a", "a very old message", created_ms=days_ago(clock, 3650))
    config = config_store(tmp_path, episode_retention_days=0, salience_floor=0.0)
    report = consolidator(store, config, clock).run()
    assert report.step("prune").skip_reason == "retention_forever"
    assert report.step("prune").rows_changed == 0
    assert _ids(store, "episodes") == [episode] and _ids(store, "transcript") == [turn]


def test_prune_deletes_old_episodes_and_turns_with_their_vectors(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    old_episode = insert_episode(store, "a", "old episode", at_ms=days_ago(clock, 31))
    new_episode = insert_episode(store, "a", "recent episode", at_ms=days_ago(clock, 29))
    old_turns = [insert_turn(store, "a", f"old turn {i}", created_ms=days_ago(clock, 31)) for i in range(5)]
    other_agent_turn = insert_turn(store, "b", "another agent's old turn", created_ms=days_ago(clock, 40))
    mark_learned(store, days_ago(clock, 31))  # learned when they were said (a pass then recorded it)
    new_turn = insert_turn(store, "a", "recent turn", created_ms=days_ago(clock, 1))
    put_vectors(store, KIND_EPISODE, "a", [(old_episode, _vec(1)), (new_episode, _vec(2))])
    put_vectors(store, KIND_TRANSCRIPT, "a", [(old_turns[0], _vec(3)), (new_turn, _vec(4))])
    put_vectors(store, KIND_TRANSCRIPT, "b", [(other_agent_turn, _vec(5))])
    registry = VectorRegistry(tmp_path / "vectors", store.embeddings)
    registry.search("a", KIND_EPISODE, MODEL, _vec(1)[None, :], 1)  # load a's index
    config = config_store(tmp_path, episode_retention_days=30, salience_floor=0.0)

    report = consolidator(store, config, clock, vectors=registry, batch_rows=2).run()

    prune = report.step("prune")
    assert prune.counts == {"episodes": 1, "transcript": 6}
    assert prune.vectors_deleted == 3
    assert _ids(store, "episodes") == [new_episode]
    assert _ids(store, "transcript") == [new_turn]
    assert sorted(store.db.query("SELECT kind, row_id FROM embeddings")) == [
        (KIND_EPISODE, new_episode),
        (KIND_TRANSCRIPT, new_turn),
    ]
    assert [r for r, _ in registry.search("a", KIND_EPISODE, MODEL, _vec(1)[None, :], 5)] == [new_episode]
    assert [r for r, _ in registry.search("a", KIND_TRANSCRIPT, MODEL, _vec(3)[None, :], 5)] == [new_turn]
    # FTS mirrors follow the deletes.
    if store.dialect == "sqlite":  # the FTS5 mirrors are SQLite's
        assert store.db.scalar("SELECT count(*) FROM fts_transcript WHERE fts_transcript MATCH 'old'") == 0


def test_purge_trims_logs_and_old_signals_but_never_pending_ones(store: Store, tmp_path: Path) -> None:
    clock = ManualClock()
    with store.db.write():
        for days, status in (
            (31, "processed"),
            (29, "processed"),
            (89, "dead_letter"),
            (91, "dead_letter"),
            (400, "pending"),
        ):
            stamp = days_ago(clock, days)
            store.db.execute(
                "INSERT INTO pending_signals (agent_id, conversation_id, user_message, status, occurred_at_ms, "
                "created_at_ms, updated_at_ms) VALUES ('a', 'c', 'hi', ?, ?, ?, ?)",
                (status, stamp, stamp, stamp),
            )
        for days in (31, 29):
            store.db.execute(
                "INSERT INTO processing_log (task_type, status, created_at_ms) VALUES ('distill', 'success', ?)",
                (days_ago(clock, days),),
            )
    report = consolidator(store, config_store(tmp_path), clock).run()
    assert report.step("purge").counts == {
        "processing_log": 1,
        "processed_signals": 1,
        "dead_letter_signals": 1,
    }
    assert store.db.query(
        "SELECT status, (? - updated_at_ms) / ? FROM pending_signals ORDER BY id", (clock.now_ms, DAY_MS)
    ) == [("processed", 29), ("dead_letter", 89), ("pending", 400)]
    # The distill row from 29 days ago and this pass's own report remain.
    assert store.db.query("SELECT task_type FROM processing_log ORDER BY id") == [
        ("distill",),
        ("consolidate",),
    ]
