"""bench_assemble's rounds (bench/assemble_services.py): the headline is the median of the rounds' p50 and p95 with
their min–max, and every round gets a row."""

from __future__ import annotations

import pytest

from bench.assemble_services import ServiceRun, Spread, round_lines, rounds_setting


def test_the_headline_is_the_median_of_the_rounds_with_their_range() -> None:
    rounds = [[10.0] * 19 + [40.0], [12.0] * 19 + [30.0], [11.0] * 19 + [50.0]]
    spread = Spread.of(rounds)
    assert spread.p50s == (10.0, 12.0, 11.0)
    assert spread.p95s == (40.0, 30.0, 50.0)  # bench_assemble's nearest rank: the 20th of 20 values
    assert (spread.p50, spread.p95) == (11.0, 40.0)
    assert spread.text() == "11.0 ms / 40.0 ms (rounds 10.0–12.0 / 30.0–50.0)"


def test_one_round_reads_as_before() -> None:
    spread = Spread.of([[float(v) for v in range(1, 101)]])
    assert spread.text() == "50.5 ms / 96.0 ms"


def test_every_round_has_a_row_per_backend() -> None:
    run = ServiceRun(("SQLite", "PostgreSQL"), {})
    run.rounds = {"SQLite": [[1.0, 2.0], [3.0, 4.0]], "PostgreSQL": [[5.0, 6.0], [7.0, 8.0]]}
    lines = round_lines(run)
    assert lines[0] == "| round | SQLite p50 / p95 ms | PostgreSQL p50 / p95 ms |"
    assert lines[2:4] == ["| 1 | 1.5 / 2.0 | 5.5 / 6.0 |", "| 2 | 3.5 / 4.0 | 7.5 / 8.0 |"]
    run.rounds = {"SQLite": [[1.0, 2.0]]}
    assert round_lines(run) == []


def test_rounds_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OSAURUS_BENCH_ASSEMBLE_ROUNDS", raising=False)
    assert rounds_setting() == 5
    monkeypatch.setenv("OSAURUS_BENCH_ASSEMBLE_ROUNDS", "0")
    assert rounds_setting() == 1


def test_the_report_says_whether_the_services_were_pinned() -> None:
    from bench.assemble_services import pinning_line

    assert pinning_line({}).startswith("CPU pinning: none")
    pinned = pinning_line({"OSAURUS_MEMORYD_CPUS": "0", "OSAURUS_INFERD_CPUS": "1"})
    assert "memoryd processes on cores 0, inferd on cores 1" in pinned
    assert "inferd on cores any" in pinning_line({"OSAURUS_MEMORYD_CPUS": "0"})
