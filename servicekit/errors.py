"""AIP-193 error model: typed service errors and their mapping to and from gRPC status with details."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

#: Reason used by every RPC that a later release implements.
NOT_YET_AVAILABLE = "NOT_YET_AVAILABLE"
#: The status travels in trailers, which gRPC caps at 16 KiB by default: past it the client sees a bare INTERNAL
#: instead of the error (UpdateConfig with thousands of unknown mask paths did). Listed violations, their texts
#: and the message are capped so a status with every detail stays well under that.
MAX_FIELD_VIOLATIONS = 20
MAX_DETAIL_BYTES = 200
MAX_MESSAGE_BYTES = 500


@dataclass(frozen=True)
class FieldViolation:
    """One bad request field, as in google.rpc.BadRequest.FieldViolation."""

    field: str
    description: str
    reason: str = ""


class ServiceError(Exception):
    """Base of every error a servicer raises on purpose; the interceptor turns it into a rich status.

    `message` is shown to clients and must never contain memory content.
    """

    code: ClassVar[grpc.StatusCode] = grpc.StatusCode.UNKNOWN

    def __init__(
        self,
        reason: str,
        message: str = "",
        *,
        domain: str = "",
        metadata: Mapping[str, str] | None = None,
        field_violations: Sequence[FieldViolation] = (),
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message or reason)
        self.reason = reason
        self.message = message or reason
        self.domain = domain
        self.metadata = dict(metadata or {})
        self.field_violations = tuple(field_violations)
        self.retry_after_s = retry_after_s

    def __repr__(self) -> str:
        return f"{type(self).__name__}(reason={self.reason!r}, message={self.message!r})"

    def to_status_proto(self, default_domain: str = "") -> status_pb2.Status:
        """Build the google.rpc.Status carried in the grpc-status-details-bin trailer."""
        details: list[any_pb2.Any] = []
        metadata = dict(self.metadata)
        listed = self.field_violations[:MAX_FIELD_VIOLATIONS]
        if len(listed) < len(self.field_violations):  # the client learns how many there were, not each
            metadata["field_violations_total"] = str(len(self.field_violations))
        info = error_details_pb2.ErrorInfo(
            reason=self.reason, domain=self.domain or default_domain, metadata=metadata
        )
        details.append(_pack(info))
        if listed:
            bad = error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(
                        field=_cut(v.field, MAX_DETAIL_BYTES),
                        description=_cut(v.description, MAX_DETAIL_BYTES),
                        reason=v.reason,
                    )
                    for v in listed
                ]
            )
            details.append(_pack(bad))
        if self.retry_after_s is not None:
            delay = duration_pb2.Duration()
            delay.FromNanoseconds(int(self.retry_after_s * 1e9))
            details.append(_pack(error_details_pb2.RetryInfo(retry_delay=delay)))
        return status_pb2.Status(
            code=self.code.value[0], message=_cut(self.message, MAX_MESSAGE_BYTES), details=details
        )

    def to_grpc_status(self, default_domain: str = "") -> grpc.Status:
        """The grpc.Status to pass to ServicerContext.abort_with_status."""
        return rpc_status.to_status(self.to_status_proto(default_domain))


def _cut(text: str, limit_bytes: int) -> str:
    """At most `limit_bytes` of UTF-8 (trailers are bytes; a client-chosen field name may be 4 bytes a character)."""
    raw = text.encode("utf-8", "replace")
    if len(raw) <= limit_bytes:
        return text
    return raw[: limit_bytes - 3].decode("utf-8", "ignore") + "…"


def _pack(message: object) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)  # type: ignore[arg-type]
    return packed


class CancelledError(ServiceError):
    """The operation was cancelled, typically by the caller."""

    code = grpc.StatusCode.CANCELLED


class UnknownError(ServiceError):
    """A peer answered with an error that carries no usable code."""

    code = grpc.StatusCode.UNKNOWN


class InvalidArgumentError(ServiceError):
    """The request is malformed; field_violations name the bad fields."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class DeadlineExceededError(ServiceError):
    """The deadline passed before the work finished."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED


class NotFoundError(ServiceError):
    """The named resource does not exist."""

    code = grpc.StatusCode.NOT_FOUND


class AlreadyExistsError(ServiceError):
    """The resource to create exists already."""

    code = grpc.StatusCode.ALREADY_EXISTS


class PermissionDeniedError(ServiceError):
    """The caller may not do this (for example Memory Recall is off for the agent)."""

    code = grpc.StatusCode.PERMISSION_DENIED


class ResourceExhaustedError(ServiceError):
    """A size or capacity limit was hit (message too large, queue full)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class FailedPreconditionError(ServiceError):
    """The system is not in a state that allows the operation (memory disabled, store degraded)."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class AbortedError(ServiceError):
    """A concurrency conflict, for example a consolidation pass already running."""

    code = grpc.StatusCode.ABORTED


class OutOfRangeError(ServiceError):
    """A value is past a valid range (paging past the end)."""

    code = grpc.StatusCode.OUT_OF_RANGE


class UnimplementedError(ServiceError):
    """The RPC exists in the contract but is not served (reason NOT_YET_AVAILABLE for planned features)."""

    code = grpc.StatusCode.UNIMPLEMENTED


class InternalError(ServiceError):
    """A bug on the server. Never used for bad input."""

    code = grpc.StatusCode.INTERNAL


class UnavailableError(ServiceError):
    """A dependency is down or overloaded; retry after RetryInfo's delay."""

    code = grpc.StatusCode.UNAVAILABLE


