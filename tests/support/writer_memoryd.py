"""memoryd with the writer wired in (what app.py will do): in-process for RPC tests, `python -m` for kill -9 tests.

`python -m tests.support.writer_memoryd --listen 127.0.0.1:0 --port-file F --home DIR --inferd ADDR` serves until
SIGTERM, like `python -m memoryd`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memoryd.app import App, build_app, serve, write_port_file
from memoryd.config import ServiceSettings, parse_settings
from memoryd.service import MemoryService, ServiceDeps
from memoryd.writer import Writer
from memoryd.writer_rpcs import WriterRpcs, turn_hook
from memoryd.writer_wiring import build_writer, rows_remover
from servicekit.logsetup import setup_logging
from servicekit.server import RunningServer, serve_until_signal


class WiredMemoryService(WriterRpcs, MemoryService):
    """MemoryService plus EndSession / Ingest / SyncNow."""

    def __init__(self, deps: ServiceDeps, writer: Writer) -> None:
        super().__init__(deps)
        self.writer = writer


def write_config(home: Path, **values: Any) -> None:
    """Write config/memory.json (camelCase keys) before memoryd starts."""
    path = home / "config" / "memory.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(values))


def wire_writer(app: App) -> Writer:
    """Build the writer on the app's store/config, hook BufferTurn to it and swap in the wired servicer."""
    writer = build_writer(
        app.store,
        app.config,
        app.inference,  # every writer call passes its own timeout
        on_agent_changed=[app.indexer.notify, app.search.keyword_stats.invalidate],
        on_rows_removed=rows_remover(app.vectors.remove),
    )
    app.recorder.on_turn_buffered = turn_hook(writer)
    deps = ServiceDeps(
        store=app.store, config=app.config, recorder=app.recorder, search=app.search, vectors=app.vectors
    )
    app.memory = WiredMemoryService(deps, writer)
    app.closers.append(writer)  # closed before inference and the indexer (closers run in reverse)
    return writer


def start_wired(settings: ServiceSettings, *, recover: bool = True) -> tuple[RunningServer, App, Writer]:
    """Build, wire, serve, then start the writer (timers + orphan recovery)."""
    app = build_app(settings)
    writer = wire_writer(app)
    running = serve(app)
    writer.start(recover=recover)
    return running, app, writer


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until SIGINT/SIGTERM."""
    settings = parse_settings(argv)
    setup_logging(settings.log_level, "memoryd")
    running, app, _writer = start_wired(settings)
    if settings.port_file is not None:
        write_port_file(settings.port_file, running.target)
    try:
        serve_until_signal(running, grace_s=5.0)
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
