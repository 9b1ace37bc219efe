"""Composition root of inferd: settings → registry of models → InferenceService → gRPC server."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from inferd.backends.blas import ensure_openblas
from inferd.config import ConfigError, Settings, load_settings
from inferd.loaders import BackendLoader
from inferd.registry import Loader, ModelRegistry
from inferd.service import SERVICE_NAME, InferenceService
from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.cpu_affinity import pin_process
from servicekit.gc_tuning import settle_heap
from servicekit.logsetup import setup_logging
from servicekit.portfile import write_port_file
from servicekit.server import (
    InsecureBindError,
    RunningServer,
    ServerOptions,
    ServiceBinding,
    build_server,
    serve_until_signal,
)

_log = logging.getLogger("inferd.app")
DOMAIN = "inference.osaurus.dev"


@dataclass
class App:
    """The built parts of a running inferd, for tests and for shutdown."""

    settings: Settings
    registry: ModelRegistry
    service: InferenceService

    def close(self) -> None:
        """Unload every model (queued requests fail with MODEL_UNLOADED)."""
        self.registry.close()


def build_app(settings: Settings, loader: Loader | None = None) -> App:
    """Wire the registry and service; models load lazily on first use or on LoadModel."""
    defaults = {"llm": settings.default_llm, "embedding": settings.default_embedding}
    registry = ModelRegistry(settings.models, defaults, loader or BackendLoader(settings.models_dir))
    return App(settings, registry, InferenceService(registry, settings.request_timeout_s))


def start(settings: Settings, loader: Loader | None = None) -> tuple[RunningServer, App]:
    """Build and start inferd in this process; health is SERVING when this returns. Stop with close_all()."""
    app = build_app(settings, loader)
    options = ServerOptions(
        address=settings.listen,
        domain=DOMAIN,
        tls=settings.transport.server_credentials(),
        auth_token=settings.transport.token,
    )
    binding = ServiceBinding(
        SERVICE_NAME, lambda server: pb_grpc.add_InferenceServiceServicer_to_server(app.service, server)
    )
    try:
        running = build_server(options, [binding])
    except BaseException:
        app.close()
        raise
    return running, app


def preload_embedding(app: App) -> threading.Thread | None:
    """Load the default embedding model in the background (the LLM still loads on first use).

    memoryd gives a query's embedding 150 ms before it searches on full text alone; a first query that had to load
    the model would always miss that. The model is small (about 90 MB) and memoryd's indexer needs it anyway.
    """
    name = app.settings.default_embedding
    if not name:
        return None

    def load() -> None:
        try:
            app.registry.load(name)
        except Exception as error:  # the registry marks the model FAILED; requests report why
            _log.warning("preloading embedding model %s failed: %s", name, type(error).__name__)

    thread = threading.Thread(target=load, name="inferd-preload", daemon=True)
    thread.start()
    return thread


def close_all(running: RunningServer, app: App, grace_s: float = 5.0) -> None:
    """Stop serving (health NOT_SERVING first), unload the models (which fails the jobs handlers still wait on),
    then wait for the handler threads to end (RunningServer.join_handlers says why)."""
    running.stop(grace_s)
    app.close()
    running.join_handlers()


def main(argv: Sequence[str] | None = None) -> int:
    """Run inferd until SIGINT/SIGTERM. Exit codes: 0 clean stop, 2 bad configuration, 1 could not bind."""
    try:
        settings = load_settings(argv)
    except ConfigError as error:
        print(f"inferd: configuration error: {error}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level, "inferd")
    try:
        pin_process(settings.cpus)  # every thread from here on inherits it
    except ValueError as error:
        print(f"inferd: configuration error: --cpus / OSAURUS_INFERD_CPUS: {error}", file=sys.stderr)
        return 2
    try:
        running, app = start(settings)
    except (InsecureBindError, OSError) as error:
        _log.error("cannot start: %s", error)
        return 1
    if settings.port_file is not None:
        write_port_file(settings.port_file, running.target)
    preload_embedding(app)
    settle_heap()  # start-up's objects are never scanned again (servicekit/gc_tuning.py)
    _log.info(
        "inferd ready on %s (default llm %s, loads on first use; default embedding %s, loading now; OpenBLAS %s)",
        running.target, settings.default_llm or "unset", settings.default_embedding or "unset", ensure_openblas(),
    )  # fmt: skip
    serve_until_signal(running, grace_s=5.0, on_stop=app.close)
    return 0
