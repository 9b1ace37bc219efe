"""X-Osaurus-Tenant through the real gateway: forwarded to memoryd on every memory route (the hot ingest and
/agents paths too) and to plugin_host on agent runs, and validated. (tests/integration/test_plugin_tenants.py
follows a tenant through plugin_host's injection, recording and plugins.)"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from memoryd.client import MemoryClient
from tests.support.gateway_stack import GatewayStack, running_stack

HEADER = "X-Osaurus-Tenant"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    with running_stack(tmp_path_factory.mktemp("gateway-tenants")) as running:
        yield running


@pytest.fixture
def http(stack: GatewayStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=stack.url, timeout=60) as client:
        yield client


def _agents(http: httpx.Client, tenant: str | None) -> list[str]:
    headers = {HEADER: tenant} if tenant else {}
    response = http.get("/agents", headers=headers)
    assert response.status_code == 200, response.text
    return [a["agent_id"] for a in response.json()["agents"]]


def test_each_tenant_sees_only_its_own_agents_and_identity(http: httpx.Client, stack: GatewayStack) -> None:
    for tenant in ("acme", "globex"):
        body = {"agent_id": "shared", "conversation_id": "c", "skip_extraction": True,
                "turns": [{"user": f"{tenant} secret plan", "assistant": "ok"}]}  # fmt: skip
        assert http.post("/memory/ingest", json=body, headers={HEADER: tenant}).status_code == 200
        settings = {"memory_enabled": True, "search_memory_enabled": True}
        put = http.put(f"/agents/only-{tenant}/settings", json=settings, headers={HEADER: tenant})
        assert put.status_code == 201, put.text
        created = http.post(
            "/identity/overrides", json={"text": f"I work at {tenant}"}, headers={HEADER: tenant}
        )
        assert created.status_code == 201, created.text
    assert sorted(_agents(http, "acme")) == ["only-acme", "shared"]
    assert sorted(_agents(http, "globex")) == ["only-globex", "shared"]
    assert not {"only-acme", "only-globex"} & set(_agents(http, None))  # the default tenant is untouched
    overrides = http.get("/identity/overrides", headers={HEADER: "globex"}).json()["overrides"]
    assert [o["text"] for o in overrides] == ["I work at globex"]
    # Rows went to each tenant's own store: memoryd's client for globex finds only globex's turn.
    with MemoryClient(stack.memoryd_target, tenant="globex") as client:
        client.upsert_agent("shared", search_memory_enabled=True)
        texts = [h.text for h in client.search_memory("shared", "transcript", "secret plan")]
    assert texts and all("globex" in t for t in texts)


def test_a_bad_tenant_header_is_400(http: httpx.Client) -> None:
    for bad in ("Acme", "a/b", "x" * 49):
        response = http.get("/agents", headers={HEADER: bad})
        assert response.status_code == 400, bad
        assert response.json()["error"]["reason"] == "INVALID_TENANT"
    assert http.get("/v1/models", headers={HEADER: "no way"}).status_code == 400


def test_agent_runs_act_for_the_named_tenant(http: httpx.Client, stack: GatewayStack) -> None:
    response = http.post(
        "/agents/runner-t/run",
        json={"conversation_id": "c", "messages": [{"role": "user", "content": "the okapi plan"}]},
        headers={HEADER: "acme"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["memory"]["recorded"] is True
    assert "runner-t" in _agents(http, "acme")  # the turn was recorded in acme's memory ...
    assert "runner-t" not in _agents(http, None)  # ... not the default tenant's


def test_the_default_tenant_header_is_the_default_tenant(http: httpx.Client) -> None:
    http.put("/agents/plain/settings", json={"memory_enabled": True, "search_memory_enabled": False})
    assert "plain" in _agents(http, "default")
    assert "plain" in _agents(http, None)
