"""Merge: near-duplicate episodes of one agent fold into the older one; the newer row and its vector are gone."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memoryd.config import ConfigStore
from memoryd.domain import KIND_EPISODE
from memoryd.storage.store import Store
from memoryd.vectors.registry import VectorRegistry
from tests.support.consolidate_rows import (
    MODEL,
    ManualClock,
    config_store,
    consolidator,
    days_ago,
    insert_episode,
    insert_fact,
    put_vectors,
)
from tests.support.store_kinds import BACKEND_KINDS, open_kind

SUMMARY = "Debugged the flaky integration tests in the payments service and pinned the grpc version"
TOPICS = "testing, payments, grpc"


@pytest.fixture(params=BACKEND_KINDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    opened = open_kind(tmp_path / "memory.sqlite", request.param)
    yield opened
    opened.close()


@pytest.fixture
def config(tmp_path: Path) -> ConfigStore:
    return config_store(tmp_path, salience_floor=0.0, episode_retention_days=0)


def _ids(store: Store, agent: str) -> list[int]:
    return [r[0] for r in store.db.query("SELECT id FROM episodes WHERE agent_id = ? ORDER BY id", (agent,))]


def _episode(store: Store, agent: str, summary: str, **fields: Any) -> int:
    """An episode whose summary its own session's turn states (grounded: merge may fold it)."""
    return insert_episode(store, agent, summary, said="", **fields)


def _vector(seed: int, dim: int = 16) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(dim).astype(np.float32)


def test_merge_keeps_the_older_folds_the_newer_and_removes_its_vector(
    store: Store, config: ConfigStore, tmp_path: Path
) -> None:
    clock = ManualClock()
    older = _episode(
        store,
        "a",
        SUMMARY,
        topics=TOPICS,
        at_ms=days_ago(clock, 3),
        decisions="Pin grpc 1.60",
        action_items="Add a retry test",
        entities="payments",
        salience=0.4,
    )
    # Inserted first (lower id) but newer in conversation time: "older" means conversation time, not id.
    newer = _episode(
        store,
        "a",
        SUMMARY + ".",
        topics=TOPICS,
        at_ms=days_ago(clock, 1),
        decisions="Pin grpc 1.60\nMove fixtures to conftest",
        action_items="Open a ticket",
        entities="payments, grpc",
        salience=0.8,
    )
    fact = insert_fact(store, "a", "The payments service uses grpc", source_episode_id=newer)
    put_vectors(store, KIND_EPISODE, "a", [(older, _vector(1)), (newer, _vector(2))])
    registry = VectorRegistry(tmp_path / "vectors", store.embeddings)
    query = _vector(2)
    assert [row for row, _ in registry.search("a", KIND_EPISODE, MODEL, query[None, :], 5)] == [newer, older]

    report = consolidator(store, config, clock, vectors=registry).run()

    merge = report.step("merge")
    assert (merge.rows_changed, merge.vectors_deleted) == (1, 1)
    assert _ids(store, "a") == [older]
    row = store.db.query(
        "SELECT decisions, action_items, entities_csv, salience FROM episodes WHERE id = ?", (older,)
    )[0]
    assert row[0].split("\n") == ["Pin grpc 1.60", "Move fixtures to conftest"]
    assert row[1].split("\n") == ["Add a retry test", "Open a ticket"]
    assert row[2] == "payments, grpc"
    # The survivor takes the higher salience: the newer's 0.8, after this pass's one day of decay.
    assert row[3] == pytest.approx(0.8 * math.exp(-1 / 30), rel=1e-9)
    assert store.db.scalar("SELECT source_episode_id FROM pinned_facts WHERE id = ?", (fact,)) == older
    assert store.db.query("SELECT row_id FROM embeddings WHERE kind = 'episode'") == [(older,)]
    assert [row for row, _ in registry.search("a", KIND_EPISODE, MODEL, query[None, :], 5)] == [older]


