"""Memory routes: POST /memory/ingest, /agents (+ settings), /identity (+ overrides), over memoryd's gRPC API."""

from __future__ import annotations

from datetime import UTC, datetime

import grpc
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from google.protobuf import timestamp_pb2

from gateway.clients import Clients
from gateway.errors import GatewayError, invalid
from gateway.schemas import (
    Agent,
    AgentList,
    AgentSettings,
    AgentSettingsPatch,
    AgentSettingsPut,
    ErrorBody,
    Identity,
    IdentityFact,
    IngestRequest,
    IngestResponse,
    Override,
    OverrideCreate,
    OverrideList,
)
from osaurus.memory.v1 import memory_pb2 as mpb

ERRORS: dict[int | str, dict[str, object]] = {
    "4XX": {"model": ErrorBody, "description": "Bad input or state: gRPC status and ErrorInfo reason"},
    "5XX": {"model": ErrorBody, "description": "A service is down or failed"},
}
router = APIRouter(responses=ERRORS)
_PAGE_SIZE = 1000


def clients_of(request: Request) -> Clients:
    """The app's gRPC peers."""
    clients: Clients = request.app.state.clients
    return clients


#: RFC 3339 text by (seconds, nanos): protobuf's ToJsonString is pure Python and GET /agents formats two stamps
#: per agent on every call, though they rarely change. Cleared when full, so it stays small.
_RFC3339_CACHE: dict[tuple[int, int], str] = {}
_RFC3339_CACHE_MAX = 4096


def rfc3339(stamp: timestamp_pb2.Timestamp) -> str | None:
    """A protobuf Timestamp as RFC 3339 text; None when unset."""
    key = (stamp.seconds, stamp.nanos)
    if key == (0, 0):
        return None
    text = _RFC3339_CACHE.get(key)
    if text is None:
        if len(_RFC3339_CACHE) >= _RFC3339_CACHE_MAX:
            _RFC3339_CACHE.clear()
        text = _RFC3339_CACHE[key] = stamp.ToJsonString()
    return text


