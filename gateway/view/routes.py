"""HTTP routes of the Memory view: the page at GET /memory and its JSON API under /memory/view/api/.

Every route is a thin call to memoryd over `request.app.state.clients` (gateway.clients.Clients). Requests that
carry memory content (search, preview, overrides) send it in a JSON body, never in the URL, so access logs hold
none; nothing here logs a body or a reply. State-changing routes pass the cross-site guard (gateway.view.guard).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import grpc.aio
from fastapi import APIRouter, Query, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, Field
from starlette.responses import JSONResponse, Response

from gateway.errors import GatewayError, error_response, from_aio_error
from gateway.view import convert, listing
from gateway.view.guard import TOKEN_HEADER, Refusal, ViewGuard, host_refusal, origin_refusal
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb

log = logging.getLogger(__name__)

API = "/memory/view/api"
STATIC_DIR = Path(__file__).with_name("static")
#: The only files served from STATIC_DIR, with their types (no directory listing, no path from the URL).
STATIC_FILES = {"memory.css": "text/css; charset=utf-8", "memory.js": "text/javascript; charset=utf-8"}
#: What the user must type to clear all memory; checked here as well as in the page.
CLEAR_PHRASE = "clear all memory"
#: Reads and single-row actions; consolidation and sync may distil or cold-load a model, so they get longer.
QUICK_S = 30.0
LONG_S = 600.0
PAGE_HEADERS = {
    # Hand-written assets only, from this origin; no framing (the danger zone must not be clickjacked).
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
API_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}

router = APIRouter(tags=["memory view"])
guard = ViewGuard()

Kind = Literal["pinned", "episode", "transcript", "identity_fact"]
ItemId = Annotated[str, PathParam(pattern=r"^[0-9]{1,19}$")]
AgentQuery = Annotated[str, Query(max_length=128)]


class OverrideIn(BaseModel):
    """A new identity override."""

    text: str = Field(min_length=1, max_length=2000)


class SearchIn(BaseModel):
    """A console search."""

    query: str = Field(min_length=1, max_length=2000)
    scope: Literal["all", "pinned", "episodes", "transcript"] = "all"
    agent_id: str = Field(default="", max_length=128)
    include_disabled: bool = False
    limit: int = Field(default=50, ge=1, le=200)


class PreviewIn(BaseModel):
    """A bounded context preview."""

    agent_id: str = Field(min_length=1, max_length=128)
    query: str = Field(min_length=1, max_length=2000)
    max_tokens: int = Field(default=400, ge=1, le=4000)


class SyncIn(BaseModel):
    """Sync Now, for one agent or (empty) every agent."""

    agent_id: str = Field(default="", max_length=128)


class ClearIn(BaseModel):
    """The typed confirmation of the danger zone."""

    confirm_text: str = Field(max_length=200)


Work = Callable[[Any], Awaitable[Any]]


def _refused(refusal: Refusal) -> Response:
    return error_response(GatewayError(grpc.StatusCode.PERMISSION_DENIED, refusal.reason, refusal.message))


def _allowed_hosts(request: Request) -> tuple[str, ...]:
    """Loopback plus what the app allows: `app.state.view_allowed_hosts`, and the host it listens on."""
    state = request.app.state
    hosts = list(getattr(state, "view_allowed_hosts", ()))
    settings = getattr(state, "settings", None)
    listen_host = getattr(settings, "host", "")
    if isinstance(listen_host, str) and listen_host not in ("", "0.0.0.0", "::"):
        hosts.append(listen_host)
    return tuple(hosts)


def _refusal(request: Request) -> Refusal | None:
    headers = request.headers
    found = host_refusal(headers.get("host"), _allowed_hosts(request))
    if found is not None:
        return found
    found = origin_refusal(
        request.method,
        request.url.scheme,
        headers.get("host"),
        headers.get("origin"),
        headers.get("sec-fetch-site"),
    )
    if found is not None or request.method in ("GET", "HEAD"):
        return found
    return guard.token_refusal(headers.get(TOKEN_HEADER))


async def _answer(request: Request, rpc: str, work: Work) -> Response:
    """Guard the request, run `work` with the app's Clients, and answer JSON (errors in the gateway's shape)."""
    refusal = _refusal(request)
    if refusal is not None:
        log.warning("memory view refused %s %s: %s", request.method, rpc, refusal.reason)
        return _refused(refusal)
    clients = getattr(request.app.state, "clients", None)
    if clients is None:
        error = GatewayError(
            grpc.StatusCode.UNAVAILABLE, "GATEWAY_STARTING", "the gateway has no memoryd client yet"
        )
        return error_response(error)
    try:
        body = await work(clients)
    except grpc.aio.AioRpcError as failed:
        found = from_aio_error(failed)
        # Status and reason only: memoryd's messages are content-free, but the view keeps logs to the minimum.
        log.info("memory view %s failed: %s %s", rpc, found.code.name, found.reason)
        return error_response(found)
    except GatewayError as failed:
        return error_response(failed)
    return JSONResponse(body, headers=API_HEADERS)


def _item(kind: str, item_id: str) -> mpb.ItemRef:
    return mpb.ItemRef(kind=convert.KINDS[kind], id=item_id)


# ------------------------------------------------------------------------------------------------------ page
@router.get("/memory", include_in_schema=False)
async def page(request: Request) -> Response:
    """The Memory view, with a fresh CSRF token in a meta tag."""
    refusal = host_refusal(request.headers.get("host"), _allowed_hosts(request))
    if refusal is not None:
        return _refused(refusal)
    html = (STATIC_DIR / "memory.html").read_text(encoding="utf-8").replace("{{csrf_token}}", guard.mint())
    return Response(html, media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)


@router.get("/memory/view/static/{name}", include_in_schema=False)
async def static(name: str, request: Request) -> Response:
    """memory.css and memory.js, the page's only assets (written by hand, served from the package)."""
    refusal = host_refusal(request.headers.get("host"), _allowed_hosts(request))
    if refusal is not None:
        return _refused(refusal)
    media_type = STATIC_FILES.get(name)
    if media_type is None:
        return error_response(GatewayError(grpc.StatusCode.NOT_FOUND, "NOT_FOUND", "no such asset"))
    headers = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    return Response((STATIC_DIR / name).read_bytes(), media_type=media_type, headers=headers)