def test_a_different_agent_or_a_different_episode_is_never_merged(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    a1 = _episode(store, "a", SUMMARY, topics=TOPICS, at_ms=days_ago(clock, 2))
    b1 = _episode(store, "b", SUMMARY, topics=TOPICS, at_ms=days_ago(clock, 1))
    # One content word in ten differs: Jaccard 9/11 < 0.9.
    a2 = _episode(
        store,
        "a",
        SUMMARY.replace("payments", "billing"),
        topics=TOPICS.replace("payments", "billing"),
        at_ms=days_ago(clock, 1),
    )
    assert consolidator(store, config, clock).run().step("merge").rows_changed == 0
    assert _ids(store, "a") == [a1, a2] and _ids(store, "b") == [b1]


def test_jaccard_threshold_is_inclusive_at_point_nine(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    words = [f"word{i}" for i in range(10)]
    keep = _episode(store, "a", " ".join(words), at_ms=days_ago(clock, 2))
    # 9 shared of 10 ∪ {} … add one extra word: |∩| = 10, |∪| = 11 → 0.909 >= 0.9.
    _episode(store, "a", " ".join([*words, "extra"]), at_ms=days_ago(clock, 1))
    # 10 shared, 2 extra: 10/12 = 0.83 → kept.
    other = _episode(store, "a", " ".join([*words, "extra", "more"]), at_ms=days_ago(clock, 0.5))
    consolidator(store, config, clock).run()
    assert _ids(store, "a") == [keep, other]


def test_embedding_similarity_merges_paraphrases_when_vectors_exist(
    store: Store, config: ConfigStore
) -> None:
    clock = ManualClock()
    first = _episode(store, "a", "Booked flights to Lisbon for the March offsite", at_ms=days_ago(clock, 4))
    second = _episode(
        store,
        "a",
        "Reserved plane tickets to Lisbon for our team trip in March",
        at_ms=days_ago(clock, 2),
    )
    third = _episode(store, "a", "Reviewed the quarterly budget", at_ms=days_ago(clock, 1))
    base = _vector(7)
    near = base + 0.05 * _vector(8)  # cosine ≈ 0.999
    put_vectors(store, KIND_EPISODE, "a", [(first, base), (second, near), (third, _vector(9))])
    report = consolidator(store, config, clock).run()
    assert report.step("merge").rows_changed == 1
    assert _ids(store, "a") == [first, third]


def test_without_embeddings_only_words_count(store: Store, tmp_path: Path) -> None:
    config = config_store(tmp_path, salience_floor=0.0, episode_retention_days=0, embedding_backend="none")
    clock = ManualClock()
    first = _episode(store, "a", "Booked flights to Lisbon", at_ms=days_ago(clock, 4))
    second = _episode(store, "a", "Reserved plane tickets to Lisbon", at_ms=days_ago(clock, 2))
    put_vectors(store, KIND_EPISODE, "a", [(first, _vector(7)), (second, _vector(7))])
    assert consolidator(store, config, clock).run().step("merge").rows_changed == 0


def test_a_chain_of_duplicates_folds_into_the_oldest(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    oldest = _episode(store, "a", SUMMARY, topics=TOPICS, at_ms=days_ago(clock, 9), action_items="one")
    for day, item in ((5, "two"), (2, "three")):
        _episode(store, "a", SUMMARY, topics=TOPICS, at_ms=days_ago(clock, day), action_items=item)
    assert consolidator(store, config, clock).run().step("merge").rows_changed == 2
    assert _ids(store, "a") == [oldest]
    items = store.db.scalar("SELECT action_items FROM episodes WHERE id = ?", (oldest,))
    assert items.split("\n") == ["one", "two", "three"]


def test_only_new_episodes_are_compared_on_later_passes(store: Store, config: ConfigStore) -> None:
    clock = ManualClock()
    runner = consolidator(store, config, clock)
    first = _episode(store, "a", SUMMARY, topics=TOPICS, at_ms=days_ago(clock, 3))
    assert runner.run().step("merge").rows_changed == 0
    clock.advance_days(1)
    _episode(store, "a", SUMMARY, topics=TOPICS, at_ms=days_ago(clock, 0))
    assert runner.run().step("merge").rows_changed == 1
    assert _ids(store, "a") == [first]
    assert runner.run().step("merge").rows_changed == 0