def parse_session_date(value: str) -> timestamp_pb2.Timestamp:
    """An ISO 8601 date or date-time as a Timestamp; a date alone is midnight UTC, a naive time is UTC."""
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise invalid(
            "INVALID_SESSION_DATE", "session_date", "must be an ISO 8601 date or date-time"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def _agent(a: mpb.Agent) -> dict[str, object]:
    """An Agent body as a plain dict: the hot read routes answer it without a pydantic round trip (the model
    documents it)."""
    return {
        "agent_id": a.agent_id,
        "display_name": a.display_name,
        "memory_enabled": a.memory_enabled,
        "search_memory_enabled": a.search_memory_enabled,
        "memory_entry_count": a.memory_entry_count,
        "create_time": rfc3339(a.create_time),
        "update_time": rfc3339(a.update_time),
    }


def _settings(a: mpb.Agent) -> AgentSettings:
    return AgentSettings(
        display_name=a.display_name,
        memory_enabled=a.memory_enabled,
        search_memory_enabled=a.search_memory_enabled,
    )


def _override(o: mpb.Override) -> Override:
    return Override(id=o.id, text=o.text, create_time=rfc3339(o.create_time))


def _identity(i: mpb.Identity) -> Identity:
    return Identity(
        overrides=[_override(o) for o in i.overrides],
        content=i.content,
        facts=[
            IdentityFact(id=f.id, text=f.text, source_agent_id=f.source_agent_id, source_count=f.source_count)
            for f in i.facts
        ],
        model=i.model,
        version=i.version,
        generate_time=rfc3339(i.generate_time),
    )


# ------------------------------------------------------------------------------------------ ingest
@router.post(
    "/memory/ingest",
    response_model=IngestResponse,
    response_model_exclude_none=True,
    tags=["memory"],
    summary="Bulk-ingest one conversation (distils synchronously unless skip_extraction)",
)
async def ingest(body: IngestRequest, request: Request) -> Response:
    """Memoryd's Ingest: idempotent per conversation_id; re-ingesting replaces that conversation's transcript,
    pending signals and episodes. Without skip_extraction the call waits for the distillation (a cold model load
    can take tens of seconds) and reports its outcome token."""
    # gateway.fastpath answers well-formed requests before this route; it runs for the rest (and in tests).
    clients = clients_of(request)
    reply = await clients.memory.Ingest(ingest_message(body), timeout=clients.deadlines.ingest_s)
    return JSONResponse(ingest_answer(body.skip_extraction, reply))


def ingest_message(body: IngestRequest) -> mpb.IngestRequest:
    """The gRPC request of a validated POST /memory/ingest body."""
    message = mpb.IngestRequest(
        agent_id=body.agent_id,
        conversation_id=body.conversation_id,
        turns=[mpb.Turn(user=t.user, assistant=t.assistant) for t in body.turns],
        skip_extraction=body.skip_extraction,
    )
    if body.session_date is not None:
        message.session_time.CopyFrom(parse_session_date(body.session_date))
    return message


def ingest_answer(skip_extraction: bool, reply: mpb.IngestResponse) -> dict[str, object]:
    """The response body: a plain dict in IngestResponse's shape (the model documents it; this route is hot)."""
    answer: dict[str, object] = {"status": "ok", "turns_ingested": reply.turns_ingested}
    if not skip_extraction:
        answer["distillation"] = reply.distillation
        if reply.distillation == "distilled":
            answer["episode_id"] = reply.episode_id
    return answer


# ------------------------------------------------------------------------------------------ agents
@router.get("/agents", response_model=AgentList, tags=["agents"], summary="List every agent")
async def list_agents(request: Request) -> Response:
    """Every known agent with its memory_entry_count (episodes plus active pinned facts), by agent_id."""
    # gateway.fastpath answers this path before the router; this route documents it and serves as fallback.
    return JSONResponse(agents_answer(await list_all_agents(clients_of(request))))


#: ListAgents' first page as sent by GET /agents.
FIRST_AGENTS_PAGE = mpb.ListAgentsRequest(page_size=_PAGE_SIZE)


async def list_all_agents(clients: Clients, first: mpb.ListAgentsResponse | None = None) -> list[mpb.Agent]:
    """Every agent, following ListAgents' pages (from the first page's reply when the caller has it)."""
    reply = first or await clients.memory.ListAgents(FIRST_AGENTS_PAGE, timeout=clients.deadlines.quick_s)
    agents: list[mpb.Agent] = list(reply.agents)
    while reply.next_page_token:
        reply = await clients.memory.ListAgents(
            mpb.ListAgentsRequest(page_size=_PAGE_SIZE, page_token=reply.next_page_token),
            timeout=clients.deadlines.quick_s,
        )
        agents.extend(reply.agents)
    return agents


def agents_answer(agents: list[mpb.Agent]) -> dict[str, object]:
    """GET /agents' body (AgentList's shape) as plain data."""
    return {"agents": [_agent(a) for a in agents]}


@router.get("/agents/{agent_id}", response_model=Agent, tags=["agents"], summary="Get one agent")
async def get_agent(agent_id: str, request: Request) -> Response:
    """One agent; 404 AGENT_NOT_FOUND when unknown."""
    clients = clients_of(request)
    reply = await clients.memory.GetAgent(
        mpb.GetAgentRequest(agent_id=agent_id), timeout=clients.deadlines.quick_s
    )
    return JSONResponse(_agent(reply.agent))


@router.get(
    "/agents/{agent_id}/settings",
    response_model=AgentSettings,
    tags=["agents"],
    summary="An agent's settings",
)
async def get_settings(agent_id: str, request: Request) -> AgentSettings:
    """The memory toggles and display name; 404 AGENT_NOT_FOUND when unknown."""
    clients = clients_of(request)
    reply = await clients.memory.GetAgent(
        mpb.GetAgentRequest(agent_id=agent_id), timeout=clients.deadlines.quick_s
    )
    return _settings(reply.agent)


@router.put(
    "/agents/{agent_id}/settings",
    response_model=AgentSettings,
    tags=["agents"],
    summary="Replace an agent's settings (creates the agent)",
    responses={201: {"model": AgentSettings, "description": "The agent was created"}},
)
async def put_settings(
    agent_id: str, body: AgentSettingsPut, request: Request, response: Response
) -> AgentSettings:
    """Sets both toggles (and the display name when given); creates the agent if new (201)."""
    clients = clients_of(request)
    message = mpb.UpsertAgentRequest(
        agent_id=agent_id,
        memory_enabled=body.memory_enabled,
        search_memory_enabled=body.search_memory_enabled,
    )
    if body.display_name is not None:
        message.display_name = body.display_name
    reply = await clients.memory.UpsertAgent(message, timeout=clients.deadlines.quick_s)
    if reply.created:
        response.status_code = 201
    return _settings(reply.agent)


@router.patch(
    "/agents/{agent_id}/settings",
    response_model=AgentSettings,
    tags=["agents"],
    summary="Change some of an agent's settings",
)
async def patch_settings(agent_id: str, body: AgentSettingsPatch, request: Request) -> AgentSettings:
    """Changes only the fields present; 404 AGENT_NOT_FOUND when the agent does not exist (PUT creates)."""
    clients = clients_of(request)
    await clients.memory.GetAgent(mpb.GetAgentRequest(agent_id=agent_id), timeout=clients.deadlines.quick_s)
    message = mpb.UpsertAgentRequest(agent_id=agent_id)
    if body.memory_enabled is not None:
        message.memory_enabled = body.memory_enabled
    if body.search_memory_enabled is not None:
        message.search_memory_enabled = body.search_memory_enabled
    if body.display_name is not None:
        message.display_name = body.display_name
    reply = await clients.memory.UpsertAgent(message, timeout=clients.deadlines.quick_s)
    return _settings(reply.agent)


# ------------------------------------------------------------------------------------------ identity
@router.get("/identity", response_model=Identity, tags=["identity"], summary="The identity")
async def get_identity(
    request: Request,
    agent_id: str = Query("", description="Empty: the global identity; an agent id: that agent's narrative."),
) -> Identity:
    """Overrides (global), narrative and derived facts."""
    clients = clients_of(request)
    reply = await clients.memory.GetIdentity(
        mpb.GetIdentityRequest(agent_id=agent_id), timeout=clients.deadlines.quick_s
    )
    return _identity(reply.identity)


@router.get(
    "/identity/overrides", response_model=OverrideList, tags=["identity"], summary="List identity overrides"
)
async def list_overrides(request: Request) -> OverrideList:
    """The explicit, user-authored facts that are always surfaced in context."""
    clients = clients_of(request)
    reply = await clients.memory.GetIdentity(mpb.GetIdentityRequest(), timeout=clients.deadlines.quick_s)
    return OverrideList(overrides=[_override(o) for o in reply.identity.overrides])


@router.post(
    "/identity/overrides",
    response_model=Override,
    status_code=201,
    tags=["identity"],
    summary="Add an identity override",
)
async def add_override(body: OverrideCreate, request: Request, response: Response) -> Override:
    """Appends one fact; answers 201 with its id and a Location header."""
    clients = clients_of(request)
    reply = await clients.memory.AddOverride(
        mpb.AddOverrideRequest(text=body.text), timeout=clients.deadlines.quick_s
    )
    response.headers["Location"] = f"/identity/overrides/{reply.override.id}"
    return _override(reply.override)


@router.get(
    "/identity/overrides/{override_id}",
    response_model=Override,
    tags=["identity"],
    summary="Get one identity override",
)
async def get_override(override_id: str, request: Request) -> Override:
    """One override; 404 OVERRIDE_NOT_FOUND when unknown."""
    clients = clients_of(request)
    reply = await clients.memory.GetIdentity(mpb.GetIdentityRequest(), timeout=clients.deadlines.quick_s)
    for item in reply.identity.overrides:
        if item.id == override_id:
            return _override(item)
    raise GatewayError(
        grpc.StatusCode.NOT_FOUND,
        "OVERRIDE_NOT_FOUND",
        "no override with that id",
        domain="memory.osaurus.dev",
    )


@router.delete(
    "/identity/overrides/{override_id}",
    status_code=204,
    tags=["identity"],
    summary="Remove an identity override",
)
async def remove_override(override_id: str, request: Request) -> Response:
    """Removes one override; 404 OVERRIDE_NOT_FOUND when unknown."""
    clients = clients_of(request)
    await clients.memory.RemoveOverride(
        mpb.RemoveOverrideRequest(id=override_id), timeout=clients.deadlines.quick_s
    )
    return Response(status_code=204)
