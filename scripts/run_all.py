"""Start memoryd, inferd, plugin_host and the HTTP gateway, wait until each answers, and supervise them (`make run`).

Each service runs as `python -m <package>` in its own process group with its default loopback address (or the
OSAURUS_*_LISTEN override, OSAURUS_GATEWAY_LISTEN for the gateway's 127.0.0.1:1337) and OSAURUS_HOME (default
~/.osaurus). The gRPC services are ready when grpc.health reports SERVING, the gateway when GET /healthz answers. SIGINT/SIGTERM are forwarded once to every
child; if any child exits on its own, the others are stopped and this script exits non-zero.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import grpc
from grpc_health.v1 import health_pb2

ROOT = Path(__file__).resolve().parent.parent
STOP_GRACE_S = 15.0
POLL_INTERVAL_S = 0.2
HEALTH_CHECK_METHOD = "/grpc.health.v1.Health/Check"


@dataclass(frozen=True)
class ServiceSpec:
    """How to start one service and where it listens."""

    name: str
    module: str
    listen_env: str
    default_address: str
    http: bool = False
    """Probed with GET /healthz instead of grpc.health."""


SERVICES = (
    ServiceSpec("memoryd", "memoryd", "OSAURUS_MEMORYD_LISTEN", "127.0.0.1:50051"),
    ServiceSpec("inferd", "inferd", "OSAURUS_INFERD_LISTEN", "127.0.0.1:50052"),
    ServiceSpec("plugin_host", "plugin_host", "OSAURUS_PLUGIN_HOST_LISTEN", "127.0.0.1:50053"),
    ServiceSpec("gateway", "gateway", "OSAURUS_GATEWAY_LISTEN", "127.0.0.1:1337", http=True),
)


@dataclass
class Child:
    """A started service process."""

    spec: ServiceSpec
    address: str
    process: subprocess.Popen[bytes]


def child_environment(addresses: dict[str, str]) -> dict[str, str]:
    """The parent's environment plus the data root and every service's address, so peers find each other."""
    env = dict(os.environ)
    env.setdefault("OSAURUS_HOME", str(Path.home() / ".osaurus"))
    for spec in SERVICES:
        env[spec.listen_env] = addresses[spec.name]
    env.setdefault("OSAURUS_MEMORYD_ADDR", addresses["memoryd"])
    env.setdefault("OSAURUS_INFERD_ADDR", addresses["inferd"])
    env.setdefault("OSAURUS_PLUGIN_HOST_ADDR", addresses["plugin_host"])
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def grpcurl_target(address: str) -> str:
    """grpcurl's spelling of an address: unix sockets need -unix."""
    return f"-unix {address.removeprefix('unix:')}" if address.startswith("unix:") else address


def health_status(address: str, timeout_s: float) -> int:
    """One grpc.health.v1 Check of the whole server; returns the status enum or UNKNOWN on any RPC error."""
    with grpc.insecure_channel(address) as channel:
        # A typed multicallable: the health stub's type stubs do not declare Check.
        check = channel.unary_unary(
            HEALTH_CHECK_METHOD,
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        try:
            reply = check(health_pb2.HealthCheckRequest(service=""), timeout=timeout_s, wait_for_ready=True)
        except grpc.RpcError:
            return health_pb2.HealthCheckResponse.UNKNOWN
        return int(reply.status)


def http_ready(address: str, timeout_s: float) -> bool:
    """Whether GET http://address/healthz answers 200 (the gateway's liveness probe, no token needed)."""
    try:
        with urllib.request.urlopen(f"http://{address}/healthz", timeout=timeout_s) as reply:
            return bool(reply.status == 200)
    except (OSError, urllib.error.URLError):
        return False


def is_ready(child: Child, timeout_s: float) -> bool:
    """One readiness probe of a child: HTTP for the gateway, grpc.health for the others."""
    if child.spec.http:
        if not http_ready(child.address, timeout_s):
            time.sleep(min(POLL_INTERVAL_S, timeout_s))  # refused at once while starting; do not spin
            return False
        return True
    return health_status(child.address, timeout_s) == health_pb2.HealthCheckResponse.SERVING


def wait_until_serving(children: list[Child], deadline_s: float, interrupted: list[int]) -> Child | None:
    """Poll health until all children are SERVING or a signal arrives; return one that died or timed out."""
    pending = list(children)
    while pending and not interrupted:
        for child in list(pending):
            if child.process.poll() is not None:
                print(
                    f"run_all: {child.spec.name} exited with code {child.process.returncode} while starting"
                )
                return child
            remaining_s = deadline_s - time.monotonic()
            if remaining_s <= 0:
                print(f"run_all: {child.spec.name} did not report SERVING on {child.address} in time")
                return child
            if is_ready(child, min(1.0, remaining_s)):
                pending.remove(child)
    return None


def stop_all(children: list[Child], sig: int = signal.SIGTERM) -> None:
    """Send sig to each live child's process group, wait up to STOP_GRACE_S, then SIGKILL what is left."""
    for child in children:
        if child.process.poll() is None:
            os.killpg(child.process.pid, sig)
    deadline = time.monotonic() + STOP_GRACE_S
    for child in children:
        try:
            child.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            print(f"run_all: {child.spec.name} did not stop within {STOP_GRACE_S:.0f}s; killing it")
            os.killpg(child.process.pid, signal.SIGKILL)
            child.process.wait()


def main(argv: list[str] | None = None) -> int:
    """Start, wait, print addresses, supervise; return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--start-timeout-s", type=float, default=120.0, help="how long to wait for SERVING")
    args = parser.parse_args(argv)

    addresses = {spec.name: os.environ.get(spec.listen_env, spec.default_address) for spec in SERVICES}
    env = child_environment(addresses)
    received: list[int] = []

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    print(f"run_all: OSAURUS_HOME={env['OSAURUS_HOME']}")
    children: list[Child] = []
    for spec in SERVICES:
        # Own process group: a terminal Ctrl-C reaches only us, and we forward it exactly once.
        process = subprocess.Popen([sys.executable, "-m", spec.module], cwd=ROOT, env=env, process_group=0)
        children.append(Child(spec, addresses[spec.name], process))

    failed = wait_until_serving(children, time.monotonic() + args.start_timeout_s, received)
    if failed is not None or received:
        stop_all(children)
        return 1 if failed is not None else 0

    print()
    for child in children:
        if child.spec.http:
            print(f"  {child.spec.name:<12} {child.address:<22} SERVING   curl http://{child.address}/agents")
            continue
        target = grpcurl_target(child.address)
        print(f"  {child.spec.name:<12} {child.address:<22} SERVING   grpcurl -plaintext {target} list")
    print("\nrun_all: all services SERVING; Ctrl-C stops them.", flush=True)

    while not received:
        exited = [child for child in children if child.process.poll() is not None]
        if exited:
            for child in exited:
                print(
                    f"run_all: {child.spec.name} exited (code {child.process.returncode}); stopping the rest"
                )
            stop_all(children)
            return 1
        time.sleep(POLL_INTERVAL_S)

    print(f"run_all: {signal.Signals(received[0]).name} received; stopping services")
    stop_all(children, received[0])
    clean = {0, -signal.SIGINT, -signal.SIGTERM}
    return 0 if all(child.process.returncode in clean for child in children) else 1


if __name__ == "__main__":
    sys.exit(main())
