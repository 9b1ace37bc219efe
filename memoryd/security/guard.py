"""Refuses memory-changing RPCs with FAILED_PRECONDITION (STORE_DEGRADED) while the store is degraded.

Reads keep working against the empty scratch store (so they return nothing); Diagnose, RecoverStore and the
configuration RPCs are never refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc

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


class DegradedStoreGuard(grpc.ServerInterceptor):
    """Swaps the handler of a write RPC for one that raises `refusal()` while `is_degraded()` is true.

    It sits inside the error-mapping interceptor, so the raised ServiceError becomes a status with ErrorInfo.
    """

    def __init__(self, is_degraded: Callable[[], bool], refusal: Callable[[], Exception]) -> None:
        self._is_degraded = is_degraded
        self._refusal = refusal

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = continuation(handler_call_details)
        if handler is None or handler_call_details.method not in WRITE_METHODS or not self._is_degraded():
            return handler

        def refuse(request: Any, context: grpc.ServicerContext) -> Any:
            raise self._refusal()

        kind = "unary_unary" if handler.unary_unary is not None else "stream_unary"
        if handler.unary_stream is not None:
            kind = "unary_stream"
        replaced: grpc.RpcMethodHandler[Any, Any] = handler._replace(**{kind: refuse})  # type: ignore[attr-defined]
        return replaced


__all__ = ["WRITE_METHODS", "DegradedStoreGuard"]
