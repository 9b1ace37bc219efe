"""The result type every benchmark returns, and the renderer of docs/benchmarks.md."""

from __future__ import annotations

import json
import platform
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path


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
    #: The day it ran; None means today (a run loaded from bench/results keeps its own date).
    run_date: date | None = None


def _cell(text: str) -> str:
    """Make text safe inside a markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ").strip() or "—"


def headline_table(runs: list[ModuleRun], run_date: date) -> str:
    """metric | measured | target | date, one row per result, failures included."""
    lines = ["| metric | measured | target | date |", "| --- | --- | --- | --- |"]
    for run in runs:
        day = (run.run_date or run_date).isoformat()
        if run.error is not None:
            lines.append(f"| {_cell(run.module)} | FAILED: {_cell(run.error)} | — | {day} |")
        for result in run.results:
            lines.append(
                f"| {_cell(result.metric)} | {_cell(result.value)} | {_cell(result.target)} | {day} |"
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
        f"Written by `make bench` (`python -m bench`) on {run_date.isoformat()} ({machine}). Each benchmark's "
        "figures are kept in `bench/results/<module>.json` with the date it ran, so one benchmark can be re-run "
        "alone (`python -m bench bench_search`) and this page is rebuilt from all of them. Do not edit by hand.",
        "",
        headline_table(runs, run_date),
    ]
    for run in runs:
        issues = sorted({result.issue for result in run.results})
        issue_note = f" (issue {', '.join(f'#{n}' for n in issues)})" if issues else ""
        day = (run.run_date or run_date).isoformat()
        parts += ["", f"## `{run.module}`{issue_note}", "", f"Ran in {run.duration_s:.1f} s on {day}."]
        if run.error is not None:
            parts += ["", f"**Failed:** `{run.error}`"]
        for result in run.results:
            if result.detail.strip():
                parts += ["", result.detail.strip()]
    return "\n".join(parts) + "\n"


def save_run(run: ModuleRun, directory: Path, run_date: date) -> None:
    """Keep one module's figures as JSON so the doc can be rebuilt without re-running it."""
    directory.mkdir(parents=True, exist_ok=True)
    payload = {
        "module": run.module,
        "duration_s": run.duration_s,
        "error": run.error,
        "run_date": (run.run_date or run_date).isoformat(),
        "results": [asdict(result) for result in run.results],
    }
    (directory / f"{run.module}.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def load_runs(directory: Path) -> list[ModuleRun]:
    """Every saved module run, in module order."""
    runs = []
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        runs.append(
            ModuleRun(
                module=data["module"],
                results=tuple(BenchResult(**r) for r in data["results"]),
                duration_s=float(data["duration_s"]),
                error=data.get("error"),
                run_date=date.fromisoformat(data["run_date"]),
            )
        )
    return runs
