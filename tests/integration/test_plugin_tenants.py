"""Tenants through plugin_host, with real parts: inferd (fake backend, which echoes the prompt it got), memoryd
(SQLite, tenants on), plugin_host running the `echo` test plugin in its own process, and the gateway over HTTP.

Each tenant has an identity override naming it, so the echoed reply shows whose memory was injected; the recorded
turns are looked up in each tenant's own store through memoryd's client. Tokens bound to a tenant reach their own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from gateway.config import Settings as GatewaySettings
from gateway.embedded import EmbeddedGateway
from inferd.app import close_all
from inferd.app import start as start_inferd
from inferd.config import builtin_models, for_tests
from memoryd.app import start as start_memoryd
from memoryd.client import MemoryClient
from memoryd.config import ServiceSettings
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.app import start as start_plugin_host
from plugin_host.config import SupervisorSettings
from plugin_host.config import load_settings as plugin_host_settings
from servicekit.errors import ServiceError, from_rpc_error
from servicekit.tls import TransportSecurity
from tests.support.plugin_host_stack import TEST_PLUGINS, write_grants

HEADER = "X-Osaurus-Tenant"
KEY = "x-osaurus-tenant"
TENANTS = ("acme", "globex", None)  # None: the default tenant
HOST_TOKEN = "host-runtime-token-0123456789"
ACME_TOKEN = "acme-bound-token-0123456789"
GRANTS = {"echo": {"permissions": ["inference", "memory_search"], "agents": ["*"]}}
QUESTION = "Where do I work and what is my job?"
SEED = [(f"note {n}: the {thing} is on the {place}", "noted") for n, (thing, place) in
        enumerate([("kettle", "stove"), ("bicycle", "balcony"), ("ladder", "garage"), ("lamp", "desk"),
                   ("umbrella", "hook"), ("parcel", "porch")])]  # fmt: skip


def locker(tenant: str | None) -> str:
    """Each tenant's private locker code, in a seeded turn that ctx.search_memory can find."""
    return f"{tenant or 'initech'}walrus"


def employer(tenant: str | None) -> str:
    """Each tenant's private word: its override says the user works there."""
    return f"{tenant or 'initech'}corp"


