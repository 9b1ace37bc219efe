"""plugin_host settings from flags and OSAURUS_* environment variables (the only module that reads them)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_LISTEN = "127.0.0.1:50053"
DEFAULT_MEMORYD = "127.0.0.1:50051"
DEFAULT_INFERD = "127.0.0.1:50052"


@dataclass(frozen=True)
class Settings:
    """Everything the composition root needs."""

    listen: str
    home: Path
    memoryd_addr: str
    inferd_addr: str
    port_file: Path | None
    log_level: str
    grace_s: float
    auth_token: str | None


def load_settings(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Flags win over environment variables, which win over defaults."""
    environ = os.environ if env is None else env
    parser = argparse.ArgumentParser(prog="plugin-host", description="Osaurus plugin host")
    parser.add_argument("--listen", default=environ.get("OSAURUS_PLUGIN_HOST_LISTEN", DEFAULT_LISTEN))
    parser.add_argument("--home", default=environ.get("OSAURUS_HOME", str(Path.home() / ".osaurus")))
    parser.add_argument("--memoryd", default=environ.get("OSAURUS_MEMORYD_ADDR", DEFAULT_MEMORYD))
    parser.add_argument("--inferd", default=environ.get("OSAURUS_INFERD_ADDR", DEFAULT_INFERD))
    parser.add_argument("--port-file", default=None, help="write the bound address here once serving")
    parser.add_argument("--log-level", default=environ.get("OSAURUS_LOG_LEVEL", "INFO"))
    parser.add_argument("--grace-s", type=float, default=10.0, help="shutdown grace period in seconds")
    args = parser.parse_args(argv)
    token_file = environ.get("OSAURUS_AUTH_TOKEN_FILE")
    token = Path(token_file).read_text().strip() if token_file else None
    return Settings(
        listen=args.listen,
        home=Path(args.home).expanduser(),
        memoryd_addr=args.memoryd,
        inferd_addr=args.inferd,
        port_file=Path(args.port_file) if args.port_file else None,
        log_level=args.log_level,
        grace_s=args.grace_s,
        auth_token=token or None,
    )
