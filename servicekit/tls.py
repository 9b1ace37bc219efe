"""Transport security settings shared by the services: TLS (optionally mutual) and bearer tokens."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc

from servicekit.tenant_tokens import TenantToken, TenantTokensError, load_tenant_tokens


class TransportConfigError(ValueError):
    """Incomplete or unreadable TLS/token settings; the service refuses to start with this message."""


@dataclass(frozen=True)
class TransportSecurity:
    """What a server presents and demands, and what its clients use to reach peers.

    Server side: `cert`/`key` enable TLS; `client_ca` additionally requires client certificates (mTLS).
    Client side: `ca` verifies peers, `cert`/`key` are presented when peers demand mTLS. `token` is sent as
    `authorization: Bearer …` and, on servers, required from callers. Nothing here is ever logged.
    """

    cert: Path | None = None
    key: Path | None = None
    client_ca: Path | None = None
    ca: Path | None = None
    token: str | None = None
    #: The admin token (OSAURUS_ADMIN_TOKEN_FILE): a server that has one accepts only it on its admin methods (the
    #: memory console); a client that has one (memoryctl) sends it instead of `token`.
    admin_token: str | None = None
    #: Tokens bound to one tenant each (OSAURUS_TENANT_TOKENS_FILE, servicekit.tenant_tokens); servers that take
    #: them (memoryd) accept each for its own tenant only.
    tenant_tokens: tuple[TenantToken, ...] = ()

    @property
    def is_tls(self) -> bool:
        return self.cert is not None and self.key is not None

    def server_credentials(self) -> grpc.ServerCredentials | None:
        """TLS server credentials, requiring client certs when client_ca is set; None for plaintext."""
        if not self.is_tls:
            return None
        assert self.cert is not None and self.key is not None
        pair = [(_read(self.key), _read(self.cert))]
        if self.client_ca is not None:
            return grpc.ssl_server_credentials(
                pair, root_certificates=_read(self.client_ca), require_client_auth=True
            )
        return grpc.ssl_server_credentials(pair)

    def channel_credentials(self) -> grpc.ChannelCredentials | None:
        """Credentials for dialing a TLS peer (None = plaintext), presenting our cert for mTLS when we have one."""
        if self.ca is None:
            return None
        if self.is_tls:
            assert self.cert is not None and self.key is not None
            return grpc.ssl_channel_credentials(_read(self.ca), _read(self.key), _read(self.cert))
        return grpc.ssl_channel_credentials(_read(self.ca))


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise TransportConfigError(f"cannot read {path}: {error.strerror}") from error


def load_transport(env: Mapping[str, str]) -> TransportSecurity:
    """Read OSAURUS_TLS_CERT, OSAURUS_TLS_KEY, OSAURUS_TLS_CLIENT_CA, OSAURUS_TLS_CA, OSAURUS_AUTH_TOKEN_FILE,
    OSAURUS_ADMIN_TOKEN_FILE and OSAURUS_TENANT_TOKENS_FILE."""

    def path(name: str) -> Path | None:
        value = env.get(name, "").strip()
        return Path(value).expanduser() if value else None

    cert, key = path("OSAURUS_TLS_CERT"), path("OSAURUS_TLS_KEY")
    if (cert is None) != (key is None):
        raise TransportConfigError("OSAURUS_TLS_CERT and OSAURUS_TLS_KEY must be set together")
    token = _token(path("OSAURUS_AUTH_TOKEN_FILE"))
    admin_token = _token(path("OSAURUS_ADMIN_TOKEN_FILE"))
    if admin_token is not None and admin_token == token:
        raise TransportConfigError(
            "OSAURUS_ADMIN_TOKEN_FILE must hold a different token than OSAURUS_AUTH_TOKEN_FILE"
        )
    try:
        tenant_tokens = load_tenant_tokens(path("OSAURUS_TENANT_TOKENS_FILE"))
    except TenantTokensError as error:
        raise TransportConfigError(str(error)) from error
    if any(bound.token in (token, admin_token) for bound in tenant_tokens):
        raise TransportConfigError(
            "OSAURUS_TENANT_TOKENS_FILE must not repeat the OSAURUS_AUTH_TOKEN_FILE or OSAURUS_ADMIN_TOKEN_FILE token"
        )
    return TransportSecurity(
        cert=cert,
        key=key,
        client_ca=path("OSAURUS_TLS_CLIENT_CA"),
        ca=path("OSAURUS_TLS_CA"),
        token=token,
        admin_token=admin_token,
        tenant_tokens=tenant_tokens,
    )


def _token(token_file: Path | None) -> str | None:
    """The token in a file (stripped), None without a file; an empty file is a configuration error."""
    if token_file is None:
        return None
    token = _read(token_file).decode().strip()
    if not token:
        raise TransportConfigError(f"token file {token_file} is empty")
    return token