@dataclass
class Stack:
    memoryd: str
    host: str
    gateway: str

    def invoke(self, command: str, payload: dict[str, Any], *, tenant: str | None = None,
               token: str = HOST_TOKEN, conversation: str = "conv-1") -> Any:  # fmt: skip
        """InvokePlugin on the echo plugin for agent `a1`; the decoded result or the typed error raised."""
        metadata: list[tuple[str, str]] = [("authorization", f"Bearer {token}")]
        if tenant is not None:
            metadata.append((KEY, tenant))
        request = ppb.InvokePluginRequest(plugin="echo", command=command, payload_json=json.dumps(payload),
                                          agent_id="a1", conversation_id=conversation)  # fmt: skip
        with grpc.insecure_channel(self.host) as channel:
            try:
                reply = ppb_grpc.PluginHostServiceStub(channel).InvokePlugin(
                    request, metadata=metadata, timeout=60
                )
            except grpc.RpcError as error:
                raise from_rpc_error(error) from None
        return json.loads(reply.result_json)

    def run_agent(self, tenant: str | None, token: str, text: str = QUESTION) -> ppb.RunAgentResponse:
        """RunAgent straight on plugin_host's gRPC port with `token` (and the tenant named when not None)."""
        metadata: list[tuple[str, str]] = [("authorization", f"Bearer {token}")]
        if tenant is not None:
            metadata.append((KEY, tenant))
        request = ppb.RunAgentRequest(agent_id="a1", conversation_id="direct",
                                      messages=[mpb.ChatMessage(role=mpb.ROLE_USER, content=text)])  # fmt: skip
        with grpc.insecure_channel(self.host) as channel:
            try:
                reply: ppb.RunAgentResponse = ppb_grpc.PluginHostServiceStub(channel).RunAgent(
                    request, metadata=metadata, timeout=60
                )
            except grpc.RpcError as error:
                raise from_rpc_error(error) from None
        return reply

    def transcript(self, tenant: str | None, query: str) -> list[str]:
        """The rows of `tenant`'s own store that match `query` (the console's search: previews)."""
        with MemoryClient(self.memoryd, tenant=tenant) as client:
            return [match.preview for match in client.search(query, limit=50)]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    home: Path = tmp_path_factory.mktemp("plugin-tenants")
    tokens = home / "tokens"
    tokens.mkdir(mode=0o700)
    (tokens / "runtime").write_text(HOST_TOKEN)
    (tokens / "tenants").write_text(f"acme {ACME_TOKEN}\n")
    with ExitStack() as stack:
        inferd_server, inferd_app = start_inferd(for_tests(home / "inferd", models=builtin_models()))
        stack.callback(close_all, inferd_server, inferd_app, 1.0)
        memoryd_server, memoryd_app = start_memoryd(
            ServiceSettings(listen="127.0.0.1:0", home=home / "memoryd", inferd_addr=inferd_server.target)
        )
        stack.callback(memoryd_app.close)
        stack.callback(memoryd_server.stop, 2.0)
        host_home = home / "plugin_host"
        host_home.mkdir()
        write_grants(host_home, GRANTS)
        env = {"PATH": "/usr/bin:/bin", "OSAURUS_AUTH_TOKEN_FILE": str(tokens / "runtime"),
               "OSAURUS_TENANT_TOKENS_FILE": str(tokens / "tenants")}  # fmt: skip
        settings = plugin_host_settings(
            ["--listen", "127.0.0.1:0", "--home", str(host_home), "--memoryd", memoryd_server.target,
             "--inferd", inferd_server.target, "--no-entry-points", "--plugin-dir", str(TEST_PLUGINS / "echo")],
            env=env,
        )  # fmt: skip
        settings = replace(settings, supervisor=SupervisorSettings(start_timeout_s=30.0))
        host_server, host_app = start_plugin_host(settings)
        stack.callback(host_app.close)
        stack.callback(host_server.stop, 1.0)
        gateway = EmbeddedGateway(
            GatewaySettings(
                listen="127.0.0.1:0",
                memoryd_addr=memoryd_server.target,
                inferd_addr=inferd_server.target,
                plugin_host_addr=host_server.target,
                transport=TransportSecurity(token=HOST_TOKEN),
            )
        ).start()
        stack.callback(gateway.stop)
        for tenant in TENANTS:
            with MemoryClient(memoryd_server.target, tenant=tenant) as client:
                client.add_override(f"I work at {employer(tenant)} as a welder")
                # Unrelated turns, so that a word of one new turn is rare enough for keyword search to score.
                turns = [*SEED, (f"my locker code is {locker(tenant)}", "noted, your locker code")]
                client.ingest("a1", "seed", turns, skip_extraction=True)
                client.upsert_agent("a1", search_memory_enabled=True)
        yield Stack(memoryd_server.target, host_server.target, gateway.url)


def others(tenant: str | None) -> list[str]:
    return [employer(t) for t in TENANTS if t != tenant]


@pytest.mark.parametrize("tenant", TENANTS)
def test_gateway_run_injects_and_records_the_named_tenants_memory(stack: Stack, tenant: str | None) -> None:
    marker = f"gateway run of {tenant or 'default'} with zebra{tenant or 'default'}"
    headers = {"Authorization": f"Bearer {HOST_TOKEN}", **({HEADER: tenant} if tenant else {})}
    with httpx.Client(base_url=stack.gateway, timeout=60, headers=headers) as http:
        response = http.post(
            "/agents/a1/run",
            json={"conversation_id": "g1", "messages": [{"role": "user", "content": f"{QUESTION} {marker}"}]},
        )
        assert response.status_code == 200, response.text
        result = response.json()
        streamed = http.post(
            "/agents/a1/run",
            json={
                "conversation_id": "g2",
                "stream": True,
                "messages": [{"role": "user", "content": QUESTION}],
            },
        )
        assert streamed.status_code == 200, streamed.text
    assert result["memory"]["injected"] is True and result["memory"]["recorded"] is True
    assert employer(tenant) in result["reply"]
    assert not any(word in result["reply"] for word in others(tenant))
    assert employer(tenant) in streamed.text and not any(word in streamed.text for word in others(tenant))
    # The turn went to the tenant's own store, and only there.
    assert any(marker in text for text in stack.transcript(tenant, f"zebra{tenant or 'default'}"))
    for other in TENANTS:
        if other != tenant:
            assert not any(marker in text for text in stack.transcript(other, f"zebra{tenant or 'default'}"))


