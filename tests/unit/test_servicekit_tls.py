"""TLS and mTLS with certificates from servicekit.certs: a client without a certificate is rejected."""

from __future__ import annotations

import stat
from pathlib import Path

import grpc
import pytest

from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.certs import init_certs
from servicekit.server import ServerOptions, ServiceBinding, build_server
from servicekit.tls import TransportConfigError, TransportSecurity, load_transport

SERVICE = "osaurus.memory.v1.MemoryService"


class _Echo(pb_grpc.MemoryServiceServicer):  # type: ignore[misc]
    def BufferTurn(
        self, request: pb.BufferTurnRequest, context: grpc.ServicerContext
    ) -> pb.BufferTurnResponse:
        return pb.BufferTurnResponse(signal_id=42)


def _serve(security: TransportSecurity, address: str = "127.0.0.1:0"):  # type: ignore[no-untyped-def]
    binding = ServiceBinding(SERVICE, lambda s: pb_grpc.add_MemoryServiceServicer_to_server(_Echo(), s))
    return build_server(
        ServerOptions(address, "test.osaurus.dev", tls=security.server_credentials()), [binding]
    )


def _call(target: str, credentials: grpc.ChannelCredentials) -> int:
    options = (("grpc.ssl_target_name_override", "localhost"),)
    with grpc.secure_channel(target.replace("127.0.0.1", "localhost"), credentials, options) as channel:
        return int(pb_grpc.MemoryServiceStub(channel).BufferTurn(pb.BufferTurnRequest(), timeout=5).signal_id)


def test_certs_init_writes_private_keys_0600(tmp_path: Path) -> None:
    files = init_certs(tmp_path / "certs")
    for key in (files.ca_key, files.server_key, files.client_key):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "certs").stat().st_mode) == 0o700


def test_mtls_rejects_a_client_without_certificate(tmp_path: Path) -> None:
    files = init_certs(tmp_path / "certs")
    server_side = TransportSecurity(cert=files.server_cert, key=files.server_key, client_ca=files.ca_cert)
    running = _serve(server_side, "0.0.0.0:0")  # allowed: TLS is configured
    try:
        target = f"127.0.0.1:{running.port}"
        with_cert = TransportSecurity(cert=files.client_cert, key=files.client_key, ca=files.ca_cert)
        credentials = with_cert.channel_credentials()
        assert credentials is not None
        assert _call(target, credentials) == 42
        without_cert = TransportSecurity(ca=files.ca_cert).channel_credentials()
        assert without_cert is not None
        with pytest.raises(grpc.RpcError) as caught:
            _call(target, without_cert)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE  # handshake refused
    finally:
        running.stop(0)


def test_tls_without_client_ca_accepts_any_verified_client(tmp_path: Path) -> None:
    files = init_certs(tmp_path / "certs")
    running = _serve(TransportSecurity(cert=files.server_cert, key=files.server_key))
    try:
        credentials = TransportSecurity(ca=files.ca_cert).channel_credentials()
        assert credentials is not None
        assert _call(running.target, credentials) == 42
    finally:
        running.stop(0)


def test_load_transport_validates_pairs_and_token(tmp_path: Path) -> None:
    with pytest.raises(TransportConfigError, match="together"):
        load_transport({"OSAURUS_TLS_CERT": "/x.pem"})
    empty = tmp_path / "token"
    empty.write_text("\n")
    with pytest.raises(TransportConfigError, match="empty"):
        load_transport({"OSAURUS_AUTH_TOKEN_FILE": str(empty)})
    empty.write_text("s3cret\n")
    assert load_transport({"OSAURUS_AUTH_TOKEN_FILE": str(empty)}).token == "s3cret"
    assert load_transport({}) == TransportSecurity()
