"""The real grpcurl binary lists, describes and calls every service on all three servers with no .proto files."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.contract.conftest import SERVICES
from tests.support.procs import ServiceProcess
from tests.support.tools import grpcurl_binary


def grpcurl(
    target: str, *args: str, data: dict[str, object] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [grpcurl_binary(), "-plaintext", "-max-time", "20"]
    if data is not None:
        command += ["-d", json.dumps(data)]
    return subprocess.run([*command, target, *args], capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.e2e
@pytest.mark.parametrize("server", sorted(SERVICES))
def test_list_shows_services_health_and_reflection(stack: dict[str, ServiceProcess], server: str) -> None:
    result = grpcurl(stack[server].target, "list")
    assert result.returncode == 0, result.stderr
    listed = set(result.stdout.split())
    assert set(SERVICES[server]) <= listed
    assert {"grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"} <= listed


@pytest.mark.e2e
@pytest.mark.parametrize("server", sorted(SERVICES))
def test_describe_shows_commented_rpcs_and_messages(stack: dict[str, ServiceProcess], server: str) -> None:
    for service in SERVICES[server]:
        result = grpcurl(stack[server].target, "describe", service)
        assert result.returncode == 0, result.stderr
        rpc_lines = [line for line in result.stdout.splitlines() if line.strip().startswith("rpc ")]
        assert rpc_lines, result.stdout
        lines = result.stdout.splitlines()
        for index, line in enumerate(lines):
            if line.strip().startswith("rpc "):
                assert lines[index - 1].strip().startswith("//"), f"uncommented RPC in {service}: {line}"
                request = line.split("(")[1].split(")")[0].replace("stream ", "").strip().lstrip(".")
                message = grpcurl(stack[server].target, "describe", request)
                assert message.returncode == 0, message.stderr
                body = message.stdout.splitlines()
                fields = [i for i, text in enumerate(body) if text.strip().endswith(";") and "=" in text]
                for i in fields:
                    assert body[i - 1].strip().startswith("//"), f"uncommented field in {request}: {body[i]}"


@pytest.mark.e2e
@pytest.mark.parametrize("server", sorted(SERVICES))
def test_health_reports_serving_per_service(stack: dict[str, ServiceProcess], server: str) -> None:
    for service in ("", *SERVICES[server]):
        result = grpcurl(stack[server].target, "grpc.health.v1.Health/Check", data={"service": service})
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["status"] == "SERVING"


@pytest.mark.e2e
def test_buffer_turn_is_found_by_search_memory(stack: dict[str, ServiceProcess]) -> None:
    target = stack["memoryd"].target
    svc = "osaurus.memory.v1.MemoryService"
    unknown = grpcurl(
        target,
        f"{svc}/SearchMemory",
        data={"agent_id": "grpcurl-agent", "scope": "SCOPE_TRANSCRIPT", "query": "x"},
    )
    assert unknown.returncode != 0
    assert "NotFound" in unknown.stderr and "AGENT_NOT_FOUND" in unknown.stderr
    created = grpcurl(target, f"{svc}/UpsertAgent", data={"agent_id": "grpcurl-agent"})
    assert created.returncode == 0, created.stderr
    denied = grpcurl(
        target,
        f"{svc}/SearchMemory",
        data={"agent_id": "grpcurl-agent", "scope": "SCOPE_TRANSCRIPT", "query": "x"},
    )
    assert denied.returncode != 0
    assert "PermissionDenied" in denied.stderr and "MEMORY_RECALL_DISABLED" in denied.stderr
    upsert = grpcurl(
        target, f"{svc}/UpsertAgent", data={"agent_id": "grpcurl-agent", "search_memory_enabled": True}
    )
    assert upsert.returncode == 0, upsert.stderr
    turn = {
        "agent_id": "grpcurl-agent",
        "conversation_id": "c1",
        "user_message": "My sourdough starter is named Bartholomew and lives in the fridge.",
        "assistant_message": "Bartholomew sounds like a well-fed starter.",
    }
    buffered = grpcurl(target, f"{svc}/BufferTurn", data=turn)
    assert buffered.returncode == 0, buffered.stderr
    assert int(json.loads(buffered.stdout)["signalId"]) > 0
    search = {"agent_id": "grpcurl-agent", "scope": "SCOPE_TRANSCRIPT", "query": "what is my starter called?"}
    found = grpcurl(target, f"{svc}/SearchMemory", data=search)
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert any("Bartholomew" in hit["text"] for hit in hits)
    grpcurl(target, f"{svc}/UpsertAgent", data={"agent_id": "someone-else", "search_memory_enabled": True})
    other = grpcurl(
        target,
        f"{svc}/SearchMemory",
        data={"agent_id": "someone-else", "scope": "SCOPE_TRANSCRIPT", "query": "Bartholomew"},
    )
    assert other.returncode == 0, other.stderr
    assert "Bartholomew" not in other.stdout
