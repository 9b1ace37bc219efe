"""Composition root of the gateway: the FastAPI app (routes, error handlers, guard, gRPC clients) and main()."""

from __future__ import annotations

import asyncio
import importlib
import logging
import signal
import ssl
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from types import FrameType
from typing import Any

import grpc
import grpc.aio
import uvicorn
from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse, Response

import gateway
from gateway import routes_memory, routes_openai, routes_run
from gateway.clients import Clients
from gateway.config import Settings, load_settings
from gateway.errors import GatewayError, error_response, from_aio_error
from gateway.fastpath import FastPaths
from gateway.guard import HEALTH_PATH, Guard
from gateway.http_protocol import CoalescingHttpToolsProtocol
from gateway.json_body import JsonBodies
from servicekit.errors import FieldViolation, ServiceError
from servicekit.logsetup import setup_logging
from servicekit.portfile import write_port_file
from servicekit.server import is_loopback
from servicekit.tls import TransportConfigError

VERSION = "0.1.0"
_log = logging.getLogger("gateway")
# FastAPI raises a 400 HTTPException for a body it cannot parse other than by JSONDecodeError (nesting too deep for
# json.loads); the gateway's routes raise none themselves.
_HTTP_REASONS = {400: ("MALFORMED_JSON", grpc.StatusCode.INVALID_ARGUMENT),
                 404: ("NOT_FOUND", grpc.StatusCode.NOT_FOUND),
                 405: ("METHOD_NOT_ALLOWED", grpc.StatusCode.UNIMPLEMENTED)}  # fmt: skip


_loop_factory: Callable[[], asyncio.AbstractEventLoop] | None
try:
    import uvloop

    _loop_factory = uvloop.new_event_loop
except ModuleNotFoundError:  # the standard loop works too, about 0.1 ms slower a request
    _loop_factory = None


class InsecureListenError(RuntimeError):
    """Listening off loopback without TLS or a bearer token."""


def view_router() -> APIRouter | None:
    """The Memory view's router (gateway.view.routes.router), when that package is installed."""
    try:
        module = importlib.import_module("gateway.view.routes")
    except ModuleNotFoundError as error:
        if error.name in ("gateway.view", "gateway.view.routes"):
            return None
        raise
    router = getattr(module, "router", None)
    return router if isinstance(router, APIRouter) else None


def create_app(settings: Settings) -> FastAPI:
    """The ASGI app: every route, the JSON error handlers and the guard; gRPC channels open in its lifespan."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # grpc.aio channels belong to the serving loop, so they are opened here and not at import.
        app.state.clients = Clients.open(settings)
        try:
            yield
        finally:
            await app.state.clients.close(grace_s=1.0)

    app = FastAPI(
        title="osaurus gateway",
        version=VERSION,
        summary="HTTP face of osaurus memory: REST memory API, agent runs with memory, OpenAI-compatible /v1.",
        description=gateway.__doc__ or "",
        lifespan=lifespan,
        # Swagger UI and ReDoc load their scripts from a CDN; the gateway uses no network at run time, so it
        # serves the document alone (/openapi.json).
        docs_url=None,
        redoc_url=None,
        # No OpenTelemetry here; FastAPI would otherwise ask the global providers about it on every request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.include_router(routes_memory.router)
    app.include_router(routes_run.router)
    app.include_router(routes_openai.router)
    view = view_router()
    if view is not None:
        # The browser view's pages are not part of the API contract (docs/openapi.json).
        app.include_router(view, include_in_schema=False)

    @app.get(HEALTH_PATH, tags=["health"], summary="The gateway process answers")
    async def healthz() -> dict[str, str]:
        """Answers {"status": "ok"} without a token; it checks no peer."""
        return {"status": "ok"}

    _install_error_handlers(app)
    _document_errors_as_served(app)
    # Middleware added last runs first: Guard (token, Host, size), then JSON bodies whatever their declared type
    # (not from web pages), then the hot routes, then FastAPI's router.
    app.add_middleware(FastPaths)
    app.add_middleware(JsonBodies)
    app.add_middleware(Guard, token=settings.transport.token, max_body_bytes=settings.max_body_bytes)
    return app


def _document_errors_as_served(app: FastAPI) -> None:
    """Drop FastAPI's 422 validation responses from the document: bad input is answered 400 (ErrorBody)."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = build()
            for path in doc.get("paths", {}).values():
                for operation in path.values():
                    operation.get("responses", {}).pop("422", None)
            schemas = doc.get("components", {}).get("schemas", {})
            for name in ("HTTPValidationError", "ValidationError"):
                schemas.pop(name, None)
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _install_error_handlers(app: FastAPI) -> None:
    async def on_grpc(_request: Request, error: Exception) -> Response:
        assert isinstance(error, grpc.aio.AioRpcError)
        return error_response(from_aio_error(error))

    async def on_gateway(_request: Request, error: Exception) -> Response:
        assert isinstance(error, GatewayError)
        return error_response(error)

    async def on_service(_request: Request, error: Exception) -> Response:
        assert isinstance(error, ServiceError)
        return error_response(GatewayError(error.code, error.reason, error.message, error.field_violations))

    async def on_validation(_request: Request, error: Exception) -> Response:
        assert isinstance(error, RequestValidationError)
        violations = []
        reason = "INVALID_REQUEST"
        for item in error.errors():
            where = ".".join(str(part) for part in item.get("loc", ()) if part != "body") or "body"
            kind = str(item.get("type", ""))
            code = {"missing": "MISSING_FIELD", "json_invalid": "MALFORMED_JSON",
                    "extra_forbidden": "UNKNOWN_FIELD"}.get(kind, "INVALID_VALUE")  # fmt: skip
            # The input value is left out: it may be memory content.
            violations.append(FieldViolation(where, str(item.get("msg", "invalid")), code))
        if violations:
            reason = violations[0].reason
        summary = "; ".join(f"{v.field}: {v.description}" for v in violations)
        return error_response(
            GatewayError(grpc.StatusCode.INVALID_ARGUMENT, reason, f"invalid request: {summary}", violations)
        )

    async def on_unicode(_request: Request, error: Exception) -> Response:
        # json.loads reads "\\ud800" (a lone surrogate escape) as a str that protobuf cannot encode; it is bad input.
        assert isinstance(error, UnicodeEncodeError)
        return error_response(
            GatewayError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "MALFORMED_JSON",
                "invalid request: a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff), which is not text",
                (FieldViolation("body", "lone surrogate escape", "MALFORMED_JSON"),),
            )
        )

    async def on_http(_request: Request, error: Exception) -> Response:
        assert isinstance(error, StarletteHTTPException)
        reason, code = _HTTP_REASONS.get(error.status_code, ("HTTP_ERROR", grpc.StatusCode.UNKNOWN))
        response = error_response(GatewayError(code, reason, str(error.detail)))
        response.status_code = error.status_code
        return response

    async def on_unexpected(_request: Request, error: Exception) -> Response:
        _log.error("unhandled %s in a route", type(error).__name__)
        return JSONResponse(
            {
                "error": {
                    "message": "internal error",
                    "type": "api_error",
                    "code": "INTERNAL",
                    "param": None,
                    "status": "INTERNAL",
                    "grpc_code": 13,
                    "reason": "INTERNAL",
                    "domain": "gateway.osaurus.dev",
                }
            },
            status_code=500,
        )

    app.add_exception_handler(grpc.aio.AioRpcError, on_grpc)
    app.add_exception_handler(GatewayError, on_gateway)
    app.add_exception_handler(ServiceError, on_service)
    app.add_exception_handler(UnicodeEncodeError, on_unicode)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)


