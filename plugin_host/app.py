"""Composition root of plugin_host: peers, the turn runner, the plugin host with its bridges, the gRPC server."""

from __future__ import annotations

import functools
import logging
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from inferd.client import InferenceClient
from memoryd.client import MemoryClient
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.bridge_service import SERVICE_NAME as BRIDGE_SERVICE_NAME
from plugin_host.bridge_service import BridgeServicer
from plugin_host.config import Settings, load_settings
from plugin_host.context_window import ContextWindows
from plugin_host.grants import Access
from plugin_host.host import HostPaths, PluginHost
from plugin_host.invocations import Invocations
from plugin_host.peers import InferencePeer
from plugin_host.service import SERVICE_NAME, PluginHostServicer
from plugin_host.turns import TurnRunner
from servicekit.logsetup import setup_logging
from servicekit.portfile import write_port_file
from servicekit.server import (
    InsecureBindError,
    RunningServer,
    ServerOptions,
    ServiceBinding,
    build_server,
    serve_until_signal,
)
from servicekit.tls import TransportConfigError

DOMAIN = "plugin.osaurus.dev"
#: Deadline of model calls that arrive without one.
INFERENCE_DEADLINE_S = 300.0
#: Default deadline of memoryd calls; the turn runner passes its own (memory_timeout_s) on the composed path.
MEMORY_DEADLINE_S = 5.0
_log = logging.getLogger("plugin_host")


@dataclass
class App:
    """The built parts of a running plugin_host, for tests and shutdown."""

    host: PluginHost
    turns: TurnRunner
    memory: MemoryClient
    inference: InferencePeer
    run_dir: Path
    owns_run_dir: bool

    def close(self) -> None:
        """Stop every plugin and close the peer channels."""
        self.host.close()
        self.memory.close()
        self.inference.close()
        if self.owns_run_dir:
            shutil.rmtree(self.run_dir, ignore_errors=True)


def build_bridge(
    turns: TurnRunner,
    memory: MemoryClient,
    memory_timeout_s: float,
    workers: int,
    invocations: Invocations,
    name: str,
    access: Access,
) -> functools.partial[RunningServer]:
    """The bridge factory of one plugin: a token-checked PluginBridgeService on the plugin's private socket."""
    return functools.partial(
        _start_bridge, BridgeServicer(name, access, turns, memory, memory_timeout_s, invocations), workers
    )


def _start_bridge(servicer: BridgeServicer, workers: int, token: str, socket_path: Path) -> RunningServer:
    binding = ServiceBinding(
        BRIDGE_SERVICE_NAME,
        lambda server: ppb_grpc.add_PluginBridgeServiceServicer_to_server(servicer, server),
    )
    options = ServerOptions(f"unix:{socket_path}", DOMAIN, max_workers=workers, auth_token=token)
    return build_server(options, [binding])


def build_app(settings: Settings) -> App:
    """Build the peers, the turn runner and the plugin host (plugins are not started yet)."""
    transport = settings.transport
    credentials = transport.channel_credentials()
    memory = MemoryClient(
        settings.memoryd_addr, deadline_s=MEMORY_DEADLINE_S, token=transport.token, credentials=credentials
    )
    inference = InferencePeer(
        InferenceClient(
            settings.inferd_addr,
            deadline_s=INFERENCE_DEADLINE_S,
            token=transport.token,
            credentials=credentials,
        )
    )
    turns = TurnRunner(
        memory, inference, ContextWindows(inference), memory_timeout_s=settings.memory_timeout_s
    )
    owns_run_dir = settings.run_dir is None
    run_dir = (
        Path(tempfile.mkdtemp(prefix="osaurus-plugins-")) if settings.run_dir is None else settings.run_dir
    )
    paths = HostPaths(
        plugin_dirs=settings.plugin_dirs,
        grants_file=settings.grants_file,
        run_dir=run_dir,
        data_root=settings.plugin_data_root,
        log_root=settings.plugin_log_root,
        entry_point_paths=settings.entry_point_paths,
    )
    invocations = Invocations()
    bridges = functools.partial(
        build_bridge,
        turns,
        memory,
        settings.memory_timeout_s,
        settings.supervisor.workers_per_plugin,
        invocations,
    )
    host = PluginHost(
        paths,
        settings.supervisor,
        bridges,
        load_entry_points=settings.load_entry_points,
        plugin_env=dict(settings.plugin_env),
        log_level=settings.plugin_log_level,
        invocations=invocations,
    )
    return App(host, turns, memory, inference, run_dir, owns_run_dir)


def start(settings: Settings) -> tuple[RunningServer, App]:
    """Start the plugins and serve in this process; returns the running server and the app (call .close())."""
    app = build_app(settings)
    try:
        app.host.reload(wait_s=settings.supervisor.start_timeout_s)
        servicer = PluginHostServicer(app.host, app.turns, reload_wait_s=settings.supervisor.start_timeout_s)
        binding = ServiceBinding(
            SERVICE_NAME, lambda s: ppb_grpc.add_PluginHostServiceServicer_to_server(servicer, s)
        )
        options = ServerOptions(
            settings.listen,
            DOMAIN,
            tls=settings.transport.server_credentials(),
            auth_token=settings.transport.token,
            tenant_tokens=settings.transport.tenant_tokens,
        )
        running = build_server(options, [binding])
    except BaseException:
        app.close()
        raise
    if settings.port_file is not None:
        write_port_file(settings.port_file, running.target)
    return running, app


def main(argv: Sequence[str] | None = None) -> int:
    """Run plugin_host until SIGINT/SIGTERM."""
    try:
        settings = load_settings(argv)
    except TransportConfigError as error:
        print(f"plugin-host: {error}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level, "plugin_host")
    # The grants live in config/plugins.json: the folder exists from the first start, so an operator only adds the
    # file (private, like memoryd's: 0700 whatever the umask).
    config_dir = Path(settings.home) / "config"
    config_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    config_dir.chmod(0o700)
    try:
        running, app = start(settings)
    except InsecureBindError as error:
        print(f"plugin-host: {error}", file=sys.stderr)
        return 2
    serve_until_signal(running, settings.grace_s, on_stop=app.close)
    return 0
