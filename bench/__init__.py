"""Benchmarks, not tests: each bench/bench_*.py has run() -> list[BenchResult]; `make bench` runs them."""
