"""Builds memoryd's security parts from settings for app.py: the opened store, keys, StoreSecurity, the guard."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memoryd.api.degraded_guard import DegradedStoreGuard
from memoryd.config import ServiceSettings
from memoryd.security.keys import KeyStore
from memoryd.security.manager import StoreSecurity
from memoryd.security.opener import Opened, open_database_store, open_memory_store
from memoryd.security.quarantine import StorePaths
from memoryd.storage.conversion import LiveStoreFile
from memoryd.storage.store import Store
from memoryd.vectors.registry import VectorRegistry
from memoryd.vectors.sealing import FileSealer, sealer_for
from servicekit.errors import UnavailableError
from servicekit.server import InsecureBindError, is_loopback


@dataclass
class SecuredStore:
    """The store to serve plus what StoreSecurity needs later."""

    opened: Opened
    paths: StorePaths
    keys: KeyStore

    @property
    def store(self) -> Store:
        """The open store (the scratch store while degraded)."""
        return self.opened.store

    @property
    def vectors_root(self) -> Path:
        """The vector folder to use now (a scratch folder while degraded)."""
        scratch = self.opened.scratch
        return scratch / "vectors" if scratch is not None else self.paths.vectors

    @property
    def sealer(self) -> FileSealer | None:
        """Vector-file sealer for the open store's key."""
        return sealer_for(self.opened.key.key if self.opened.key is not None else None)


def store_paths(settings: ServiceSettings) -> StorePaths:
    """The store's file locations under $OSAURUS_HOME."""
    return StorePaths(
        settings.database_path, settings.vectors_dir, settings.keys_dir, settings.quarantine_dir
    )


def open_secured(settings: ServiceSettings) -> SecuredStore:
    """Open the store by content (plaintext or SQLCipher), degrading to a scratch store when it cannot be; or, with
    a database URL, the PostgreSQL store (StoreUnreachableError when it cannot be opened: nothing to degrade to)."""
    paths = store_paths(settings)
    keys = KeyStore(settings.keys_dir, settings.passphrase_file)
    if settings.is_postgres:
        return SecuredStore(Opened(open_database_store(settings), None), paths, keys)
    return SecuredStore(open_memory_store(paths, keys), paths, keys)


def build_security(
    secured: SecuredStore, vectors: VectorRegistry, on_replaced: list[Callable[[], None]]
) -> StoreSecurity | None:
    """StoreSecurity over the opened store; None on PostgreSQL (no file to encrypt, quarantine or swap)."""
    if secured.store.dialect != "sqlite":
        return None
    live = LiveStoreFile(secured.store.db)
    return StoreSecurity(secured.paths, secured.keys, secured.opened, live, vectors, on_replaced=on_replaced)


def degraded_guard(security: StoreSecurity) -> DegradedStoreGuard:
    """The interceptor refusing writes while the store is degraded."""

    def refusal() -> Exception:
        try:
            security.require_healthy()
        except Exception as error:
            return error
        return UnavailableError("STORE_RECOVERED", "the store was just recovered; retry", retry_after_s=0.1)

    return DegradedStoreGuard(lambda: security.is_degraded, refusal)


def check_bind(settings: ServiceSettings) -> None:
    """Refuse a non-loopback listen address without TLS or a bearer token, before anything is opened."""
    transport = settings.transport
    has_token = bool(transport.token or transport.tenant_tokens)
    if not is_loopback(settings.listen) and not transport.is_tls and not has_token:
        raise InsecureBindError(
            f"refusing to listen on non-loopback address {settings.listen} without TLS or a bearer token; "
            "set OSAURUS_TLS_CERT and OSAURUS_TLS_KEY (memoryctl certs init creates them) or "
            "OSAURUS_AUTH_TOKEN_FILE, or listen on 127.0.0.1"
        )


__all__ = [
    "SecuredStore",
    "build_security",
    "check_bind",
    "degraded_guard",
    "open_secured",
    "store_paths",
]
