"""In-process memoryd for security tests: restartable on one home, optional passphrase file and transport security."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from memoryd.app import App, start
from memoryd.client import MemoryClient
from memoryd.config import ServiceSettings
from memoryd.write.buffer_turn import no_hook
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from servicekit.tls import TransportSecurity

SQLITE_HEADER = b"SQLite format 3\x00"


@dataclass
class SecuredMemoryd:
    """A running memoryd, a typed client and a raw MemoryService stub on an insecure channel (loopback)."""

    target: str
    app: App
    client: MemoryClient
    memory: mpb_grpc.MemoryServiceStub

    def q(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Read the served store directly."""
        return self.app.store.db.query(sql, params)

    def turn(self, agent: str, user: str, conversation: str = "c1") -> None:
        """BufferTurn over gRPC."""
        self.memory.BufferTurn(
            mpb.BufferTurnRequest(agent_id=agent, conversation_id=conversation, user_message=user), timeout=10
        )


@contextmanager
def memoryd_at(
    home: Path,
    *,
    inferd_addr: str = "127.0.0.1:1",
    passphrase_file: Path | None = None,
    transport: TransportSecurity | None = None,
    listen: str = "127.0.0.1:0",
) -> Iterator[SecuredMemoryd]:
    """Start memoryd on `home` (storage only: no writer timers); stop it and close the store on exit."""
    settings = ServiceSettings(
        listen=listen,
        home=home,
        inferd_addr=inferd_addr,
        background_indexing=False,
        passphrase_file=passphrase_file,
        transport=transport or TransportSecurity(),
    )
    server, app = start(settings, turn_hook=no_hook)
    target = server.target.replace("0.0.0.0", "127.0.0.1")
    client = MemoryClient(target, deadline_s=30)
    channel = grpc.insecure_channel(target)
    try:
        yield SecuredMemoryd(target, app, client, mpb_grpc.MemoryServiceStub(channel))
    finally:
        channel.close()
        client.close()
        server.stop(grace_s=2)
        app.close()


def store_files(home: Path) -> dict[Path, bytes]:
    """Every file under $home/memory (database, WAL, SHM, vector indexes and manifests) with its bytes."""
    return {p: p.read_bytes() for p in sorted((home / "memory").rglob("*")) if p.is_file()}


def key_files(home: Path) -> list[Path]:
    """Active key files (not retired ones)."""
    return sorted((home / "keys").glob("*.key"))


def quarantined(home: Path) -> list[Path]:
    """Databases in the quarantine folder."""
    return sorted((home / "quarantine").glob("*/memory.sqlite"))


__all__ = ["SQLITE_HEADER", "SecuredMemoryd", "key_files", "memoryd_at", "quarantined", "store_files"]
