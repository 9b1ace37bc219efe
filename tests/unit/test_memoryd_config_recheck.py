"""ConfigStore checks memory.json's mtime at most every recheck_s (injectable clock); update() applies at once."""

from __future__ import annotations

import json
import os
from pathlib import Path

from memoryd.config import ConfigStore


class FakeClock:
    """Monotonic seconds that only move when told."""

    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


def _hand_edit(path: Path, budget: int, mtime_ns: int) -> None:
    path.write_text(json.dumps({"memoryBudgetTokens": budget}))
    os.utime(path, ns=(mtime_ns, mtime_ns))  # a distinct stamp even on coarse file-system clocks


def test_a_hand_edit_is_noticed_only_after_the_recheck_interval(tmp_path: Path) -> None:
    path = tmp_path / "memory.json"
    _hand_edit(path, 300, 1_000_000_000)
    clock = FakeClock()
    config = ConfigStore(path, recheck_s=0.25, clock=clock)
    seen: list[int] = []
    config.subscribe(lambda new: seen.append(new.memory_budget_tokens))
    assert config.get().memory_budget_tokens == 300  # read at construction
    _hand_edit(path, 400, 2_000_000_000)
    clock.now += 0.2
    assert config.get().memory_budget_tokens == 300  # within the interval: no stat, cached value
    clock.now += 0.06
    assert config.get().memory_budget_tokens == 400
    assert seen == [400]
    _hand_edit(path, 500, 3_000_000_000)
    assert config.get().memory_budget_tokens == 400  # the check just ran; the next is 0.25 s later
    clock.now += 0.25
    assert config.get().memory_budget_tokens == 500
    path.unlink()
    clock.now += 0.25
    assert config.get().memory_budget_tokens == 800  # a removed file means defaults


def test_update_applies_at_once_whatever_the_interval(tmp_path: Path) -> None:
    clock = FakeClock()
    config = ConfigStore(tmp_path / "config" / "memory.json", recheck_s=3600, clock=clock)
    assert config.get().summary_debounce_seconds == 60
    config.update({"summary_debounce_seconds": 10})
    assert config.get().summary_debounce_seconds == 10
    clock.now += 3600
    assert config.get().summary_debounce_seconds == 10  # our own write is not mistaken for a hand edit
    assert ConfigStore(config.path).get().summary_debounce_seconds == 10
