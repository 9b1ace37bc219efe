"""JSON errors: gRPC status and ErrorInfo of a failed call (or a bad HTTP request) as one OpenAI-shaped body.

Body, for every error the gateway returns:

    {"error": {"message": "...", "type": "invalid_request_error", "code": "<ErrorInfo reason>",
               "param": "<first bad field or null>", "status": "INVALID_ARGUMENT", "grpc_code": 3,
               "reason": "<ErrorInfo reason>", "domain": "memory.osaurus.dev",
               "field_violations": [{"field": "...", "description": "...", "reason": "..."}]}}

`message`/`type`/`code`/`param` are what OpenAI clients read; `status`/`grpc_code`/`reason`/`domain` are the
AIP-193 error of the service that answered. Messages never carry memory content (the services guarantee it for
theirs; ours name fields only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio
from google.rpc import error_details_pb2, status_pb2
from starlette.responses import JSONResponse

from servicekit.errors import FieldViolation

DOMAIN = "gateway.osaurus.dev"

# Google's canonical HTTP mapping of gRPC codes, except that a peer's INTERNAL/UNKNOWN/DATA_LOSS is a bad gateway
# (502) from the caller's point of view: the gateway itself did not fail, and it never answers 500 for bad input.
_HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 502,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 502,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 502,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}
#: Reasons whose HTTP status is more precise than the code's.
_HTTP_BY_REASON = {"MESSAGE_TOO_LARGE": 413, "REQUEST_TOO_LARGE": 413}
_OPENAI_TYPE = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "not_found_error", 409: "conflict_error", 413: "invalid_request_error",
                429: "rate_limit_error"}  # fmt: skip
_STATUS_DETAILS_KEY = "grpc-status-details-bin"


@dataclass
class GatewayError(Exception):
    """An error the gateway answers itself (bad HTTP input, missing token), in the gRPC vocabulary."""

    code: grpc.StatusCode
    reason: str
    message: str
    field_violations: Sequence[FieldViolation] = field(default_factory=tuple)
    domain: str = DOMAIN
    retry_after_s: float | None = None
    metadata: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.message)


def invalid(reason: str, field_name: str, description: str) -> GatewayError:
    """INVALID_ARGUMENT naming one bad field."""
    return GatewayError(
        grpc.StatusCode.INVALID_ARGUMENT,
        reason,
        f"invalid request: {field_name}: {description}",
        (FieldViolation(field_name, description, reason),),
    )


def from_aio_error(error: grpc.aio.AioRpcError) -> GatewayError:
    """A failed grpc.aio call as a GatewayError, keeping ErrorInfo, BadRequest and RetryInfo."""
    code = error.code()
    reason, domain, metadata = "", "", {}
    violations: list[FieldViolation] = []
    retry_after_s: float | None = None
    for key, value in error.trailing_metadata() or ():
        if key != _STATUS_DETAILS_KEY or not isinstance(value, bytes):
            continue
        status = status_pb2.Status.FromString(value)
        for detail in status.details:
            if detail.TypeName() == "google.rpc.ErrorInfo":
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, domain, metadata = info.reason, info.domain, dict(info.metadata)
            elif detail.TypeName() == "google.rpc.BadRequest":
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations.extend(
                    FieldViolation(v.field, v.description, v.reason) for v in bad.field_violations
                )
            elif detail.TypeName() == "google.rpc.RetryInfo":
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                retry_after_s = retry.retry_delay.ToNanoseconds() / 1e9
    if not reason:
        # No ErrorInfo: the transport failed (peer down, deadline) rather than the service answering.
        reason = "UPSTREAM_UNAVAILABLE" if code == grpc.StatusCode.UNAVAILABLE else code.name
    message = error.details() or code.name
    return GatewayError(code, reason, message, tuple(violations), domain, retry_after_s, metadata)


def http_status(error: GatewayError) -> int:
    """The HTTP status of an error."""
    return _HTTP_BY_REASON.get(error.reason, _HTTP_STATUS.get(error.code, 502))


def error_body(error: GatewayError) -> dict[str, Any]:
    """The JSON body of an error (see the module docstring)."""
    status = http_status(error)
    first = error.field_violations[0].field if error.field_violations else None
    body: dict[str, Any] = {
        "message": error.message,
        "type": _OPENAI_TYPE.get(status, "api_error"),
        "code": error.reason,
        "param": first,
        "status": error.code.name,
        "grpc_code": error.code.value[0],
        "reason": error.reason,
        "domain": error.domain,
    }
    if error.field_violations:
        body["field_violations"] = [
            {"field": v.field, "description": v.description, "reason": v.reason}
            for v in error.field_violations
        ]
    if error.metadata:
        body["metadata"] = error.metadata
    if error.retry_after_s is not None:
        body["retry_after_s"] = error.retry_after_s
    return {"error": body}


def error_response(error: GatewayError) -> JSONResponse:
    """The HTTP response of an error, with Retry-After when the service sent RetryInfo."""
    headers = {}
    if error.retry_after_s is not None:
        headers["Retry-After"] = str(max(1, round(error.retry_after_s)))
    if error.code == grpc.StatusCode.UNAUTHENTICATED:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(error_body(error), status_code=http_status(error), headers=headers)
