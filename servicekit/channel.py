"""Client channels with a default deadline, message-size limits, request ids and typed errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import grpc

from servicekit.errors import ServiceError, from_rpc_error
from servicekit.interceptors import REQUEST_ID_KEY, new_request_id, request_id_var
from servicekit.server import TRANSPORT_MAX_BYTES
from servicekit.tenancy import TENANT_METADATA_KEY, call_tenant_var, check_tenant

#: Deadline applied to every call that does not set its own.
DEFAULT_DEADLINE_S = 10.0
#: gRPC's client-side balancer that spreads calls over every address of the target (one subchannel each).
ROUND_ROBIN = "round_robin"


def balanced_target(target: str) -> str:
    """A gRPC target for several replicas: "host1:port1,host2:port2" of IP literals becomes gRPC's
    "ipv4:" / "ipv6:" address list; a single address or a name (resolved by DNS, whose every A record becomes a
    subchannel: "dns:///memoryd:50061") is returned unchanged."""
    parts = [part.strip() for part in target.split(",") if part.strip()]
    if len(parts) < 2:
        return target
    if all(part.startswith("[") for part in parts):
        return "ipv6:" + ",".join(parts)
    return "ipv4:" + ",".join(parts)


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: Any
    wait_for_ready: Any
    compression: Any


class _DefaultsInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds the default deadline, the bearer token, the tenant (the channel's own, else the calls_for_tenant
    block's: servicekit.tenancy) and a request id (propagated from the serving call)."""

    def __init__(self, deadline_s: float, token: str | None, tenant: str | None = None) -> None:
        self._deadline_s = deadline_s
        self._token = token
        self._tenant = tenant

    def _details(self, details: grpc.ClientCallDetails) -> _CallDetails:
        metadata = list(details.metadata or ())
        if not any(key == REQUEST_ID_KEY for key, _ in metadata):
            current = request_id_var.get()
            metadata.append((REQUEST_ID_KEY, current if current != "-" else new_request_id()))
        if self._token:
            metadata.append(("authorization", f"Bearer {self._token}"))
        tenant = self._tenant or call_tenant_var.get()
        if tenant and not any(key == TENANT_METADATA_KEY for key, _ in metadata):
            metadata.append((TENANT_METADATA_KEY, tenant))
        timeout = details.timeout if details.timeout is not None else self._deadline_s
        return _CallDetails(
            details.method,
            timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Callable[..., Any], details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation: Callable[..., Any], details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation: Callable[..., Any], details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)


def make_channel(
    target: str,
    *,
    deadline_s: float = DEFAULT_DEADLINE_S,
    credentials: grpc.ChannelCredentials | None = None,
    token: str | None = None,
    max_message_bytes: int = TRANSPORT_MAX_BYTES,
    lb_policy: str | None = None,
    tenant: str | None = None,
) -> grpc.Channel:
    """Open a channel whose calls carry a default deadline, a request id and (optionally) a bearer token and a
    tenant (x-osaurus-tenant; servicekit.tenancy); a bad tenant id raises InvalidArgumentError at once.

    `lb_policy` ROUND_ROBIN spreads calls over every address of the target (see balanced_target); by default gRPC
    picks the first address that answers and keeps it (pick_first)."""
    if tenant is not None:
        check_tenant(tenant)
    options: list[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.enable_retries", 0),
    ]
    if lb_policy is not None:
        options.append(("grpc.lb_policy_name", lb_policy))
        target = balanced_target(target)
    if credentials is not None:
        channel = grpc.secure_channel(target, credentials, options=options)
    else:
        channel = grpc.insecure_channel(target, options=options)
    return grpc.intercept_channel(channel, _DefaultsInterceptor(deadline_s, token, tenant))


@contextmanager
def typed_errors() -> Iterator[None]:
    """Re-raise RpcErrors from the block as the matching typed ServiceError."""
    try:
        yield
    except grpc.RpcError as error:
        raise from_rpc_error(error) from error


__all__ = [
    "DEFAULT_DEADLINE_S",
    "ROUND_ROBIN",
    "ServiceError",
    "balanced_target",
    "make_channel",
    "typed_errors",
]
