"""Start plugin_host in-process against fake peers, with chosen test plugins and grants, for plugin tests."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc

from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.app import App, start
from plugin_host.config import SupervisorSettings, load_settings
from servicekit.errors import ServiceError, from_rpc_error
from servicekit.server import RunningServer
from tests.fakes.fake_plugin_peers import FakePeers

REPO = Path(__file__).resolve().parents[2]
TEST_PLUGINS = REPO / "tests" / "fakes" / "plugins"
EXAMPLES = REPO / "examples"


def write_grants(home: Path, grants: Mapping[str, Mapping[str, Any]]) -> None:
    """Write $home/config/plugins.json."""
    path = home / "config" / "plugins.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"plugins": grants}, indent=2))


@dataclass
class HostStack:
    """A running plugin_host with a stub on its public port."""

    running: RunningServer
    app: App
    channel: grpc.Channel
    stub: ppb_grpc.PluginHostServiceStub
    home: Path

    def invoke(
        self,
        plugin: str,
        command: str,
        payload: Mapping[str, Any] | None = None,
        *,
        agent: str = "agent-a",
        conversation: str = "conv-1",
        timeout_s: float = 30.0,
    ) -> Any:
        """InvokePlugin and decode the JSON result; raises the typed ServiceError on failure."""
        request = ppb.InvokePluginRequest(
            plugin=plugin, command=command, payload_json=json.dumps(payload or {}),
            agent_id=agent, conversation_id=conversation,
        )  # fmt: skip
        try:
            reply = self.stub.InvokePlugin(request, timeout=timeout_s)
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        return json.loads(reply.result_json)

    def invoke_error(
        self, plugin: str, command: str, payload: Mapping[str, Any] | None = None, **kw: Any
    ) -> ServiceError:
        """InvokePlugin that must fail; returns the typed error."""
        try:
            self.invoke(plugin, command, payload, **kw)
        except ServiceError as error:
            return error
        raise AssertionError(f"{plugin}/{command} succeeded")

    def plugin(self, name: str) -> ppb.PluginInfo:
        """ListPlugins' entry for one plugin."""
        reply = self.stub.ListPlugins(ppb.ListPluginsRequest(), timeout=10)
        return next(p for p in reply.plugins if p.name == name)

    def wait_state(
        self,
        name: str,
        state: int,
        timeout_s: float = 20.0,
        predicate: Callable[[ppb.PluginInfo], bool] | None = None,
    ) -> ppb.PluginInfo:
        """Poll ListPlugins until the plugin reaches `state` (and `predicate` holds)."""
        deadline = time.monotonic() + timeout_s
        info = self.plugin(name)
        while time.monotonic() < deadline:
            info = self.plugin(name)
            if info.state == state and (predicate is None or predicate(info)):
                return info
            time.sleep(0.05)
        raise AssertionError(f"{name} did not reach state {state}: {info}")

    def close(self) -> None:
        self.channel.close()
        self.running.stop(0)
        self.app.close()


def start_host(
    home: Path,
    peers: FakePeers,
    plugins: Sequence[str],
    grants: Mapping[str, Mapping[str, Any]],
    *,
    plugin_root: Path = TEST_PLUGINS,
    supervisor: SupervisorSettings | None = None,
    extra_args: Sequence[str] = (),
    entry_points: bool = False,
) -> HostStack:
    """plugin_host on 127.0.0.1:0 with the named plugin folders, the given grants, and the fake peers."""
    home.mkdir(parents=True, exist_ok=True)
    write_grants(home, grants)
    args = ["--listen", "127.0.0.1:0", "--home", str(home),
            "--memoryd", peers.memory_target, "--inferd", peers.inference_target, *extra_args]  # fmt: skip
    if not entry_points:
        args.append("--no-entry-points")
    for name in plugins:
        args += ["--plugin-dir", str(plugin_root / name)]
    settings = load_settings(args, env={"PATH": "/usr/bin:/bin"})
    fast = supervisor or SupervisorSettings(backoff_initial_s=0.1, backoff_max_s=1.0, start_timeout_s=20.0)
    settings = replace(settings, supervisor=fast)
    running, app = start(settings)
    channel = grpc.insecure_channel(running.target)
    return HostStack(running, app, channel, ppb_grpc.PluginHostServiceStub(channel), home)
