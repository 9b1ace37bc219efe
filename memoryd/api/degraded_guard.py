"""Refuses memory-changing RPCs with FAILED_PRECONDITION (STORE_DEGRADED) while the store is degraded, and turns
a call that a live store swap cut short into UNAVAILABLE (retryable) instead of INTERNAL.

Reads keep working against the empty scratch store (so they return nothing); Diagnose, RecoverStore and the
configuration RPCs are never refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc

from memoryd.storage.guarded import StoreOfflineError, StoreSwappedError
from servicekit.errors import UnavailableError

#: What a client should wait before retrying a call cut short by a store swap.
SWAP_RETRY_AFTER_S = 0.5

_MEMORY = "/osaurus.memory.v1.MemoryService/"
_CONSOLE = "/osaurus.memory.v1.MemoryConsoleService/"

#: Every RPC that writes to the store (or converts it).
WRITE_METHODS = frozenset(
    [
        *(
            _MEMORY + name
            for name in (
                "BufferTurn",
                "EndSession",
                "Ingest",
                "SyncNow",
                "UpsertAgent",
                "DeleteAgent",
                "AddOverride",
                "RemoveOverride",
                "RunConsolidation",
            )
        ),
        *(
            _CONSOLE + name
            for name in (
                "Disable",
                "Enable",
                "Forget",
                "ClearAll",
                "Import",
                "Reindex",
                "SetEncryption",
                "RotateKey",
            )
        ),
    ]
)


def swap_unavailable(error: Exception) -> UnavailableError:
    """UNAVAILABLE with a reason and RetryInfo for a call a conversion or recovery cut short (nothing was written)."""
    if isinstance(error, StoreOfflineError):
        return UnavailableError(
            "STORE_OFFLINE",
            "the memory store is being converted or recovered; retry shortly",
            retry_after_s=SWAP_RETRY_AFTER_S,
        )
    return UnavailableError(
        "STORE_SWAPPED",
        "the memory store was swapped (encryption change or recovery) during the call; retry",
        retry_after_s=SWAP_RETRY_AFTER_S,
    )


_SWAP_ERRORS = (StoreSwappedError, StoreOfflineError)


def _mapped_unary(behavior: Callable[[Any, grpc.ServicerContext], Any]) -> Callable[..., Any]:
    def call(request: Any, context: grpc.ServicerContext) -> Any:
        try:
            return behavior(request, context)
        except _SWAP_ERRORS as error:
            raise swap_unavailable(error) from error

    return call


def _mapped_stream(behavior: Callable[[Any, grpc.ServicerContext], Iterator[Any]]) -> Callable[..., Any]:
    def call(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        try:
            yield from behavior(request, context)
        except _SWAP_ERRORS as error:
            raise swap_unavailable(error) from error

    return call


def map_swap_errors(handler: grpc.RpcMethodHandler[Any, Any]) -> grpc.RpcMethodHandler[Any, Any]:
    """The same handler, raising UNAVAILABLE (STORE_SWAPPED / STORE_OFFLINE) for a call cut short by a swap."""
    changes: dict[str, Any] = {}
    for kind in ("unary_unary", "stream_unary"):
        behavior = getattr(handler, kind)
        if behavior is not None:
            changes[kind] = _mapped_unary(behavior)
    for kind in ("unary_stream", "stream_stream"):
        behavior = getattr(handler, kind)
        if behavior is not None:
            changes[kind] = _mapped_stream(behavior)
    replaced: grpc.RpcMethodHandler[Any, Any] = handler._replace(**changes)  # type: ignore[attr-defined]
    return replaced


class DegradedStoreGuard(grpc.ServerInterceptor):
    """Swaps the handler of a write RPC for one that raises `refusal()` while `is_degraded()` is true, and maps
    every RPC's swap errors (memoryd.storage.guarded.StoreSwappedError, StoreOfflineError) to UNAVAILABLE.

    It sits inside the error-mapping interceptor, so the raised ServiceError becomes a status with ErrorInfo.
    """

    def __init__(self, is_degraded: Callable[[], bool], refusal: Callable[[], Exception]) -> None:
        self._is_degraded = is_degraded
        self._refusal = refusal
        #: method -> (the handler seen, its swap-mapped copy); handlers are built once per server.
        self._mapped: dict[str, tuple[grpc.RpcMethodHandler[Any, Any], grpc.RpcMethodHandler[Any, Any]]] = {}

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        if handler_call_details.method not in WRITE_METHODS or not self._is_degraded():
            cached = self._mapped.get(handler_call_details.method)
            if cached is not None and cached[0] is handler:
                return cached[1]
            mapped = map_swap_errors(handler)
            self._mapped[handler_call_details.method] = (handler, mapped)
            return mapped

        def refuse(request: Any, context: grpc.ServicerContext) -> Any:
            raise self._refusal()

        kind = "unary_unary" if handler.unary_unary is not None else "stream_unary"
        if handler.unary_stream is not None:
            kind = "unary_stream"
        replaced: grpc.RpcMethodHandler[Any, Any] = handler._replace(**{kind: refuse})  # type: ignore[attr-defined]
        return replaced


__all__ = ["SWAP_RETRY_AFTER_S", "WRITE_METHODS", "DegradedStoreGuard", "map_swap_errors", "swap_unavailable"]
