"""JSON bodies whatever their declared content type (note 10: curl's `-d` sent form encoding and got 400 "Input
should be a valid dictionary"), over the real gateway and services: a body that parses as JSON is read as JSON
unless a web page sent it; a page's non-JSON-typed body, and a typed body that is not JSON, are 415 naming the
header (a text/plain or form post is the one a browser sends cross-site without a preflight)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.support.gateway_stack import GatewayStack, running_stack

FORM = "application/x-www-form-urlencoded"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    with running_stack(tmp_path_factory.mktemp("gateway-json-body")) as running:
        yield running


@pytest.fixture
def http(stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.url, timeout=60) as client:
        yield client


def _ingest_body(agent: str) -> str:
    return json.dumps(
        {"agent_id": agent, "conversation_id": "c", "turns": [{"user": "x"}], "skip_extraction": True}
    )


def _agents(http: httpx.Client) -> set[str]:
    return {a["agent_id"] for a in http.get("/agents").json()["agents"]}


def _refused(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 415, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["reason"] == error["code"] == "UNSUPPORTED_MEDIA_TYPE"
    assert "Content-Type: application/json" in error["message"]
    return error


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_d_with_its_default_form_encoding_ingests(stack: GatewayStack, http: httpx.Client) -> None:
    done = subprocess.run(
        ["curl", "-sS", "-w", "\n%{http_code}", "-d", _ingest_body("curl-d"), f"{stack.url}/memory/ingest"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    body, status = done.stdout.rsplit("\n", 1)
    assert (status, json.loads(body)) == ("200", {"status": "ok", "turns_ingested": 1})
    assert "curl-d" in _agents(http)


@pytest.mark.parametrize("content_type", [FORM, "text/plain", None])
def test_a_json_body_is_read_whatever_its_declared_type(http: httpx.Client, content_type: str | None) -> None:
    agent = f"typed-{(content_type or 'none').replace('/', '-')}"
    headers = {"Content-Type": content_type} if content_type else {}
    response = http.post("/memory/ingest", content=_ingest_body(agent), headers=headers)
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "ok", "turns_ingested": 1}
    assert agent in _agents(http)


def test_other_json_endpoints_too(http: httpx.Client) -> None:
    http.post("/memory/ingest", json=json.loads(_ingest_body("settings-form")))
    settings = {"memory_enabled": True, "search_memory_enabled": False, "display_name": "Form"}
    put = http.put(
        "/agents/settings-form/settings", content=json.dumps(settings), headers={"Content-Type": FORM}
    )
    assert put.status_code == 200 and put.json()["display_name"] == "Form", put.text
    added = http.post("/identity/overrides", content=json.dumps({"text": "I like tea."}))
    assert added.status_code in (200, 201), added.text


@pytest.mark.parametrize("content_type", ["text/plain", FORM, None])
@pytest.mark.parametrize(
    "browser", [{"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"}, {"Origin": "null"}]
)
def test_a_web_page_needs_the_json_content_type(
    http: httpx.Client, content_type: str | None, browser: dict[str, str]
) -> None:
    agent = "cross-site-write"
    headers = {**browser, **({"Content-Type": content_type} if content_type else {})}
    _refused(http.post("/memory/ingest", content=_ingest_body(agent), headers=headers))
    assert agent not in _agents(http)


def test_a_web_page_with_the_json_content_type_is_unchanged(http: httpx.Client) -> None:
    headers = {"Origin": "https://evil.example", "Content-Type": "application/json"}
    response = http.post("/memory/ingest", content=_ingest_body("json-typed-page"), headers=headers)
    # The content type is what makes a browser ask first (CORS preflight); past it, the request is as before.
    assert response.status_code == 200


def test_a_form_body_that_is_not_json_is_415_naming_the_header(http: httpx.Client) -> None:
    response = http.post(
        "/memory/ingest", content="agent_id=a&conversation_id=c", headers={"Content-Type": FORM}
    )
    error = _refused(response)
    assert FORM in error["message"] and "curl" in error["message"]


def test_an_untyped_body_that_is_not_json_is_malformed_json(http: httpx.Client) -> None:
    response = http.post("/memory/ingest", content=b"{nope")
    assert response.status_code == 400 and response.json()["error"]["reason"] == "MALFORMED_JSON"
