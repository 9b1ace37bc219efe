"""Server interceptors: safe decoding, error mapping to AIP-193 status, access log with request ids, bearer auth."""

from __future__ import annotations

import hmac
import logging
import os
import random
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

import grpc

from servicekit.errors import (
    DeadlineExceededError,
    InternalError,
    InvalidArgumentError,
    PermissionDeniedError,
    ResourceExhaustedError,
    ServiceError,
    UnauthenticatedError,
)
from servicekit.tenancy import TENANT_METADATA_KEY, bound_tenant_var, requested_tenant
from servicekit.tenant_tokens import TenantToken

#: The request id of the call being served, for log records.
request_id_var: ContextVar[str] = ContextVar("request_id", default="-")

REQUEST_ID_KEY = "x-request-id"
#: Request ids come from one generator seeded once from the OS. uuid4 read os.urandom on every call, and that call
#: lets go of the GIL: on a helper thread sending the query embedding while other threads run Python it waited to take
#: the GIL back before the request was even sent (issue 17 item 4: probe_fastctx7_embed's RPC under a busy thread,
#: p50 25.1 → 24.1 ms). A correlation id for logs, never a secret.
_ids = random.Random(os.urandom(32))
os.register_at_fork(
    after_in_child=lambda: _ids.seed(os.urandom(32))
)  # a forked child never repeats its parent's


def new_request_id() -> str:
    """16 lowercase hex digits (64 random bits), as uuid4().hex[:16] gave; no system call, safe on any thread."""
    return f"{_ids.getrandbits(64):016x}"


_log = logging.getLogger("servicekit.access")
_err_log = logging.getLogger("servicekit.errors")

Behavior = Callable[..., Any]
#: Turns an exception a handler did not expect into a typed error (for example a full disk), or None: still a bug.
ErrorTranslator = Callable[[BaseException], "ServiceError | None"]


class _Undecodable:
    """Stands in for a request whose bytes could not be decoded, so the handler can answer with a reason."""

    def __init__(self, error: ServiceError) -> None:
        self.error = error


def _safe_deserializer(
    deserialize: Callable[[bytes], Any] | None, max_request_bytes: int
) -> Callable[[bytes], Any] | None:
    if deserialize is None:
        return None

    def decode(raw: bytes) -> Any:
        if len(raw) > max_request_bytes:
            return _Undecodable(
                ResourceExhaustedError(
                    "MESSAGE_TOO_LARGE",
                    f"request message is {len(raw)} bytes; the limit is {max_request_bytes}",
                    metadata={"limit_bytes": str(max_request_bytes)},
                )
            )
        try:
            return deserialize(raw)
        except Exception:
            return _Undecodable(
                InvalidArgumentError("MALFORMED_REQUEST", "request bytes are not a valid message")
            )

    return decode


def _check_request(request: Any) -> Any:
    if isinstance(request, _Undecodable):
        raise request.error
    return request


def _checked_stream(requests: Iterator[Any]) -> Iterator[Any]:
    for request in requests:
        yield _check_request(request)


def _handler_replace(
    handler: grpc.RpcMethodHandler[Any, Any], **changes: Any
) -> grpc.RpcMethodHandler[Any, Any]:
    # The stub declares an abstract class; grpc's handlers are namedtuples (_RPCMethodHandler) with _replace.
    return handler._replace(**changes)  # type: ignore[attr-defined, no-any-return]


def _status_code(context: grpc.ServicerContext) -> grpc.StatusCode | None:
    """The code the handler set or aborted with, None while it has set none."""
    # ServicerContext.code() exists since grpcio 1.38; types-grpcio does not declare it yet.
    code: object = context.code()  # type: ignore[attr-defined]
    return code if isinstance(code, grpc.StatusCode) else None


def _has_status(context: grpc.ServicerContext) -> bool:
    """True when the handler already aborted (context.abort raises a bare Exception)."""
    code = _status_code(context)
    return code is not None and code != grpc.StatusCode.OK


