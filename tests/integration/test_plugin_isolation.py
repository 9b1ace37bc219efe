"""Per-plugin sockets and tokens: private files, a scrubbed environment, and no way to read another's token."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.supervisor import PluginProcess
from tests.fakes.fake_plugin_peers import FakePeers, start_fake_peers
from tests.support.plugin_host_stack import HostStack, start_host

GRANTS = {"echo": {"permissions": ["inference"], "agents": ["*"]}, "snoop": {"agents": ["*"]}}


@pytest.fixture(scope="module")
def peers() -> Iterator[FakePeers]:
    started = start_fake_peers()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def stack(peers: FakePeers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostStack]:
    home: Path = tmp_path_factory.mktemp("home")
    started = start_host(home, peers, ["echo", "snoop"], GRANTS)
    yield started
    started.close()


def _process(stack: HostStack, name: str) -> PluginProcess:
    process = stack.app.host.process(name)
    assert process is not None and process.pid is not None and process.token is not None
    return process


def _runtime_call(socket: Path, token: str | None) -> grpc.StatusCode:
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with grpc.insecure_channel(f"unix:{socket}") as channel:
        stub = ppb_grpc.PluginRuntimeServiceStub(channel)
        try:
            stub.Describe(ppb.DescribeRequest(), timeout=5, metadata=metadata)
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def _bridge_call(socket: Path, token: str | None) -> grpc.StatusCode:
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with grpc.insecure_channel(f"unix:{socket}") as channel:
        stub = ppb_grpc.PluginBridgeServiceStub(channel)
        request = ppb.CompleteRequest(agent_id="a", conversation_id="c")
        try:
            stub.Complete(request, timeout=5, metadata=metadata)
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def test_a_plugin_cannot_read_another_plugins_token(stack: HostStack) -> None:
    victim = _process(stack, "echo")
    snoop = _process(stack, "snoop")
    victim_token = victim.token
    assert victim_token is not None

    found = stack.invoke("snoop", "harvest", {"victim_pid": victim.pid})

    assert found["sockets"] == [str(victim.spec.socket_dir / "plugin.sock")], "the snoop must find the victim"
    assert found["sources"]["victim_environ"] and found["sources"]["victim_cmdline"]
    for source, text in found["sources"].items():
        assert victim_token not in text, f"victim token readable through {source}"
    assert found["accepted"] == 0, "no harvested string may authenticate to the victim"
    assert found["dumpable"] == 0, "plugin processes must not be dumpable / ptrace-readable by their peers"
    if found["euid"] != 0:
        assert found["sources"]["victim_environ"].startswith("<PermissionError")
    # Positive control: the victim's own token is accepted, the snoop's is not.
    runtime_socket = victim.spec.socket_dir / "plugin.sock"
    assert _runtime_call(runtime_socket, victim_token) == grpc.StatusCode.OK
    assert _runtime_call(runtime_socket, snoop.token) == grpc.StatusCode.UNAUTHENTICATED
    assert _runtime_call(runtime_socket, None) == grpc.StatusCode.UNAUTHENTICATED


def test_bridge_accepts_only_the_plugins_own_token(stack: HostStack) -> None:
    victim = _process(stack, "echo")
    bridge_socket = victim.spec.socket_dir / "host.sock"

    assert _bridge_call(bridge_socket, _process(stack, "snoop").token) == grpc.StatusCode.UNAUTHENTICATED
    assert _bridge_call(bridge_socket, None) == grpc.StatusCode.UNAUTHENTICATED
    assert _bridge_call(bridge_socket, victim.token) == grpc.StatusCode.INVALID_ARGUMENT  # authenticated


def test_sockets_directories_and_logs_are_private(stack: HostStack) -> None:
    run_dir = stack.app.run_dir
    assert stat.S_IMODE(run_dir.stat().st_mode) == 0o700
    for name in ("echo", "snoop"):
        process = _process(stack, name)
        assert stat.S_IMODE(process.spec.socket_dir.stat().st_mode) == 0o700
        for socket in ("host.sock", "plugin.sock"):
            mode = (process.spec.socket_dir / socket).stat().st_mode
            assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600, f"{name}/{socket}"
        assert stat.S_IMODE(process.spec.data_dir.stat().st_mode) == 0o700
        assert stat.S_IMODE(process.spec.log_path.stat().st_mode) == 0o600


def test_plugin_environment_and_arguments_carry_no_secrets_or_addresses(
    stack: HostStack, peers: FakePeers
) -> None:
    process = _process(stack, "echo")
    environ = dict(
        item.split("=", 1)
        for item in Path(f"/proc/{process.pid}/environ").read_text().split("\0")
        if "=" in item
    )
    cmdline = Path(f"/proc/{process.pid}/cmdline").read_text()

    assert not [key for key in environ if key.startswith("OSAURUS_")]
    assert environ["HOME"] == str(process.spec.data_dir)
    for secret in (process.token or "-", peers.memory_target, peers.inference_target):
        assert secret not in cmdline and secret not in "\0".join(environ.values())
    assert os.path.realpath(f"/proc/{process.pid}/cwd") == str(process.spec.data_dir.resolve())


def test_token_rotates_when_a_plugin_restarts(stack: HostStack) -> None:
    process = _process(stack, "echo")
    old_token, restarts = process.token, process.restart_count

    process.kill_hung("test restart")
    stack.wait_state("echo", ppb.PLUGIN_STATE_RUNNING, predicate=lambda i: i.restart_count > restarts)

    new_token = _process(stack, "echo").token
    assert new_token != old_token
    bridge_socket = process.spec.socket_dir / "host.sock"
    assert _bridge_call(bridge_socket, old_token) == grpc.StatusCode.UNAUTHENTICATED
    assert (
        _runtime_call(process.spec.socket_dir / "plugin.sock", old_token) == grpc.StatusCode.UNAUTHENTICATED
    )
    assert stack.invoke("echo", "ping")["pong"] is True
