"""Composition root of plugin_host: builds the servicer and the gRPC server, serves until a signal."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from osaurus.plugin.v1 import plugin_pb2_grpc as pb_grpc
from plugin_host.config import Settings, load_settings
from plugin_host.service import SERVICE_NAME, PluginHostServicer
from servicekit.logsetup import setup_logging
from servicekit.portfile import write_port_file
from servicekit.server import RunningServer, ServerOptions, ServiceBinding, build_server, serve_until_signal

DOMAIN = "plugin.osaurus.dev"
_log = logging.getLogger("plugin_host")


def start(settings: Settings) -> RunningServer:
    """Start serving in this process and return the running server."""
    servicer = PluginHostServicer()
    binding = ServiceBinding(SERVICE_NAME, lambda s: pb_grpc.add_PluginHostServiceServicer_to_server(servicer, s))
    running = build_server(ServerOptions(settings.listen, DOMAIN, auth_token=settings.auth_token), [binding])
    if settings.port_file is not None:
        write_port_file(settings.port_file, running.target)
    return running


def main(argv: Sequence[str] | None = None) -> int:
    """Run plugin_host until SIGINT/SIGTERM."""
    settings = load_settings(argv)
    setup_logging(settings.log_level, "plugin_host")
    Path(settings.home).mkdir(parents=True, exist_ok=True)
    running = start(settings)
    serve_until_signal(running, settings.grace_s)
    return 0
