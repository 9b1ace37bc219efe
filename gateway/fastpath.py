"""Hot routes answered as plain ASGI before FastAPI's router: POST /memory/ingest, GET /agents, GET /healthz.

Why: FastAPI's router, dependency solving and response handling cost about 0.3-0.5 ms a request on this machine
(cProfile of the gateway under bench_gateway), which alone broke the ≤ 1 ms overhead target. These three routes
answer here with exactly the bodies of their FastAPI routes (the same helpers build them); the FastAPI routes stay,
for the OpenAPI document and as the fallback. Anything this module does not fully accept — another content type,
an ingest body gateway.ingest_body does not take (every bad body among them), a query string — goes on to FastAPI
unchanged (the body replayed), so every error keeps the FastAPI route's 4xx JSON. Sits inside the Guard: token, Host and body-size rules apply first.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import Any

import grpc.aio

from gateway.asgi_body import read_body, replay
from gateway.clients import Clients
from gateway.errors import GatewayError, error_response, from_aio_error
from gateway.guard import HEALTH_PATH, ASGIApp, Receive, Scope, Send
from gateway.ingest_body import parse_ingest
from gateway.routes_memory import FIRST_AGENTS_PAGE, agents_answer, ingest_answer, list_all_agents
from osaurus.memory.v1 import memory_pb2 as mpb

_JSON_HEADERS = (b"content-type", b"application/json")
_HEALTH_BODY = b'{"status":"ok"}'


def _encode(content: Any) -> bytes:
    # Starlette's JSONResponse.render, byte for byte.
    return json.dumps(
        content, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode()


async def _send_json(send: Send, body: bytes, status: int = 200) -> None:
    headers = [_JSON_HEADERS, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _is_json(scope: Scope) -> bool:
    for key, value in scope["headers"]:
        if key == b"content-type":
            kind: bytes = value.split(b";", 1)[0].strip().lower()
            return kind == b"application/json"
    return False


class _BodyCache:
    """GET /agents' encoded JSON by the ListAgents reply's bytes: equal bytes, equal agents, equal body.

    The gRPC call is still made on every request; only the parse-convert-encode of an unchanged list is saved.
    Cleared when full, so a churning agent list cannot grow it.
    """

    def __init__(self, max_entries: int = 16) -> None:
        self._bodies: dict[bytes, bytes] = {}
        self._max_entries = max_entries

    def get(self, key: bytes) -> bytes | None:
        return self._bodies.get(key)

    def put(self, key: bytes, body: bytes) -> None:
        if len(self._bodies) >= self._max_entries:
            self._bodies.clear()
        self._bodies[key] = body


class FastPaths:
    """ASGI middleware: the three hot routes here, everything else (and every doubtful request) to the app."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._agents = _BodyCache()
        self._first_page = FIRST_AGENTS_PAGE.SerializeToString()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("query_string"):
            await self._app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        if method == "GET" and path == HEALTH_PATH:
            await _send_json(send, _HEALTH_BODY)
        elif method == "GET" and path == "/agents":
            await self._answer(scope, receive, send, self._list_agents(scope["app"].state.clients))
        elif method == "POST" and path == "/memory/ingest" and _is_json(scope):
            body, complete = await read_body(receive)
            if not complete:
                return
            try:
                message = parse_ingest(body)
            except GatewayError as error:  # a bad session_date, answered as the route answers it
                await error_response(error)(scope, receive, send)
                return
            if message is None:
                # FastAPI's route decides: the 400 with its field violations, or a lax form pydantic accepts.
                await self._app(scope, replay(body, receive), send)
                return
            await self._answer(scope, receive, send, _ingest(scope["app"].state.clients, message))
        else:
            await self._app(scope, receive, send)

    async def _list_agents(self, clients: Clients) -> bytes:
        raw = await clients.list_agents_raw(self._first_page, timeout=clients.deadlines.quick_s)
        body = self._agents.get(raw)
        if body is None:
            reply = mpb.ListAgentsResponse.FromString(raw)
            body = _encode(agents_answer(await list_all_agents(clients, reply)))
            if not reply.next_page_token:
                self._agents.put(raw, body)
        return body

    @staticmethod
    async def _answer(scope: Scope, receive: Receive, send: Send, work: Awaitable[bytes]) -> None:
        """Send the body `work` makes; failures answer as the app's exception handlers do (anything unexpected
        propagates to the app's 500 handler, which sits outside this middleware)."""
        try:
            body = await work
        except grpc.aio.AioRpcError as error:
            await error_response(from_aio_error(error))(scope, receive, send)
            return
        except GatewayError as error:
            await error_response(error)(scope, receive, send)
            return
        await _send_json(send, body)


async def _ingest(clients: Clients, message: mpb.IngestRequest) -> bytes:
    reply = await clients.memory.Ingest(message, timeout=clients.deadlines.ingest_s)
    if message.skip_extraction:
        # The whole body is one number; _encode gives the same bytes.
        return b'{"status":"ok","turns_ingested":%d}' % reply.turns_ingested
    return _encode(ingest_answer(message.skip_extraction, reply))
