"""memoryd as `python -m memoryd` runs it (writer wired), with test conveniences: config seeding, recover toggle.

`python -m tests.support.writer_memoryd --listen 127.0.0.1:0 --port-file F --home DIR --inferd ADDR` serves until
SIGTERM exactly like `python -m memoryd` (kept so the kill -9 tests and benchmarks can name one module).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memoryd.app import App, start
from memoryd.app import main as memoryd_main
from memoryd.config import ServiceSettings
from memoryd.write import Writer
from servicekit.server import RunningServer


def write_config(home: Path, **values: Any) -> None:
    """Write config/memory.json (camelCase keys) before memoryd starts."""
    path = home / "config" / "memory.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


def start_wired(settings: ServiceSettings, *, recover: bool = True) -> tuple[RunningServer, App, Writer]:
    """Build and serve memoryd with its writer started (timers + orphan recovery when `recover`)."""
    running, app = start(settings, recover=recover)
    return running, app, app.writer


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until SIGINT/SIGTERM (the real memoryd entry point)."""
    return memoryd_main(argv)


if __name__ == "__main__":
    sys.exit(main())