def check_transport(settings: Settings) -> None:
    """The gRPC services' rule: off loopback only with TLS or a bearer token."""
    transport = settings.transport
    if not is_loopback(settings.listen) and not transport.is_tls and not transport.token:
        raise InsecureListenError(
            f"refusing to listen on non-loopback address {settings.listen} without TLS or a bearer token; "
            "configure TLS (OSAURUS_TLS_CERT/OSAURUS_TLS_KEY) or OSAURUS_AUTH_TOKEN_FILE, or bind 127.0.0.1"
        )


def uvicorn_config(settings: Settings, app: Any) -> uvicorn.Config:
    """uvicorn settings: our listen address, TLS from servicekit's variables, no access log of paths by default."""
    check_transport(settings)
    transport = settings.transport
    tls: dict[str, Any] = {}
    if transport.is_tls:
        tls = {"ssl_certfile": str(transport.cert), "ssl_keyfile": str(transport.key)}
        if transport.client_ca is not None:
            tls |= {"ssl_ca_certs": str(transport.client_ca), "ssl_cert_reqs": ssl.CERT_REQUIRED}
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,
        access_log=settings.log_level == "DEBUG",
        lifespan="on",
        # The gateway never reads X-Forwarded-* (nor the client address): one ASGI layer less per request.
        proxy_headers=False,
        # main() picks the loop (uvloop when installed); httptools (pinned) parses HTTP/1.1, and a response's head
        # and body leave in one send (gateway.http_protocol).
        loop="none",
        http=CoalescingHttpToolsProtocol,
        timeout_graceful_shutdown=int(settings.grace_s),
        **tls,
    )


def bound_address(server: uvicorn.Server) -> str:
    """host:port the started server listens on (the real port when 0 was asked for)."""
    sock = server.servers[0].sockets[0]
    host, port = sock.getsockname()[:2]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def _serve(settings: Settings) -> int:
    server = uvicorn.Server(uvicorn_config(settings, create_app(settings)))
    task = asyncio.create_task(server.serve())
    while not server.started and not task.done():
        await asyncio.sleep(0.05)
    if server.started:
        address = bound_address(server)
        _log.info("gateway serving HTTP on %s", address)
        if settings.port_file is not None:
            write_port_file(settings.port_file, address)
    await task
    return 0 if server.started else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the gateway until SIGINT/SIGTERM. Exit codes: 0 clean stop, 2 bad configuration, 1 could not serve."""
    try:
        settings = load_settings(argv)
        check_transport(settings)
    except (TransportConfigError, InsecureListenError) as error:
        print(f"osaurus-gateway: {error}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level, "gateway")
    # uvicorn stops gracefully on SIGINT/SIGTERM and then re-raises the signal to the previous handler; make that
    # a KeyboardInterrupt for both, so a requested stop exits 0 without a traceback.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        # uvloop (pinned) when installed: about 0.1 ms less per request than asyncio's own loop here, and
        # grpc.aio runs on any asyncio loop (its completion queue has its own poller thread).
        with asyncio.Runner(loop_factory=_loop_factory) as runner:
            return runner.run(_serve(settings))
    except KeyboardInterrupt:
        return 0


def _interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt
