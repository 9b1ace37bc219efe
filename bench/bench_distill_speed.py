"""Distillation speed (issue 22, item 9): Ingest of 8-turn sessions with the default core model, and the
extractive path alone.

The sessions are the development sets' own (bench/distill_set/sessions.jsonl dev split, then
bench/distill_set/dev2.jsonl), never the test split: consecutive sessions of one simulated user are joined until a
session holds 8 turn pairs, so each timed session is real chat of one user, cut at 8 turns. Each goes to its own
agent with `Ingest` (which distils synchronously), through inferd and memoryd run as subprocesses on 127.0.0.1:0.
The model call's share is read from processing_log (prompt and completion tokens, duration of the `distill` row).

The extractive path is timed in this process: `ground()` of the same sessions without a model digest, which is what
a distillation does when the model's reply fails verification or never comes.

    python -m bench.bench_distill_speed [--model default|fake|NAME] [--sessions N]

`python -m bench bench_distill_speed` runs the default model on 12 sessions.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench import distill_scoring as ds
from bench.bench_distill import DEV2_PATH, ISSUE, running_stack, session_time_ms
from bench.report import BenchResult
from memoryd.write.grounding import SourceTurn, ground
from memoryd.write.phrase import SCAFFOLDING

TURNS = 8
DEFAULT_SESSIONS = 12
#: Repetitions of the in-process extractive timing (the median of each session's runs is kept).
EXTRACTIVE_REPEATS = 5


@dataclass(frozen=True)
class Timed:
    """One 8-turn session: its Ingest wall time and the model call as processing_log saw it."""

    name: str
    wall_ms: float
    call_ms: int
    prompt_tokens: int
    completion_tokens: int
    outcome: str


def eight_turn_sessions(limit: int) -> list[tuple[str, str, tuple[tuple[str, str], ...]]]:
    """(name, date, 8 turn pairs) from the development sets: one user's sessions joined in date order."""
    pools = ds.by_agent(ds.load_set(ds.SET_PATH, "dev")) | ds.by_agent(ds.load_set(DEV2_PATH, "dev2"))
    out: list[tuple[str, str, tuple[tuple[str, str], ...]]] = []
    for agent, sessions in pools.items():
        turns: list[tuple[str, str]] = []
        first = sessions[0]
        for session in sessions:
            turns.extend(session.turns)
            if len(turns) >= TURNS:
                out.append((f"{agent}:{first.id}", first.date, tuple(turns[:TURNS])))
                turns, first = [], session
    return out[:limit]


