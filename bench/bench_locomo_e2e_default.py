"""LoCoMo end to end through AssembleContext with the default core model (SmolLM2-135M on MLX) distilling.

`python -m bench bench_locomo_e2e_default` — the same measurement as `bench_locomo_e2e` (which `make bench` runs with
the fake core model), kept as its own benchmark so both figures stay in docs/benchmarks.md side by side. It takes
one to two hours on this machine: every LoCoMo session is distilled by SmolLM2.
"""

from __future__ import annotations

from bench import bench_locomo_e2e
from bench.report import BenchResult


def run() -> list[BenchResult]:
    """The LoCoMo e2e figures with distillation by the default MLX model."""
    return bench_locomo_e2e.run("default")
