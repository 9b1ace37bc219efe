"""The pacer sizes write batches towards a target lock hold, and rests long only while others are writing."""

from __future__ import annotations

import time

from memoryd.consolidate.pacing import Pacer


def test_batches_shrink_fast_and_grow_slowly_within_bounds() -> None:
    pacer = Pacer(busy_target_ms=2.0, busy_rest_ratio=0.0, min_rows=16, max_rows=1000, rows=256)
    pacer.done(256, 0.016)  # 8× too slow: shrink to a quarter at most
    assert pacer.size() == 64
    pacer.done(64, 0.0001)  # far too fast: grow by 1.5× at most
    assert pacer.size() == 96
    for _ in range(50):
        pacer.done(pacer.size(), 0.00001)
    assert pacer.size() == 1000
    for _ in range(50):
        pacer.done(pacer.size(), 1.0)
    assert pacer.size() == 16
    pacer.done(0, 1.0)  # an empty batch says nothing about speed
    assert pacer.size() == 16


def test_busy_rests_as_long_as_the_batch() -> None:
    pacer = Pacer(busy_rest_ratio=1.0)  # no commit counter: always busy
    started = time.perf_counter()
    pacer.done(100, 0.05)
    assert time.perf_counter() - started >= 0.05


def _busy(pacer: Pacer) -> bool:
    return pacer.is_busy


def test_quiet_until_someone_else_commits() -> None:
    commits = [0]

    def counter() -> int:
        return commits[0]

    pacer = Pacer(
        busy_target_ms=2.0,
        quiet_target_ms=20.0,
        quiet_rest_ratio=0.0,
        busy_rest_ratio=0.0,
        rows=100,
        commits=counter,
    )
    commits[0] += 1  # our own batch
    pacer.done(100, 0.010)  # 10 ms for 100 rows; quiet target 20 ms: grow
    assert not _busy(pacer)
    assert pacer.size() == 150
    commits[0] += 2  # our batch and a BufferTurn
    pacer.done(150, 0.010)
    assert _busy(pacer)
    assert pacer.size() == 37  # busy target 2 ms: 150 × 2/10 = 30, but shrink at most to a quarter
