"""bench/pg_statement_cpu.py's reading of the server log (log_statement_stats): each execute message's CPU goes to
its statement's kind; parse and bind messages go to one planning row, or, split by kind, to the statement the same
backend executes next (they are logged before its execute line)."""

from __future__ import annotations

import pytest

from bench.pg_statement_cpu import server_cpu


def _message(pid: int, app: str, kind: str, user_s: float, statement: str | None = None) -> list[str]:
    lines = []
    if statement is not None:
        lines.append(f"2026-12-07 11:00:00.000 UTC [{pid}] {app} LOG:  execute <unnamed>: {statement}")
    lines += [
        f"2026-12-07 11:00:00.001 UTC [{pid}] {app} LOG:  {kind} STATISTICS",
        f"2026-12-07 11:00:00.001 UTC [{pid}] {app} DETAIL:  ! system usage stats:",
        f"!\t{user_s:.6f} s user, 0.000000 s system, {user_s:.6f} s elapsed",
    ]
    return lines


LOG = "\n".join(
    [
        *_message(1, "a", "PARSE MESSAGE", 0.0002),
        *_message(2, "b", "BIND MESSAGE", 0.0004),  # another backend's planning, of its own next statement
        *_message(1, "a", "BIND MESSAGE", 0.0001),
        *_message(1, "a", "EXECUTE MESSAGE", 0.003, "SELECT row_id FROM v ORDER BY e <=> $1 LIMIT 100"),
        *_message(2, "b", "EXECUTE MESSAGE", 0.001, "SELECT id, ts_rank(x, q) FROM t"),
    ]
)


def test_planning_is_one_row_by_default() -> None:
    cpu = server_cpu(LOG)
    assert cpu["a"]["parse / bind (planning)"] == pytest.approx(0.3)
    assert cpu["a"]["nearest rows (HNSW walk or exact scan)"] == pytest.approx(3.0)
    assert cpu["b"]["parse / bind (planning)"] == pytest.approx(0.4)
    assert cpu["b"]["ranked keyword candidates"] == pytest.approx(1.0)


def test_planning_split_by_the_kind_executed_next_on_the_same_backend() -> None:
    cpu = server_cpu(LOG, planning_by_kind=True)
    assert "parse / bind (planning)" not in cpu["a"]
    assert cpu["a"]["planning: nearest rows (HNSW walk or exact scan)"] == pytest.approx(0.3)
    assert cpu["b"]["planning: ranked keyword candidates"] == pytest.approx(0.4)
    assert cpu["a"]["nearest rows (HNSW walk or exact scan)"] == pytest.approx(3.0)
