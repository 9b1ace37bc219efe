"""Storage failures on a real store: a full disk and a read-only file answer with their own status and reason, show
in Diagnose and in health, lose nothing acknowledged, and recover; start-up on a read-only data root says so."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.memoryd_server import MemorydHandle, buffer, rpc_error, running_memoryd
from tests.support.storage_faults import disk_full, read_only

REPO = Path(__file__).resolve().parents[2]
BIG_TURN = "I keep notes about the garden. " * 1500  # ~45 KB: needs new pages


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with running_memoryd(tmp_path / "home") as handle:
        yield handle


def _health(handle: MemorydHandle, service: str = "") -> int:
    stub = health_pb2_grpc.HealthStub(handle.channel)
    return int(stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status)


def _stored_users(handle: MemorydHandle) -> int:
    return int(handle.app.store.db.scalar("SELECT count(*) FROM transcript WHERE role = 'user'") or 0)


def test_buffer_turn_on_a_full_disk_answers_storage_full_and_recovers(memoryd: MemorydHandle) -> None:
    buffer(memoryd.memory, "agent-1", "c1", "my first turn is stored")
    with disk_full(memoryd.app.store.db):
        error = rpc_error(lambda: buffer(memoryd.memory, "agent-1", "c1", BIG_TURN))
        assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED and error.reason == "STORAGE_FULL"
        assert error.retry_after_s is not None and error.retry_after_s > 0
        report = memoryd.console.Diagnose(cpb.DiagnoseRequest(), timeout=10)
        assert report.store_state == cpb.STORE_STATE_FULL
        assert "full" in report.degraded_reason
        assert any("STORAGE_FULL" in e.message for e in report.recent_errors)
        assert _health(memoryd) == health_pb2.HealthCheckResponse.NOT_SERVING
        assert (
            _health(memoryd, "osaurus.memory.v1.MemoryService") == health_pb2.HealthCheckResponse.NOT_SERVING
        )
    assert _stored_users(memoryd) == 1  # the acknowledged turn is still there
    buffer(
        memoryd.memory, "agent-1", "c1", BIG_TURN
    )  # space again: the next write succeeds and clears the fault
    assert _stored_users(memoryd) == 2
    assert _health(memoryd) == health_pb2.HealthCheckResponse.SERVING
    report = memoryd.console.Diagnose(cpb.DiagnoseRequest(), timeout=10)
    assert report.store_state == cpb.STORE_STATE_HEALTHY and not report.degraded_reason


def test_ingest_on_a_full_disk_answers_storage_full(memoryd: MemorydHandle) -> None:
    request = mpb.IngestRequest(
        agent_id="agent-1",
        conversation_id="bulk",
        turns=[mpb.Turn(user=BIG_TURN, assistant="noted")],
        skip_extraction=True,
    )
    with disk_full(memoryd.app.store.db):
        error = rpc_error(lambda: memoryd.memory.Ingest(request, timeout=20))
    assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED and error.reason == "STORAGE_FULL"
    assert memoryd.memory.Ingest(request, timeout=20).turns_ingested == 1


def test_writes_to_a_read_only_store_answer_storage_read_only(memoryd: MemorydHandle) -> None:
    buffer(memoryd.memory, "agent-1", "c1", "stored before the file became read-only")
    ingest = mpb.IngestRequest(
        agent_id="agent-1",
        conversation_id="bulk",
        turns=[mpb.Turn(user="a bulk turn", assistant="ok")],
        skip_extraction=True,
    )
    with read_only(memoryd.app.store.db):
        for call in (
            lambda: buffer(memoryd.memory, "agent-1", "c1", "refused"),
            lambda: memoryd.memory.Ingest(ingest, timeout=20),
        ):
            error = rpc_error(call)
            assert error.code == grpc.StatusCode.UNAVAILABLE and error.reason == "STORAGE_READ_ONLY"
        report = memoryd.console.Diagnose(cpb.DiagnoseRequest(), timeout=10)
        assert report.store_state == cpb.STORE_STATE_READ_ONLY and "read-only" in report.degraded_reason
        assert _health(memoryd) == health_pb2.HealthCheckResponse.NOT_SERVING
        # Reads still work on a read-only store.
        assert memoryd.console.Diagnose(cpb.DiagnoseRequest(), timeout=10).schema_version > 0
    assert _stored_users(memoryd) == 1
    buffer(memoryd.memory, "agent-1", "c1", "writable again")
    assert _health(memoryd) == health_pb2.HealthCheckResponse.SERVING


def _immutable(path: Path) -> bool:
    """chattr +i (root with CAP_LINUX_IMMUTABLE): read-only even for root, who ignores permission bits."""
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


def _start_memoryd(home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'protos' / 'gen'}"}
    return subprocess.run(
        [sys.executable, "-m", "memoryd", "--home", str(home), "--listen", "127.0.0.1:0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


@pytest.mark.parametrize("existing", [False, True], ids=["new-root", "existing-store"])
def test_start_up_on_a_read_only_data_root_says_so_in_one_line(tmp_path: Path, existing: bool) -> None:
    home = tmp_path / "home"
    home.mkdir()
    if existing:
        (home / "memory").mkdir()
        (home / "memory" / "memory.sqlite").write_bytes(b"")
    targets = [home, *(p for p in home.rglob("*"))] if existing else [home]
    if os.geteuid() != 0:
        for target in targets:
            target.chmod(0o555 if target.is_dir() else 0o444)
    elif not all(_immutable(t) for t in targets):
        pytest.skip("chattr +i is not available here")
    try:
        result = _start_memoryd(home)
    finally:
        for target in targets:
            subprocess.run(["chattr", "-i", str(target)], capture_output=True)
            target.chmod(0o700)
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "read-only" in lines[0] and str(home) in lines[0]
