"""memoryctl handlers for agents, identity, the console and config: one function per command → exit code."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, TextIO

from memoryd.client import MemoryClient
from memoryd.config import KEYS_BY_ATTR, MemoryConfig
from memoryd.ctl.plumbing import (
    EXIT_OK,
    EXIT_PRECONDITION,
    EXIT_UNHEALTHY,
    IO,
    UsageError,
    confirmed,
    on_off,
)
from memoryd.ctl.render import pairs, parse_ref, ref, size, table, when
from memoryd.ctl.security import degraded_pairs
from memoryd.domain import KIND_TRANSCRIPT


# --------------------------------------------------------------------------------------------------- agents
def agents_ls(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    agents = client.list_agents()
    # ENTRIES counts distilled memory (facts and episodes) only; an agent whose turns wait for distillation showed
    # 0 and looked empty, so the turns and pending signals are listed too.
    counts = {c.agent_id: c for c in client.stats().agents} if agents else {}
    io.emit(
        agents,
        lambda out: table(
            out,
            ["AGENT", "NAME", "MEMORY", "RECALL", "ENTRIES", "TURNS", "PENDING", "CREATED"],
            [
                [
                    a.agent_id,
                    a.display_name,
                    "on" if a.memory_enabled else "off",
                    "on" if a.search_memory_enabled else "off",
                    a.memory_entry_count,
                    counts[a.agent_id].transcript_turns if a.agent_id in counts else 0,
                    counts[a.agent_id].pending_signals if a.agent_id in counts else 0,
                    when(a.created_at_ms),
                ]
                for a in agents
            ],
            "(no agents)",
        ),
    )
    return EXIT_OK


def agents_show(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    agent = client.get_agent(args.agent_id)
    io.emit(
        agent,
        lambda out: pairs(
            out,
            [
                ("agent", agent.agent_id),
                ("name", agent.display_name or "-"),
                ("memory", "on" if agent.memory_enabled else "off"),
                ("recall", "on" if agent.search_memory_enabled else "off"),
                ("entries", agent.memory_entry_count),
                ("created", when(agent.created_at_ms)),
                ("updated", when(agent.updated_at_ms)),
            ],
        ),
    )
    return EXIT_OK


def agents_set(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    agent, created = client.upsert_agent(
        args.agent_id,
        display_name=args.name,
        memory_enabled=on_off(args.memory),
        search_memory_enabled=on_off(args.recall),
    )
    io.emit(
        {"agent": agent, "created": created},
        lambda out: print(f"{'created' if created else 'updated'} {agent.agent_id}", file=out),
    )
    return EXIT_OK


def agents_rm(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    if not confirmed(args, io, f"Delete agent {args.agent_id} and all of its memory?"):
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
        lambda out: table(
            out, ["ID", "CREATED", "TEXT"], [[o.id, when(o.created_at_ms), o.text] for o in overrides]
        ),
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
    identity = client.identity(args.agent or "")

    def human(out: TextIO) -> None:
        pairs(
            out,
            [
                ("narrative", identity.content or "(none)"),
                ("model", identity.model or "-"),
                ("version", identity.version),
                ("overrides", len(identity.overrides)),
                ("facts", len(identity.facts)),
            ],
        )
        if identity.facts:
            print(file=out)
            table(out, ["ID", "AGENT", "FACT"], [[f[0], f[2], f[1]] for f in identity.facts])

    io.emit(identity, human)
    return EXIT_OK


# -------------------------------------------------------------------------------------------------- console
def _state(kind: str, is_disabled: bool) -> str:
    """STATE of a row: pinned facts and episodes are active or disabled; other rows have no state ("-")."""
    if kind not in ("pinned_fact", "episode"):
        return "-"
    return "disabled" if is_disabled else "active"


def search(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    hits = client.search(
        args.query,
        scope=args.scope,
        agent_id=args.agent or "",
        include_disabled=args.include_disabled,
        limit=args.limit,
    )
    io.emit(
        hits,
        lambda out: table(
            out,
            ["ITEM", "AGENT", "SCORE", "STATE", "CREATED", "PREVIEW"],
            [
                [
                    ref(h.kind, h.id),
                    h.agent_id,
                    f"{h.score:.3f}",  # one notation for every row (".3g" printed 1.23 next to 1.37e-06)
                    _state(h.kind, h.is_disabled),
                    when(h.created_at_ms),
                    h.preview,
                ]
                for h in hits
            ],
            "(no matches)",
        ),
    )
    return EXIT_OK


def inspect(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    kind, row_id = parse_ref(args.item)
    found = client.inspect(kind, row_id)

    def human(out: TextIO) -> None:
        pairs(
            out,
            [
                ("item", ref(found.kind, found.id)),
                ("agent", found.agent_id),
                ("state", "disabled" if found.is_disabled else "active"),
                ("created", when(found.created_at_ms)),
                ("vector", "yes" if found.has_vector else "no"),
                ("redacted", ", ".join(found.redactions) or "-"),
            ],
        )
        print(file=out)
        print(found.preview, file=out)
        print(file=out)
        pairs(out, sorted(found.metadata.items()))
        if found.source_turns:
            # Provenance: the transcript turns this derived row was learned from and verified against.
            print(file=out)
            print("source turns:", file=out)
            for turn in found.source_turns:
                print(f"  {ref(KIND_TRANSCRIPT, turn.id)} {turn.role:<9} {turn.preview}", file=out)

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
    if not confirmed(args, io, f"Permanently delete {ref(kind, row_id)}?"):
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
        pairs(
            out,
            [
                (
                    "store",
                    report.store_state + (f" ({report.degraded_reason})" if report.degraded_reason else ""),
                ),
                *degraded_pairs(report.degraded_store),
                ("schema", report.schema_version),
                ("database", size(report.database_bytes)),
                ("encrypted", "yes" if report.is_encrypted else "no"),
                ("pending signals", report.pending_signals),
                ("dead letters", report.dead_letter_signals),
                (
                    "distillations",
                    f"{report.total_calls} calls, {report.success_rate:.0%} ok, "
                    f"{report.mean_duration_ms:.0f} ms mean",
                ),
            ],
        )
        print("\nFull-text mirrors", file=out)
        table(
            out,
            ["MIRROR", "SOURCE", "SOURCE ROWS", "INDEXED", "HEALTH"],
            [
                [
                    f.fts_table,
                    f.source_table,
                    f.source_rows,
                    f.fts_rows,
                    "ok" if f.is_healthy else f"BROKEN: {f.problem}",
                ]
                for f in report.fts
            ],
        )
        print("\nVector indexes", file=out)
        table(
            out,
            ["AGENT", "MODEL", "DIM", "VECTORS", "ROWS", "STATE"],
            [
                [
                    v.agent_id,
                    v.model or "-",
                    v.dimension,
                    v.vectors,
                    v.rows,
                    (f"STALE: {v.problem}" if v.problem else "STALE") if v.is_stale else "ok",
                ]
                for v in report.vector_indexes
            ],
        )
        print("\nRows", file=out)
        table(
            out,
            ["TABLE", "AGENT", "ROWS"],
            [[c.table, c.agent_id or "(all)", c.rows] for c in report.table_counts],
        )
        print("\nRecent storage errors", file=out)
        table(
            out,
            ["WHEN", "WHERE", "ERROR"],
            [[when(e.occurred_at_ms), e.operation, e.message] for e in report.recent_errors],
        )
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
    if not confirmed(args, io, "Delete ALL memory (identity, facts, episodes, transcript, vectors)?"):
        return EXIT_PRECONDITION
    deleted = client.clear_all(confirm=True)
    io.emit(
        {"rows_deleted": deleted}, lambda out: print(f"cleared all memory: {deleted} rows deleted", file=out)
    )
    return EXIT_OK


def stats(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    result = client.stats()

    def human(out: TextIO) -> None:
        table(
            out,
            ["AGENT", "PINNED", "EPISODES", "TRANSCRIPT", "PENDING"],
            [
                [a.agent_id, a.pinned_facts, a.episodes, a.transcript_turns, a.pending_signals]
                for a in result.agents
            ],
            "(no agents)",
        )
        print(file=out)
        pairs(
            out,
            [
                ("database", size(result.database_bytes)),
                ("pending signals", result.pending_signals),
                ("dead letters", result.dead_letter_signals),
                (
                    "distillations",
                    f"{result.total_calls} calls, {result.success_rate:.0%} ok, "
                    f"{result.mean_duration_ms:.0f} ms mean",
                ),
            ],
        )

    io.emit(result, human)
    return EXIT_OK


# --------------------------------------------------------------------------------------------------- config
def config_get(client: MemoryClient, args: argparse.Namespace, io: IO) -> int:
    config = client.get_config()
    values = dataclasses.asdict(config)
    if args.key:
        if args.key not in values:
            raise UsageError(f"unknown key {args.key!r}; keys: {', '.join(values)}")
        io.emit({args.key: values[args.key]}, lambda out: print(_config_text(values[args.key]), file=out))
        return EXIT_OK
    io.emit(values, lambda out: pairs(out, [(k, _config_text(v)) for k, v in values.items()]))
    return EXIT_OK


def _config_text(value: object) -> object:
    """A value as `config set` takes it back (true/false, as in memory.json; Python printed True)."""
    return ("true" if value else "false") if isinstance(value, bool) else value


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
