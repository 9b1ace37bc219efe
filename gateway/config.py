"""gateway settings from flags and OSAURUS_* environment variables (the only module that reads them)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from servicekit.tls import TransportSecurity, load_transport

DEFAULT_LISTEN = "127.0.0.1:1337"
DEFAULT_MEMORYD = "127.0.0.1:50051"
DEFAULT_INFERD = "127.0.0.1:50052"
DEFAULT_PLUGIN_HOST = "127.0.0.1:50053"


@dataclass(frozen=True)
class Deadlines:
    """Deadlines of the gRPC calls the gateway makes, in seconds."""

    quick_s: float = 30.0
    """Reads and settings changes (ListAgents, GetAgent, UpsertAgent, overrides, ListModels)."""
    ingest_s: float = 3600.0
    """Ingest distils synchronously and may cold-load the core model: the spec asks for no idle cutoff."""
    inference_s: float = 600.0
    """One chat completion, embedding or agent run (inferd's own request timeout is 600 s)."""


@dataclass(frozen=True)
class Settings:
    """Everything the gateway's composition root needs."""

    listen: str = DEFAULT_LISTEN
    memoryd_addr: str = DEFAULT_MEMORYD
    inferd_addr: str = DEFAULT_INFERD
    plugin_host_addr: str = DEFAULT_PLUGIN_HOST
    log_level: str = "INFO"
    port_file: Path | None = None
    grace_s: float = 10.0
    max_body_bytes: int = 64 * 1024 * 1024
    """Largest request body accepted (413 above); memoryd's own limit per message is 8 MiB."""
    deadlines: Deadlines = field(default_factory=Deadlines)
    transport: TransportSecurity = field(default_factory=TransportSecurity)
    """TLS for our listener (cert/key), bearer token required from HTTP callers and sent to the services."""

    @property
    def host(self) -> str:
        """Host part of the listen address, without IPv6 brackets."""
        return self.listen.rsplit(":", 1)[0].strip("[]")

    @property
    def port(self) -> int:
        """Port part of the listen address (0 picks a free one)."""
        return int(self.listen.rsplit(":", 1)[1])


def load_settings(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Flags win over environment variables, which win over defaults."""
    environ = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="osaurus-gateway", description="Osaurus HTTP gateway")
    parser.add_argument("--listen", default=environ.get("OSAURUS_GATEWAY_LISTEN", DEFAULT_LISTEN))
    parser.add_argument("--memoryd", default=environ.get("OSAURUS_MEMORYD_ADDR", DEFAULT_MEMORYD))
    parser.add_argument("--inferd", default=environ.get("OSAURUS_INFERD_ADDR", DEFAULT_INFERD))
    parser.add_argument("--plugin-host", default=environ.get("OSAURUS_PLUGIN_HOST_ADDR", DEFAULT_PLUGIN_HOST))
    parser.add_argument("--port-file", default=None, help="write the bound address here once serving")
    parser.add_argument("--log-level", default=environ.get("OSAURUS_LOG_LEVEL", "INFO"))
    parser.add_argument("--grace-s", type=float, default=10.0, help="shutdown grace period in seconds")
    args = parser.parse_args(argv)
    if ":" not in args.listen or not args.listen.rsplit(":", 1)[1].isdigit():
        parser.error(f"--listen must be host:port, got {args.listen!r}")
    return Settings(
        listen=args.listen,
        memoryd_addr=args.memoryd,
        inferd_addr=args.inferd,
        plugin_host_addr=args.plugin_host,
        log_level=args.log_level.upper(),
        port_file=Path(args.port_file) if args.port_file else None,
        grace_s=args.grace_s,
        transport=load_transport(environ),
    )
