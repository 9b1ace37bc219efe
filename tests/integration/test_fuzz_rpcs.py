"""Property-based bad input to every RPC of every service: memoryd (memory + console), inferd and plugin_host as
subprocesses, and the plugin bridge and plugin runtime (served inside plugin processes in production) in this
process on unix sockets. Requests are raw bytes built from the request descriptors (tests/support/fuzz_wire.py):
never INTERNAL/UNKNOWN/DATA_LOSS, never a hang, never a crash, health SERVING afterwards."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osaurus.inference.v1 import inference_pb2 as ipb
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.app import build_app as build_plugin_host
from plugin_host.app import build_bridge
from plugin_host.config import load_settings
from plugin_host.grants import Access
from plugin_host.runner.bridge import BridgeConnection
from plugin_host.runner.loader import load_plugin
from plugin_host.runner.runtime_service import RuntimeServicer
from plugin_host.runner.watchdog import Watchdog
from plugin_host.sdk import Permission
from servicekit.errors import from_rpc_error
from servicekit.server import RunningServer, ServerOptions, ServiceBinding, build_server
from tests.support.fuzz_wire import Profile, garbage, message_body, request_bytes
from tests.support.procs import ServiceProcess, spawn

pytestmark = [pytest.mark.e2e]

REPO = Path(__file__).resolve().parents[2]
ECHO_PLUGIN = REPO / "tests" / "fakes" / "plugins" / "echo"
#: A call that has not answered by then is a hang (the slowest legitimate case: a synchronous distillation).
CALL_TIMEOUT_S = 60.0
#: ~0.1 s per example at worst (1 MB fields, 5,000-entry lists); the whole module stays near a minute.
EXAMPLES_PER_RPC = 250
GARBAGE_PER_RPC = 8
#: Statuses that mean "the server broke", whatever the input.
BROKEN = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS}
TOKEN = "fuzz-token"
_OPTIONS = [("grpc.max_send_message_length", 64 << 20), ("grpc.max_receive_message_length", 64 << 20)]


def _service(module: Any, name: str) -> ServiceDescriptor:
    service: ServiceDescriptor = module.DESCRIPTOR.services_by_name[name]
    return service


#: Which endpoint serves each service.
SERVICES: tuple[tuple[str, ServiceDescriptor], ...] = (
    ("inferd", _service(ipb, "InferenceService")),
    ("plugin_host", _service(ppb, "PluginHostService")),
    ("bridge", _service(ppb, "PluginBridgeService")),
    ("runtime", _service(ppb, "PluginRuntimeService")),
    ("memoryd", _service(mpb, "MemoryService")),
    ("memoryd", _service(cpb, "MemoryConsoleService")),  # last: ClearAll, Import… then hit a populated store
)
ALL_CASES = [(endpoint, f"/{svc.full_name}/{m.name}", m) for endpoint, svc in SERVICES for m in svc.methods]
#: Requests that convert the live store (SetEncryption, RotateKey): generated last, so that a conversion cannot
#: change the store under the other RPCs' tests.
CONVERTING = {
    "/osaurus.memory.v1.MemoryConsoleService/SetEncryption",
    "/osaurus.memory.v1.MemoryConsoleService/RotateKey",
}
CASES = [case for case in ALL_CASES if case[1] not in CONVERTING]


@dataclass
class Endpoint:
    """One server under test: a channel, the metadata its calls need, and whether it still runs."""

    channel: grpc.Channel
    is_alive: Callable[[], bool]
    metadata: tuple[tuple[str, str], ...] = ()


@dataclass
class Stack:
    endpoints: dict[str, Endpoint] = field(default_factory=dict)
    outcomes: dict[str, Counter[str]] = field(default_factory=dict)


def _write_config(home: Path) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    memory = {"coreModel": "fake-llm", "embeddingModel": "fake-embedding", "summaryDebounceSeconds": 10}
    (home / "config" / "memory.json").write_text(json.dumps(memory))
    grants = {"plugins": {"echo": {"permissions": ["inference", "memory_search"], "agents": ["*"]}}}
    (home / "config" / "plugins.json").write_text(json.dumps(grants))


def _subprocess(process: ServiceProcess) -> Endpoint:
    channel = grpc.insecure_channel(process.target, options=_OPTIONS)
    return Endpoint(channel, lambda: process.process.poll() is None)


def _in_process(running: RunningServer) -> Endpoint:
    channel = grpc.insecure_channel(running.target, options=_OPTIONS)
    return Endpoint(channel, lambda: True, (("authorization", f"Bearer {TOKEN}"),))


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    home: Path = tmp_path_factory.mktemp("fuzz")
    _write_config(home)
    processes: dict[str, ServiceProcess] = {}
    servers: list[RunningServer] = []
    result = Stack()
    host_app = None
    try:
        processes["inferd"] = spawn("inferd", home, ["--backend", "fake", "--log-level", "WARNING"])
        inferd = processes["inferd"].target
        processes["memoryd"] = spawn("memoryd", home, ["--inferd", inferd, "--log-level", "WARNING"])
        memoryd = processes["memoryd"].target
        host_args = ["--memoryd", memoryd, "--inferd", inferd, "--no-entry-points", "--log-level", "WARNING"]
        processes["plugin_host"] = spawn("plugin_host", home, [*host_args, "--plugin-dir", str(ECHO_PLUGIN)])
        # The bridge and the runtime, wired as plugin_host and the plugin runner wire them.
        host_app = build_plugin_host(load_settings(["--home", str(home), *host_args], env={}))
        access = Access(frozenset(Permission), frozenset({"*"}))
        sockets = home / "sock"
        sockets.mkdir()
        bridge = build_bridge(
            host_app.turns, host_app.memory, 3.0, 4, host_app.host.invocations, "echo", access
        )(TOKEN, sockets / "host.sock")
        servers.append(bridge)
        plugin = load_plugin("echo_plugin:Echo", [str(ECHO_PLUGIN)])
        runtime = RuntimeServicer(
            plugin,
            "echo",
            BridgeConnection(sockets / "host.sock", TOKEN),
            home / "plugin-data",
            Watchdog(60.0),
        )
        binding = ServiceBinding(
            "osaurus.plugin.v1.PluginRuntimeService",
            lambda server: ppb_grpc.add_PluginRuntimeServiceServicer_to_server(runtime, server),
        )
        options = ServerOptions(f"unix:{sockets / 'plugin.sock'}", "plugin.osaurus.dev", 4, auth_token=TOKEN)
        servers.append(build_server(options, [binding]))
        result.endpoints = {name: _subprocess(p) for name, p in processes.items()}
        result.endpoints["bridge"] = _in_process(servers[0])
        result.endpoints["runtime"] = _in_process(servers[1])
        yield result
    finally:
        for endpoint in result.endpoints.values():
            endpoint.channel.close()
        for server in servers:
            server.stop(0)
        if host_app is not None:
            host_app.close()
        for process in reversed(list(processes.values())):
            process.stop()


def _invoke(endpoint: Endpoint, path: str, method: MethodDescriptor, payloads: list[bytes]) -> None:
    """One raw call (bytes in, bytes out); raises grpc.RpcError on a non-OK status."""
    channel, kw = endpoint.channel, {"timeout": CALL_TIMEOUT_S, "metadata": endpoint.metadata}
    if method.client_streaming and method.server_streaming:
        list(channel.stream_stream(path)(iter(payloads), **kw))
    elif method.client_streaming:
        channel.stream_unary(path)(iter(payloads), **kw)
    elif method.server_streaming:
        list(channel.unary_stream(path)(payloads[0], **kw))
    else:
        channel.unary_unary(path)(payloads[0], **kw)


def _call(stack: Stack, name: str, path: str, method: MethodDescriptor, payloads: list[bytes]) -> str:
    """Make the call and return its outcome; fails the test on a broken status, a hang or a dead server."""
    endpoint = stack.endpoints[name]
    started = time.monotonic()
    outcome, details = "OK", ""
    try:
        _invoke(endpoint, path, method, payloads)
    except grpc.RpcError as error:
        code: grpc.StatusCode = error.code()  # type: ignore[attr-defined]
        hung = (
            code == grpc.StatusCode.DEADLINE_EXCEEDED and time.monotonic() - started >= CALL_TIMEOUT_S * 0.9
        )
        outcome = f"{'BROKEN ' if code in BROKEN or hung else ''}{code.name}:{from_rpc_error(error).reason}"
        details = error.details() or ""  # type: ignore[attr-defined]
    assert endpoint.is_alive(), f"{name} died on {path}"
    stack.outcomes.setdefault(path, Counter())[outcome] += 1
    return f"{outcome} {details}" if outcome.startswith("BROKEN") else outcome


def _assert_serving(stack: Stack) -> None:
    for name, endpoint in stack.endpoints.items():
        assert endpoint.is_alive(), f"{name} is not running"
        reply = health_pb2_grpc.HealthStub(endpoint.channel).Check(
            health_pb2.HealthCheckRequest(), timeout=10
        )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, name


_SETTINGS = settings(
    max_examples=EXAMPLES_PER_RPC,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def _fuzz_generated(stack: Stack, endpoint: str, path: str, method: MethodDescriptor) -> None:
    body = request_bytes(method.input_type)
    requests = st.lists(body, min_size=1, max_size=3) if method.client_streaming else body.map(lambda b: [b])

    @_SETTINGS
    @given(payloads=requests)
    def one_call(payloads: list[bytes]) -> None:
        outcome = _call(stack, endpoint, path, method, payloads)
        assert not outcome.startswith("BROKEN"), f"{path}: {outcome}"

    one_call()
    _assert_serving(stack)


@pytest.mark.parametrize(("endpoint", "path", "method"), CASES, ids=[case[1] for case in CASES])
def test_generated_requests_never_break_a_server(
    stack: Stack, endpoint: str, path: str, method: MethodDescriptor
) -> None:
    _fuzz_generated(stack, endpoint, path, method)


@pytest.mark.parametrize(("endpoint", "path", "method"), ALL_CASES, ids=[case[1] for case in ALL_CASES])
def test_undecodable_bytes_are_refused_with_a_reason(
    stack: Stack, endpoint: str, path: str, method: MethodDescriptor
) -> None:
    request_class = message_factory.GetMessageClass(method.input_type)

    @settings(_SETTINGS, max_examples=GARBAGE_PER_RPC)
    @given(raw=garbage())
    def one_call(raw: bytes) -> None:
        try:
            request_class.FromString(raw)
            decodable = True
        except Exception:
            decodable = False
        outcome = _call(stack, endpoint, path, method, [raw])
        assert not outcome.startswith("BROKEN"), f"{path}: {outcome}"
        # Some "garbage" is a valid message (an empty group, unknown fields): then any domain answer is fine.
        assert decodable or outcome == "INVALID_ARGUMENT:MALFORMED_REQUEST", f"{path}: {outcome}"

    one_call()
    _assert_serving(stack)


def test_the_fuzzing_reached_past_validation(stack: Stack) -> None:
    """Guards the generator: every RPC but a few with deeply structured input saw an answer past validation."""
    hard = {
        "/osaurus.memory.v1.MemoryConsoleService/Import",  # JSON lines with a header: see test_fuzz_import.py
        "/osaurus.plugin.v1.PluginHostService/RunAgent",  # every message valid and one from the user
        "/osaurus.plugin.v1.PluginHostService/RunAgentStream",  # the same request as RunAgent
        "/osaurus.plugin.v1.PluginBridgeService/StreamComplete",
    }
    shallow = {
        path
        for _, path, _ in CASES
        if not any(o == "OK" or not o.startswith("INVALID_ARGUMENT") for o in stack.outcomes.get(path, {}))
    }
    assert shallow <= hard, sorted(shallow - hard)


@pytest.mark.parametrize(("endpoint", "path", "method"), ALL_CASES, ids=[case[1] for case in ALL_CASES])
def test_encoder_writes_messages_the_generated_code_reads(
    endpoint: str, path: str, method: MethodDescriptor
) -> None:
    """Guards the strategy: sane, valid-UTF-8 bytes parse as the request type (else nothing deep is tested)."""
    request_class = message_factory.GetMessageClass(method.input_type)

    @settings(_SETTINGS, max_examples=10)
    @given(raw=message_body(method.input_type, Profile(invalid_utf8=False, huge=False, sane=True)))
    def parses(raw: bytes) -> None:
        request_class.FromString(raw)

    parses()


@pytest.mark.parametrize(
    ("endpoint", "path", "method"),
    [case for case in ALL_CASES if case[1] in CONVERTING],
    ids=[case[1] for case in ALL_CASES if case[1] in CONVERTING],
)
def test_zz_generated_conversion_requests_never_break_memoryd(
    stack: Stack, endpoint: str, path: str, method: MethodDescriptor
) -> None:
    """Last in the module (conversions swap the store file; a crash here used to be SIGBUS/SIGSEGV)."""
    _fuzz_generated(stack, endpoint, path, method)
