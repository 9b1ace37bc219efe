"""memoryctl settings: which memoryd to call and how (flags win over OSAURUS_* environment, then defaults)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc

from memoryd.config import DEFAULT_LISTEN
from servicekit.tls import TransportSecurity, load_transport


@dataclass(frozen=True)
class CtlSettings:
    """Target address, deadline and transport security of memoryctl's calls."""

    addr: str
    deadline_s: float
    token: str | None = None
    credentials: grpc.ChannelCredentials | None = None


def ctl_settings(addr: str | None, deadline_s: float, env: Mapping[str, str] | None = None) -> CtlSettings:
    """--addr, else OSAURUS_MEMORYD_ADDR, else 127.0.0.1:50051; token and TLS CA from the OSAURUS_* variables."""
    env = os.environ if env is None else env
    transport: TransportSecurity = load_transport(env)
    return CtlSettings(
        addr=addr or env.get("OSAURUS_MEMORYD_ADDR") or DEFAULT_LISTEN,
        deadline_s=deadline_s,
        # The admin token opens the console as well as the runtime service; memoryctl needs both.
        token=transport.admin_token or transport.token,
        credentials=transport.channel_credentials(),
    )


def ctl_home(explicit: str | None, env: Mapping[str, str] | None = None) -> Path:
    """--home, else $OSAURUS_HOME, else ~/.osaurus (commands that work on local files)."""
    env = os.environ if env is None else env
    return Path(explicit or env.get("OSAURUS_HOME") or "~/.osaurus").expanduser()


__all__ = ["CtlSettings", "ctl_home", "ctl_settings"]
