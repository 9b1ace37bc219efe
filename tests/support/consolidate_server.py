"""An in-process memoryd whose MemoryService carries the ConsolidationRpcs mixin, wired the way app.py will."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc

from memoryd.app import DOMAIN, MEMORY_SERVICE, App, build_app
from memoryd.config import ServiceSettings
from memoryd.consolidate import Consolidator, ConsolidatorOptions
from memoryd.consolidate_rpcs import ConsolidationRpcs
from memoryd.domain import now_ms
from memoryd.service import MemoryService, ServiceDeps
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.server import ServerOptions, ServiceBinding, build_server
from tests.support.consolidate_rows import ManualClock


class ConsolidatingMemoryService(ConsolidationRpcs, MemoryService):
    """MemoryService with RunConsolidation, as the lead mixes it in."""

    def __init__(self, deps: ServiceDeps, consolidator: Consolidator) -> None:
        super().__init__(deps)
        self.consolidator = consolidator


@dataclass
class ConsolidatingMemoryd:
    """The running server, its app parts, the consolidator and a MemoryService stub."""

    target: str
    app: App
    consolidator: Consolidator
    memory: pb_grpc.MemoryServiceStub


@contextmanager
def running_consolidating_memoryd(
    home: Path, *, options: ConsolidatorOptions | None = None, clock: ManualClock | None = None
) -> Iterator[ConsolidatingMemoryd]:
    """memoryd on 127.0.0.1:0 with a Consolidator over its store, vectors and inferd client."""
    settings = ServiceSettings(
        listen="127.0.0.1:0", home=home, inferd_addr="127.0.0.1:1", background_indexing=False
    )
    app = build_app(settings)
    consolidator = Consolidator(
        app.store.db,
        app.config,
        vectors=app.vectors,
        inference=app.inference,
        clock=clock or now_ms,
        on_changed=[app.search.keyword_stats.invalidate],
        options=options,
    )
    deps = ServiceDeps(
        store=app.store, config=app.config, recorder=app.recorder, search=app.search, vectors=app.vectors
    )
    servicer = ConsolidatingMemoryService(deps, consolidator)
    server = build_server(
        ServerOptions(address="127.0.0.1:0", domain=DOMAIN, max_workers=16),
        [ServiceBinding(MEMORY_SERVICE, lambda s: pb_grpc.add_MemoryServiceServicer_to_server(servicer, s))],
    )
    channel = grpc.insecure_channel(server.target)
    try:
        yield ConsolidatingMemoryd(server.target, app, consolidator, pb_grpc.MemoryServiceStub(channel))
    finally:
        channel.close()
        server.stop(grace_s=2)
        consolidator.close()
        app.close()
