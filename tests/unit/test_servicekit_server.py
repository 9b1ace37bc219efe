"""servicekit on a real server: error mapping both ways, decode guards, deadlines, request ids, auth, bind policy."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.channel import make_channel, typed_errors
from servicekit.errors import (
    FieldViolation,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    ServiceError,
    UnavailableError,
    from_rpc_error,
)
from servicekit.planned import PLANNED_ATTR, planned_rpcs
from servicekit.portfile import write_port_file
from servicekit.server import (
    InsecureBindError,
    RunningServer,
    ServerOptions,
    ServiceBinding,
    build_server,
    is_loopback,
)
from tests.support.procs import spawn

SERVICE = "osaurus.memory.v1.MemoryService"


@planned_rpcs(pb_grpc.MemoryServiceServicer, SERVICE)
class _Servicer(pb_grpc.MemoryServiceServicer):  # type: ignore[misc]
    """A fake peer with scripted behaviour per agent id."""

    def BufferTurn(
        self, request: pb.BufferTurnRequest, context: grpc.ServicerContext
    ) -> pb.BufferTurnResponse:
        if request.agent_id == "bad":
            raise InvalidArgumentError(
                "INVALID_AGENT_ID", "agent_id is bad", field_violations=[FieldViolation("agent_id", "bad")]
            )
        if request.agent_id == "busy":
            raise UnavailableError("INFERD_DOWN", "try later", retry_after_s=1.5)
        if request.agent_id == "bug":
            raise RuntimeError("a bug that quotes secret memory content")
        if request.agent_id == "slow":
            time.sleep(0.5)
        return pb.BufferTurnResponse(signal_id=7)

    def ListAgents(
        self, request: pb.ListAgentsRequest, context: grpc.ServicerContext
    ) -> pb.ListAgentsResponse:
        raise NotFoundError("AGENT_NOT_FOUND", "no agents")


def _start(**options: object) -> RunningServer:
    binding = ServiceBinding(SERVICE, lambda s: pb_grpc.add_MemoryServiceServicer_to_server(_Servicer(), s))
    return build_server(ServerOptions("127.0.0.1:0", "test.osaurus.dev", **options), [binding])  # type: ignore[arg-type]


@pytest.fixture
def server() -> Iterator[RunningServer]:
    running = _start(max_request_bytes=1024)
    yield running
    running.stop(0)


def _stub(running: RunningServer, **kwargs: object) -> pb_grpc.MemoryServiceStub:
    return pb_grpc.MemoryServiceStub(make_channel(running.target, **kwargs))  # type: ignore[arg-type]


def test_typed_errors_round_trip_with_details(server: RunningServer) -> None:
    stub = _stub(server)
    with pytest.raises(InvalidArgumentError) as bad, typed_errors():
        stub.BufferTurn(pb.BufferTurnRequest(agent_id="bad"))
    assert bad.value.reason == "INVALID_AGENT_ID"
    assert bad.value.domain == "test.osaurus.dev"
    assert bad.value.field_violations == (FieldViolation("agent_id", "bad"),)
    with pytest.raises(UnavailableError) as busy, typed_errors():
        stub.BufferTurn(pb.BufferTurnRequest(agent_id="busy"))
    assert busy.value.retry_after_s == pytest.approx(1.5)
    with pytest.raises(NotFoundError), typed_errors():
        stub.ListAgents(pb.ListAgentsRequest())


def test_unexpected_exception_is_internal_without_content(
    server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(ServiceError) as caught, typed_errors():
        _stub(server).BufferTurn(pb.BufferTurnRequest(agent_id="bug"))
    assert caught.value.code == grpc.StatusCode.INTERNAL
    assert caught.value.reason == "INTERNAL_ERROR"
    assert "secret" not in caught.value.message
    assert not any("secret" in r.getMessage() for r in caplog.records if r.levelno >= 20)


def test_oversized_and_undecodable_requests_get_reasons(server: RunningServer) -> None:
    with pytest.raises(ResourceExhaustedError) as big, typed_errors():
        _stub(server).BufferTurn(pb.BufferTurnRequest(agent_id="x" * 2048))
    assert big.value.reason == "MESSAGE_TOO_LARGE"
    channel = grpc.insecure_channel(server.target)
    raw = channel.unary_unary(f"/{SERVICE}/BufferTurn")
    with pytest.raises(grpc.RpcError) as garbage:
        raw(b"\x0a\x05\xff\xfe\xfd\xfc\xfb", timeout=5)  # field 1 with invalid UTF-8
    error = from_rpc_error(garbage.value)
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")


def test_planned_rpcs_answer_not_yet_available(server: RunningServer) -> None:
    assert "GetStats" in getattr(_Servicer, PLANNED_ATTR)
    assert "BufferTurn" not in getattr(_Servicer, PLANNED_ATTR)
    with pytest.raises(ServiceError) as caught, typed_errors():
        _stub(server).GetStats(pb.GetStatsRequest())
    assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.UNIMPLEMENTED, "NOT_YET_AVAILABLE")


def test_default_deadline_applies(server: RunningServer) -> None:
    stub = _stub(server, deadline_s=0.1)
    with pytest.raises(ServiceError) as caught, typed_errors():
        stub.BufferTurn(pb.BufferTurnRequest(agent_id="slow"))
    assert caught.value.code == grpc.StatusCode.DEADLINE_EXCEEDED


def test_request_id_is_echoed(server: RunningServer) -> None:
    channel = grpc.insecure_channel(server.target)
    stub = pb_grpc.MemoryServiceStub(channel)
    _, call = stub.BufferTurn.with_call(
        pb.BufferTurnRequest(agent_id="a"), metadata=(("x-request-id", "abc123"),)
    )
    assert ("x-request-id", "abc123") in tuple(call.trailing_metadata())


def test_bearer_token_is_required_except_for_health() -> None:
    running = _start(auth_token="s3cret")
    try:
        with pytest.raises(ServiceError) as caught, typed_errors():
            _stub(running).BufferTurn(pb.BufferTurnRequest(agent_id="a"))
        assert caught.value.code == grpc.StatusCode.UNAUTHENTICATED
        assert _stub(running, token="s3cret").BufferTurn(pb.BufferTurnRequest(agent_id="a")).signal_id == 7
        with pytest.raises(ServiceError), typed_errors():
            _stub(running, token="wrong").BufferTurn(pb.BufferTurnRequest(agent_id="a"))
    finally:
        running.stop(0)


def test_non_loopback_bind_needs_tls_or_token() -> None:
    assert is_loopback("127.0.0.1:1") and is_loopback("[::1]:1") and is_loopback("unix:/tmp/x.sock")
    assert not is_loopback("0.0.0.0:1") and not is_loopback("10.1.2.3:1")
    binding = ServiceBinding(SERVICE, lambda s: None)
    with pytest.raises(InsecureBindError, match="TLS"):
        build_server(ServerOptions("0.0.0.0:0", "test.osaurus.dev"), [binding])


def test_reflection_serves_comments(server: RunningServer) -> None:
    channel = grpc.insecure_channel(server.target)
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE)
    reply = next(iter(stub.ServerReflectionInfo(iter([request]), timeout=5)))
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(b)
        for b in reply.file_descriptor_response.file_descriptor_proto
    ]
    memory = next(f for f in files if f.name == "osaurus/memory/v1/memory.proto")
    comments = [loc.leading_comments for loc in memory.source_code_info.location if loc.leading_comments]
    assert any("hot path" in c for c in comments)


def test_port_file_is_atomic(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "svc.port"
    write_port_file(target, "127.0.0.1:1234")
    assert target.read_text() == "127.0.0.1:1234\n"
    assert list(target.parent.iterdir()) == [target]


def test_sigterm_stops_a_service_gracefully(tmp_path: Path) -> None:
    process = spawn("plugin_host", tmp_path)
    assert process.stop(signal.SIGTERM) == 0
    assert "SIGTERM received" in process.log()


def _handler_threads(prefix: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(prefix)]


def test_stop_then_join_handlers_ends_every_handler_thread() -> None:
    # Handler threads left to the interpreter's exit can abort it (MLX thread-local clean-up; see join_handlers).
    binding = ServiceBinding(SERVICE, lambda s: pb_grpc.add_MemoryServiceServicer_to_server(_Servicer(), s))
    running = build_server(ServerOptions("127.0.0.1:0", "join.osaurus.dev"), [binding])
    stub = _stub(running)
    calls = [stub.BufferTurn.future(pb.BufferTurnRequest(agent_id="slow"), timeout=10) for _ in range(3)]
    assert [c.result().signal_id for c in calls] == [7, 7, 7]
    assert _handler_threads("join.osaurus.dev")  # the pool keeps its threads between calls
    running.stop(1)
    assert running.join_handlers(5)
    assert _handler_threads("join.osaurus.dev") == []


def test_join_handlers_gives_up_on_a_handler_still_running() -> None:
    binding = ServiceBinding(SERVICE, lambda s: pb_grpc.add_MemoryServiceServicer_to_server(_Servicer(), s))
    running = build_server(ServerOptions("127.0.0.1:0", "stuck.osaurus.dev"), [binding])
    call = _stub(running).BufferTurn.future(pb.BufferTurnRequest(agent_id="slow"), timeout=10)
    deadline = time.monotonic() + 5
    while not _handler_threads("stuck.osaurus.dev") and time.monotonic() < deadline:
        time.sleep(0.01)
    running.stop(0)  # cancels the call; its handler still sleeps out its 0.5 s
    assert running.join_handlers(0.05) is False
    assert running.join_handlers(5) is True
    assert call.exception() is not None