# -------------------------------------------------------------------------------------------------- overview
@router.get(f"{API}/overview")
async def overview(request: Request, agent_id: AgentQuery = "") -> Response:
    """Agents with per-agent counts, processing statistics, database size, and the identity (of one agent)."""

    async def work(c: Any) -> Any:
        listed, stats, found = await asyncio.gather(
            c.memory.ListAgents(mpb.ListAgentsRequest(page_size=1000), timeout=QUICK_S),
            c.memory.GetStats(mpb.GetStatsRequest(), timeout=QUICK_S),
            c.memory.GetIdentity(mpb.GetIdentityRequest(agent_id=agent_id), timeout=QUICK_S),
        )
        return {
            "agents": convert.agents_with_counts(list(listed.agents), stats),
            "processing": convert.processing(stats.processing),
            "database_bytes": stats.database_bytes,
            "pending_signals": stats.pending_signals,
            "dead_letter_signals": stats.dead_letter_signals,
            "identity": convert.identity(found.identity),
            "identity_agent_id": agent_id,
        }

    return await _answer(request, "overview", work)


@router.get(f"{API}/rows")
async def rows(
    request: Request,
    agent_id: Annotated[str, Query(min_length=1, max_length=128)],
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> Response:
    """One agent's top pinned facts (salience, use count) and newest episodes, previews redacted by memoryd."""

    async def work(c: Any) -> Any:
        found = await listing.first_pages(c.console, agent_id, limit, QUICK_S)
        return {
            "agent_id": agent_id,
            "pinned": found.pinned,
            "episodes": found.episodes,
            "pinned_total": found.pinned_total,
            "episodes_total": found.episodes_total,
            # ListItems counts every row; kept for pages written against the Export scan's bound.
            "truncated": False,
        }

    return await _answer(request, "rows", work)


# -------------------------------------------------------------------------------------------------- identity
@router.post(f"{API}/overrides")
async def add_override(request: Request, body: OverrideIn) -> Response:
    """Add one identity override."""

    async def work(c: Any) -> Any:
        added = await c.memory.AddOverride(mpb.AddOverrideRequest(text=body.text), timeout=QUICK_S)
        return {
            "id": added.override.id,
            "text": added.override.text,
            "create_time": convert.iso(added.override.create_time),
        }

    return await _answer(request, "AddOverride", work)


@router.delete(f"{API}/overrides/{{override_id}}")
async def remove_override(
    request: Request, override_id: Annotated[str, PathParam(max_length=128)]
) -> Response:
    """Remove one identity override."""

    async def work(c: Any) -> Any:
        left = await c.memory.RemoveOverride(mpb.RemoveOverrideRequest(id=override_id), timeout=QUICK_S)
        return convert.identity(left.identity)

    return await _answer(request, "RemoveOverride", work)


# --------------------------------------------------------------------------------------------------- console
@router.post(f"{API}/search")
async def search(request: Request, body: SearchIn) -> Response:
    """Console search: scoped, optionally one agent, disabled rows only when asked; previews redacted."""

    async def work(c: Any) -> Any:
        found = await c.console.Search(
            cpb.SearchRequest(
                query=body.query,
                scope=convert.SCOPES[body.scope],
                agent_id=body.agent_id,
                include_disabled=body.include_disabled,
                limit=body.limit,
            ),
            timeout=QUICK_S,
        )
        return {"hits": [convert.hit(h) for h in found.hits]}

    return await _answer(request, "Search", work)


@router.get(f"{API}/items/{{kind}}/{{item_id}}")
async def inspect(request: Request, kind: Kind, item_id: ItemId) -> Response:
    """Inspect one row: redacted preview and metadata, vector flag and its source turns."""

    async def work(c: Any) -> Any:
        found = await c.console.Inspect(cpb.InspectRequest(item=_item(kind, item_id)), timeout=QUICK_S)
        return convert.inspection(found)

    return await _answer(request, "Inspect", work)


@router.post(f"{API}/items/{{kind}}/{{item_id}}/disable")
async def disable(request: Request, kind: Kind, item_id: ItemId) -> Response:
    """Take a pinned fact or an episode out of recall (the row is kept)."""

    async def work(c: Any) -> Any:
        done = await c.console.Disable(cpb.DisableRequest(item=_item(kind, item_id)), timeout=QUICK_S)
        return {"changed": done.changed}

    return await _answer(request, "Disable", work)


@router.post(f"{API}/items/{{kind}}/{{item_id}}/enable")
async def enable(request: Request, kind: Kind, item_id: ItemId) -> Response:
    """Put a disabled pinned fact or episode back into recall."""

    async def work(c: Any) -> Any:
        done = await c.console.Enable(cpb.EnableRequest(item=_item(kind, item_id)), timeout=QUICK_S)
        return {"changed": done.changed}

    return await _answer(request, "Enable", work)


@router.post(f"{API}/items/{{kind}}/{{item_id}}/forget")
async def forget(request: Request, kind: Kind, item_id: ItemId) -> Response:
    """Delete a row permanently, with its full-text entry and vector."""

    async def work(c: Any) -> Any:
        done = await c.console.Forget(cpb.ForgetRequest(item=_item(kind, item_id)), timeout=QUICK_S)
        return {"forgotten": True, "vector_removed": done.vector_removed}

    return await _answer(request, "Forget", work)


@router.get(f"{API}/diagnostics")
async def diagnostics(request: Request) -> Response:
    """Storage health (schema, counts, FTS mirrors, vector indexes, recent errors, store state)."""

    async def work(c: Any) -> Any:
        return convert.diagnosis(await c.console.Diagnose(cpb.DiagnoseRequest(), timeout=QUICK_S))

    return await _answer(request, "Diagnose", work)


@router.post(f"{API}/preview")
async def preview(request: Request, body: PreviewIn) -> Response:
    """The redacted block an agent would get for a query, under an explicit token cap."""

    async def work(c: Any) -> Any:
        found = await c.console.PreviewContext(
            cpb.PreviewContextRequest(agent_id=body.agent_id, query=body.query, max_tokens=body.max_tokens),
            timeout=QUICK_S,
        )
        return {**convert.context_preview(found), "max_tokens": body.max_tokens}

    return await _answer(request, "PreviewContext", work)


# ---------------------------------------------------------------------------------------------- maintenance
@router.post(f"{API}/sync")
async def sync_now(request: Request, body: SyncIn) -> Response:
    """Sync Now: distil every session that has not flushed yet."""

    async def work(c: Any) -> Any:
        found = await c.memory.SyncNow(mpb.SyncNowRequest(agent_id=body.agent_id), timeout=LONG_S)
        return {"outcomes": convert.sync_outcomes(found)}

    return await _answer(request, "SyncNow", work)


@router.post(f"{API}/consolidate")
async def consolidate(request: Request) -> Response:
    """Run Consolidation Now and return its report."""

    async def work(c: Any) -> Any:
        found = await c.memory.RunConsolidation(mpb.RunConsolidationRequest(), timeout=LONG_S)
        return convert.consolidation(found.report)

    return await _answer(request, "RunConsolidation", work)


@router.post(f"{API}/clear")
async def clear_all(request: Request, body: ClearIn) -> Response:
    """The danger zone: delete all memory, only when the typed confirmation matches."""

    async def work(c: Any) -> Any:
        if body.confirm_text != CLEAR_PHRASE:  # exact: the point is a deliberate act
            raise GatewayError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "CONFIRMATION_REQUIRED",
                f"type {CLEAR_PHRASE!r} to confirm clearing all memory",
            )
        found = await c.console.ClearAll(cpb.ClearAllRequest(confirm=True), timeout=LONG_S)
        return {"rows_deleted": found.rows_deleted}

    return await _answer(request, "ClearAll", work)
