"""Start memoryd, inferd or plugin_host as real subprocesses on 127.0.0.1:0 and wait on the health service."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

REPO = Path(__file__).resolve().parents[2]


@dataclass
class ServiceProcess:
    """A running service subprocess and the address it bound."""

    name: str
    process: subprocess.Popen[bytes]
    target: str
    log_path: Path
    log_file: BinaryIO | None = None

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = 20.0) -> int:
        """Signal the process and wait for it; kill it if it does not exit in time."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        if self.log_file is not None:
            self.log_file.close()
            self.log_file = None
        return self.process.returncode

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def child_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for a service: our packages importable, data under `home`, nothing from the user's home."""
    env = dict(os.environ)
    paths = [str(REPO), str(REPO / "protos" / "gen"), env.get("PYTHONPATH", "")]
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    env["OSAURUS_HOME"] = str(home)
    env.update(extra or {})
    return env


def wait_serving(target: str, service: str = "", timeout_s: float = 60.0) -> None:
    """Poll grpc.health.v1 until `service` reports SERVING."""
    deadline = time.monotonic() + timeout_s
    last: Exception | None = None
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError as error:
                last = error
            time.sleep(0.05)
    raise TimeoutError(f"{target} not SERVING within {timeout_s}s: {last}")


def spawn(
    module: str,
    home: Path,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    timeout_s: float = 60.0,
) -> ServiceProcess:
    """Run `python -m module --listen 127.0.0.1:0 --port-file …` and return once it is SERVING."""
    home.mkdir(parents=True, exist_ok=True)
    port_file = home / f"{module}.port"
    log_path = home / f"{module}.log"
    port_file.unlink(missing_ok=True)
    command = [sys.executable, "-m", module, "--listen", "127.0.0.1:0", "--port-file", str(port_file), *args]
    log = log_path.open("wb")
    process = subprocess.Popen(
        command, cwd=REPO, env=child_env(home, env), stdout=log, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + timeout_s
    while not port_file.exists():
        if process.poll() is not None:
            log.close()
            raise RuntimeError(f"{module} exited with {process.returncode}:\n{log_path.read_text()[-4000:]}")
        if time.monotonic() > deadline:
            process.kill()
            process.wait(5)
            log.close()
            raise TimeoutError(
                f"{module} wrote no port file within {timeout_s}s:\n{log_path.read_text()[-4000:]}"
            )
        time.sleep(0.05)
    target = port_file.read_text().strip()
    service = ServiceProcess(module, process, target, log_path, log)
    try:
        wait_serving(target, timeout_s=max(1.0, deadline - time.monotonic()))
    except TimeoutError:
        service.stop(signal.SIGKILL)
        raise
    return service
