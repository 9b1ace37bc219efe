"""Atomic port files: a server started on port 0 tells its parent where it listens."""

from __future__ import annotations

import os
from pathlib import Path


def write_port_file(path: Path, target: str) -> None:
    """Write `target` (host:port or unix:path) to path atomically, so a reader never sees half a line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(target + "\n")
    os.replace(tmp, path)
