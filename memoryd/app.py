"""memoryd composition root: builds store, search and servicers from settings; runs the gRPC server."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from inferd.client import InferenceClient
from memoryd.api.console_service import MemoryConsoleService
from memoryd.api.consolidate_rpcs import ConsolidationRpcs
from memoryd.api.memory_service import MemoryService, ServiceDeps
from memoryd.api.read_rpcs import ReadPathRpcs
from memoryd.api.storage_errors import DataRootReadOnlyError, check_data_root_writable, storage_translator
from memoryd.api.write_rpcs import WriterRpcs
from memoryd.config import ConfigStore, ServiceSettings, parse_settings
from memoryd.consolidate import Consolidator
from memoryd.consolidate.runner import ConsolidatorOptions
from memoryd.consolidate.scheduler import ConsolidationScheduler
from memoryd.domain import now_ms
from memoryd.read.assemble import ReadPath, settings_from_config
from memoryd.read.gate_llm import LlmGateClassifier
from memoryd.read.line_token_filler import LineTokenFiller
from memoryd.read.memory_reader import StoreMemoryReader
from memoryd.read.search import MemorySearch
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.tokens import InferdTokenCounter
from memoryd.runtime.malloc_tuning import tune_malloc
from memoryd.runtime.memtrace import MemoryTrace
from memoryd.security.manager import StoreSecurity
from memoryd.security.opener import StoreUnreachableError
from memoryd.storage.faults import StorageFault
from memoryd.storage.pg_vectors import pg_vector_store
from memoryd.storage.store import Store
from memoryd.tenancy.handlers import TenantServices, collect_handlers
from memoryd.tenancy.layout import tenant_settings
from memoryd.tenancy.registry import TenantRegistry
from memoryd.tenancy.router import routed_bindings
from memoryd.vectors.embedding import Embedder
from memoryd.vectors.indexer import Indexer
from memoryd.vectors.pg_registry import PgVectorRegistry
from memoryd.vectors.registry import VectorRegistry
from memoryd.wiring.console import build_console
from memoryd.wiring.replication import Replication, build_replication
from memoryd.wiring.security import build_security, check_bind, degraded_guard, open_secured
from memoryd.wiring.writer import build_writer, rows_remover
from memoryd.write import DistillPolicy, Writer
from memoryd.write.breaker import CircuitBreaker
from memoryd.write.buffer_turn import TurnHook, TurnRecorder
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.cpu_affinity import pin_process
from servicekit.gc_tuning import settle_heap
from servicekit.logsetup import setup_logging
from servicekit.portfile import write_port_file
from servicekit.server import (
    InsecureBindError,
    RunningServer,
    ServerOptions,
    build_server,
    serve_until_signal,
)
from servicekit.tls import TransportConfigError

_log = logging.getLogger("memoryd.app")

DOMAIN = "memory.osaurus.dev"
MEMORY_SERVICE = "osaurus.memory.v1.MemoryService"
CONSOLE_SERVICE = "osaurus.memory.v1.MemoryConsoleService"


class MemoryServicer(ConsolidationRpcs, WriterRpcs, ReadPathRpcs, MemoryService):
    """MemoryService with the write path (EndSession, Ingest, SyncNow), the read path (AssembleContext,
    InjectMemory) and consolidation (RunConsolidation)."""

    def __init__(
        self,
        deps: ServiceDeps,
        writer: Writer,
        read_path: ReadPath,
        consolidator: Consolidator,
        indexer: Indexer,
    ) -> None:
        super().__init__(deps)
        self.writer = writer
        self.indexer = indexer
        self.read_path = read_path
        self.consolidator = consolidator


def _fan_out(*callbacks: Callable[[str], None]) -> Callable[[str], None]:
    def notify(agent_id: str) -> None:
        for callback in callbacks:
            callback(agent_id)

    return notify


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
    writer: Writer
    read_path: ReadPath
    consolidator: Consolidator
    scheduler: ConsolidationScheduler
    security: StoreSecurity | None = None
    #: Several replicas on one PostgreSQL database (None on SQLite).
    replication: Replication | None = None
    closers: list[object] = field(default_factory=list)
    #: The other tenants (memoryd.tenancy), this app being the default one; set by start().
    tenants: TenantRegistry | None = None

    def close(self) -> None:
        """Stop background work and close the database (the other tenants' first)."""
        if self.tenants is not None:
            self.tenants.close()
        for closer in reversed(self.closers):
            close = getattr(closer, "close", None)
            if callable(close):
                try:
                    close()
                except Exception as error:
                    _log.warning("closing %s failed: %s", type(closer).__name__, type(error).__name__)
        # PostgreSQL: every thread's connection (a closed tenant's would otherwise stay open in the shared handler
        # threads until garbage collection); SQLite: this thread's, the others close with their threads.
        close_all = getattr(self.store.db, "close_all", None)
        if callable(close_all):
            close_all()
        else:
            self.store.close()


def build_app(
    settings: ServiceSettings,
    *,
    turn_hook: TurnHook | None = None,
    writer_policy: DistillPolicy | None = None,
    breaker: CircuitBreaker | None = None,
) -> App:
    """Construct every part from settings; nothing is listening yet.

    writer_policy / breaker: the writer's timeouts, retries and breaker (tests shorten them; None = defaults).
    """
    config = ConfigStore(settings.config_path)
    secured = open_secured(settings)  # plaintext or SQLCipher by content; degraded (scratch store) on failure
    store = secured.store
    inference = InferenceClient(
        settings.inferd_addr,
        deadline_s=60.0,
        token=settings.transport.token,
        credentials=settings.transport.channel_credentials(),
    )
    embedder = Embedder(inference, config, query_timeout_s=settings.query_embed_timeout_s)
    # PostgreSQL keeps vectors in per-agent pgvector partitions (shared by replicas); SQLite, in faiss files.
    pg_vectors = pg_vector_store(store)
    vectors = (
        VectorRegistry(secured.vectors_root, store.embeddings, sealer=secured.sealer)
        if pg_vectors is None
        else PgVectorRegistry(pg_vectors, store.embeddings)
    )
    # New vectors change what search finds: the agent's cached blocks and kept evidence work go (set below).
    on_indexed: list[Callable[[str], None]] = []
    indexer = Indexer(store, embedder, vectors, on_indexed=on_indexed)
    search = MemorySearch(store, embedder=embedder, vectors=vectors)
    core_model = lambda: config.get().core_model  # noqa: E731 - read on every call: memory.json is live
    reader = StoreMemoryReader(store, search, now_ms, embedder)
    # Blocks are counted from their lines' counts, filled ahead of time for stored rows (issue 17, item 4).
    counter = LineTokenCounter(InferdTokenCounter(inference, core_model))
    line_tokens = LineTokenFiller(store, counter)
    read_path = ReadPath(
        reader,
        lambda: settings_from_config(config.get()),
        counter=counter,
        classifier=LlmGateClassifier(inference, core_model),
        read_budget_s=settings.query_embed_timeout_s,
    )
    # On PostgreSQL other replicas share the rows: they hear of every local invalidation (NOTIFY) and this replica
    # drops its cached blocks and statistics for theirs (LISTEN).
    replication = build_replication(
        store,
        [read_path.invalidate, search.keyword_stats.invalidate, search.forget_recent],
        lease_s=settings.claim_lease_s,
    )
    invalidate_read = (
        read_path.invalidate if replication is None else replication.broadcasting(read_path.invalidate)
    )
    on_indexed += [read_path.transcript_changed, search.forget_recent]
    # Whatever changes an agent's rows: nudge the indexer, drop per-agent keyword statistics and cached blocks.
    agent_changed = [indexer.notify, line_tokens.notify, search.keyword_stats.invalidate, invalidate_read]
    writer = build_writer(
        store,
        config,
        inference,
        on_agent_changed=agent_changed,
        on_rows_removed=rows_remover(vectors.remove),
        policy=writer_policy,
        breaker=breaker,
        replication=replication,
    )
    recorder = TurnRecorder(
        store,
        config,
        on_turn_buffered=turn_hook or writer.on_turn_buffered,
        # A buffered turn changes the transcript only: the cached blocks go, the agent's entities, identity and
        # corrections stay (other replicas drop everything, as for any change they hear of).
        on_rows_written=_fan_out(
            indexer.notify,
            line_tokens.notify,
            read_path.transcript_changed
            if replication is None
            else replication.broadcasting(read_path.transcript_changed),
        ),
    )
    deps = ServiceDeps(
        store=store,
        config=config,
        recorder=recorder,
        search=search,
        vectors=vectors,
        on_agent_deleted=[invalidate_read],
        on_identity_changed=[lambda: invalidate_read(None)],
    )
    consolidator = Consolidator(
        store.consolidation,
        config,
        vectors=vectors,
        inference=inference,
        on_changed=[search.keyword_stats.invalidate, invalidate_read],
        options=ConsolidatorOptions(pass_lock=replication.lock) if replication is not None else None,
    )
    scheduler = ConsolidationScheduler(consolidator, config)
    security = build_security(
        secured,
        vectors,
        on_replaced=[lambda: invalidate_read(None), search.keyword_stats.invalidate, indexer.notify],
    )
    console = build_console(store, config, vectors, indexer, search)
    console.attach_read_path(read_path, invalidate_read)
    console.attach_security(security)
    app = App(
        settings=settings,
        config=config,
        store=store,
        search=search,
        recorder=recorder,
        memory=MemoryServicer(deps, writer, read_path, consolidator, indexer),
        console=console,
        inference=inference,
        embedder=embedder,
        vectors=vectors,
        indexer=indexer,
        writer=writer,
        read_path=read_path,
        consolidator=consolidator,
        scheduler=scheduler,
        security=security,
        replication=replication,
        # Closed in reverse: the scheduler, a running pass (stops before its next batch), the writer (no new
        # model calls), replication (claims released, listener stopped), then the console, indexer, search
        # threads and client; the degraded scratch folder last.
        closers=[
            security,
            inference,
            search,
            reader,
            counter,
            line_tokens,
            indexer,
            console,
            replication,
            writer,
            consolidator,
            scheduler,
        ],
    )
    if settings.background_indexing:
        indexer.start()
        line_tokens.start()
    if replication is not None:
        replication.start()
    return app


def tenant_services(app: App) -> TenantServices:
    """The app's servicers as one tenant's handlers, with its degraded-store guard and storage-fault translator."""
    registers = [
        lambda server: pb_grpc.add_MemoryServiceServicer_to_server(app.memory, server),
        lambda server: cpb_grpc.add_MemoryConsoleServiceServicer_to_server(app.console, server),
    ]
    return TenantServices(
        collect_handlers(registers),
        app.close,
        interceptors=[degraded_guard(app.security)] if app.security is not None else [],
        translators=[storage_translator(app.store.db.health)],
        owner=app,
    )


def serve(app: App) -> RunningServer:
    """Bind and start the gRPC server hosting both memory services (with health and reflection), each call routed
    to its tenant's servicers (memoryd.tenancy; no tenant named = this app)."""
    tenants = app.tenants or TenantRegistry(tenant_services(app), _no_tenant, max_open=0)
    options = ServerOptions(
        address=app.settings.listen,
        domain=DOMAIN,
        max_workers=app.settings.max_workers,
        tls=app.settings.transport.server_credentials(),
        auth_token=app.settings.transport.token,
        # With an admin token, the console (rows, export, keys, ClearAll) needs it; the runtime token does not do.
        admin_token=app.settings.transport.admin_token,
        admin_prefixes=(f"/{CONSOLE_SERVICE}/",),
        tenant_tokens=app.settings.transport.tenant_tokens,
    )
    running = build_server(options, routed_bindings(tenants, (MEMORY_SERVICE, CONSOLE_SERVICE)))
    app.store.db.health.listen(_health_follows(running))
    return running


def _no_tenant(tenant: str) -> TenantServices:
    raise AssertionError("tenants are off")  # unreachable: max_open=0 refuses before opening


def _tenant_opener(
    settings: ServiceSettings,
    start_writer: bool,
    recover: bool,
    turn_hook: TurnHook | None,
    writer_policy: DistillPolicy | None,
    breaker: CircuitBreaker | None,
) -> Callable[[str], TenantServices]:
    """Builds (and starts, as start() does) a whole memoryd service graph on a tenant's own home."""

    def open_tenant(tenant: str) -> TenantServices:
        app = build_app(
            tenant_settings(settings, tenant),
            turn_hook=turn_hook,
            writer_policy=writer_policy,
            breaker=breaker,
        )
        if start_writer and turn_hook is None:
            app.writer.start(recover=recover)
            app.scheduler.start()
            if app.replication is not None:  # a tenant's schema on PostgreSQL: its own pass lock and resumer
                app.replication.resume_passes(app.consolidator)
        return tenant_services(app)

    return open_tenant


def _health_follows(running: RunningServer) -> Callable[[StorageFault | None], None]:
    """Health NOT_SERVING (overall and MemoryService) while the store refuses writes; the console stays SERVING so
    an operator can still Diagnose."""

    def follow(fault: StorageFault | None) -> None:
        for name in ("", MEMORY_SERVICE):
            running.set_serving(fault is None, name)

    return follow


def start(
    settings: ServiceSettings,
    *,
    turn_hook: TurnHook | None = None,
    start_writer: bool = True,
    recover: bool = True,
    writer_policy: DistillPolicy | None = None,
    breaker: CircuitBreaker | None = None,
) -> tuple[RunningServer, App]:
    """Build and serve in-process (tests): returns the running server and the app; stop server, then app.close().

    turn_hook replaces the writer's debounce (tests of storage alone); start_writer=False leaves timers and orphan
    recovery off.
    """
    check_bind(settings)  # before the store is opened
    check_data_root_writable(settings.home, settings.memory_dir, settings.database_path)
    app = build_app(settings, turn_hook=turn_hook, writer_policy=writer_policy, breaker=breaker)
    app.tenants = TenantRegistry(
        tenant_services(app),
        _tenant_opener(settings, start_writer, recover, turn_hook, writer_policy, breaker),
        max_open=settings.max_open_tenants,
    )
    try:
        running = serve(app)
    except BaseException:
        app.close()
        raise
    if start_writer and turn_hook is None:
        app.writer.start(recover=recover)
        app.scheduler.start()
        if app.replication is not None:
            app.replication.resume_passes(app.consolidator)
    return running, app


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m memoryd`: serve until SIGINT/SIGTERM, then shut down gracefully."""
    try:
        settings = parse_settings(argv)
    except TransportConfigError as error:
        print(f"memoryd: {error}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level, "memoryd")
    try:
        pin_process(settings.cpus)  # every thread from here on inherits it
    except ValueError as error:
        print(f"memoryd: --cpus / OSAURUS_MEMORYD_CPUS: {error}", file=sys.stderr)
        return 2
    tune_malloc(settings.mmap_threshold_bytes, settings.malloc_arena_max)  # before any thread starts
    try:
        running, app = start(settings)
    except InsecureBindError as error:
        print(f"memoryd: {error}", file=sys.stderr)
        return 2
    except (DataRootReadOnlyError, StoreUnreachableError) as error:
        print(f"memoryd: {error}", file=sys.stderr)
        return 1
    except Exception as error:
        _log.error("memoryd failed to start: %s: %s", type(error).__name__, error)
        return 1
    _log.info("memoryd home %s, schema v%d", settings.home, app.store.schema_version)
    trace = (
        MemoryTrace(settings.memory_trace, app.vectors.memory_bytes, frames=settings.memory_trace_frames)
        if settings.memory_trace
        else None
    )
    if trace is not None:
        trace.start()
    settle_heap()  # start-up's objects are never scanned again (servicekit/gc_tuning.py)
    if settings.port_file is not None:
        write_port_file(settings.port_file, running.target)
    try:
        serve_until_signal(running, grace_s=10.0)
    finally:
        if trace is not None:
            trace.stop()
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
