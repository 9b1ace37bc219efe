"""One tenant's servicers as gRPC method handlers, with the interceptors and error translators that are the
tenant's own (the degraded-store guard and the storage-fault translator follow that tenant's store)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import grpc

from servicekit.errors import ServiceError
from servicekit.interceptors import ErrorTranslator

Handler: TypeAlias = "grpc.RpcMethodHandler[Any, Any]"
Behavior = Callable[..., Any]


@dataclass
class CallDetails:
    """grpc.HandlerCallDetails for a tenant's interceptors (they read `method`)."""

    method: str
    invocation_metadata: tuple[tuple[str, Any], ...]


class _Collector:
    """Stands in for grpc.Server while a generated add_*Servicer_to_server registers its method handlers."""

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}

    def add_generic_rpc_handlers(self, generic_handlers: Sequence[grpc.GenericRpcHandler]) -> None:
        """The same handlers arrive through add_registered_method_handlers (grpcio >= 1.62 generated code)."""

    def add_registered_method_handlers(self, service: str, handlers: Mapping[str, Handler]) -> None:
        for name, handler in handlers.items():
            self.handlers[f"/{service}/{name}"] = handler


def collect_handlers(registers: Sequence[Callable[[grpc.Server], None]]) -> dict[str, Handler]:
    """Full method name → handler, for servicers registered by generated add_*_to_server functions."""
    collector = _Collector()
    for register in registers:
        register(collector)  # type: ignore[arg-type]  # duck-typed: only the two registration methods are used
    if not collector.handlers:
        raise RuntimeError("no method handler was registered (generated code older than grpcio 1.62?)")
    return collector.handlers


@dataclass
class TenantServices:
    """A tenant's method handlers (by full method name), its own interceptors (outermost first) and translators,
    and how to close the service graph behind them."""

    handlers: Mapping[str, Handler]
    close: Callable[[], None]
    interceptors: Sequence[grpc.ServerInterceptor] = field(default_factory=tuple)
    translators: Sequence[ErrorTranslator] = field(default_factory=tuple)
    #: What the handlers serve (memoryd's App), for tests and probes that inspect one tenant.
    owner: object = None

    def handler(self, details: CallDetails) -> Handler | None:
        """The handler for this call, through the tenant's interceptors (which may decide per call)."""
        handler = self.handlers.get(details.method)
        if handler is None:
            return None
        for interceptor in reversed(self.interceptors):
            intercepted = interceptor.intercept_service(_returning(handler), details)
            if intercepted is None:
                return None
            handler = intercepted
        return translated(handler, self.translators) if self.translators else handler


def _returning(handler: Handler) -> Callable[[grpc.HandlerCallDetails], Handler | None]:
    def continuation(_details: grpc.HandlerCallDetails) -> Handler | None:
        return handler

    return continuation


def translated(handler: Handler, translators: Sequence[ErrorTranslator]) -> Handler:
    """The handler, raising the typed error a translator makes of an unexpected exception (a full disk)."""
    for kind in ("unary_unary", "stream_unary"):
        behavior = getattr(handler, kind)
        if behavior is not None:
            return _replace(handler, kind, _unary(behavior, translators))
    for kind in ("unary_stream", "stream_stream"):
        behavior = getattr(handler, kind)
        if behavior is not None:
            return _replace(handler, kind, _stream(behavior, translators))
    return handler


def _replace(handler: Handler, kind: str, behavior: Behavior) -> Handler:
    replaced: Handler = handler._replace(**{kind: behavior})  # type: ignore[attr-defined]
    return replaced


def _typed(error: Exception, translators: Sequence[ErrorTranslator]) -> ServiceError | None:
    if isinstance(error, ServiceError):
        return None
    for translate in translators:
        typed = translate(error)
        if typed is not None:
            return typed
    return None


def _unary(behavior: Behavior, translators: Sequence[ErrorTranslator]) -> Behavior:
    def call(request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return behavior(request, context)
        except Exception as error:
            typed = _typed(error, translators)
            if typed is None:
                raise
            raise typed from error

    return call


def _stream(behavior: Behavior, translators: Sequence[ErrorTranslator]) -> Behavior:
    def call(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from behavior(request, context)
        except Exception as error:
            typed = _typed(error, translators)
            if typed is None:
                raise
            raise typed from error

    return call


__all__ = ["CallDetails", "Handler", "TenantServices", "collect_handlers", "translated"]
