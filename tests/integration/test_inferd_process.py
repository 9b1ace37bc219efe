"""inferd as a real subprocess: port file, health SERVING before any model loads, clean SIGTERM, config errors."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from inferd.client import InferenceClient, Message
from tests.support.procs import REPO, child_env, spawn


def test_serves_fake_models_and_stops_cleanly(tmp_path: Path) -> None:
    started = time.monotonic()
    proc = spawn("inferd", tmp_path, args=["--backend", "fake"])
    try:
        assert time.monotonic() - started < 30  # startup never waits for a model load
        with grpc.insecure_channel(proc.target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            reply = health.Check(
                health_pb2.HealthCheckRequest(service="osaurus.inference.v1.InferenceService"), timeout=5
            )
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        client = InferenceClient(proc.target, deadline_s=10)
        assert client.generate([Message("user", "ping")]).text == "echo: ping"
        assert {m.name: m.state for m in client.models()}["smollm2-135m-instruct"] == "unloaded"
        # The default embedding model is loaded at startup without any Embed call (queries must not pay the load).
        embedding = next(m.name for m in client.models() if m.is_default and m.kind == "embedding")
        deadline = time.monotonic() + 20
        while {m.name: m.state for m in client.models()}[embedding] != "ready":
            assert time.monotonic() < deadline, "the default embedding model was not preloaded"
            time.sleep(0.05)
        client.close()
    finally:
        code = proc.stop()
    assert code == 0, proc.log()
    assert "Traceback" not in proc.log()


def test_bad_config_exits_2_with_a_message(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "inference.json").write_text('{"default_llm": "missing"}')
    result = subprocess.run(
        [sys.executable, "-m", "inferd", "--listen", "127.0.0.1:0"],
        cwd=REPO,
        env=child_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "default llm model 'missing'" in result.stderr


def test_refuses_a_public_bind_without_tls_or_token(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "inferd", "--listen", "0.0.0.0:0", "--backend", "fake"],
        cwd=REPO,
        env=child_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "refusing to bind non-loopback address" in result.stderr