def _call_row(db: Path, agent: str) -> tuple[int, int, int]:
    """(duration ms, prompt tokens, completion tokens) of the agent's distill row."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        row = connection.execute(
            "SELECT duration_ms, input_tokens, output_tokens FROM processing_log "
            "WHERE agent_id = ? AND task_type = 'distill' ORDER BY id DESC LIMIT 1",
            (agent,),
        ).fetchone()
    finally:
        connection.close()
    return (int(row[0]), int(row[1]), int(row[2])) if row else (0, 0, 0)


def time_ingest(model: str, limit: int) -> tuple[list[Timed], float]:
    """Ingest each 8-turn session into its own agent; (timings, model load seconds)."""
    timed: list[Timed] = []
    with (
        tempfile.TemporaryDirectory(prefix="bench-distill-speed-") as tmp,
        running_stack(Path(tmp), model) as stack,
    ):
        for n, (name, day, turns) in enumerate(eight_turn_sessions(limit)):
            agent = f"speed-{n}"
            stack.client.upsert_agent(agent)
            started = time.perf_counter()
            outcome = stack.client.ingest(
                agent, f"speed-{n}", turns, session_time_ms=session_time_ms(day), timeout_s=900
            ).distillation
            wall_ms = (time.perf_counter() - started) * 1000
            call_ms, prompt, completion = _call_row(stack.db, agent)
            timed.append(Timed(name, wall_ms, call_ms, prompt, completion, outcome))
            print(
                f"bench_distill_speed: {name}: {outcome} in {wall_ms / 1000:.2f} s "
                f"(call {call_ms / 1000:.2f} s, {prompt} prompt / {completion} completion tokens)",
                flush=True,
            )
        warmup = stack.warmup_s
    return timed, warmup


def time_extractive(limit: int) -> list[float]:
    """Median ms of `ground()` without a model digest, per session."""
    out = []
    for _, day, turns in eight_turn_sessions(limit):
        sources = [SourceTurn(i, i + 1, user, assistant) for i, (user, assistant) in enumerate(turns)]
        runs = []
        for _ in range(EXTRACTIVE_REPEATS):
            started = time.perf_counter()
            ground(sources, None, session_time_ms=session_time_ms(day), scaffolding=SCAFFOLDING, earlier=[])
            runs.append((time.perf_counter() - started) * 1000)
        out.append(statistics.median(runs))
    return out


def _p(values: Sequence[float], q: float) -> float:
    found = ds.percentile(values, q)
    return 0.0 if found is None else found


def results(
    model: str, timed: Sequence[Timed], warmup_s: float, extractive: Sequence[float]
) -> list[BenchResult]:
    """Headline rows and the method section."""
    wall = [t.wall_ms for t in timed]
    calls = [float(t.call_ms) for t in timed]
    prompts = [float(t.prompt_tokens) for t in timed]
    completions = [float(t.completion_tokens) for t in timed]
    outcomes = sorted({t.outcome.split(":")[0] for t in timed})
    lines = [
        f"### Distillation speed — `{model}`, {len(timed)} sessions of {TURNS} turn pairs",
        "",
        "Sessions from the development sets only (sessions.jsonl dev split, then dev2.jsonl): one simulated "
        f"user's sessions joined in date order and cut at {TURNS} turn pairs; each Ingested into its own agent. "
        f"Outcomes: {', '.join(outcomes)}. Model load before the first session: {warmup_s:.1f} s (not counted). "
        "The machine is shared (2 cores, several engineers' jobs): read the figures as one run's.",
        "",
        "| figure | p50 | p95 |",
        "| --- | --- | --- |",
        f"| Ingest wall | {_p(wall, 0.5) / 1000:.2f} s | {_p(wall, 0.95) / 1000:.2f} s |",
        f"| model call (processing_log duration) | {_p(calls, 0.5) / 1000:.2f} s | {_p(calls, 0.95) / 1000:.2f} s |",
        f"| prompt tokens | {_p(prompts, 0.5):.0f} | {_p(prompts, 0.95):.0f} |",
        f"| completion tokens | {_p(completions, 0.5):.0f} | {_p(completions, 0.95):.0f} |",
        f"| extractive path alone (`ground()` without a model, in process) | {_p(extractive, 0.5):.1f} ms | "
        f"{_p(extractive, 0.95):.1f} ms |",
    ]
    return [
        BenchResult(
            ISSUE,
            f"distill speed [{model}] {TURNS}-turn Ingest p50 / p95",
            f"{_p(wall, 0.5) / 1000:.2f} s / {_p(wall, 0.95) / 1000:.2f} s",
            "≤ 10 s p50",
            "\n".join(lines),
        ),
        BenchResult(
            ISSUE,
            f"distill speed extractive path p50 / p95 ({TURNS} turns)",
            f"{_p(extractive, 0.5):.1f} ms / {_p(extractive, 0.95):.1f} ms",
            "≤ 50 ms",
        ),
    ]


def run() -> list[BenchResult]:
    """`python -m bench bench_distill_speed`: the default model on DEFAULT_SESSIONS sessions."""
    timed, warmup = time_ingest("default", DEFAULT_SESSIONS)
    return results("default", timed, warmup, time_extractive(DEFAULT_SESSIONS))


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: one model; prints the rows and the section."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.bench_distill_speed", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--model", default="default", help="default (MLX SmolLM2-135M), fake, or a coreModel name"
    )
    parser.add_argument("--sessions", type=int, default=DEFAULT_SESSIONS)
    args = parser.parse_args(argv)
    timed, warmup = time_ingest(args.model, args.sessions)
    rows = results(args.model, timed, warmup, time_extractive(args.sessions))
    for row in rows:
        print(f"{row.metric}: {row.value} (target {row.target})")
    print("\n" + rows[0].detail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
