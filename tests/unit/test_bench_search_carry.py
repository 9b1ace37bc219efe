"""bench_search keeps one carry-over note, naming the run that measured a part it did not re-run."""

from __future__ import annotations

from bench.bench_search import _with_carry_note


def test_a_part_carried_over_twice_keeps_its_first_note() -> None:
    once = _with_carry_note("### latency table", "2026-11-30")
    assert once == "_Carried over from the run of 2026-11-30: this part was not re-run._\n\n### latency table"
    assert _with_carry_note(once, "2026-12-01") == once  # the later run did not measure it either
    assert _with_carry_note("", "2026-12-01") == ""
