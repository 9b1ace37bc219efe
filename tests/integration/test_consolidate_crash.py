"""A crash (SIGKILL) in the middle of a pass leaves a consistent store, and the next pass completes the work:
the result equals that of one uninterrupted pass at the same instant."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.storage.store import Store, open_store
from tests.support.consolidate_rows import (
    DAY_MS,
    T0_MS,
    ManualClock,
    config_store,
    consistency_problems,
    consolidator,
    dump,
    insert_episode,
    insert_fact,
    insert_turn,
    mark_learned,
    put_vectors,
)

REPO = Path(__file__).resolve().parents[2]
NOW_MS = T0_MS + 10 * DAY_MS
BATCH_ROWS = 7
FILLER_EPISODES = 25


def _vec(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(8).astype(np.float32)


def _seed(home: Path) -> None:
    """Work for every step: rows to decay, duplicates to merge, facts to boost and promote, to evict, to prune."""
    config_store(home, episode_retention_days=100, salience_floor=0.2)
    store = open_store(home / "memory" / "memory.sqlite")
    now = NOW_MS
    for i in range(40):
        insert_fact(store, "a", f"fact {i} about subject{i}", salience=0.8, created_ms=now - 5 * DAY_MS)
    evictable = [
        insert_fact(
            store,
            "a",
            f"stale {i} item{i}",
            salience=0.1,
            created_ms=now - 60 * DAY_MS,
            last_decayed_ms=now - DAY_MS,
        )
        for i in range(25)
    ]
    put_vectors(store, KIND_PINNED, "a", [(f, _vec(f)) for f in evictable[:10]])
    insert_fact(store, "a", "The user's name is Ana Souza", source_count=3, created_ms=now - DAY_MS)
    insert_fact(store, "a", "The user prefers PostgreSQL for analytics", created_ms=now - DAY_MS)
    for i in range(4):
        insert_episode(
            store,
            "a",
            f"Used PostgreSQL for analytics as the user prefers, session {i}",
            at_ms=now - (i + 1) * DAY_MS,
        )
    duplicates = []
    for agent in ("a", "b"):
        for i in range(12):
            for copy in range(2):
                duplicates.append(
                    insert_episode(
                        store,
                        agent,
                        f"Sprint {i} planning for project{i} with milestone{i} and owner{i}",
                        topics=f"planning, project{i}",
                        at_ms=now - (20 - copy) * DAY_MS,
                        action_items=f"item {i}.{copy}",
                        said="",  # grounded in its session: merge may fold it
                    )
                )
        # Distinct episodes, so the 12 merges stay within the share of an agent's episodes one pass may fold.
        for i in range(FILLER_EPISODES):
            insert_episode(
                store, agent, f"Filler note {i} on topic{i} and detail{i}", at_ms=now - 30 * DAY_MS
            )
    put_vectors(store, KIND_EPISODE, "a", [(e, _vec(e)) for e in duplicates[:18]])
    old = [insert_episode(store, "a", f"ancient {i} story{i}", at_ms=now - 200 * DAY_MS) for i in range(15)]
    put_vectors(store, KIND_EPISODE, "a", [(e, _vec(e)) for e in old[:5]])
    turns = [insert_turn(store, "b", f"old message {i}", created_ms=now - 150 * DAY_MS) for i in range(40)]
    mark_learned(store, now - 150 * DAY_MS)  # memory learned them then, too (live turns, not backfilled)
    turns += [insert_turn(store, "b", f"new message {i}", created_ms=now - DAY_MS) for i in range(10)]
    put_vectors(store, KIND_TRANSCRIPT, "b", [(t, _vec(t)) for t in turns[::3]])
    with store.db.write():
        for i in range(20):
            store.db.execute(
                "INSERT INTO processing_log (task_type, status, created_at_ms) VALUES ('distill', 'success', ?)",
                (now - (25 + i) * DAY_MS,),
            )
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()


def _finish(home: Path) -> tuple[dict[str, list[tuple[object, ...]]], Store]:
    store = open_store(home / "memory" / "memory.sqlite")
    config = config_store(home, episode_retention_days=100, salience_floor=0.2)
    report = consolidator(store, config, ManualClock(NOW_MS), batch_rows=BATCH_ROWS).run()
    assert report.errors == ()
    return dump(store), store


@pytest.mark.parametrize(
    ("step", "after"), [("decay", 3), ("merge", 1), ("promote", 1), ("evict", 2), ("prune", 4), ("purge", 1)]
)
def test_crash_mid_pass_leaves_a_consistent_store_that_the_next_pass_completes(
    tmp_path: Path, step: str, after: int
) -> None:
    crashed, clean = tmp_path / "crashed", tmp_path / "clean"
    _seed(crashed)
    shutil.copytree(crashed, clean)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "protos" / "gen")])}
    child = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.support.consolidate_crash_child",
            str(crashed),
            str(NOW_MS),
            step,
            str(after),
            str(BATCH_ROWS),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr.decode()[-2000:]

    store = open_store(crashed / "memory" / "memory.sqlite")
    assert consistency_problems(store) == []
    assert store.db.scalar("SELECT count(*) FROM processing_log WHERE task_type = 'consolidate'") == 0
    store.close()

    after_crash, crashed_store = _finish(crashed)
    uninterrupted, clean_store = _finish(clean)
    try:
        assert consistency_problems(crashed_store) == []
        assert after_crash == uninterrupted
        # The seed really exercised the steps.
        assert len(uninterrupted["episodes"]) == 2 * (12 + FILLER_EPISODES) + 4, "merged 24, pruned 15"
        assert [r[1] for r in uninterrupted["identity_facts"]] == ["The user's name is Ana Souza"]
    finally:
        crashed_store.close()
        clean_store.close()
