"""A replica's name in the coordination rows: unique per process, readable in a diagnosis."""

from __future__ import annotations

import os
import secrets
import socket


def replica_id() -> str:
    """host:pid:random — a restarted process on the same host is a new replica (its old claims are not its own)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


__all__ = ["replica_id"]
