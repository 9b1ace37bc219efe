"""Client channels with a default deadline, message-size limits, request ids and typed errors."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import grpc

from servicekit.errors import ServiceError, from_rpc_error
from servicekit.interceptors import REQUEST_ID_KEY, request_id_var
from servicekit.server import TRANSPORT_MAX_BYTES
from servicekit.tenancy import TENANT_METADATA_KEY, check_tenant

#: Deadline applied to every call that does not set its own.
DEFAULT_DEADLINE_S = 10.0


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
    """Adds the default deadline, the bearer token, the tenant and a request id (propagated from the serving
    call)."""

    def __init__(self, deadline_s: float, token: str | None, tenant: str | None = None) -> None:
        self._deadline_s = deadline_s
        self._token = token
        self._tenant = tenant

    def _details(self, details: grpc.ClientCallDetails) -> _CallDetails:
        metadata = list(details.metadata or ())
        if not any(key == REQUEST_ID_KEY for key, _ in metadata):
            current = request_id_var.get()
            metadata.append((REQUEST_ID_KEY, current if current != "-" else uuid.uuid4().hex[:16]))
        if self._token:
            metadata.append(("authorization", f"Bearer {self._token}"))
        if self._tenant and not any(key == TENANT_METADATA_KEY for key, _ in metadata):
            metadata.append((TENANT_METADATA_KEY, self._tenant))
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
    tenant: str | None = None,
) -> grpc.Channel:
    """Open a channel whose calls carry a default deadline, a request id and (optionally) a bearer token and a
    tenant (x-osaurus-tenant; servicekit.tenancy); a bad tenant id raises InvalidArgumentError at once."""
    if tenant is not None:
        check_tenant(tenant)
    options = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.enable_retries", 0),
    ]
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


__all__ = ["DEFAULT_DEADLINE_S", "ServiceError", "make_channel", "typed_errors"]
