"""OSAURUS_BENCH_BACKENDS: which storage backends a benchmark measures, and how its metric names are labelled."""

from __future__ import annotations

import pytest

from bench.backends import POSTGRES, SQLITE, label, postgres_available, selected_backends


def test_named_backends_come_back_sqlite_first_whatever_the_spelling() -> None:
    assert selected_backends("postgresql,sqlite") == (SQLITE, POSTGRES)
    assert selected_backends(" SQLite ") == (SQLITE,)
    assert selected_backends("postgres") == (POSTGRES,)


def test_the_default_is_both_when_postgresql_can_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OSAURUS_BENCH_BACKENDS", raising=False)
    expected = (SQLITE, POSTGRES) if postgres_available() else (SQLITE,)
    assert selected_backends() == expected


@pytest.mark.parametrize("raw", ["mysql", "sqlite,oracle", ","])
def test_an_unknown_or_empty_list_is_refused(raw: str) -> None:
    with pytest.raises(ValueError, match="OSAURUS_BENCH_BACKENDS"):
        selected_backends(raw)


def test_sqlite_metric_names_stay_and_other_backends_are_labelled() -> None:
    assert label("AssembleContext p95 (100k turns)", SQLITE) == "AssembleContext p95 (100k turns)"
    assert (
        label("AssembleContext p95 (100k turns)", POSTGRES) == "AssembleContext p95 (100k turns, PostgreSQL)"
    )
    assert label("LoCoMo recall", POSTGRES) == "LoCoMo recall (PostgreSQL)"
