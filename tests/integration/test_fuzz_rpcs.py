"""Property-based bad input to every RPC of memoryd, inferd and plugin_host, sent as raw bytes built from the
request descriptors: never INTERNAL/UNKNOWN, never a hang, never a crash, health SERVING afterwards."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osaurus.inference.v1 import inference_pb2 as ipb
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from servicekit.errors import from_rpc_error
from tests.support.fuzz_wire import Profile, garbage, message_body, method_paths, request_bytes
from tests.support.procs import ServiceProcess, spawn

pytestmark = [pytest.mark.e2e]

REPO = Path(__file__).resolve().parents[2]
#: A call that has not answered by then is a hang (the slowest legitimate case here is a synchronous
#: distillation of a 5,000-turn Ingest by the fake model).
CALL_TIMEOUT_S = 60.0
EXAMPLES_PER_RPC = int(__import__("os").environ.get("FUZZ_N", "12"))
#: Statuses that mean "the server broke", whatever the input.
BROKEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS}
_OPTIONS = [("grpc.max_send_message_length", 64 << 20), ("grpc.max_receive_message_length", 64 << 20)]

MEMORYD_SERVICES = (mpb.DESCRIPTOR.services_by_name["MemoryService"], cpb.DESCRIPTOR.services_by_name["MemoryConsoleService"])
INFERD_SERVICES = (ipb.DESCRIPTOR.services_by_name["InferenceService"],)
PLUGIN_HOST_SERVICES = (ppb.DESCRIPTOR.services_by_name["PluginHostService"],)
#: (service process, full method path, method descriptor) for every RPC the three processes serve. The console's
#: destructive RPCs run last so the memory RPCs see a populated store.
CASES = [
    ("inferd", path, method) for path, method in method_paths(INFERD_SERVICES)
] + [
    ("plugin_host", path, method) for path, method in method_paths(PLUGIN_HOST_SERVICES)
] + [
    ("memoryd", path, method) for path, method in method_paths(MEMORYD_SERVICES)
]


@dataclass
class Stack:
    """The three services and one open channel to each."""

    processes: dict[str, ServiceProcess]
    channels: dict[str, grpc.Channel] = field(default_factory=dict)
    seen: dict[str, dict[str, int]] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)


def _write_memory_config(home: Path) -> None:
    path = home / "config" / "memory.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"coreModel": "fake-llm", "embeddingModel": "fake-embedding", "summaryDebounceSeconds": 10})
    )


def _write_grants(home: Path) -> None:
    path = home / "config" / "plugins.json"
    path.write_text(json.dumps({"plugins": {"echo": {"permissions": ["inference", "memory_search"], "agents": ["*"]}}}))


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    home: Path = tmp_path_factory.mktemp("fuzz-home")
    _write_memory_config(home)
    _write_grants(home)
    started: dict[str, ServiceProcess] = {}
    result = Stack(started)
    try:
        started["inferd"] = spawn("inferd", home, ["--backend", "fake", "--log-level", "WARNING"])
        inferd = started["inferd"].target
        started["memoryd"] = spawn("memoryd", home, ["--inferd", inferd, "--log-level", "WARNING"])
        started["plugin_host"] = spawn(
            "plugin_host",
            home,
            [
                "--memoryd", started["memoryd"].target, "--inferd", inferd, "--no-entry-points",
                "--plugin-dir", str(REPO / "tests" / "fakes" / "plugins" / "echo"), "--log-level", "WARNING",
            ],
        )  # fmt: skip
        for name, process in started.items():
            result.channels[name] = grpc.insecure_channel(process.target, options=_OPTIONS)
        yield result
    finally:
        for channel in result.channels.values():
            channel.close()
        for process in reversed(list(started.values())):
            process.stop()


def _invoke(channel: grpc.Channel, path: str, method: object, payloads: list[bytes]) -> None:
    """One raw call; raises grpc.RpcError on a non-OK status."""
    client_streaming = method.client_streaming  # type: ignore[attr-defined]
    server_streaming = method.server_streaming  # type: ignore[attr-defined]
    if client_streaming and server_streaming:
        list(channel.stream_stream(path)(iter(payloads), timeout=CALL_TIMEOUT_S))
    elif client_streaming:
        channel.stream_unary(path)(iter(payloads), timeout=CALL_TIMEOUT_S)
    elif server_streaming:
        for _ in channel.unary_stream(path)(payloads[0], timeout=CALL_TIMEOUT_S):
            pass
    else:
        channel.unary_unary(path)(payloads[0], timeout=CALL_TIMEOUT_S)


def _check_call(stack: Stack, service: str, path: str, method: object, payloads: list[bytes]) -> None:
    started = time.monotonic()
    try:
        _invoke(stack.channels[service], path, method, payloads)
        outcome = "OK"
    except grpc.RpcError as error:
        code = error.code()  # type: ignore[attr-defined]
        elapsed = time.monotonic() - started
        assert code not in BROKEN, f"{path}: {code.name} {error.details()}"  # type: ignore[attr-defined]
        assert not (code == grpc.StatusCode.DEADLINE_EXCEEDED and elapsed >= CALL_TIMEOUT_S * 0.9), f"{path} hung"
        process = stack.processes[service].process
        assert process.poll() is None, f"{service} died on {path}: exit {process.returncode}"
        typed = from_rpc_error(error)
        outcome = f"{code.name}:{typed.reason}"
        if typed.reason == code.name:
            outcome += f" ({error.details()[:80]}, {sum(map(len, payloads))} bytes)"  # type: ignore[attr-defined]
    stack.seen.setdefault(path, {}).setdefault(outcome, 0)
    stack.seen[path][outcome] += 1
    stack.calls[path] = stack.calls.get(path, 0) + 1


def _assert_serving(stack: Stack) -> None:
    for name, process in stack.processes.items():
        assert process.process.poll() is None, f"{name} exited with {process.process.returncode}"
        reply = health_pb2_grpc.HealthStub(stack.channels[name]).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, name


_FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES_PER_RPC,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


@pytest.mark.parametrize(("service", "path", "method"), CASES, ids=[case[1] for case in CASES])
def test_generated_requests_never_break_the_server(stack: Stack, service: str, path: str, method: object) -> None:
    body = request_bytes(method.input_type)  # type: ignore[attr-defined]
    payloads = st.lists(body, min_size=1, max_size=3) if method.client_streaming else body.map(lambda b: [b])  # type: ignore[attr-defined]

    @_FUZZ_SETTINGS
    @given(payloads=payloads)
    def one_call(payloads: list[bytes]) -> None:
        _check_call(stack, service, path, method, payloads)

    one_call()
    _assert_serving(stack)


@pytest.mark.parametrize(("service", "path", "method"), CASES, ids=[case[1] for case in CASES])
def test_undecodable_bytes_are_refused_with_a_reason(stack: Stack, service: str, path: str, method: object) -> None:
    @settings(_FUZZ_SETTINGS, max_examples=4)
    @given(raw=garbage())
    def one_call(raw: bytes) -> None:
        _check_call(stack, service, path, method, [raw])

    one_call()
    _assert_serving(stack)


def test_encoder_writes_messages_the_generated_code_can_read() -> None:
    """Guards the strategy itself: valid-profile bytes parse as the request type (else the fuzzing tests nothing)."""
    for _service, path, method in CASES:
        request_class = _message_class(method.input_type)  # type: ignore[attr-defined]

        @settings(max_examples=5, deadline=None, database=None, derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])  # fmt: skip
        @given(raw=message_body(method.input_type, Profile(invalid_utf8=False, huge=False)))  # type: ignore[attr-defined]
        def parses(raw: bytes) -> None:
            request_class.FromString(raw)

        parses()
        assert path.count("/") == 2


def _message_class(descriptor: object) -> type:
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor)  # type: ignore[arg-type]


def test_zz_dump(stack: Stack) -> None:
    for path, seen in sorted(stack.seen.items()):
        print(path, stack.calls[path], sorted(seen.items()))
