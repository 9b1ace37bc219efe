"""Bad input gets INVALID_ARGUMENT (or RESOURCE_EXHAUSTED for size) with an ErrorInfo reason, never INTERNAL,
and every server keeps serving afterwards."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from osaurus.inference.v1 import inference_pb2 as ipb
from osaurus.inference.v1 import inference_pb2_grpc as ipb_grpc
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from servicekit.errors import ServiceError, from_rpc_error
from tests.support.procs import ServiceProcess

TEN_MB = "x" * (10 * 1024 * 1024)


def _error(call: Callable[[], Any]) -> ServiceError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return from_rpc_error(caught.value)


def _assert_serving(target: str) -> None:
    with grpc.insecure_channel(target) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def _memory_cases(stub: mpb_grpc.MemoryServiceStub) -> list[tuple[str, Callable[[], Any], grpc.StatusCode]]:
    turn = {"conversation_id": "c", "user_message": "hello"}
    invalid = grpc.StatusCode.INVALID_ARGUMENT
    return [
        (
            "empty agent id",
            lambda: stub.BufferTurn(mpb.BufferTurnRequest(agent_id="", **turn), timeout=10),
            invalid,
        ),
        (
            "300-char agent id",
            lambda: stub.BufferTurn(mpb.BufferTurnRequest(agent_id="a" * 300, **turn), timeout=10),
            invalid,
        ),
        (
            "agent id with whitespace",
            lambda: stub.BufferTurn(mpb.BufferTurnRequest(agent_id="a b", **turn), timeout=10),
            invalid,
        ),
        (
            "missing user message",
            lambda: stub.BufferTurn(mpb.BufferTurnRequest(agent_id="a", conversation_id="c"), timeout=10),
            invalid,
        ),
        (
            "missing conversation id",
            lambda: stub.BufferTurn(mpb.BufferTurnRequest(agent_id="a", user_message="hi"), timeout=10),
            invalid,
        ),
        (
            "10 MB message",
            lambda: stub.BufferTurn(
                mpb.BufferTurnRequest(agent_id="a", conversation_id="c", user_message=TEN_MB)
            ),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        ),
        (
            "unknown scope enum",
            lambda: stub.SearchMemory(mpb.SearchMemoryRequest(agent_id="a", scope=42, query="q"), timeout=10),
            invalid,
        ),
        (
            "unspecified scope",
            lambda: stub.SearchMemory(mpb.SearchMemoryRequest(agent_id="a", query="q"), timeout=10),
            invalid,
        ),
        ("get agent without id", lambda: stub.GetAgent(mpb.GetAgentRequest(), timeout=10), invalid),
    ]


@pytest.mark.e2e
def test_memoryd_bad_input(stack: dict[str, ServiceProcess]) -> None:
    target = stack["memoryd"].target
    with grpc.insecure_channel(target, options=[("grpc.max_send_message_length", 64 << 20)]) as channel:
        stub = mpb_grpc.MemoryServiceStub(channel)
        for label, call, expected in _memory_cases(stub):
            error = _error(call)
            assert error.code == expected, f"{label}: {error!r}"
            assert error.reason and error.reason != expected.name, f"{label}: no ErrorInfo reason"
            assert error.domain == "memory.osaurus.dev", label
            if expected == grpc.StatusCode.INVALID_ARGUMENT:
                assert error.field_violations, f"{label}: no field violation"
        console = cpb_grpc.MemoryConsoleServiceStub(channel)
        config = cpb.MemoryConfig(
            enabled=True,
            embedding_backend=cpb.EMBEDDING_BACKEND_MLX,
            extraction_mode=cpb.EXTRACTION_MODE_SESSION_END,
            relevance_gate_mode=99,
            memory_budget_tokens=50,
            summary_debounce_seconds=60,
            consolidation_interval_hours=24,
            salience_floor=0.2,
            episode_retention_days=365,
        )
        error = _error(lambda: console.UpdateConfig(cpb.UpdateConfigRequest(config=config), timeout=10))
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT
        fields = {violation.field for violation in error.field_violations}
        assert {"config.relevance_gate_mode", "config.memory_budget_tokens"} <= fields, fields
    _assert_serving(target)


@pytest.mark.e2e
def test_inferd_bad_input(stack: dict[str, ServiceProcess]) -> None:
    target = stack["inferd"].target
    with grpc.insecure_channel(target, options=[("grpc.max_send_message_length", 64 << 20)]) as channel:
        stub = ipb_grpc.InferenceServiceStub(channel)
        cases: list[tuple[str, Callable[[], Any], grpc.StatusCode]] = [
            (
                "no messages",
                lambda: stub.Generate(ipb.GenerateRequest(), timeout=10),
                grpc.StatusCode.INVALID_ARGUMENT,
            ),
            (
                "unknown role",
                lambda: stub.Generate(
                    ipb.GenerateRequest(messages=[ipb.ChatMessage(role=77, content="hi")]), timeout=10
                ),
                grpc.StatusCode.INVALID_ARGUMENT,
            ),
            (
                "no texts",
                lambda: stub.Embed(ipb.EmbedRequest(), timeout=10),
                grpc.StatusCode.INVALID_ARGUMENT,
            ),
            (
                "10 MB text",
                lambda: stub.Embed(ipb.EmbedRequest(texts=[TEN_MB]), timeout=10),
                grpc.StatusCode.RESOURCE_EXHAUSTED,
            ),
        ]
        for label, call, expected in cases:
            error = _error(call)
            assert error.code == expected, f"{label}: {error!r}"
            assert error.reason and error.reason != expected.name, f"{label}: no ErrorInfo reason"
    _assert_serving(target)


@pytest.mark.e2e
def test_plugin_host_bad_input(stack: dict[str, ServiceProcess]) -> None:
    target = stack["plugin_host"].target
    with grpc.insecure_channel(target, options=[("grpc.max_send_message_length", 64 << 20)]) as channel:
        stub = ppb_grpc.PluginHostServiceStub(channel)
        error = _error(lambda: stub.InvokePlugin(ppb.InvokePluginRequest(payload_json=TEN_MB), timeout=10))
        assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error.reason == "MESSAGE_TOO_LARGE"
        raw = channel.unary_unary("/osaurus.plugin.v1.PluginHostService/RunAgent")
        with pytest.raises(grpc.RpcError) as caught:
            raw(b"\x0a\xff\xff\xff\xff\xff", timeout=10)
        assert from_rpc_error(caught.value).reason == "MALFORMED_REQUEST"
    _assert_serving(target)
