"""Transport rules for HTTP callers, as a pure ASGI middleware: bearer token, loopback Host, body size."""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import grpc

from gateway.errors import GatewayError, error_body, http_status
from gateway.tenant import tenant_of, tenant_var

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Answers without a token: it says only that the process is up (make run polls it).
HEALTH_PATH = "/healthz"
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


def _host_of(header: str) -> str:
    """Host header without its port."""
    if header.startswith("["):
        return header.split("]", 1)[0] + "]"
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class Guard:
    """Checks every HTTP request before routing.

    - With a token configured, every request but /healthz needs `Authorization: Bearer <token>` (401 otherwise);
      the gateway only listens off loopback with a token or TLS (app.main enforces that).
    - Without one (loopback only), the Host header must name a loopback host: a web page cannot reach the API
      through DNS rebinding (403 HOST_NOT_ALLOWED).
    - A declared body larger than max_body_bytes is refused with 413 before it is read.
    - X-Osaurus-Tenant, when present, must be a valid tenant id (400 INVALID_TENANT); the request runs with it in
      gateway.tenant.tenant_var, so every memoryd call carries it.
    """

    def __init__(self, app: ASGIApp, *, token: str | None, max_body_bytes: int) -> None:
        self._app = app
        self._token = f"Bearer {token}".encode() if token else None
        self._max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers: dict[bytes, bytes] = {}
        for key, value in scope["headers"]:
            headers.setdefault(key, value)
        problem = self._check(scope, headers)
        tenant: str | None = None
        if problem is None:
            try:
                tenant = tenant_of(headers)
            except GatewayError as error:
                problem = error
        if problem is not None:
            await _reply(send, problem)
            return
        if tenant is None:
            await self._app(scope, receive, send)
            return
        token = tenant_var.set(tenant)
        try:
            await self._app(scope, receive, send)
        finally:
            tenant_var.reset(token)

    def _check(self, scope: Scope, headers: dict[bytes, bytes]) -> GatewayError | None:
        if self._token is not None:
            if scope["path"] != HEALTH_PATH and not hmac.compare_digest(
                headers.get(b"authorization", b""), self._token
            ):
                return GatewayError(
                    grpc.StatusCode.UNAUTHENTICATED,
                    "MISSING_OR_WRONG_TOKEN",
                    "a valid bearer token is required",
                )
        elif _host_of(headers.get(b"host", b"").decode("latin-1")) not in _LOOPBACK_HOSTS:
            return GatewayError(
                grpc.StatusCode.PERMISSION_DENIED,
                "HOST_NOT_ALLOWED",
                "this gateway answers loopback host names only (configure a token to serve other hosts)",
            )
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self._max_body_bytes:
            return GatewayError(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "REQUEST_TOO_LARGE",
                f"request body is {int(length)} bytes; the limit is {self._max_body_bytes}",
            )
        return None


async def _reply(send: Send, error: GatewayError) -> None:
    body = json.dumps(error_body(error)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if error.code == grpc.StatusCode.UNAUTHENTICATED:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": http_status(error), "headers": headers})
    await send({"type": "http.response.body", "body": body})
