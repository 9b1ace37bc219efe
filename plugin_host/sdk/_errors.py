"""Errors plugins raise and receive.

    PluginError                      base; `reason` is an UPPER_SNAKE_CASE token
    ├── PermissionDeniedError        the operator did not grant it, or the agent disabled Memory Recall
    ├── InvalidPayloadError          raise it from a command when the payload is wrong
    ├── UnavailableError             the host, memory or the model is down or overloaded; retry later
    └── HostError                    any other failure reported by the host (carries the gRPC code name)

Messages are shown to callers of InvokePlugin: never put memory content in them.
"""

from __future__ import annotations


class PluginError(Exception):
    """Base of every SDK error."""

    default_reason = "PLUGIN_ERROR"

    def __init__(self, message: str = "", *, reason: str = "") -> None:
        self.reason = reason or self.default_reason
        self.message = message or self.reason
        super().__init__(self.message)


class PermissionDeniedError(PluginError):
    """The call is not allowed.

    reason is PERMISSION_NOT_GRANTED (the operator did not grant inference / memory_search), AGENT_NOT_ALLOWED (the
    plugin may not act for that agent) or MEMORY_RECALL_DISABLED (the agent did not enable Memory Recall).
    """

    default_reason = "PERMISSION_NOT_GRANTED"


class InvalidPayloadError(PluginError):
    """The command's payload is wrong; the caller gets INVALID_ARGUMENT with reason INVALID_PAYLOAD."""

    default_reason = "INVALID_PAYLOAD"


class UnavailableError(PluginError):
    """A dependency is down or overloaded; `retry_after_s` says when to try again, if known."""

    default_reason = "UNAVAILABLE"

    def __init__(self, message: str = "", *, reason: str = "", retry_after_s: float | None = None) -> None:
        super().__init__(message, reason=reason)
        self.retry_after_s = retry_after_s


class HostError(PluginError):
    """Any other failure reported by the host; `code` is the gRPC status name (for example "NOT_FOUND")."""

    def __init__(self, message: str = "", *, reason: str = "", code: str = "UNKNOWN") -> None:
        super().__init__(message, reason=reason)
        self.code = code