class ErrorMappingInterceptor(grpc.ServerInterceptor):
    """Maps typed ServiceErrors (and decode failures) to status + ErrorInfo; unexpected exceptions to INTERNAL.

    It also guards decoding: undecodable or oversized request bytes become INVALID_ARGUMENT / RESOURCE_EXHAUSTED
    with a reason instead of gRPC's bare INTERNAL, and it refuses work whose deadline has already passed.
    """

    def __init__(
        self, domain: str, max_request_bytes: int, translators: Sequence[ErrorTranslator] = ()
    ) -> None:
        self._domain = domain
        self._max_request_bytes = max_request_bytes
        self._translators = tuple(translators)

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        changes: dict[str, Any] = {
            "request_deserializer": _safe_deserializer(handler.request_deserializer, self._max_request_bytes)
        }
        if handler.unary_unary is not None:
            changes["unary_unary"] = self._wrap_unary(handler.unary_unary, method, stream_in=False)
        elif handler.unary_stream is not None:
            changes["unary_stream"] = self._wrap_stream(handler.unary_stream, method, stream_in=False)
        elif handler.stream_unary is not None:
            changes["stream_unary"] = self._wrap_unary(handler.stream_unary, method, stream_in=True)
        elif handler.stream_stream is not None:
            changes["stream_stream"] = self._wrap_stream(handler.stream_stream, method, stream_in=True)
        return _handler_replace(handler, **changes)

    def _prepare(self, request: Any, context: grpc.ServicerContext, stream_in: bool) -> Any:
        remaining = context.time_remaining()
        if remaining is not None and remaining <= 0:
            raise DeadlineExceededError("DEADLINE_PASSED", "the deadline passed before the call started")
        return _checked_stream(request) if stream_in else _check_request(request)

    def _abort(self, error: BaseException, context: grpc.ServicerContext, method: str) -> None:
        if isinstance(error, ServiceError):
            context.abort_with_status(error.to_grpc_status(self._domain))
        if _has_status(context):
            raise error
        for translate in self._translators:
            try:
                typed = translate(error)
            except Exception as failure:  # a broken translator must not hide the original error
                _err_log.error("error translator failed: %s", type(failure).__name__)
                typed = None
            if typed is not None:
                _err_log.warning(
                    "%s in %s: %s (request %s)", typed.reason, method, typed.message, request_id_var.get()
                )
                context.abort_with_status(typed.to_grpc_status(self._domain))
        # A bug. The exception's text may quote memory content, so ERROR names only its type and place;
        # the full traceback goes to DEBUG.
        frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
        where = f"{frame.filename}:{frame.lineno}" if frame else "?"
        _err_log.error(
            "unhandled %s in %s at %s (request %s)", type(error).__name__, method, where, request_id_var.get()
        )
        _err_log.debug("traceback of request %s", request_id_var.get(), exc_info=error)
        internal = InternalError(
            "INTERNAL_ERROR", f"internal error; see server log for request {request_id_var.get()}"
        )
        context.abort_with_status(internal.to_grpc_status(self._domain))

    def _wrap_unary(self, behavior: Behavior, method: str, stream_in: bool) -> Behavior:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                return behavior(self._prepare(request, context, stream_in), context)
            except Exception as error:
                self._abort(error, context, method)
                raise  # unreachable: abort raises

        return wrapped

    def _wrap_stream(self, behavior: Behavior, method: str, stream_in: bool) -> Behavior:
        def wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            try:
                yield from behavior(self._prepare(request, context, stream_in), context)
            except Exception as error:
                self._abort(error, context, method)
                raise

        return wrapped


class AccessLogInterceptor(grpc.ServerInterceptor):
    """Gives each call a request id (from x-request-id or new), returns it as trailing metadata, logs one line.

    The line carries method, status code, duration and request id: never request or response content.
    """

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method = handler_call_details.method
        incoming = dict(handler_call_details.invocation_metadata or ())
        supplied = str(incoming.get(REQUEST_ID_KEY, ""))[:64]
        for kind in ("unary_unary", "unary_stream", "stream_unary", "stream_stream"):
            behavior = getattr(handler, kind)
            if behavior is not None:
                streaming = kind.endswith("_stream")
                return _handler_replace(handler, **{kind: _logged(behavior, method, supplied, streaming)})
        return handler


