"""The repository's HAProxy config (deploy/haproxy.cfg) with the real binary, when installed: one client channel's
calls reach both replicas (HTTP/2 per-call balancing), and a replica that goes away leaves the rotation."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from memoryd.client import MemoryClient
from tests.fakes.counting_memory import CountingMemory, serve_counting

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_listening(proxy: subprocess.Popen[bytes], port: int, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if proxy.poll() is not None or time.monotonic() > deadline:
                proxy.kill()
                _, err = proxy.communicate(timeout=5)
                raise AssertionError(
                    f"haproxy is not listening (exit {proxy.returncode}): {err.decode()[-2000:]}"
                ) from None
            time.sleep(0.05)


@pytest.fixture
def balanced(tmp_path: Path) -> Iterator[tuple[list[CountingMemory], list[grpc.Server], str]]:
    binary = shutil.which("haproxy")
    if binary is None:
        pytest.skip("haproxy is not installed (apt-get install haproxy)")
    # The shipped config with a smaller connection cap: HAProxy raises its open-file limit to about 2 x maxconn at
    # start and refuses to run when it cannot (a full test run's limit can be 2,048, too low for 4,096).
    text = CONFIG.read_text(encoding="utf-8")
    assert "maxconn 4096" in text
    config = tmp_path / "haproxy.cfg"
    config.write_text(text.replace("maxconn 4096", "maxconn 256"), encoding="utf-8")
    started = [serve_counting(), serve_counting()]
    # The free port is probed then released, so another process can take it before haproxy binds: a start that
    # does not listen is retried on a new port (twice), and the third failure reports haproxy's stderr.
    for attempt in range(3):
        port = _free_port()
        env = {
            **os.environ,
            "HAPROXY_BIND": f"127.0.0.1:{port}",
            "MEMORYD_A": started[0][2],
            "MEMORYD_B": started[1][2],
        }
        proxy = subprocess.Popen(
            [binary, "-db", "-f", str(config)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        try:
            _wait_listening(proxy, port)
            break
        except AssertionError:
            if attempt == 2:
                for _, server, _ in started:
                    server.stop(None)
                raise
    try:
        yield [s for s, _, _ in started], [server for _, server, _ in started], f"127.0.0.1:{port}"
    finally:
        proxy.terminate()
        proxy.wait(10)
        if proxy.stderr is not None:
            proxy.stderr.close()
        for _, server, _ in started:
            server.stop(None)


def test_one_channel_reaches_both_replicas_through_haproxy(
    balanced: tuple[list[CountingMemory], list[grpc.Server], str],
) -> None:
    servicers, _, target = balanced
    with MemoryClient(target, deadline_s=5) as client:
        for _ in range(20):
            assert client.list_agents() == []
    assert sum(s.calls for s in servicers) == 20
    assert min(s.calls for s in servicers) >= 8


def test_a_stopped_replica_leaves_the_rotation(
    balanced: tuple[list[CountingMemory], list[grpc.Server], str],
) -> None:
    servicers, servers, target = balanced
    servers[0].stop(None)
    time.sleep(2.5)  # two failed 1 s checks take it out
    with MemoryClient(target, deadline_s=5) as client:
        for _ in range(10):
            assert client.list_agents() == []
    assert servicers[1].calls == 10
