"""The gateway's REST routes over real memoryd, plugin_host and inferd (fake backend): memory ingest, agents and
their settings, identity overrides, agent runs (JSON and SSE), and 4xx JSON errors for bad input."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from tests.support.gateway_stack import GatewayStack, running_stack

UUID_LOWER = "3f2b8c1e-9a4d-4e2f-8b7a-1c2d3e4f5a6b"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    with running_stack(tmp_path_factory.mktemp("gateway-api")) as running:
        yield running


@pytest.fixture
def http(stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.url, timeout=60) as client:
        yield client


def memory_stub(stack: GatewayStack) -> tuple[grpc.Channel, mpb_grpc.MemoryServiceStub]:
    channel = grpc.insecure_channel(stack.memoryd_target)
    return channel, mpb_grpc.MemoryServiceStub(channel)


def assert_error(response: httpx.Response, status: int, reason: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error["reason"] == reason and error["code"] == reason, error
    assert isinstance(error["status"], str) and isinstance(error["grpc_code"], int) and error["message"]
    body: dict[str, Any] = error
    return body


def ingest(http: httpx.Client, **body: Any) -> httpx.Response:
    return http.post("/memory/ingest", json=body)


def test_ingest_skip_extraction_omits_outcome(http: httpx.Client) -> None:
    response = ingest(
        http, agent_id="ingest-skip", conversation_id="s1", skip_extraction=True,
        turns=[{"user": "first"}, {"user": "second", "assistant": "ok"}],
    )  # fmt: skip
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "turns_ingested": 2}


def test_ingest_canonicalises_uuid_and_uses_session_date(http: httpx.Client, stack: GatewayStack) -> None:
    response = ingest(
        http, agent_id=UUID_LOWER, conversation_id="dated", skip_extraction=True, session_date="2024-03-15",
        turns=[{"user": "We moved to Lisbon in spring.", "assistant": "Nice."}],
    )  # fmt: skip
    assert response.status_code == 200
    agent = http.get(f"/agents/{UUID_LOWER.upper()}").json()
    assert agent["agent_id"] == UUID_LOWER.upper()
    # The lower-case spelling reaches the same agent.
    assert http.get(f"/agents/{UUID_LOWER}").json()["agent_id"] == UUID_LOWER.upper()
    channel, stub = memory_stub(stack)
    with channel:
        stub.UpsertAgent(mpb.UpsertAgentRequest(agent_id=UUID_LOWER, search_memory_enabled=True), timeout=10)
        hits = stub.SearchMemory(
            mpb.SearchMemoryRequest(agent_id=UUID_LOWER, scope=mpb.SCOPE_TRANSCRIPT, query="Lisbon"),
            timeout=10,
        ).hits
    assert hits and hits[0].occur_time.ToJsonString().startswith("2024-03-15")


def test_ingest_is_idempotent_per_conversation(http: httpx.Client, stack: GatewayStack) -> None:
    turns = [{"user": f"turn {i}", "assistant": "ok"} for i in range(3)]
    for _ in range(2):
        assert (
            ingest(http, agent_id="idem", conversation_id="c", skip_extraction=True, turns=turns).status_code
            == 200
        )
    channel, stub = memory_stub(stack)
    with channel:
        stats = stub.GetStats(mpb.GetStatsRequest(), timeout=10)
    counts = next(a for a in stats.agents if a.agent_id == "idem")
    assert counts.transcript_turns == 6  # 3 user + 3 assistant rows, once


def test_ingest_bad_inputs_are_400_with_reason(http: httpx.Client) -> None:
    ok_turns = [{"user": "x"}]
    assert_error(ingest(http, conversation_id="c", turns=ok_turns), 400, "MISSING_FIELD")
    assert_error(ingest(http, agent_id="a", conversation_id="c", turns=[]), 400, "MISSING_FIELD")
    assert_error(
        ingest(http, agent_id="has space", conversation_id="c", turns=ok_turns), 400, "INVALID_AGENT_ID"
    )
    bad_date = assert_error(
        ingest(http, agent_id="a", conversation_id="c", turns=ok_turns, session_date="last tuesday"),
        400,
        "INVALID_SESSION_DATE",
    )
    assert bad_date["param"] == "session_date"
    assert_error(
        ingest(http, agent_id="a", conversation_id="c", turns=ok_turns, surprise=1), 400, "UNKNOWN_FIELD"
    )
    assert_error(
        ingest(http, agent_id="a", conversation_id="c", turns=[{"assistant": "x"}]), 400, "MISSING_FIELD"
    )
    malformed = http.post("/memory/ingest", content=b"{nope", headers={"Content-Type": "application/json"})
    assert_error(malformed, 400, "MALFORMED_JSON")
    # A cross-site form post (text/plain, from a page: Origin) is not parsed as JSON.
    form = http.post(
        "/memory/ingest",
        content=json.dumps({"agent_id": "a"}),
        headers={"Content-Type": "text/plain", "Origin": "https://elsewhere.example"},
    )
    assert_error(form, 415, "UNSUPPORTED_MEDIA_TYPE")


def test_agents_list_and_get_with_memory_entry_count(http: httpx.Client) -> None:
    assert (
        ingest(
            http, agent_id="lister", conversation_id="c", skip_extraction=True, turns=[{"user": "x"}]
        ).status_code
        == 200
    )
    listed = http.get("/agents").json()["agents"]
    ids = [a["agent_id"] for a in listed]
    assert "lister" in ids and ids == sorted(ids)
    one = http.get("/agents/lister").json()
    assert one["memory_entry_count"] == 0  # transcript only: no episodes, no pinned facts
    assert set(one) >= {
        "agent_id",
        "memory_enabled",
        "search_memory_enabled",
        "memory_entry_count",
        "create_time",
    }
    assert next(a for a in listed if a["agent_id"] == "lister") == one
    assert_error(http.get("/agents/nobody-here"), 404, "AGENT_NOT_FOUND")


def test_agent_settings_put_patch_get(http: httpx.Client) -> None:
    created = http.put(
        "/agents/settings-a/settings", json={"memory_enabled": False, "search_memory_enabled": True}
    )
    assert created.status_code == 201
    assert created.json() == {"display_name": "", "memory_enabled": False, "search_memory_enabled": True}
    replaced = http.put(
        "/agents/settings-a/settings",
        json={"memory_enabled": True, "search_memory_enabled": True, "display_name": "Helper"},
    )
    assert replaced.status_code == 200 and replaced.json()["display_name"] == "Helper"
    patched = http.patch("/agents/settings-a/settings", json={"search_memory_enabled": False})
    assert patched.json() == {
        "display_name": "Helper",
        "memory_enabled": True,
        "search_memory_enabled": False,
    }
    assert http.get("/agents/settings-a/settings").json() == patched.json()
    assert http.get("/agents/settings-a").json()["search_memory_enabled"] is False
    assert_error(http.patch("/agents/ghost/settings", json={"memory_enabled": True}), 404, "AGENT_NOT_FOUND")
    assert_error(http.put("/agents/settings-a/settings", json={"memory_enabled": True}), 400, "MISSING_FIELD")
    assert_error(
        http.patch("/agents/settings-a/settings", json={"memory_enabled": "sometimes"}), 400, "INVALID_VALUE"
    )


def test_identity_overrides_add_list_get_delete(http: httpx.Client) -> None:
    added = http.post("/identity/overrides", json={"text": "I prefer tabs over spaces"})
    assert added.status_code == 201
    override = added.json()
    assert added.headers["location"] == f"/identity/overrides/{override['id']}"
    assert override in http.get("/identity/overrides").json()["overrides"]
    assert http.get(f"/identity/overrides/{override['id']}").json() == override
    assert override in http.get("/identity").json()["overrides"]
    assert http.delete(f"/identity/overrides/{override['id']}").status_code == 204
    assert override not in http.get("/identity/overrides").json()["overrides"]
    assert_error(http.delete(f"/identity/overrides/{override['id']}"), 404, "OVERRIDE_NOT_FOUND")
    assert_error(http.get("/identity/overrides/unknown"), 404, "OVERRIDE_NOT_FOUND")
    assert_error(http.post("/identity/overrides", json={"text": ""}), 400, "MISSING_FIELD")
    assert_error(http.post("/identity/overrides", json={"text": "x" * 2001}), 400, "FIELD_TOO_LONG")


def test_run_agent_json_records_the_turn(http: httpx.Client) -> None:
    body = {"conversation_id": "run-1", "messages": [{"role": "user", "content": "remember the blue door"}]}
    response = http.post("/agents/runner/run", json=body)
    assert response.status_code == 200, response.text
    result = response.json()
    assert result["reply"] == "echo: remember the blue door"
    assert result["memory"]["recorded"] is True
    assert (
        result["usage"]["total_tokens"]
        == result["usage"]["prompt_tokens"] + result["usage"]["completion_tokens"]
    )
    assert http.get("/agents/runner").status_code == 200  # the turn created the agent in memoryd


def sse_events(response: httpx.Response) -> list[tuple[str, Any]]:
    events: list[tuple[str, Any]] = []
    name = "message"
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line.removeprefix("event: ")
        elif line.startswith("data: "):
            events.append((name, json.loads(line.removeprefix("data: "))))
            name = "message"
    return events


@pytest.mark.parametrize("ask", ["body", "accept"])
def test_run_agent_streams_sse(http: httpx.Client, ask: str) -> None:
    body: dict[str, Any] = {
        "conversation_id": f"run-sse-{ask}",
        "messages": [{"role": "user", "content": "hello"}],
    }
    headers = {}
    if ask == "body":
        body["stream"] = True
    else:
        headers["Accept"] = "text/event-stream"
    with http.stream("POST", "/agents/streamer/run", json=body, headers=headers) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response)
    names = [name for name, _ in events]
    assert names[-1] == "done" and set(names[:-1]) == {"delta"}, names
    assert "".join(data["delta"] for _, data in events[:-1]) == "echo: hello"
    done = events[-1][1]
    assert done["reply"] == "echo: hello" and done["memory"]["recorded"] is True
    assert (
        done["usage"]["total_tokens"] == done["usage"]["prompt_tokens"] + done["usage"]["completion_tokens"]
    )


def test_run_agent_bad_inputs_are_4xx(http: httpx.Client) -> None:
    user = [{"role": "user", "content": "hi"}]
    assert_error(http.post("/agents/r/run", json={"messages": user}), 400, "MISSING_FIELD")
    assert_error(
        http.post(
            "/agents/r/run", json={"conversation_id": "c", "messages": [{"role": "wizard", "content": "x"}]}
        ),
        400,
        "INVALID_VALUE",
    )
    unknown_model = http.post(
        "/agents/r/run", json={"conversation_id": "c", "messages": user, "model": "nope"}
    )
    assert 400 <= unknown_model.status_code < 500 and unknown_model.json()["error"]["reason"]


def test_unknown_route_and_method_are_json(http: httpx.Client) -> None:
    assert_error(http.get("/no/such/route"), 404, "NOT_FOUND")
    assert_error(http.delete("/agents"), 405, "METHOD_NOT_ALLOWED")


def test_peer_down_is_503_json(stack: GatewayStack) -> None:
    # A second gateway whose memoryd address has nothing listening: the gRPC UNAVAILABLE becomes a JSON 503.
    from dataclasses import replace

    from gateway.embedded import EmbeddedGateway

    settings = replace(stack.gateway.settings, memoryd_addr="127.0.0.1:1")
    with EmbeddedGateway(settings) as down, httpx.Client(base_url=down.url, timeout=30) as client:
        response = client.get("/agents")
    assert response.status_code == 503
    assert response.json()["error"]["status"] == "UNAVAILABLE"


@pytest.mark.slow  # memoryd's grounded distillation of six turns takes tens of seconds on two shared cores
def test_ingest_distils_and_reingest_keeps_one_episode(http: httpx.Client) -> None:
    turns = [
        {"user": f"I have played the cello for {i + 2} years and practise every morning before my shift as a "
                 "nurse at the hospital in Porto.", "assistant": "A lovely routine; the cello rewards daily practice."}
        for i in range(6)
    ]  # fmt: skip
    body = {
        "agent_id": "distiller",
        "conversation_id": "s1",
        "turns": turns,
        "session_date": "2024-05-01T09:00:00Z",
    }
    first = http.post("/memory/ingest", json=body).json()
    assert first["distillation"] == "distilled" and first["turns_ingested"] == 6
    assert isinstance(first["episode_id"], int) and first["episode_id"] > 0
    count = http.get("/agents/distiller").json()["memory_entry_count"]
    assert count >= 1
    again = http.post("/memory/ingest", json=body).json()
    assert again["distillation"] == "distilled" and again["episode_id"] != first["episode_id"]
    # The earlier episode of that conversation was replaced, not kept beside the new one.
    assert http.get("/agents/distiller").json()["memory_entry_count"] == count


def test_run_agent_answers_the_canonical_agent_id(http: httpx.Client) -> None:
    body = {"conversation_id": "run-uuid", "messages": [{"role": "user", "content": "hi"}]}
    result = http.post(f"/agents/{UUID_LOWER}/run", json=body).json()
    assert result["agent_id"] == UUID_LOWER.upper()


# gateway.fastpath answers GET /agents and POST /memory/ingest before FastAPI's router; a query string sends the
# same request through the router instead, so the two can be compared on one running gateway.
def test_fast_paths_answer_what_the_router_answers(http: httpx.Client) -> None:
    body = {"agent_id": "fast-a", "conversation_id": "c", "turns": [{"user": "x"}], "skip_extraction": True}
    fast, routed = http.post("/memory/ingest", json=body), http.post("/memory/ingest?via=router", json=body)
    assert fast.status_code == routed.status_code == 200
    assert fast.content == routed.content == b'{"status":"ok","turns_ingested":1}'
    assert fast.headers["content-type"] == routed.headers["content-type"] == "application/json"
    listed, routed_list = http.get("/agents"), http.get("/agents?via=router")
    assert listed.status_code == routed_list.status_code == 200
    assert listed.content == routed_list.content
    assert "fast-a" in [a["agent_id"] for a in listed.json()["agents"]]
    for bad in (
        {**body, "surprise": 1},
        {**body, "turns": [{"assistant": "x"}]},
        {**body, "agent_id": "a b"},
    ):
        fast, routed = http.post("/memory/ingest", json=bad), http.post("/memory/ingest?via=router", json=bad)
        assert fast.status_code == routed.status_code == 400
        assert fast.json() == routed.json()


# Raw bodies the fast path's strict parser (gateway/ingest_body.py) leaves to the router: each answers exactly as the
# router does, a 4xx JSON error with a reason, or the router's 200 for a lax form pydantic accepts.
RAW_BAD_INGEST = [
    b"",
    b"{nope",
    b"[]",
    b"null",
    b'{"agent_id":"a\\ud800","conversation_id":"c","turns":[{"user":"x"}]}',
    b'{"agent_id":"a","conversation_id":"c","turns":[{"user":"x"}],"session_date":"2026-01-01\\udfff"}',
    b'{"agent_id":"a","conversation_id":"c","turns":{"user":"x"}}',
    b'{"agent_id":"a","conversation_id":"c","turns":["x"]}',
    b'{"agent_id":"a","conversation_id":"c","turns":[{"user":1}]}',
    b'{"agent_id":"a","conversation_id":"c","turns":[{"user":"x","surprise":1}]}',
    b'{"agent_id":null,"conversation_id":"c","turns":[{"user":"x"}]}',
    b'{"agent_id":"a","conversation_id":"c","turns":[{"user":"x"}],"skip_extraction":"maybe"}',
    b'{"agent_id":"a","conversation_id":"c","turns":[{"user":"x"}],"session_date":20260101}',
    b'{"agent_id":"a","conversation_id":"c","turns":[{"user":"x"}],"session_date":"last tuesday"}',
    b"[" * 50_000,
]


@pytest.mark.parametrize("raw", RAW_BAD_INGEST, ids=range(len(RAW_BAD_INGEST)))
def test_fast_path_bad_raw_bodies_answer_as_the_router(http: httpx.Client, raw: bytes) -> None:
    headers = {"Content-Type": "application/json"}
    fast = http.post("/memory/ingest", content=raw, headers=headers)
    routed = http.post("/memory/ingest?via=router", content=raw, headers=headers)
    assert 400 <= fast.status_code < 500, fast.text
    assert (fast.status_code, fast.json()) == (routed.status_code, routed.json())
    assert fast.json()["error"]["reason"] and fast.json()["error"]["grpc_code"] == 3  # INVALID_ARGUMENT


LAX_BODY = '{"agent_id":"fast-lax","conversation_id":"c","turns":[{"user":"x"}],"skip_extraction":true}'
LAX_INGEST = [
    LAX_BODY.replace("true", "1").encode(),
    b"\xef\xbb\xbf" + LAX_BODY.encode(),
    LAX_BODY.encode("utf-16"),
]


@pytest.mark.parametrize("raw", LAX_INGEST, ids=["int-bool", "utf8-bom", "utf16"])
def test_fast_path_leaves_lax_forms_to_the_router(http: httpx.Client, raw: bytes) -> None:
    headers = {"Content-Type": "application/json"}
    fast = http.post("/memory/ingest", content=raw, headers=headers)
    routed = http.post("/memory/ingest?via=router", content=raw, headers=headers)
    assert fast.status_code == routed.status_code == 200
    assert fast.content == routed.content == b'{"status":"ok","turns_ingested":1}'


def test_cached_agent_list_follows_changes(http: httpx.Client) -> None:
    ingest(http, agent_id="fast-b", conversation_id="c", skip_extraction=True, turns=[{"user": "x"}])
    before = {a["agent_id"]: a for a in http.get("/agents").json()["agents"]}
    assert before["fast-b"]["display_name"] != "Renamed"
    put = http.put(
        "/agents/fast-b/settings",
        json={"memory_enabled": True, "search_memory_enabled": False, "display_name": "Renamed"},
    )
    assert put.status_code == 200
    after = {a["agent_id"]: a for a in http.get("/agents").json()["agents"]}
    assert after["fast-b"]["display_name"] == "Renamed"
    ingest(http, agent_id="fast-c", conversation_id="c", skip_extraction=True, turns=[{"user": "x"}])
    assert "fast-c" in [a["agent_id"] for a in http.get("/agents").json()["agents"]]


def test_ingest_without_json_content_type_answers_as_the_router(http: httpx.Client) -> None:
    body = json.dumps({"agent_id": "fast-d", "conversation_id": "c", "turns": [{"user": "x"}],
                       "skip_extraction": True})  # fmt: skip
    # The fast path takes application/json only and leaves every other content type to FastAPI's route.
    for headers in ({}, {"Content-Type": ""}, {"Content-Type": "text/plain"}):
        fast = http.post("/memory/ingest", content=body, headers=headers)
        routed = http.post("/memory/ingest?via=router", content=body, headers=headers)
        assert (fast.status_code, fast.content) == (routed.status_code, routed.content), headers
