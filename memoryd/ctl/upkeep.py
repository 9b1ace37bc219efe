"""memoryctl handlers for export, import, reindex, sync, consolidation and ingest (the long-running commands)."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from memoryd.client import MemoryClient
from memoryd.ctl.ingest import ProgressBar, read_sessions
from memoryd.ctl.plumbing import EXIT_OK, EXIT_PARTIAL, IO, UsageError
from memoryd.ctl.render import table


# ---------------------------------------------------------------------------------------- export & import
def export(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    counts: Counter[str] = Counter()
    target = io.out if args.output in (None, "-") else open(args.output, "w", encoding="utf-8")  # noqa: SIM115
    try:
        for line in client.export(args.agent or ""):
            target.write(line + "\n")
            # The exporter always writes "type" first: {"type":"episode",...}.
            counts[line[9 : line.find('"', 9)] if line.startswith('{"type":"') else "?"] += 1
    finally:
        if target is not io.out:
            target.close()
    if target is not io.out:
        records = {k: v for k, v in sorted(counts.items()) if k not in ("header", "end")}
        summary = ", ".join(f"{k}={v}" for k, v in records.items())
        io.emit(
            {"output": args.output, "records": records},
            lambda out: print(f"exported to {args.output}: {summary or 'nothing'}", file=out),
        )
    return EXIT_OK


def _lines(path: str, stdin: TextIO) -> Iterator[str]:
    if path == "-":
        yield from (line.rstrip("\n") for line in stdin)
        return
    with open(path, encoding="utf-8") as handle:
        yield from (line.rstrip("\n") for line in handle)


def import_(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    if args.file != "-" and not Path(args.file).is_file():
        raise UsageError(f"no such file: {args.file}")
    result = client.import_lines(_lines(args.file, io.stdin))
    io.emit(
        result,
        lambda out: print(
            "imported "
            + (", ".join(f"{k}={v}" for k, v in sorted(result.imported.items())) or "nothing")
            + f"; skipped {result.skipped} identical; re-embedded {result.reembedded}",
            file=out,
        ),
    )
    return EXIT_OK


def reindex(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    result = client.reindex(args.agent or "")

    def human(out: TextIO) -> None:
        print(f"full-text mirrors {'rebuilt' if result.is_fts_rebuilt else 'unchanged'}", file=out)
        table(
            out,
            ["AGENT", "MODEL", "DIM", "VECTORS", "ROWS", "STATE"],
            [
                [v.agent_id, v.model or "-", v.dimension, v.vectors, v.rows, "STALE" if v.is_stale else "ok"]
                for v in result.vector_indexes
            ],
            "(no vector indexes)",
        )

    io.emit(result, human)
    return EXIT_OK


# ---------------------------------------------------------------------------------------- write & upkeep
def sync(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    outcomes = client.sync_now(args.agent or "")
    io.emit(
        outcomes,
        lambda out: table(
            out,
            ["AGENT", "CONVERSATION", "OUTCOME", "EPISODE"],
            [[o.agent_id, o.conversation_id, o.outcome, o.episode_id or ""] for o in outcomes],
            "(nothing pending)",
        ),
    )
    return EXIT_PARTIAL if any(o.outcome.startswith(("error", "dead_letter")) for o in outcomes) else EXIT_OK


def consolidate(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    report = client.run_consolidation()

    def human(out: TextIO) -> None:
        print(f"consolidation ({report.trigger}) took {report.duration_ms} ms", file=out)
        table(
            out,
            ["STEP", "CHANGED", "VECTORS DELETED", "MS", "NOTE"],
            [
                [s.name, s.rows_changed, s.vectors_deleted, s.duration_ms, s.error or s.skip_reason]
                for s in report.steps
            ],
        )

    io.emit(report, human)
    return EXIT_PARTIAL if any(s.error for s in report.steps) else EXIT_OK


def ingest(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    try:
        sessions = read_sessions(Path(args.file), args.format, args.agent)
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {args.file}: {error}") from error
    bar = ProgressBar(io.err, len(sessions), "sessions", is_enabled=not args.no_progress)
    outcomes: Counter[str] = Counter()
    results: list[dict[str, Any]] = []
    turns = 0
    bar.update(0)
    for done, session in enumerate(sessions, start=1):
        result = client.ingest(
            session.agent_id,
            session.conversation_id,
            session.turns,
            session_time_ms=session.session_time_ms,
            skip_extraction=args.skip_extraction or bool(session.skip_extraction),
        )
        turns += result.turns_ingested
        token = result.distillation.split(":", 1)[0] if result.distillation else "stored"
        outcomes[token] += 1
        results.append(
            {
                "agent_id": session.agent_id,
                "conversation_id": session.conversation_id,
                "turns_ingested": result.turns_ingested,
                "distillation": result.distillation,
                "episode_id": result.episode_id,
            }
        )
        bar.update(done, f"{turns} turns")
    bar.finish()
    summary = {"sessions": len(sessions), "turns": turns, "outcomes": dict(outcomes), "results": results}
    io.emit(
        summary,
        lambda out: print(
            f"ingested {len(sessions)} sessions, {turns} turns: "
            + ", ".join(f"{k}={v}" for k, v in sorted(outcomes.items())),
            file=out,
        ),
    )
    failed = outcomes.get("error", 0) + outcomes.get("dead_letter", 0)
    return EXIT_PARTIAL if failed else EXIT_OK
