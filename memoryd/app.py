"""memoryd composition root: builds store, search and servicers from settings; runs the gRPC server."""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from inferd.client import InferenceClient
from memoryd.config import ConfigStore, ServiceSettings, parse_settings
from memoryd.console import MemoryConsoleService
from memoryd.console_wiring import build_console
from memoryd.embedding import Embedder
from memoryd.indexer import Indexer
from memoryd.search import MemorySearch
from memoryd.service import MemoryService, ServiceDeps
from memoryd.storage.store import Store, open_store
from memoryd.turns import TurnHook, TurnRecorder, no_hook
from memoryd.vectors.registry import VectorRegistry
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.logsetup import setup_logging
from servicekit.server import RunningServer, ServerOptions, ServiceBinding, build_server, serve_until_signal

_log = logging.getLogger("memoryd.app")

DOMAIN = "memory.osaurus.dev"
MEMORY_SERVICE = "osaurus.memory.v1.MemoryService"
CONSOLE_SERVICE = "osaurus.memory.v1.MemoryConsoleService"


@dataclass
class App:
    """The built parts of one memoryd; close() releases them (after the server stopped)."""

    settings: ServiceSettings
    config: ConfigStore
    store: Store
    search: MemorySearch
    recorder: TurnRecorder
    memory: MemoryService
    console: MemoryConsoleService
    inference: InferenceClient
    embedder: Embedder
    vectors: VectorRegistry
    indexer: Indexer
    closers: list[object] = field(default_factory=list)

    def close(self) -> None:
        """Stop background work and close the database."""
        for closer in reversed(self.closers):
            close = getattr(closer, "close", None)
            if callable(close):
                try:
                    close()
                except Exception as error:
                    _log.warning("closing %s failed: %s", type(closer).__name__, type(error).__name__)
        self.store.close()


def build_app(settings: ServiceSettings, *, turn_hook: TurnHook = no_hook) -> App:
    """Construct every part from settings; nothing is listening yet."""
    config = ConfigStore(settings.config_path)
    store = open_store(settings.database_path)
    inference = InferenceClient(settings.inferd_addr, deadline_s=60.0, token=settings.auth_token)
    embedder = Embedder(inference, config)
    vectors = VectorRegistry(settings.vectors_dir, store.embeddings)
    indexer = Indexer(store, embedder, vectors)
    search = MemorySearch(store, embedder=embedder, vectors=vectors)
    recorder = TurnRecorder(store, config, on_turn_buffered=turn_hook, on_rows_written=indexer.notify)
    deps = ServiceDeps(store=store, config=config, recorder=recorder, search=search, vectors=vectors)
    console = build_console(store, config, vectors, indexer, search)
    app = App(
        settings=settings,
        config=config,
        store=store,
        search=search,
        recorder=recorder,
        memory=MemoryService(deps),
        console=console,
        inference=inference,
        embedder=embedder,
        vectors=vectors,
        indexer=indexer,
        closers=[inference, indexer, search, console],
    )
    if settings.background_indexing:
        indexer.start()
    return app


def _credentials(settings: ServiceSettings) -> grpc.ServerCredentials | None:
    if settings.tls_cert is None or settings.tls_key is None:
        return None
    return grpc.ssl_server_credentials([(settings.tls_key.read_bytes(), settings.tls_cert.read_bytes())])


def serve(app: App) -> RunningServer:
    """Bind and start the gRPC server hosting both memory services (with health and reflection)."""
    options = ServerOptions(
        address=app.settings.listen,
        domain=DOMAIN,
        max_workers=app.settings.max_workers,
        tls=_credentials(app.settings),
        auth_token=app.settings.auth_token,
    )
    bindings = [
        ServiceBinding(
            MEMORY_SERVICE, lambda server: pb_grpc.add_MemoryServiceServicer_to_server(app.memory, server)
        ),
        ServiceBinding(
            CONSOLE_SERVICE,
            lambda server: cpb_grpc.add_MemoryConsoleServiceServicer_to_server(app.console, server),
        ),
    ]
    return build_server(options, bindings)


def start(settings: ServiceSettings, *, turn_hook: TurnHook = no_hook) -> tuple[RunningServer, App]:
    """Build and serve in-process (tests): returns the running server and the app; stop server, then app.close()."""
    app = build_app(settings, turn_hook=turn_hook)
    try:
        running = serve(app)
    except BaseException:
        app.close()
        raise
    return running, app


def write_port_file(path: Path, target: str) -> None:
    """Atomically write the real listen target (tmp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w") as handle:
        handle.write(target)
    os.replace(tmp, path)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m memoryd`: serve until SIGINT/SIGTERM, then shut down gracefully."""
    settings = parse_settings(argv)
    setup_logging(settings.log_level, "memoryd")
    try:
        running, app = start(settings)
    except Exception as error:
        _log.error("memoryd failed to start: %s: %s", type(error).__name__, error)
        return 1
    _log.info("memoryd home %s, schema v%d", settings.home, app.store.schema_version)
    if settings.port_file is not None:
        write_port_file(settings.port_file, running.target)
    try:
        serve_until_signal(running, grace_s=10.0)
    finally:
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
