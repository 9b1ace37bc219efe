"""memoryctl command handlers: one function per command, each (client, args, io) → exit code."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from memoryd.cli_ingest import ProgressBar, read_sessions
from memoryd.cli_render import dump_json, pairs, parse_ref, ref, size, table, when
from memoryd.client import MemoryClient
from memoryd.config import KEYS_BY_ATTR, MemoryConfig

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_INVALID = 4
EXIT_PRECONDITION = 5
EXIT_UNAVAILABLE = 6
EXIT_NOT_AVAILABLE = 7
EXIT_DENIED = 8
EXIT_CONFLICT = 9
EXIT_UNHEALTHY = 10
EXIT_PARTIAL = 11


class UsageError(Exception):
    """Bad command-line input (exit 2)."""


@dataclass
class IO:
    """Where a command writes, and whether it writes JSON."""

    out: TextIO
    err: TextIO
    stdin: TextIO
    is_json: bool = False

    def emit(self, value: Any, human: Callable[[TextIO], None]) -> None:
        """JSON of `value` with --json, else the human rendering."""
        if self.is_json:
            dump_json(self.out, value)
        else:
            human(self.out)


Handler = Callable[[MemoryClient, argparse.Namespace, IO], int]


def _confirmed(args: argparse.Namespace, io: IO, question: str) -> bool:
    """--yes, or an interactive "yes" on a terminal; never assumed in scripts."""
    if getattr(args, "yes", False):
        return True
    if not io.stdin.isatty():
        print(f"memoryctl: {question} — refusing without --yes", file=io.err)
        return False
    io.err.write(f"{question} Type 'yes' to continue: ")
    io.err.flush()
    return io.stdin.readline().strip().lower() == "yes"


def _on_off(value: str | None) -> bool | None:
    return None if value is None else value == "on"


# --------------------------------------------------------------------------------------------------- agents
def agents_ls(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    agents = client.list_agents()
    io.emit(
        agents,
        lambda out: table(
            out,
            ["AGENT", "NAME", "MEMORY", "RECALL", "ENTRIES", "CREATED"],
            [
                [a.agent_id, a.display_name, "on" if a.memory_enabled else "off",
                 "on" if a.search_memory_enabled else "off", a.memory_entry_count, when(a.created_at_ms)]
                for a in agents
            ],
            "(no agents)",
        ),
    )
    return EXIT_OK


def agents_show(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    agent = client.get_agent(args.agent_id)
    io.emit(agent, lambda out: pairs(out, [(k, v) for k, v in dataclasses.asdict(agent).items()]))
    return EXIT_OK


def agents_set(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    agent, created = client.upsert_agent(
        args.agent_id,
        display_name=args.name,
        memory_enabled=_on_off(args.memory),
        search_memory_enabled=_on_off(args.recall),
    )
    io.emit(
        {"agent": agent, "created": created},
        lambda out: print(f"{'created' if created else 'updated'} {agent.agent_id}", file=out),
    )
    return EXIT_OK


def agents_rm(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    if not _confirmed(args, io, f"Delete agent {args.agent_id} and all of its memory?"):
        return EXIT_PRECONDITION
    rows, vectors = client.delete_agent(args.agent_id)
    io.emit(
        {"rows_deleted": rows, "vectors_deleted": vectors},
        lambda out: print(f"deleted {args.agent_id}: {rows} rows, {vectors} vectors", file=out),
    )
    return EXIT_OK


# ------------------------------------------------------------------------------------------------- identity
def overrides_ls(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    overrides = client.identity().overrides
    io.emit(
        overrides,
        lambda out: table(out, ["ID", "CREATED", "TEXT"], [[o.id, when(o.created_at_ms), o.text] for o in overrides]),
    )
    return EXIT_OK


def overrides_add(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    override = client.add_override(args.text)
    io.emit(override, lambda out: print(f"added override {override.id}", file=out))
    return EXIT_OK


def overrides_rm(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    identity = client.remove_override(args.override_id)
    io.emit(
        {"removed": args.override_id, "remaining": len(identity.overrides)},
        lambda out: print(f"removed override {args.override_id}", file=out),
    )
    return EXIT_OK


def identity_show(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    identity = client.identity()

    def human(out: TextIO) -> None:
        pairs(out, [("narrative", identity.content or "(none)"), ("model", identity.model or "-"),
                    ("version", identity.version), ("overrides", len(identity.overrides)),
                    ("facts", len(identity.facts))])
        if identity.facts:
            print(file=out)
            table(out, ["ID", "AGENT", "FACT"], [[f[0], f[2], f[1]] for f in identity.facts])

    io.emit(identity, human)
    return EXIT_OK


# -------------------------------------------------------------------------------------------------- console
def search(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    hits = client.search(
        args.query, scope=args.scope, agent_id=args.agent or "", include_disabled=args.include_disabled,
        limit=args.limit,
    )
    io.emit(
        hits,
        lambda out: table(
            out,
            ["ITEM", "AGENT", "SCORE", "STATE", "CREATED", "PREVIEW"],
            [[ref(h.kind, h.id), h.agent_id, f"{h.score:.3g}", "disabled" if h.is_disabled else "",
              when(h.created_at_ms), h.preview] for h in hits],
            "(no matches)",
        ),
    )
    return EXIT_OK


def inspect(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    kind, row_id = parse_ref(args.item)
    found = client.inspect(kind, row_id)

    def human(out: TextIO) -> None:
        pairs(out, [("item", ref(found.kind, found.id)), ("agent", found.agent_id),
                    ("state", "disabled" if found.is_disabled else "active"),
                    ("created", when(found.created_at_ms)), ("vector", "yes" if found.has_vector else "no"),
                    ("redacted", ", ".join(found.redactions) or "-")])
        print(file=out)
        print(found.preview, file=out)
        print(file=out)
        pairs(out, sorted(found.metadata.items()))

    io.emit(found, human)
    return EXIT_OK


def disable(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    kind, row_id = parse_ref(args.item)
    changed = client.disable(kind, row_id)
    io.emit({"changed": changed}, lambda out: print("disabled" if changed else "already disabled", file=out))
    return EXIT_OK


def enable(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    kind, row_id = parse_ref(args.item)
    changed = client.enable(kind, row_id)
    io.emit({"changed": changed}, lambda out: print("enabled" if changed else "already enabled", file=out))
    return EXIT_OK


def forget(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    kind, row_id = parse_ref(args.item)
    if not _confirmed(args, io, f"Permanently delete {ref(kind, row_id)}?"):
        return EXIT_PRECONDITION
    removed = client.forget(kind, row_id)
    io.emit(
        {"forgotten": ref(kind, row_id), "vector_removed": removed},
        lambda out: print(f"forgot {ref(kind, row_id)}" + (" and its vector" if removed else ""), file=out),
    )
    return EXIT_OK


def diagnose(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    report = client.diagnose()

    def human(out: TextIO) -> None:
        pairs(out, [("store", report.store_state + (f" ({report.degraded_reason})" if report.degraded_reason else "")),
                    ("schema", report.schema_version), ("database", size(report.database_bytes)),
                    ("encrypted", "yes" if report.is_encrypted else "no"),
                    ("pending signals", report.pending_signals), ("dead letters", report.dead_letter_signals),
                    ("distillations", f"{report.total_calls} calls, {report.success_rate:.0%} ok, "
                                      f"{report.mean_duration_ms:.0f} ms mean")])
        print("\nFull-text mirrors", file=out)
        table(out, ["MIRROR", "SOURCE", "SOURCE ROWS", "INDEXED", "HEALTH"],
              [[f.fts_table, f.source_table, f.source_rows, f.fts_rows, "ok" if f.is_healthy else "BROKEN"]
               for f in report.fts])
        print("\nVector indexes", file=out)
        table(out, ["AGENT", "MODEL", "DIM", "VECTORS", "ROWS", "STATE"],
              [[v.agent_id, v.model or "-", v.dimension, v.vectors, v.rows, "STALE" if v.is_stale else "ok"]
               for v in report.vector_indexes])
        print("\nRows", file=out)
        table(out, ["TABLE", "AGENT", "ROWS"], [[c.table, c.agent_id or "(all)", c.rows] for c in report.table_counts])
        print("\nRecent storage errors", file=out)
        table(out, ["WHEN", "WHERE", "ERROR"], [[when(e.occurred_at_ms), e.operation, e.message]
                                                 for e in report.recent_errors])
        print(f"\n{'healthy' if report.is_healthy else 'PROBLEMS FOUND'}", file=out)

    io.emit({**dataclasses.asdict(report), "healthy": report.is_healthy}, human)
    return EXIT_OK if report.is_healthy else EXIT_UNHEALTHY


def preview(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    result = client.preview_context(args.agent_id, args.query, args.max_tokens)

    def human(out: TextIO) -> None:
        pairs(out, [("section", result.section), ("reason", result.reason), ("tokens", result.block_tokens)])
        print(file=out)
        print(result.block or "(no memory context assembled)", file=out)

    io.emit(result, human)
    return EXIT_OK


def clear(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    if not _confirmed(args, io, "Delete ALL memory (identity, facts, episodes, transcript, vectors)?"):
        return EXIT_PRECONDITION
    deleted = client.clear_all(confirm=True)
    io.emit({"rows_deleted": deleted}, lambda out: print(f"cleared all memory: {deleted} rows deleted", file=out))
    return EXIT_OK


def stats(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    result = client.stats()

    def human(out: TextIO) -> None:
        table(out, ["AGENT", "PINNED", "EPISODES", "TRANSCRIPT", "PENDING"],
              [[a.agent_id, a.pinned_facts, a.episodes, a.transcript_turns, a.pending_signals] for a in result.agents],
              "(no agents)")
        print(file=out)
        pairs(out, [("database", size(result.database_bytes)), ("pending signals", result.pending_signals),
                    ("dead letters", result.dead_letter_signals),
                    ("distillations", f"{result.total_calls} calls, {result.success_rate:.0%} ok, "
                                      f"{result.mean_duration_ms:.0f} ms mean")])

    io.emit(result, human)
    return EXIT_OK


# --------------------------------------------------------------------------------------------------- config
def config_get(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    config = client.get_config()
    values = dataclasses.asdict(config)
    if args.key:
        if args.key not in values:
            raise UsageError(f"unknown key {args.key!r}; keys: {', '.join(values)}")
        io.emit({args.key: values[args.key]}, lambda out: print(values[args.key], file=out))
        return EXIT_OK
    io.emit(values, lambda out: pairs(out, list(values.items())))
    return EXIT_OK


def _parse_assignment(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or key not in KEYS_BY_ATTR:
        raise UsageError(f"expected KEY=VALUE with KEY one of {', '.join(KEYS_BY_ATTR)}; got {text!r}")
    kind = KEYS_BY_ATTR[key].kind
    try:
        if kind is bool:
            if raw.lower() not in ("true", "false", "on", "off", "1", "0", "yes", "no"):
                raise ValueError(raw)
            return key, raw.lower() in ("true", "on", "1", "yes")
        if kind is int:
            return key, int(raw)
        if kind is float:
            return key, float(raw)
    except ValueError as error:
        raise UsageError(f"{key} needs a {kind.__name__}, got {raw!r}") from error
    return key, raw


def config_set(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    changes = dict(_parse_assignment(item) for item in args.assignments)
    try:
        config: MemoryConfig = client.update_config(changes)
    except ValueError as error:
        raise UsageError(str(error)) from error
    values = dataclasses.asdict(config)
    io.emit(values, lambda out: pairs(out, [(k, values[k]) for k in changes]))
    return EXIT_OK


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
        summary = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()) if k not in ("header", "end"))
        print(f"exported to {args.output}: {summary or 'nothing'}", file=io.err if io.is_json else io.out)
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
            "imported " + (", ".join(f"{k}={v}" for k, v in sorted(result.imported.items())) or "nothing")
            + f"; skipped {result.skipped} identical; re-embedded {result.reembedded}",
            file=out,
        ),
    )
    return EXIT_OK


def reindex(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    result = client.reindex(args.agent or "")

    def human(out: TextIO) -> None:
        print(f"full-text mirrors {'rebuilt' if result.is_fts_rebuilt else 'unchanged'}", file=out)
        table(out, ["AGENT", "MODEL", "DIM", "VECTORS", "ROWS", "STATE"],
              [[v.agent_id, v.model or "-", v.dimension, v.vectors, v.rows, "STALE" if v.is_stale else "ok"]
               for v in result.vector_indexes], "(no vector indexes)")

    io.emit(result, human)
    return EXIT_OK


# ---------------------------------------------------------------------------------------- write & upkeep
def sync(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    outcomes = client.sync_now(args.agent or "")
    io.emit(
        outcomes,
        lambda out: table(out, ["AGENT", "CONVERSATION", "OUTCOME", "EPISODE"],
                          [[o.agent_id, o.conversation_id, o.outcome, o.episode_id or ""] for o in outcomes],
                          "(nothing pending)"),
    )
    return EXIT_PARTIAL if any(o.outcome.startswith("error") for o in outcomes) else EXIT_OK


def consolidate(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    report = client.run_consolidation()

    def human(out: TextIO) -> None:
        print(f"consolidation ({report.trigger}) took {report.duration_ms} ms", file=out)
        table(out, ["STEP", "CHANGED", "VECTORS DELETED", "MS", "NOTE"],
              [[s.name, s.rows_changed, s.vectors_deleted, s.duration_ms, s.error or s.skip_reason]
               for s in report.steps])

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
            session.agent_id, session.conversation_id, session.turns,
            session_time_ms=session.session_time_ms,
            skip_extraction=args.skip_extraction or bool(session.skip_extraction),
        )
        turns += result.turns_ingested
        token = result.distillation.split(":", 1)[0] if result.distillation else "stored"
        outcomes[token] += 1
        results.append({"agent_id": session.agent_id, "conversation_id": session.conversation_id,
                        "turns_ingested": result.turns_ingested, "distillation": result.distillation,
                        "episode_id": result.episode_id})
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


def default_io() -> IO:
    """The process's own streams."""
    return IO(sys.stdout, sys.stderr, sys.stdin)


__all__ = [
    "EXIT_CONFLICT",
    "EXIT_DENIED",
    "EXIT_ERROR",
    "EXIT_INVALID",
    "EXIT_NOT_AVAILABLE",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_PARTIAL",
    "EXIT_PRECONDITION",
    "EXIT_UNAVAILABLE",
    "EXIT_UNHEALTHY",
    "EXIT_USAGE",
    "IO",
    "Handler",
    "UsageError",
    "default_io",
]
