"""The gateway's transport rules: loopback by default, a bearer token (or TLS) to listen elsewhere, the token
checked on every request, loopback Host names only without a token, bounded bodies; the committed OpenAPI."""

from __future__ import annotations

import socket
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from openai import OpenAI

from gateway.app import InsecureListenError, check_transport
from gateway.config import Settings
from gateway.embedded import EmbeddedGateway
from gateway.openapi import COMMITTED, document, render
from servicekit.certs import init_certs
from servicekit.tls import TransportSecurity
from tests.support.gateway_stack import SPEC_MODEL, GatewayStack, running_stack

REPO = Path(__file__).resolve().parents[2]
TOKEN = "s3cret-gateway-token"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayStack]:
    with running_stack(tmp_path_factory.mktemp("gateway-token"), token=TOKEN) as running:
        yield running


def test_non_loopback_needs_a_token_or_tls() -> None:
    with pytest.raises(InsecureListenError):
        check_transport(Settings(listen="0.0.0.0:1337"))
    check_transport(Settings(listen="0.0.0.0:1337", transport=TransportSecurity(token="t")))
    check_transport(Settings(listen="127.0.0.1:1337"))
    check_transport(Settings(listen="localhost:1337"))


def test_main_refuses_to_listen_off_loopback_without_a_token(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gateway", "--listen", "0.0.0.0:0"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{REPO}:{REPO / 'protos' / 'gen'}", "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 2
    assert "refusing to listen" in done.stderr


def test_token_is_required_on_every_route(stack: GatewayStack) -> None:
    for path in ("/agents", "/v1/models", "/openapi.json"):
        response = httpx.get(f"{stack.url}{path}", timeout=10)
        assert response.status_code == 401, path
        assert response.json()["error"]["reason"] == "MISSING_OR_WRONG_TOKEN"
        assert response.headers["www-authenticate"] == "Bearer"
        wrong = httpx.get(f"{stack.url}{path}", headers={"Authorization": "Bearer nope"}, timeout=10)
        assert wrong.status_code == 401
    ok = httpx.get(f"{stack.url}/agents", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert ok.status_code == 200
    # The health probe answers without one (it says nothing but "up").
    assert httpx.get(f"{stack.url}/healthz", timeout=10).json() == {"status": "ok"}


def test_openai_client_passes_the_token_as_api_key(stack: GatewayStack) -> None:
    with OpenAI(base_url=f"{stack.url}/v1", api_key=TOKEN, max_retries=0) as client:
        reply = client.chat.completions.create(model=SPEC_MODEL, messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "echo: hi"
    with (
        OpenAI(base_url=f"{stack.url}/v1", api_key="osaurus", max_retries=0) as client,
        pytest.raises(openai.AuthenticationError),
    ):
        client.models.list()


def test_without_token_only_loopback_host_names_are_served(tmp_path: Path) -> None:
    with running_stack(tmp_path) as open_stack:
        good = httpx.get(f"{open_stack.url}/healthz", timeout=10)
        assert good.status_code == 200
        rebound = httpx.get(f"{open_stack.url}/agents", headers={"Host": "evil.example:1337"}, timeout=10)
        assert rebound.status_code == 403
        assert rebound.json()["error"]["reason"] == "HOST_NOT_ALLOWED"
        localhost = httpx.get(f"{open_stack.url}/agents", headers={"Host": "localhost:1337"}, timeout=10)
        assert localhost.status_code == 200
        # Declared bigger than the limit: refused before the body is read (raw socket: clients check lengths).
        with socket.create_connection(("127.0.0.1", open_stack.port), timeout=10) as sock:
            sock.sendall(
                b"POST /memory/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 134217728\r\n\r\n{"
            )
            head = b""
            while b"REQUEST_TOO_LARGE" not in head and (chunk := sock.recv(65536)):
                head += chunk
        head_text = head.decode()
        assert head_text.startswith("HTTP/1.1 413")
        assert "REQUEST_TOO_LARGE" in head_text


def test_committed_openapi_document_is_current(stack: GatewayStack) -> None:
    served = httpx.get(f"{stack.url}/openapi.json", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert served.status_code == 200
    assert served.json() == document()
    assert COMMITTED.read_text() == render(document()), (
        "docs/openapi.json is stale: python -m gateway.openapi"
    )
    paths = set(document()["paths"])
    assert {"/memory/ingest", "/agents", "/agents/{agent_id}", "/agents/{agent_id}/run", "/v1/chat/completions",
            "/v1/models", "/v1/embeddings", "/identity/overrides"} <= paths  # fmt: skip


def test_tls_serves_https_and_allows_a_non_loopback_listen(tmp_path: Path) -> None:
    issued = init_certs(tmp_path / "certs")
    transport = TransportSecurity(cert=issued.server_cert, key=issued.server_key)
    check_transport(Settings(listen="0.0.0.0:1337", transport=transport))
    settings = Settings(listen="127.0.0.1:0", memoryd_addr="127.0.0.1:1", transport=transport)
    with EmbeddedGateway(settings) as gateway:
        assert gateway.url.startswith("https://")
        context = ssl.create_default_context(cafile=str(issued.ca_cert))
        with httpx.Client(base_url=gateway.url, verify=context, timeout=20) as client:
            assert client.get("/healthz").json() == {"status": "ok"}
            down = client.get("/agents")  # memoryd is not there: a JSON 503, over TLS
            assert down.status_code == 503 and down.json()["error"]["status"] == "UNAVAILABLE"
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://{gateway.address}/healthz", timeout=5)
