"""The result type every benchmark returns, and the renderer of docs/benchmarks.md."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class BenchResult:
    """One headline measurement: which issue it serves, what was measured, against which target.

    `detail` is a markdown section (tables, method, caveats) rendered under the benchmark's heading.
    """

    issue: int
    metric: str
    value: str
    target: str
    detail: str = ""


@dataclass(frozen=True)
class ModuleRun:
    """What one bench_*.py produced: its results, or the error that stopped it."""

    module: str
    results: tuple[BenchResult, ...]
    duration_s: float
    error: str | None = None


def _cell(text: str) -> str:
    """Make text safe inside a markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ").strip() or "—"


def headline_table(runs: list[ModuleRun], run_date: date) -> str:
    """metric | measured | target | date, one row per result, failures included."""
    lines = ["| metric | measured | target | date |", "| --- | --- | --- | --- |"]
    for run in runs:
        if run.error is not None:
            lines.append(f"| {_cell(run.module)} | FAILED: {_cell(run.error)} | — | {run_date.isoformat()} |")
        for result in run.results:
            lines.append(
                f"| {_cell(result.metric)} | {_cell(result.value)} | {_cell(result.target)} "
                f"| {run_date.isoformat()} |"
            )
    if not runs:
        lines.append(f"| no benchmarks yet (add bench/bench_*.py) | — | — | {run_date.isoformat()} |")
    return "\n".join(lines)


def render(runs: list[ModuleRun], run_date: date, cpu_count: int | None) -> str:
    """The whole docs/benchmarks.md: headline table, then one section per benchmark module."""
    cores = cpu_count or "?"
    machine = f"{platform.system()} {platform.machine()}, {cores} cores, Python {platform.python_version()}"
    parts = [
        "# Benchmarks",
        "",
        f"Written by `make bench` (`python -m bench`) on {run_date.isoformat()} ({machine}). "
        "Do not edit by hand: change the benchmark in `bench/` and run `make bench` again.",
        "",
        headline_table(runs, run_date),
    ]
    for run in runs:
        issues = sorted({result.issue for result in run.results})
        issue_note = f" (issue {', '.join(f'#{n}' for n in issues)})" if issues else ""
        parts += ["", f"## `{run.module}`{issue_note}", "", f"Ran in {run.duration_s:.1f} s."]
        if run.error is not None:
            parts += ["", f"**Failed:** `{run.error}`"]
        for result in run.results:
            if result.detail.strip():
                parts += ["", result.detail.strip()]
    return "\n".join(parts) + "\n"
