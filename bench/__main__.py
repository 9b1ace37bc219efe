"""Run every bench/bench_*.py and write docs/benchmarks.md (`make bench`)."""

from __future__ import annotations

import importlib
import os
import sys
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

from bench.report import BenchResult, ModuleRun, headline_table, load_runs, render, save_run

BENCH_DIR = Path(__file__).resolve().parent
DOC_PATH = BENCH_DIR.parent / "docs" / "benchmarks.md"
RESULTS_DIR = BENCH_DIR / "results"


def discover() -> list[str]:
    """Module names of every benchmark, in a stable order."""
    return [f"bench.{path.stem}" for path in sorted(BENCH_DIR.glob("bench_*.py"))]


def run_module(name: str) -> ModuleRun:
    """Import one benchmark and call its run(); a failure is recorded, not raised."""
    started = time.perf_counter()
    print(f"bench: running {name}", flush=True)
    try:
        module = importlib.import_module(name)
        results = module.run()
        if not isinstance(results, list) or not all(isinstance(r, BenchResult) for r in results):
            raise TypeError(f"{name}.run() must return list[BenchResult], got {type(results).__name__}")
        error = None
    except Exception as exc:  # a broken benchmark must not hide the others' results
        traceback.print_exc()
        results, error = [], f"{type(exc).__name__}: {exc}"
    return ModuleRun(name.removeprefix("bench."), tuple(results), time.perf_counter() - started, error)


def main(argv: list[str] | None = None) -> int:
    """Run the named benchmarks (default: all), save their figures, rebuild the doc from every saved run.

    Exit 1 if any benchmark run now failed.
    """
    names = argv if argv is not None else sys.argv[1:]
    selected = [f"bench.{n.removeprefix('bench.')}" for n in names] if names else discover()
    run_date = datetime.now(UTC).date()
    runs = [run_module(name) for name in selected]
    for run in runs:
        save_run(run, RESULTS_DIR, run_date)
    print()
    print(headline_table(runs, run_date))
    current = set(discover())
    everything = [run for run in load_runs(RESULTS_DIR) if f"bench.{run.module}" in current]
    DOC_PATH.parent.mkdir(parents=True, exist_ok=True)
    DOC_PATH.write_text(render(everything, run_date, os.cpu_count()), encoding="utf-8")
    print(f"\nbench: wrote {DOC_PATH.relative_to(BENCH_DIR.parent)}")
    failed = [run.module for run in runs if run.error is not None]
    if failed:
        print(f"bench: FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