@pytest.mark.parametrize("tenant", TENANTS)
def test_a_plugins_model_calls_and_memory_search_act_for_the_invoking_tenant(
    stack: Stack, tenant: str | None
) -> None:
    word = f"quokka{tenant or 'default'}"
    asked = stack.invoke("ask", {"text": f"{QUESTION} {word}"}, tenant=tenant, conversation=f"p-{word}")
    assert asked["memory"]["injected"] is True and asked["memory"]["recorded"] is True
    assert employer(tenant) in asked["reply"] and not any(w in asked["reply"] for w in others(tenant))
    streamed = stack.invoke("stream", {"text": QUESTION}, tenant=tenant)
    joined = "".join(streamed["deltas"])
    assert employer(tenant) in joined and not any(w in joined for w in others(tenant))
    # The turns ctx.complete recorded went to the invoking tenant's own store, and only there.
    assert any(word in text for text in stack.transcript(tenant, word))
    assert not any(stack.transcript(other, word) for other in TENANTS if other != tenant)
    # ctx.search_memory searches the invoking tenant's memory only.
    hits = stack.invoke("search", {"query": "locker code", "scope": "transcript"}, tenant=tenant)["hits"]
    texts = " ".join(hit["text"] for hit in hits)
    assert locker(tenant) in texts and not any(locker(t) in texts for t in TENANTS if t != tenant)


def test_a_token_bound_to_a_tenant_reaches_its_own_tenant_only(stack: Stack) -> None:
    # No tenant named: the token's own.
    own = stack.run_agent(None, ACME_TOKEN)
    assert employer("acme") in own.reply and not any(w in own.reply for w in others("acme"))
    assert employer("acme") in stack.invoke("ask", {"text": QUESTION}, token=ACME_TOKEN)["reply"]
    assert employer("acme") in stack.run_agent("acme", ACME_TOKEN).reply
    for other in ("globex", "default"):
        with pytest.raises(ServiceError) as refused:
            stack.run_agent(other, ACME_TOKEN)
        assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert refused.value.reason == "TENANT_NOT_ALLOWED"
        with pytest.raises(ServiceError) as refused_invoke:
            stack.invoke("search", {"query": "welder"}, tenant=other, token=ACME_TOKEN)
        assert refused_invoke.value.reason == "TENANT_NOT_ALLOWED"
    # The host's unbound token is an operator's: it may name any tenant.
    assert employer("globex") in stack.run_agent("globex", HOST_TOKEN).reply


def test_a_bad_tenant_is_invalid_argument_on_grpc_and_400_over_http(stack: Stack) -> None:
    with pytest.raises(ServiceError) as bad:
        stack.run_agent("Not/A/Tenant", HOST_TOKEN)
    assert bad.value.code == grpc.StatusCode.INVALID_ARGUMENT and bad.value.reason == "INVALID_TENANT"
    with pytest.raises(ServiceError) as bad_invoke:
        stack.invoke("ping", {}, tenant="x" * 49)
    assert bad_invoke.value.reason == "INVALID_TENANT"
    with httpx.Client(base_url=stack.gateway, timeout=60) as http:
        response = http.post(
            "/agents/a1/run",
            json={"conversation_id": "c", "messages": [{"role": "user", "content": "hi"}]},
            headers={"Authorization": f"Bearer {HOST_TOKEN}", HEADER: "Acme"},
        )
    assert response.status_code == 400 and response.json()["error"]["reason"] == "INVALID_TENANT"


def test_a_ctx_kept_after_its_command_returned_is_refused(stack: Stack) -> None:
    assert stack.invoke("keep", {}, tenant="acme") == {"kept": True}
    assert stack.invoke("reuse", {"query": "welder"}, tenant="globex") == {
        "error": "HostError",
        "reason": "INVOCATION_ENDED",
    }
