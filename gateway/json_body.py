"""JSON bodies whatever their declared type, for callers that are not web pages (curl's `-d`, scripts).

Why: every body the gateway reads is a JSON object, yet `curl -d '{…}'` sends it as
`application/x-www-form-urlencoded`, and FastAPI then reads bytes and answers 400 "Input should be a valid
dictionary", which says nothing about the header. A mem0 or Zep user trying the API with curl meets this first.
A body that parses as JSON cannot be mistaken for a form, so it is read as JSON.

Not from a web page, though. Only a JSON content type makes a browser ask first (a CORS preflight, which the
gateway never grants); `text/plain`, form types and a body without a type go cross-site without one. Without a
token the gateway trusts loopback, so a page the user visits could otherwise write memory or run the agent. A
request carrying a browser's `Origin` or `Sec-Fetch-Site` (other than "none") therefore needs
`Content-Type: application/json` for its body, and anything else is 415 naming the header. So is a body of
another declared type that is not JSON; a body with no type at all is handed on as JSON (a bad one is the route's
400 MALFORMED_JSON).
"""

from __future__ import annotations

import json

import grpc

from gateway.asgi_body import read_body, replay
from gateway.errors import GatewayError, error_body
from gateway.guard import ASGIApp, Receive, Scope, Send

#: Methods whose body a route reads.
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_JSON_TYPE = (b"content-type", b"application/json")
UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"


def is_json_type(value: bytes) -> bool:
    """application/json, or a +json subtype, with or without parameters."""
    kind = value.split(b";", 1)[0].strip().lower()
    return kind == b"application/json" or (kind.startswith(b"application/") and kind.endswith(b"+json"))


def _is_from_web_page(headers: list[tuple[bytes, bytes]]) -> bool:
    for key, value in headers:
        if key == b"origin" or (key == b"sec-fetch-site" and value.strip().lower() != b"none"):
            return True
    return False


def _parses(body: bytes) -> bool:
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return False
    return True


def _refusal(declared: bytes | None) -> GatewayError:
    said = declared.decode("latin-1") if declared else "none"
    return GatewayError(
        grpc.StatusCode.INVALID_ARGUMENT,
        UNSUPPORTED_MEDIA_TYPE,
        f"the request body must be a JSON object sent with 'Content-Type: application/json' (got: {said[:80]}); "
        "with curl use --json '{…}' or -H 'Content-Type: application/json'",
    )


async def _send_415(send: Send, error: GatewayError) -> None:
    body = json.dumps(error_body(error)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 415, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class JsonBodies:
    """ASGI middleware: a JSON-typed body passes untouched (one header scan); another body is read, and either
    passed on as application/json (it parses, and no web page sent it) or answered 415."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _BODY_METHODS:
            await self._app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        declared = next((value for key, value in headers if key == b"content-type"), None)
        if declared is not None and is_json_type(declared):
            await self._app(scope, receive, send)
            return
        body, complete = await read_body(receive)
        if not complete:
            return
        if not body.strip():
            # No body: the route decides (a missing body is its 400).
            await self._app(scope, replay(body, receive), send)
            return
        if _is_from_web_page(headers) or (declared is not None and not _parses(body)):
            await _send_415(send, _refusal(declared))
            return
        # It parses, or it came without a type (the route then answers a malformed body 400 MALFORMED_JSON).
        retyped = [(key, value) for key, value in headers if key != b"content-type"]
        await self._app({**scope, "headers": [*retyped, _JSON_TYPE]}, replay(body, receive), send)
