"""Runner process main: print a plugin's manifest, or load it and serve PluginRuntimeService until the host goes.

Started by the host as
  python -m plugin_host.runner --entry mod:Attr [--path DIR] --socket-dir DIR --data-dir DIR
                               --token-fd N --status-fd N [--name NAME] [--log-level LEVEL]
The token arrives as the first line of the pipe at --token-fd (never in argv or the environment); the host keeps
that pipe open, so its end of file means the host is gone. One JSON line on --status-fd reports the start.
With --manifest, the plugin's manifest and commands are printed as JSON and the process exits.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.runner.bridge import BridgeConnection
from plugin_host.runner.hardening import make_undumpable, read_token, wait_for_host_exit
from plugin_host.runner.loader import load_plugin
from plugin_host.runner.runtime_service import SERVICE_NAME, RuntimeServicer
from plugin_host.runner.watchdog import Watchdog
from plugin_host.sdk import Plugin
from servicekit.logsetup import setup_logging
from servicekit.server import RunningServer, ServerOptions, ServiceBinding, build_server

DOMAIN = "plugin.osaurus.dev"
#: Exit code when the plugin could not be loaded or its setup() raised (sysexits EX_CONFIG).
EXIT_LOAD_FAILED = 78
HOST_SOCKET = "host.sock"
PLUGIN_SOCKET = "plugin.sock"
_log = logging.getLogger("plugin_host.runner")


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="plugin_host.runner", description="Run one Osaurus plugin")
    parser.add_argument("--entry", required=True, help="entry point, 'package.module:Attribute'")
    parser.add_argument("--path", action="append", default=[], help="directory to put first on sys.path")
    parser.add_argument("--manifest", action="store_true", help="print the manifest as JSON and exit")
    parser.add_argument("--name", default="", help="plugin name as the host knows it")
    parser.add_argument("--socket-dir", type=Path, help="private directory holding host.sock and plugin.sock")
    parser.add_argument("--data-dir", type=Path, help="the plugin's writable data directory")
    parser.add_argument(
        "--token-fd", type=int, help="pipe carrying the token; its end of file stops the plugin"
    )
    parser.add_argument("--status-fd", type=int, help="pipe for the one-line JSON start report")
    parser.add_argument("--workers", type=int, default=4, help="concurrent commands")
    parser.add_argument(
        "--hang-limit-s", type=float, default=0.0, help="exit when a command runs longer than this (0: never)"
    )
    parser.add_argument("--log-level", default="INFO")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the manifest probe or the plugin server."""
    args = _parse(argv)
    if args.manifest:
        return _print_manifest(args.entry, args.path)
    if args.socket_dir is None or args.data_dir is None or args.token_fd is None or args.status_fd is None:
        print("--socket-dir, --data-dir, --token-fd and --status-fd are required", file=sys.stderr)
        return 2
    return _serve(args)


def _print_manifest(entry: str, paths: Sequence[str]) -> int:
    plugin = load_plugin(entry, paths)
    manifest: dict[str, Any] = type(plugin).manifest()
    manifest["entry_point"] = entry
    manifest["commands"] = [
        {"name": s.name, "description": s.description} for s in plugin.command_specs().values()
    ]
    print(json.dumps(manifest))
    return 0


def _serve(args: argparse.Namespace) -> int:
    make_undumpable()
    setup_logging(args.log_level, f"plugin:{args.name or args.entry}")
    token = read_token(args.token_fd)
    status = os.fdopen(args.status_fd, "w")
    try:
        plugin = load_plugin(args.entry, args.path)
        plugin.setup(args.data_dir)
    except BaseException as error:
        _log.error("plugin failed to load: %s", type(error).__name__, exc_info=True)
        _report(status, {"ok": False, "error": f"load failed: {type(error).__name__}"})
        return EXIT_LOAD_FAILED
    running = _start_server(args, plugin, token)
    _report(status, {"ok": True, "pid": os.getpid()})
    signal.signal(signal.SIGTERM, _raise_exit)
    try:
        wait_for_host_exit(args.token_fd)
        _log.info("host closed the lifeline; exiting")
    except SystemExit:
        _log.info("SIGTERM; exiting")
    finally:
        running.stop(1.0)
    return 0


def _start_server(args: argparse.Namespace, plugin: Plugin, token: str) -> RunningServer:
    socket_path = args.socket_dir / PLUGIN_SOCKET
    socket_path.unlink(missing_ok=True)
    bridge = BridgeConnection(args.socket_dir / HOST_SOCKET, token)
    watchdog = Watchdog(args.hang_limit_s if args.hang_limit_s > 0 else float("inf"))
    if args.hang_limit_s > 0:
        watchdog.start()
    servicer = RuntimeServicer(plugin, args.name or type(plugin).name, bridge, args.data_dir, watchdog)
    binding = ServiceBinding(
        SERVICE_NAME, lambda server: ppb_grpc.add_PluginRuntimeServiceServicer_to_server(servicer, server)
    )
    options = ServerOptions(f"unix:{socket_path}", DOMAIN, max_workers=args.workers, auth_token=token)
    running = build_server(options, [binding])
    os.chmod(socket_path, 0o600)
    return running


def _report(status: Any, report: dict[str, Any]) -> None:
    try:
        status.write(json.dumps(report) + "\n")
        status.close()
    except OSError:
        pass


def _raise_exit(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)
