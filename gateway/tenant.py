"""X-Osaurus-Tenant: the HTTP caller's tenant, forwarded to memoryd as x-osaurus-tenant on every call.

The Guard validates the header (servicekit.tenancy's rule; a bad one is 400 INVALID_TENANT) and keeps it in
`tenant_var` for the request; the memoryd stubs (Clients.open) add it to each call's metadata. Absent = the default
tenant, exactly as before. Per call, not per channel: one gateway serves every tenant over one channel.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar

import grpc

from gateway.errors import GatewayError
from servicekit.tenancy import DEFAULT_TENANT, MAX_TENANT_CHARS, TENANT_METADATA_KEY, is_valid_tenant

TENANT_HEADER = "X-Osaurus-Tenant"
_HEADER_KEY = TENANT_HEADER.lower().encode()

#: The tenant the request being served named (None: the default tenant).
tenant_var: ContextVar[str | None] = ContextVar("gateway_tenant", default=None)

Stub = TypeVar("Stub")


def tenant_of(headers: dict[bytes, bytes]) -> str | None:
    """The tenant X-Osaurus-Tenant names (None for none or `default`); GatewayError INVALID_TENANT when invalid."""
    raw = headers.get(_HEADER_KEY)
    if raw is None or not raw.strip():
        return None
    value = raw.decode("latin-1").strip()
    if not is_valid_tenant(value):
        raise GatewayError(
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_TENANT",
            f"{TENANT_HEADER} must be 1-{MAX_TENANT_CHARS} characters of a-z, 0-9, '_' and '-', starting with a "
            "letter or digit",
        )
    return None if value == DEFAULT_TENANT else value


class _TenantCall:
    """A multicallable whose calls carry the request's tenant."""

    def __init__(self, call: Callable[..., Any]) -> None:
        self._call = call

    def __call__(self, request: Any, *args: Any, metadata: Any = None, **kwargs: Any) -> Any:
        tenant = tenant_var.get()
        if tenant is not None:
            metadata = (*(metadata or ()), (TENANT_METADATA_KEY, tenant))
        return self._call(request, *args, metadata=metadata, **kwargs)


def tenant_call(call: Callable[..., Any]) -> Any:
    """`call` (a grpc.aio multicallable), adding the request's tenant to its metadata."""
    return _TenantCall(call)


def with_tenant(stub: Stub) -> Stub:
    """The stub with every method adding the request's tenant to its metadata (a few µs; no interceptor)."""
    for name, call in list(vars(stub).items()):
        if callable(call):
            setattr(stub, name, _TenantCall(call))
    return stub


__all__ = ["TENANT_HEADER", "tenant_call", "tenant_of", "tenant_var", "with_tenant"]