class DataLossError(ServiceError):
    """Unrecoverable data loss or corruption."""

    code = grpc.StatusCode.DATA_LOSS


class UnauthenticatedError(ServiceError):
    """Missing or wrong credentials."""

    code = grpc.StatusCode.UNAUTHENTICATED


def not_yet_available(rpc_name: str) -> UnimplementedError:
    """The error every planned-but-unbuilt RPC raises, so clients can tell 'absent' from 'broken'."""
    return UnimplementedError(NOT_YET_AVAILABLE, f"{rpc_name} is not available yet in this release")


_BY_CODE: dict[grpc.StatusCode, type[ServiceError]] = {
    cls.code: cls
    for cls in (
        CancelledError,
        UnknownError,
        InvalidArgumentError,
        DeadlineExceededError,
        NotFoundError,
        AlreadyExistsError,
        PermissionDeniedError,
        ResourceExhaustedError,
        FailedPreconditionError,
        AbortedError,
        OutOfRangeError,
        UnimplementedError,
        InternalError,
        UnavailableError,
        DataLossError,
        UnauthenticatedError,
    )
}


def error_class_for(code: grpc.StatusCode) -> type[ServiceError]:
    """The typed exception class registered for a status code."""
    return _BY_CODE.get(code, UnknownError)


def from_rpc_error(error: grpc.RpcError) -> ServiceError:
    """Turn a client-side RpcError into the matching typed ServiceError, keeping ErrorInfo and friends."""
    # The stubs declare RpcError.details() -> str | None and Call.details() -> str, so mypy concludes no class is
    # both; at runtime every client-side failure (_InactiveRpcError, _MultiThreadedRendezvous) is both.
    candidate: object = error
    call = candidate if isinstance(candidate, grpc.Call) else None
    code = call.code() if call is not None else grpc.StatusCode.UNKNOWN
    message = (call.details() if call is not None else str(error)) or ""
    reason, domain = "", ""
    metadata: dict[str, str] = {}
    violations: list[FieldViolation] = []
    retry_after_s: float | None = None
    status = rpc_status.from_call(call) if call is not None else None
    if status is not None:
        for detail in status.details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                reason, domain, metadata = info.reason, info.domain, dict(info.metadata)
            elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations.extend(
                    FieldViolation(v.field, v.description, v.reason) for v in bad.field_violations
                )
            elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
                retry = error_details_pb2.RetryInfo()
                detail.Unpack(retry)
                retry_after_s = retry.retry_delay.ToNanoseconds() / 1e9
    cls = error_class_for(code)
    return cls(
        reason or code.name,
        message,
        domain=domain,
        metadata=metadata,
        field_violations=violations,
        retry_after_s=retry_after_s,
    )


__all__ = [
    "NOT_YET_AVAILABLE",
    "AbortedError",
    "AlreadyExistsError",
    "CancelledError",
    "DataLossError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "FieldViolation",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "OutOfRangeError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "ServiceError",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "UnknownError",
    "error_class_for",
    "from_rpc_error",
    "not_yet_available",
]
