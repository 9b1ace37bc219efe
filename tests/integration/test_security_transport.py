"""Protected transport through the real services: bind policy, mTLS and bearer tokens on every hop."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from memoryd.client import MemoryClient
from osaurus.inference.v1 import inference_pb2_grpc as ipb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.app import start as start_plugin_host
from plugin_host.config import load_settings
from servicekit.certs import IssuedFiles, init_certs
from servicekit.errors import UnauthenticatedError, UnavailableError
from servicekit.server import InsecureBindError, RunningServer, ServerOptions, ServiceBinding, build_server
from servicekit.tls import TransportSecurity
from tests.fakes.fake_inferd import FakeInferdState, FakeInference
from tests.fakes.fake_plugin_peers import FakeInference as EchoInference
from tests.support.procs import REPO, child_env
from tests.support.security_rig import memoryd_at

TOKEN = "s3cret-token-for-tests"


@dataclass(frozen=True)
class Pki:
    """Certificates from `memoryctl certs init` (servicekit.certs) and a token file."""

    files: IssuedFiles
    token_file: Path

    def service(self) -> TransportSecurity:
        """What a service uses: its certificate, mTLS for callers, the CA for peers, the token."""
        f = self.files
        return TransportSecurity(f.server_cert, f.server_key, f.ca_cert, f.ca_cert, TOKEN)

    def client(self, *, with_cert: bool = True) -> grpc.ChannelCredentials:
        """Client credentials, with or without the client certificate."""
        f = self.files
        security = (
            TransportSecurity(f.client_cert, f.client_key, ca=f.ca_cert)
            if with_cert
            else TransportSecurity(ca=f.ca_cert)
        )
        credentials = security.channel_credentials()
        assert credentials is not None
        return credentials


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    root = tmp_path_factory.mktemp("pki")
    token_file = root / "token"
    token_file.write_text(TOKEN + "\n")
    return Pki(init_certs(root / "certs"), token_file)


def _run(
    module: str, home: Path, args: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", module, *args]
    return subprocess.run(
        command, cwd=REPO, env=child_env(home, env), capture_output=True, text=True, timeout=60, check=False
    )


def test_memoryd_refuses_a_public_bind_without_tls_or_token(tmp_path: Path) -> None:
    result = _run("memoryd", tmp_path, ["--listen", "0.0.0.0:0", "--home", str(tmp_path)])
    assert result.returncode == 2
    assert (
        "refusing to listen on non-loopback address 0.0.0.0:0 without TLS or a bearer token" in result.stderr
    )
    assert not (tmp_path / "memory").exists()  # refused before the store was touched


def test_memoryd_rejects_half_a_tls_configuration(tmp_path: Path) -> None:
    result = _run(
        "memoryd", tmp_path, ["--home", str(tmp_path)], {"OSAURUS_TLS_CERT": str(tmp_path / "x.pem")}
    )
    assert result.returncode == 2 and "must be set together" in result.stderr


def test_plugin_host_refuses_a_public_bind_without_tls_or_token(tmp_path: Path) -> None:
    result = _run(
        "plugin_host", tmp_path, ["--listen", "0.0.0.0:0", "--home", str(tmp_path), "--no-entry-points"]
    )
    assert result.returncode == 2 and "refusing to bind non-loopback address" in result.stderr
    settings = load_settings(["--listen", "0.0.0.0:0", "--home", str(tmp_path)], env={})
    with pytest.raises(InsecureBindError):
        start_plugin_host(settings)


@pytest.fixture
def tls_inferd(pki: Pki) -> Iterator[RunningServer]:
    """The fake embedding inferd behind mTLS and the token."""
    servicer = FakeInference(FakeInferdState())
    security = pki.service()
    server = build_server(
        ServerOptions(
            "127.0.0.1:0", "inference.osaurus.dev", tls=security.server_credentials(), auth_token=TOKEN
        ),
        [
            ServiceBinding(
                "osaurus.inference.v1.InferenceService",
                lambda s: ipb_grpc.add_InferenceServiceServicer_to_server(servicer, s),
            )
        ],
    )
    yield server
    server.stop(0)


def test_memoryd_mtls_rejects_clients_without_certificate_and_calls_inferd_over_mtls(
    pki: Pki, tls_inferd: RunningServer, tmp_path: Path
) -> None:
    with memoryd_at(
        tmp_path / "home", inferd_addr=tls_inferd.target, transport=pki.service(), listen="0.0.0.0:0"
    ) as m:
        no_cert = MemoryClient(m.target, deadline_s=5, token=TOKEN, credentials=pki.client(with_cert=False))
        with no_cert, pytest.raises(UnavailableError):
            no_cert.list_agents()
        plaintext = MemoryClient(m.target, deadline_s=5, token=TOKEN)
        with plaintext, pytest.raises(UnavailableError):
            plaintext.list_agents()
        no_token = MemoryClient(m.target, deadline_s=5, credentials=pki.client())
        with no_token, pytest.raises(UnauthenticatedError):
            no_token.list_agents()
        with MemoryClient(m.target, deadline_s=10, token=TOKEN, credentials=pki.client()) as client:
            client.upsert_agent("alpha", display_name="Alpha")
            client.ingest(
                "alpha", "c1", [("the lighthouse keeper's name is Ilse", "noted")], skip_extraction=True
            )
            assert [a.agent_id for a in client.list_agents()] == ["alpha"]
        # memoryd → inferd: the embedding calls went over mTLS with the bearer token.
        assert m.app.indexer.run_once() > 0


def test_memoryd_on_all_interfaces_with_a_token_only(tmp_path: Path) -> None:
    with memoryd_at(tmp_path / "home", transport=TransportSecurity(token=TOKEN), listen="0.0.0.0:0") as m:
        with MemoryClient(m.target, deadline_s=5) as anonymous, pytest.raises(UnauthenticatedError):
            anonymous.list_agents()
        with MemoryClient(m.target, deadline_s=5, token=TOKEN) as client:
            assert client.list_agents() == []


@pytest.fixture
def tls_echo_inferd(pki: Pki) -> Iterator[tuple[RunningServer, EchoInference]]:
    servicer = EchoInference()
    security = pki.service()
    server = build_server(
        ServerOptions(
            "127.0.0.1:0", "inference.osaurus.dev", tls=security.server_credentials(), auth_token=TOKEN
        ),
        [
            ServiceBinding(
                "osaurus.inference.v1.InferenceService",
                lambda s: ipb_grpc.add_InferenceServiceServicer_to_server(servicer, s),
            )
        ],
    )
    yield server, servicer
    server.stop(0)


def test_plugin_host_reaches_memoryd_and_inferd_over_mtls_with_the_token(
    pki: Pki, tls_echo_inferd: tuple[RunningServer, EchoInference], tmp_path: Path
) -> None:
    inferd, echo = tls_echo_inferd
    f = pki.files
    env = {
        "OSAURUS_TLS_CERT": str(f.server_cert),
        "OSAURUS_TLS_KEY": str(f.server_key),
        "OSAURUS_TLS_CLIENT_CA": str(f.ca_cert),
        "OSAURUS_TLS_CA": str(f.ca_cert),
        "OSAURUS_AUTH_TOKEN_FILE": str(pki.token_file),
    }
    with memoryd_at(tmp_path / "memoryd", transport=pki.service()) as m:
        args = ["--listen", "0.0.0.0:0", "--home", str(tmp_path / "host"), "--no-entry-points",
                "--memoryd", m.target, "--inferd", inferd.target]  # fmt: skip
        settings = load_settings(args, env=env)
        assert settings.transport == pki.service()
        running, app = start_plugin_host(settings)
        try:
            target = f"127.0.0.1:{running.port}"
            with grpc.secure_channel(target, pki.client()) as channel:
                stub = ppb_grpc.PluginHostServiceStub(channel)
                request = ppb.RunAgentRequest(
                    agent_id="runner",
                    conversation_id="day-1",
                    messages=[mpb.ChatMessage(role=mpb.ROLE_USER, content="How far today?")],
                )
                reply = stub.RunAgent(request, timeout=30, metadata=[("authorization", f"Bearer {TOKEN}")])
        finally:
            running.stop(0)
            app.close()
        assert reply.reply.startswith("ECHO: ") and echo.prompts
        assert reply.memory.recorded  # BufferTurn reached the real memoryd over mTLS
        assert (
            m.q("SELECT content FROM transcript WHERE agent_id = 'runner' ORDER BY id")[0][0]
            == "How far today?"
        )
