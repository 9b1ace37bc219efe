"""memoryctl: command-line client for memoryd's admin and console operations (tables by default, --json for scripts).

Exit codes: 0 ok · 1 unexpected error · 2 usage (bad arguments or input file) · 3 not found · 4 rejected input ·
5 precondition (confirmation missing, not disableable, memory disabled) · 6 memoryd or a dependency unavailable /
deadline · 7 feature not available in this memoryd · 8 permission denied / unauthenticated · 9 conflict (a pass
already running) · 10 diagnose found problems · 11 partial failure (some sessions failed to distil).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

import grpc

from memoryd.client import MemoryClient
from memoryd.ctl import commands as cmds
from memoryd.ctl import plumbing as cli_io
from memoryd.ctl import upkeep as cli_upkeep
from memoryd.ctl.ingest import FORMATS
from memoryd.ctl.security import add_security_commands
from memoryd.ctl.settings import ctl_settings
from servicekit.errors import NOT_YET_AVAILABLE, ServiceError
from servicekit.tenancy import is_valid_tenant
from servicekit.tls import TransportConfigError

_EXIT_BY_CODE = {
    grpc.StatusCode.NOT_FOUND: cli_io.EXIT_NOT_FOUND,
    grpc.StatusCode.INVALID_ARGUMENT: cli_io.EXIT_INVALID,
    grpc.StatusCode.OUT_OF_RANGE: cli_io.EXIT_INVALID,
    grpc.StatusCode.RESOURCE_EXHAUSTED: cli_io.EXIT_INVALID,
    grpc.StatusCode.FAILED_PRECONDITION: cli_io.EXIT_PRECONDITION,
    grpc.StatusCode.UNAVAILABLE: cli_io.EXIT_UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED: cli_io.EXIT_UNAVAILABLE,
    grpc.StatusCode.CANCELLED: cli_io.EXIT_UNAVAILABLE,
    grpc.StatusCode.UNIMPLEMENTED: cli_io.EXIT_NOT_AVAILABLE,
    grpc.StatusCode.PERMISSION_DENIED: cli_io.EXIT_DENIED,
    grpc.StatusCode.UNAUTHENTICATED: cli_io.EXIT_DENIED,
    grpc.StatusCode.ABORTED: cli_io.EXIT_CONFLICT,
    grpc.StatusCode.ALREADY_EXISTS: cli_io.EXIT_CONFLICT,
}
SCOPES = ("all", "pinned", "episodes", "transcript")
REF_HELP = "item reference: pinned:ID, episode:ID, transcript:ID or identity_fact:ID"


def _add(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    name: str,
    handler: cli_io.Handler,
    help_text: str,
    aliases: Sequence[str] = (),
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help_text, description=help_text, aliases=list(aliases)
    )
    parser.set_defaults(handler=handler)
    return parser


def _agents(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    agents = _add(sub, "agents", cmds.agents_ls, "list, show, change and delete agents")
    commands = agents.add_subparsers(dest="agents_command", metavar="COMMAND")
    _add(commands, "ls", cmds.agents_ls, "list agents with their toggles and memory counts", ["list"])
    show = _add(commands, "show", cmds.agents_show, "show one agent")
    show.add_argument("agent_id")
    change = _add(commands, "set", cmds.agents_set, "create an agent or change its settings")
    change.add_argument("agent_id")
    change.add_argument("--name", help="display name")
    change.add_argument("--memory", choices=("on", "off"), help="Memory toggle (injection and recording)")
    change.add_argument("--recall", choices=("on", "off"), help="Memory Recall toggle (search_memory tool)")
    remove = _add(commands, "rm", cmds.agents_rm, "delete an agent and all of its memory", ["delete"])
    remove.add_argument("agent_id")
    remove.add_argument("--yes", action="store_true", help="do not ask for confirmation")


def _overrides(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    overrides = _add(sub, "overrides", cmds.overrides_ls, "list, add and remove identity overrides")
    commands = overrides.add_subparsers(dest="overrides_command", metavar="COMMAND")
    _add(commands, "ls", cmds.overrides_ls, "list overrides", ["list"])
    add = _add(commands, "add", cmds.overrides_add, "add an override (a fact always surfaced in context)")
    add.add_argument("text")
    remove = _add(commands, "rm", cmds.overrides_rm, "remove an override by id", ["remove"])
    remove.add_argument("override_id")


def _console(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    search = _add(sub, "search", cmds.search, "search memory across agents (previews are redacted)")
    search.add_argument("query")
    search.add_argument("--scope", choices=SCOPES, default="all", help="layers to search (default all)")
    search.add_argument("--agent", help="only this agent")
    search.add_argument("--include-disabled", action="store_true", help="include disabled facts and episodes")
    search.add_argument("--limit", type=int, default=0, help="maximum hits, 1-200 (default 20)")
    for name, handler, text in (
        ("inspect", cmds.inspect, "show one row: redacted preview and metadata"),
        ("disable", cmds.disable, "take a pinned fact or episode out of recall (row kept)"),
        ("enable", cmds.enable, "put a disabled pinned fact or episode back into recall"),
    ):
        _add(sub, name, handler, text).add_argument("item", help=REF_HELP)
    forget = _add(sub, "forget", cmds.forget, "permanently delete a row, its full-text entry and its vector")
    forget.add_argument("item", help=REF_HELP)
    forget.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    _add(sub, "diagnose", cmds.diagnose, "storage health report (exit 10 when problems are found)")
    preview = _add(sub, "preview", cmds.preview, "the redacted memory block an agent would get for a query")
    preview.add_argument("agent_id")
    preview.add_argument("query")
    preview.add_argument("--max-tokens", type=int, default=800, help="token cap, 1-4000 (default 800)")
    clear = _add(
        sub, "clear", cmds.clear, "delete ALL memory (identity, facts, episodes, transcript, vectors)"
    )
    clear.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    _add(sub, "stats", cmds.stats, "counts per agent, pending work, processing statistics, database size")
    identity = _add(
        sub, "identity", cmds.identity_show, "the identity narrative, overrides and auto-derived facts"
    )
    identity.add_argument(
        "--agent",
        help="that agent's narrative and facts (what its context injects); default: the global identity",
    )


def _config(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    config = _add(sub, "config", cmds.config_get, "show or change memory.json")
    commands = config.add_subparsers(dest="config_command", metavar="COMMAND")
    get = _add(commands, "get", cmds.config_get, "show the configuration, or one key")
    get.add_argument("key", nargs="?", help="one key, e.g. memory_budget_tokens")
    get.set_defaults(key=None)
    change = _add(
        commands, "set", cmds.config_set, "change keys: memoryctl config set memory_budget_tokens=1200"
    )
    change.add_argument("assignments", nargs="+", metavar="KEY=VALUE")
    config.set_defaults(key=None)


def _transfer(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    export = _add(sub, "export", cli_upkeep.export, "export memory as JSON Lines (docs/export-format.md)")
    export.add_argument("--agent", help="only this agent (identity is not included then)")
    export.add_argument("-o", "--output", help="file to write (default stdout)")
    imported = _add(
        sub, "import", cli_upkeep.import_, "import a JSON Lines export (re-embeds when the model differs)"
    )
    imported.add_argument("file", help="export file, or - for stdin")
    reindex = _add(
        sub, "reindex", cli_upkeep.reindex, "rebuild full-text mirrors and vector indexes from SQLite"
    )
    reindex.add_argument("--agent", help="only this agent's vector index")


def _upkeep(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    sync = _add(sub, "sync", cli_upkeep.sync, "distil every pending conversation now (Sync Now)")
    sync.add_argument("--agent", help="only this agent")
    _add(sub, "consolidate", cli_upkeep.consolidate, "run one consolidation pass now (Run Consolidation Now)")
    ingest = _add(
        sub,
        "ingest",
        cli_upkeep.ingest,
        "bulk-load conversations from a JSONL sessions file or a LoCoMo file",
    )
    ingest.add_argument(
        "file", help="JSON Lines of {agent_id, conversation_id, turns, session_date}, or LoCoMo JSON"
    )
    ingest.add_argument(
        "--agent", help="agent for sessions that name none (LoCoMo: instead of locomo-<sample>)"
    )
    ingest.add_argument("--format", choices=FORMATS, default="auto", help="input format (default: detect)")
    ingest.add_argument("--skip-extraction", action="store_true", help="store transcript only; do not distil")
    ingest.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def build_parser() -> argparse.ArgumentParser:
    """The memoryctl argument parser."""
    parser = argparse.ArgumentParser(
        prog="memoryctl",
        description="Administer memoryd: agents, overrides, console search/inspect/disable/forget, diagnose, "
        "previews, export/import, reindex, sync, consolidation, ingest, encryption, recovery and certificates.",
        epilog="Exit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 invalid input, 5 precondition, 6 unavailable, "
        "7 not available in this memoryd, 8 denied, 9 conflict, 10 unhealthy, 11 partial failure.",
    )
    parser.add_argument("--addr", help="memoryd address (default $OSAURUS_MEMORYD_ADDR or 127.0.0.1:50051)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--timeout", type=float, default=30.0, help="deadline of quick calls in seconds")
    parser.add_argument(
        "--tenant", help="act on this tenant's memory (default $OSAURUS_TENANT, else the default tenant)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _agents(sub)
    _overrides(sub)
    _console(sub)
    _config(sub)
    _transfer(sub)
    _upkeep(sub)
    add_security_commands(sub)
    return parser


def _fail(io: cli_io.IO, code: int, reason: str, message: str) -> int:
    print(f"memoryctl: {reason}: {message}", file=io.err)
    if io.is_json:
        print(json.dumps({"error": {"exit_code": code, "reason": reason, "message": message}}), file=io.out)
    return code


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    stdin: TextIO | None = None,
) -> int:
    """Run one command; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exit_:  # --help (0) and usage errors (2)
        return int(exit_.code or 0)
    io = cli_io.IO(stdout or sys.stdout, stderr or sys.stderr, stdin or sys.stdin, is_json=args.json)
    if getattr(args, "handler", None) is None:
        parser.print_help(io.err)
        return cli_io.EXIT_USAGE
    try:
        settings = ctl_settings(args.addr, args.timeout)
    except TransportConfigError as error:
        return _fail(io, cli_io.EXIT_USAGE, "TRANSPORT_CONFIG", str(error))
    tenant = args.tenant or os.environ.get("OSAURUS_TENANT", "").strip() or None
    if tenant is not None and not is_valid_tenant(tenant):
        return _fail(
            io, cli_io.EXIT_USAGE, "INVALID_TENANT", "a tenant is 1-48 characters of a-z, 0-9, '_' and '-'"
        )
    client = MemoryClient(
        settings.addr,
        deadline_s=settings.deadline_s,
        token=settings.token,
        credentials=settings.credentials,
        tenant=tenant,
    )
    try:
        return int(args.handler(client, args, io))
    except cli_io.UsageError as error:
        return _fail(io, cli_io.EXIT_USAGE, "USAGE", str(error))
    except ValueError as error:
        return _fail(io, cli_io.EXIT_USAGE, "USAGE", str(error))
    except ServiceError as error:
        code = _EXIT_BY_CODE.get(error.code, cli_io.EXIT_ERROR)
        if error.reason == NOT_YET_AVAILABLE:
            code = cli_io.EXIT_NOT_AVAILABLE
        return _fail(io, code, error.reason, error.message)
    except KeyboardInterrupt:
        return _fail(io, 130, "INTERRUPTED", "interrupted")
    except BrokenPipeError:
        return cli_io.EXIT_OK
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main())
