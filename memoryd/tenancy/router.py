"""The generic handler that serves every memoryd method: it finds the call's tenant (servicekit.tenancy) and runs
that tenant's handler, holding the tenant open for the length of the call (a stream: until its last message)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import grpc

from memoryd.tenancy.handlers import Behavior, CallDetails, Handler
from memoryd.tenancy.registry import TenantRegistry
from servicekit.errors import UnimplementedError
from servicekit.server import ServiceBinding
from servicekit.tenancy import effective_tenant

_KINDS = ("unary_unary", "unary_stream", "stream_unary", "stream_stream")


class TenantRouter(grpc.GenericRpcHandler):
    """Routes the methods in `templates` (the default tenant's handlers: every tenant has the same methods, with
    the same message types) to the calling tenant's handler."""

    def __init__(self, registry: TenantRegistry, templates: Mapping[str, Handler]) -> None:
        self._routed = {method: _routed(registry, method, handler) for method, handler in templates.items()}

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Handler | None:
        return self._routed.get(handler_call_details.method)


def _routed(registry: TenantRegistry, method: str, template: Handler) -> Handler:
    kind = next(k for k in _KINDS if getattr(template, k) is not None)
    streaming_out = kind.endswith("_stream")

    def tenant_handler(
        context: grpc.ServicerContext, services_handler: Callable[[CallDetails], Handler | None]
    ) -> Behavior:
        handler = services_handler(CallDetails(method, tuple(context.invocation_metadata() or ())))
        behavior = None if handler is None else getattr(handler, kind)
        if behavior is None:
            raise UnimplementedError("METHOD_NOT_FOUND", f"{method} is not served for this tenant")
        return behavior  # type: ignore[no-any-return]

    def unary(request: Any, context: grpc.ServicerContext) -> Any:
        with registry.use(effective_tenant(context.invocation_metadata())) as services:
            return tenant_handler(context, services.handler)(request, context)

    def stream(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        with registry.use(effective_tenant(context.invocation_metadata())) as services:
            yield from tenant_handler(context, services.handler)(request, context)

    replaced: Handler = template._replace(**{kind: stream if streaming_out else unary})  # type: ignore[attr-defined]
    return replaced


def routed_bindings(registry: TenantRegistry, services: Sequence[str]) -> list[ServiceBinding]:
    """One binding per service (full proto name), its methods routed by tenant; the default tenant's handlers are
    the templates."""
    templates = registry.default.handlers

    def binding(service: str) -> ServiceBinding:
        prefix = f"/{service}/"
        router = TenantRouter(registry, {m: h for m, h in templates.items() if m.startswith(prefix)})
        return ServiceBinding(service, lambda server: server.add_generic_rpc_handlers((router,)))

    return [binding(service) for service in services]


__all__ = ["TenantRouter", "routed_bindings"]
