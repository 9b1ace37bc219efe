"""Server builder: interceptors, per-service health, reflection, bind policy and graceful shutdown on signals."""

from __future__ import annotations

import ipaddress
import logging
import signal
import threading
from collections.abc import Callable, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from types import FrameType

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from servicekit.interceptors import (
    AccessLogInterceptor,
    BearerTokenInterceptor,
    ErrorMappingInterceptor,
    ErrorTranslator,
)
from servicekit.reflection import enable_commented_reflection
from servicekit.tenant_tokens import TenantToken

_log = logging.getLogger("servicekit.server")

#: Largest request a handler sees; bigger ones get RESOURCE_EXHAUSTED with reason MESSAGE_TOO_LARGE.
DEFAULT_MAX_REQUEST_BYTES = 8 * 1024 * 1024
#: gRPC's own transport limit, above ours so that our interceptor (not the core) answers with a reason.
TRANSPORT_MAX_BYTES = 64 * 1024 * 1024


class InsecureBindError(RuntimeError):
    """Binding a non-loopback address without TLS or a bearer token."""


@dataclass(frozen=True)
class ServiceBinding:
    """One servicer to host: its full proto name (for health and reflection) and how to register it."""

    name: str
    register: Callable[[grpc.Server], None]


@dataclass
class ServerOptions:
    """How to expose a server. Only loopback and unix sockets may go without TLS or a token."""

    address: str
    domain: str
    max_workers: int = 16
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    tls: grpc.ServerCredentials | None = None
    auth_token: str | None = None
    #: A second token that alone may call the methods under admin_prefixes (the console); see BearerTokenInterceptor.
    admin_token: str | None = None
    admin_prefixes: Sequence[str] = field(default_factory=tuple)
    #: Tokens bound to one tenant each (servicekit.tenant_tokens); see BearerTokenInterceptor.
    tenant_tokens: Sequence[TenantToken] = field(default_factory=tuple)
    extra_interceptors: Sequence[grpc.ServerInterceptor] = field(default_factory=tuple)
    #: Map exceptions a handler did not expect to typed errors before they count as INTERNAL (storage faults).
    error_translators: Sequence[ErrorTranslator] = field(default_factory=tuple)


@dataclass
class RunningServer:
    """A started server and the handles needed to flip health and stop it."""

    server: grpc.Server
    address: str
    port: int
    health: health.HealthServicer
    services: tuple[str, ...]
    #: The pool that runs the handlers; stop() retires its threads (see there).
    executor: futures.ThreadPoolExecutor | None = None

    @property
    def target(self) -> str:
        """Address clients dial, with the real port when 0 was asked for."""
        if self.address.startswith("unix:"):
            return self.address
        host = self.address.rsplit(":", 1)[0]
        return f"{host}:{self.port}"

    def set_serving(self, serving: bool, service: str | None = None) -> None:
        """Flip health for one service, or for all and the server as a whole."""
        status = (
            health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        names = [service] if service is not None else ["", *self.services]
        for name in names:
            self.health.set(name, status)

    def stop(self, grace_s: float = 10.0) -> None:
        """Mark not serving, refuse new calls, let in-flight calls finish within grace_s, then retire the handler
        threads: the idle ones end now, a busy one when its handler returns (see join_handlers)."""
        self.set_serving(False)
        self.server.stop(grace_s).wait()
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)

    def join_handlers(self, timeout_s: float = 10.0) -> bool:
        """Wait up to timeout_s for every handler thread to end (after stop(), and after whatever unblocks busy
        handlers); False if one is still running then.

        Why: a handler thread left to the interpreter's exit ends while the interpreter is finalizing. If it ever
        touched MLX, MLX's thread-local clean-up then asks for the GIL, which a finalizing interpreter refuses by
        ending the thread from inside a C++ destructor: std::terminate, exit code 134 ("terminate called without
        an active exception"). A standalone inferd that had cold-loaded its LLM on a request (so on a handler
        thread) aborted that way on 2 of 10 SIGTERM stops, and 0 of 12 with this. Ended here, the clean-up runs while
        Python is fully alive.
        """
        if self.executor is None:
            return True
        waiter = threading.Thread(
            target=self.executor.shutdown, kwargs={"wait": True, "cancel_futures": True}, daemon=True
        )
        waiter.start()
        waiter.join(timeout_s)
        if waiter.is_alive():
            _log.warning("a request handler was still running %.0fs after the server stopped", timeout_s)
            return False
        return True


def is_loopback(address: str) -> bool:
    """True for unix sockets and 127.0.0.0/8, ::1 or localhost addresses."""
    if address.startswith(("unix:", "unix-abstract:")):
        return True
    host = address.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def build_server(options: ServerOptions, services: Sequence[ServiceBinding]) -> RunningServer:
    """Create, bind and start a server with health, reflection and the standard interceptors."""
    has_token = bool(options.auth_token or options.tenant_tokens)
    if not is_loopback(options.address) and options.tls is None and not has_token:
        raise InsecureBindError(
            f"refusing to bind non-loopback address {options.address} without TLS or a bearer token; "
            "configure TLS (OSAURUS_TLS_CERT/OSAURUS_TLS_KEY) or OSAURUS_AUTH_TOKEN_FILE, or bind 127.0.0.1"
        )
    interceptors: list[grpc.ServerInterceptor] = [AccessLogInterceptor()]
    if options.auth_token or options.admin_token or options.tenant_tokens:
        interceptors.append(
            BearerTokenInterceptor(
                options.auth_token,
                options.domain,
                admin_token=options.admin_token,
                admin_prefixes=options.admin_prefixes,
                tenant_tokens=options.tenant_tokens,
            )
        )
    interceptors.append(
        ErrorMappingInterceptor(options.domain, options.max_request_bytes, options.error_translators)
    )
    interceptors.extend(options.extra_interceptors)
    executor = futures.ThreadPoolExecutor(max_workers=options.max_workers, thread_name_prefix=options.domain)
    server = grpc.server(
        executor,
        interceptors=interceptors,
        options=[
            ("grpc.max_receive_message_length", TRANSPORT_MAX_BYTES),
            ("grpc.max_send_message_length", TRANSPORT_MAX_BYTES),
            ("grpc.so_reuseport", 0),
        ],
    )
    health_servicer = health.HealthServicer(experimental_non_blocking=True)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = tuple(binding.name for binding in services)
    for binding in services:
        binding.register(server)
    enable_commented_reflection((*names, health.SERVICE_NAME), server)
    if options.tls is not None:
        port = server.add_secure_port(options.address, options.tls)
    else:
        port = server.add_insecure_port(options.address)
    if port == 0 and not options.address.startswith("unix"):
        raise OSError(f"could not bind {options.address}")
    server.start()
    running = RunningServer(server, options.address, port, health_servicer, names, executor)
    running.set_serving(True)
    _log.info("serving %s on %s", ", ".join(names), running.target)
    return running


def serve_until_signal(
    running: RunningServer, grace_s: float = 10.0, on_stop: Callable[[], None] | None = None
) -> None:
    """Block until SIGINT or SIGTERM, then stop gracefully (health NOT_SERVING first) and run on_stop."""
    stop_requested = threading.Event()

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        _log.info("signal %s received; stopping (grace %.0fs)", signal.Signals(signum).name, grace_s)
        stop_requested.set()

    previous = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        stop_requested.wait()
        running.stop(grace_s)
        if on_stop is not None:
            on_stop()
        running.join_handlers(grace_s)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