def _logged(behavior: Behavior, method: str, supplied_id: str, streaming: bool) -> Behavior:
    def begin(context: grpc.ServicerContext) -> tuple[str, float, Any]:
        request_id = supplied_id or new_request_id()
        token = request_id_var.set(request_id)
        context.set_trailing_metadata(((REQUEST_ID_KEY, request_id),))
        return request_id, time.perf_counter(), token

    def end(context: grpc.ServicerContext, started: float, token: Any, failed: bool) -> None:
        code = _status_code(context) if failed else None
        name = code.name if code is not None else ("UNKNOWN" if failed else "OK")
        _log.info("%s %s %.1fms", method, name, (time.perf_counter() - started) * 1000)
        request_id_var.reset(token)

    if streaming:

        def stream_wrapped(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            _, started, token = begin(context)
            failed = False
            try:
                yield from behavior(request, context)
            except BaseException:
                failed = True
                raise
            finally:
                end(context, started, token, failed)

        return stream_wrapped

    def unary_wrapped(request: Any, context: grpc.ServicerContext) -> Any:
        _, started, token = begin(context)
        failed = False
        try:
            return behavior(request, context)
        except BaseException:
            failed = True
            raise
        finally:
            end(context, started, token, failed)

    return unary_wrapped


class BearerTokenInterceptor(grpc.ServerInterceptor):
    """Requires `authorization: Bearer <token>` on every call except health checks; constant-time comparison.

    With an admin token, methods under `admin_prefixes` (a console service) take only the admin token, answering
    PERMISSION_DENIED (ADMIN_TOKEN_REQUIRED) to the runtime one; every other method takes either. Without a runtime
    token (loopback only) the other methods are open and only the admin methods need a token.

    Tenant-bound tokens (servicekit.tenant_tokens) are accepted too, each for its tenant only: a call naming another
    tenant in x-osaurus-tenant is PERMISSION_DENIED (TENANT_NOT_ALLOWED), and the handler runs with the token's
    tenant in servicekit.tenancy.bound_tenant_var. With bound tokens configured no method is open without a token.
    """

    _OPEN_METHODS = frozenset({"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"})

    def __init__(
        self,
        token: str | None,
        domain: str,
        *,
        admin_token: str | None = None,
        admin_prefixes: Sequence[str] = (),
        tenant_tokens: Sequence[TenantToken] = (),
    ) -> None:
        self._expected = f"Bearer {token}".encode() if token else None
        self._admin = f"Bearer {admin_token}".encode() if admin_token else None
        self._admin_prefixes = tuple(admin_prefixes) if admin_token else ()
        self._bound = tuple((f"Bearer {bound.token}".encode(), bound) for bound in tenant_tokens)
        self._open = self._expected is None and not self._bound
        self._domain = domain

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler[Any, Any] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        method = handler_call_details.method
        if method in self._OPEN_METHODS:
            return continuation(handler_call_details)
        metadata = tuple(handler_call_details.invocation_metadata or ())
        supplied = str(dict(metadata).get("authorization", "")).encode()
        # Every comparison always runs: the time taken says nothing about which token was close.
        is_admin = self._admin is not None and hmac.compare_digest(supplied, self._admin)
        is_runtime = self._expected is not None and hmac.compare_digest(supplied, self._expected)
        bound: TenantToken | None = None
        for expected, entry in self._bound:
            if hmac.compare_digest(supplied, expected):
                bound = entry
        error: ServiceError | None = None
        if self._admin_prefixes and method.startswith(self._admin_prefixes):
            if not (is_admin or (bound is not None and bound.admin)):
                error = (
                    PermissionDeniedError("ADMIN_TOKEN_REQUIRED", "this method needs the admin token")
                    if is_runtime or bound is not None
                    else UnauthenticatedError("BAD_TOKEN", "missing or wrong admin bearer token")
                )
        elif not (is_admin or is_runtime or bound is not None or self._open):
            error = UnauthenticatedError("BAD_TOKEN", "missing or wrong bearer token")
        if error is None and bound is not None:
            error = _tenant_refusal(metadata, bound.tenant)
            if error is None:
                handler = continuation(handler_call_details)
                return None if handler is None else _with_bound_tenant(handler, bound.tenant)
        if error is None:
            return continuation(handler_call_details)
        status = error.to_grpc_status(self._domain)

        def deny(requests: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            # The empty yield makes this a generator, the shape gRPC drives for stream_stream; abort raises.
            yield from ()
            context.abort_with_status(status)

        # stream_stream fits every client call shape; the request bytes are never decoded.
        return grpc.stream_stream_rpc_method_handler(deny)


def _tenant_refusal(metadata: Sequence[tuple[str, Any]], tenant: str) -> ServiceError | None:
    """Why a token bound to `tenant` may not make this call (an invalid or another tenant named), or None."""
    try:
        requested = requested_tenant(metadata)
    except ServiceError as error:
        return error
    if requested is not None and requested != tenant:
        return PermissionDeniedError(
            "TENANT_NOT_ALLOWED",
            "this token is bound to another tenant",
            metadata={"key": TENANT_METADATA_KEY},
        )
    return None


def _with_bound_tenant(
    handler: grpc.RpcMethodHandler[Any, Any], tenant: str
) -> grpc.RpcMethodHandler[Any, Any]:
    """The handler, running with bound_tenant_var set to `tenant`."""
    for kind in ("unary_unary", "stream_unary"):
        behavior = getattr(handler, kind)
        if behavior is not None:
            return _handler_replace(handler, **{kind: _bound_unary(behavior, tenant)})
    for kind in ("unary_stream", "stream_stream"):
        behavior = getattr(handler, kind)
        if behavior is not None:
            return _handler_replace(handler, **{kind: _bound_stream(behavior, tenant)})
    return handler


def _bound_unary(behavior: Behavior, tenant: str) -> Behavior:
    def call(request: Any, context: grpc.ServicerContext) -> Any:
        token = bound_tenant_var.set(tenant)
        try:
            return behavior(request, context)
        finally:
            bound_tenant_var.reset(token)

    return call


def _bound_stream(behavior: Behavior, tenant: str) -> Behavior:
    def call(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        token = bound_tenant_var.set(tenant)
        try:
            yield from behavior(request, context)
        finally:
            bound_tenant_var.reset(token)

    return call
