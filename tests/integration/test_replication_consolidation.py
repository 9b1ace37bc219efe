"""Two real Consolidators (two replicas) over one PostgreSQL schema: one pass at a time across them, and a pass
whose replica died (its lock connection gone, the pass never finished) is run again by the other."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memoryd.config import ConfigStore
from memoryd.consolidate.jobs import JobContext
from memoryd.consolidate.report import StepResult
from memoryd.consolidate.runner import CONSOLIDATION_RUNNING, Consolidator, ConsolidatorOptions
from memoryd.storage.store import Store
from memoryd.wiring.replication import Replication
from servicekit.errors import AbortedError
from tests.support.replicas import pg, replicas  # noqa: F401  (fixtures)


class BlockingStep:
    """A pass step that waits inside the pass until released (a long pass)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.runs = 0

    def __call__(self, ctx: JobContext) -> StepResult:
        self.runs += 1
        self.entered.set()
        assert self.release.wait(20)
        return StepResult()


def _consolidator(store: Store, replication: Replication, step: BlockingStep, home: Path) -> Consolidator:
    return Consolidator(
        store.consolidation,
        ConfigStore(home / "memory.json"),
        options=ConsolidatorOptions(steps=[("block", step)], pass_lock=replication.lock),
    )


def test_one_pass_at_a_time_across_replicas(
    replicas: list[tuple[Store, Replication]],  # noqa: F811
    tmp_path: Path,
) -> None:
    steps = [BlockingStep(), BlockingStep()]
    a, b = (_consolidator(s, r, step, tmp_path) for (s, r), step in zip(replicas, steps, strict=True))
    running = threading.Thread(target=a.run)
    running.start()
    assert steps[0].entered.wait(10)
    with pytest.raises(AbortedError) as refused:
        b.run()
    assert refused.value.reason == CONSOLIDATION_RUNNING and steps[1].runs == 0
    steps[0].release.set()
    running.join(10)
    steps[1].release.set()
    assert b.run().steps[0].name == "block" and steps[1].runs == 1  # free again once a's pass ended
    a.close(1)
    b.close(1)


def test_a_pass_cut_short_by_its_replicas_death_is_resumed(
    replicas: list[tuple[Store, Replication]],  # noqa: F811
    tmp_path: Path,
) -> None:
    (store_a, rep_a), (store_b, rep_b) = replicas
    steps = [BlockingStep(), BlockingStep()]
    a = _consolidator(store_a, rep_a, steps[0], tmp_path)
    b = _consolidator(store_b, rep_b, steps[1], tmp_path)
    running = threading.Thread(target=a.run)
    running.start()
    assert steps[0].entered.wait(10)
    rep_b.resume_passes(b, check_s=3600)  # checked by hand below
    assert rep_b.resumer is not None
    assert rep_b.resumer.check() is None  # a is alive and holds the lock: nothing to resume
    rep_a.pass_lock.close()  # a dies: its lock connection closes, its pass stays unfinished
    steps[1].release.set()
    report = rep_b.resumer.check()
    assert report is not None and steps[1].runs == 1 and rep_b.resumer.resumed == 1
    assert rep_b.resumer.check() is None  # finished now
    steps[0].release.set()
    running.join(10)
    a.close(1)
    b.close(1)
