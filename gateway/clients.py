"""The gateway's gRPC peers: grpc.aio channels and stubs for memoryd, inferd and plugin_host, with deadlines."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio

from gateway.config import Deadlines, Settings
from gateway.tenant import tenant_call, with_tenant
from osaurus.inference.v1 import inference_pb2_grpc as ipb_grpc
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from servicekit.interceptors import REQUEST_ID_KEY
from servicekit.server import TRANSPORT_MAX_BYTES

#: Full name of memoryd's ListAgents, for the bytes-in, bytes-out callable.
LIST_AGENTS_METHOD = "/osaurus.memory.v1.MemoryService/ListAgents"
#: Deadline of a call made through these channels without its own `timeout=`.
DEFAULT_DEADLINE_S = 30.0


def _details(
    details: grpc.aio.ClientCallDetails, deadline_s: float, token: str | None
) -> grpc.aio.ClientCallDetails:
    """The call's details with a default deadline, a request id and the bearer token added."""
    metadata = grpc.aio.Metadata(*tuple(details.metadata or ()))
    if metadata.get(REQUEST_ID_KEY) is None:
        metadata.add(REQUEST_ID_KEY, uuid.uuid4().hex[:16])
    if token:
        metadata.add("authorization", f"Bearer {token}")
    timeout = details.timeout if details.timeout is not None else deadline_s
    return grpc.aio.ClientCallDetails(
        details.method, timeout, metadata, details.credentials, details.wait_for_ready
    )


# grpc.aio files an interceptor under the first interface it implements only, so one class per call shape.
class _UnaryDefaults(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, deadline_s: float, token: str | None) -> None:
        self._deadline_s, self._token = deadline_s, token

    async def intercept_unary_unary(
        self, continuation: Callable[..., Awaitable[Any]], details: grpc.aio.ClientCallDetails, request: Any
    ) -> Any:
        return await continuation(_details(details, self._deadline_s, self._token), request)


class _StreamDefaults(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, deadline_s: float, token: str | None) -> None:
        self._deadline_s, self._token = deadline_s, token

    async def intercept_unary_stream(
        self, continuation: Callable[..., Awaitable[Any]], details: grpc.aio.ClientCallDetails, request: Any
    ) -> Any:
        return await continuation(_details(details, self._deadline_s, self._token), request)


def open_channel(
    target: str,
    *,
    deadline_s: float = DEFAULT_DEADLINE_S,
    token: str | None = None,
    credentials: grpc.ChannelCredentials | None = None,
) -> grpc.aio.Channel:
    """A grpc.aio channel; with a token, its calls carry it, a request id and a default deadline (deadline_s).

    Must be called inside the event loop that will use it (grpc.aio channels belong to one loop).
    """
    options = [
        ("grpc.max_receive_message_length", TRANSPORT_MAX_BYTES),
        ("grpc.max_send_message_length", TRANSPORT_MAX_BYTES),
        ("grpc.enable_retries", 0),
    ]
    # Interceptors cost about 0.1 ms a call in grpc.aio (measured, bench_gateway); without a token to add, the
    # gateway's routes pass their own deadline, so the loopback default goes without them.
    interceptors = [_UnaryDefaults(deadline_s, token), _StreamDefaults(deadline_s, token)] if token else None
    if credentials is not None:
        return grpc.aio.secure_channel(target, credentials, options=options, interceptors=interceptors)
    return grpc.aio.insecure_channel(target, options=options, interceptors=interceptors)


@dataclass
class Clients:
    """The gRPC peers of one running gateway, as `request.app.state.clients` in every route handler.

    Fields:
      memory   — memoryd's MemoryService stub (`osaurus.memory.v1.MemoryService`).
      console  — memoryd's ConsoleService stub (`osaurus.memory.v1.MemoryConsoleService`), same channel.
      inference — inferd's InferenceService stub (`osaurus.inference.v1.InferenceService`).
      plugins  — plugin_host's PluginHostService stub (`osaurus.plugin.v1.PluginHostService`).
      list_agents_raw — memoryd's ListAgents taking and returning serialized bytes (the hot GET /agents path
                 caches its JSON by the reply's bytes, so it skips parsing when nothing changed).
      memoryd_channel, inferd_channel, plugin_host_channel — the grpc.aio channels behind them.
      deadlines — the deadlines (seconds) the gateway's own routes pass as `timeout=`.

    Pass a deadline on every call (`await clients.console.Diagnose(cpb.DiagnoseRequest(), timeout=30)`; the
    gateway's routes use `deadlines`). When the services require a bearer token (OSAURUS_AUTH_TOKEN_FILE), the
    channels add it to every call themselves, with an x-request-id and DEFAULT_DEADLINE_S for a call that passes
    no `timeout=`; callers never handle the token. Errors arrive as
    grpc.aio.AioRpcError; raise them unchanged from a route and the gateway's handler answers with the JSON error
    (HTTP status from the gRPC code, ErrorInfo reason). The channels are opened in the app's lifespan, on the
    serving event loop, and closed at shutdown; do not keep them past a request.
    """

    memoryd_channel: grpc.aio.Channel
    inferd_channel: grpc.aio.Channel
    plugin_host_channel: grpc.aio.Channel
    memory: mpb_grpc.MemoryServiceStub
    console: cpb_grpc.MemoryConsoleServiceStub
    inference: ipb_grpc.InferenceServiceStub
    plugins: ppb_grpc.PluginHostServiceStub
    list_agents_raw: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes]
    deadlines: Deadlines

    @classmethod
    def open(cls, settings: Settings) -> Clients:
        """Open the three channels (lazily connecting) with the settings' transport security."""
        transport = settings.transport
        credentials = transport.channel_credentials()

        def channel(target: str) -> grpc.aio.Channel:
            return open_channel(target, token=transport.token, credentials=credentials)

        memoryd = channel(settings.memoryd_addr)
        inferd = channel(settings.inferd_addr)
        plugin_host = channel(settings.plugin_host_addr)
        return cls(
            memoryd_channel=memoryd,
            inferd_channel=inferd,
            plugin_host_channel=plugin_host,
            # memoryd's calls carry the request's X-Osaurus-Tenant (gateway.tenant).
            memory=with_tenant(mpb_grpc.MemoryServiceStub(memoryd)),
            console=with_tenant(cpb_grpc.MemoryConsoleServiceStub(memoryd)),
            inference=ipb_grpc.InferenceServiceStub(inferd),
            # So do agent runs: plugin_host injects and records that tenant's memory.
            plugins=with_tenant(ppb_grpc.PluginHostServiceStub(plugin_host)),
            # No (de)serializers: grpc.aio then passes bytes through unchanged.
            list_agents_raw=tenant_call(memoryd.unary_unary(LIST_AGENTS_METHOD)),
            deadlines=settings.deadlines,
        )

    async def close(self, grace_s: float | None = None) -> None:
        """Close the channels; calls still running get CANCELLED after grace_s."""
        for channel in (self.memoryd_channel, self.inferd_channel, self.plugin_host_channel):
            await channel.close(grace_s)
