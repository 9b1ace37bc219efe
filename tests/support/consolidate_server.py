"""An in-process memoryd whose MemoryService answers RunConsolidation with a consolidator the test configures."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from memoryd.api.consolidate_rpcs import ConsolidationRpcs
from memoryd.app import App, build_app, serve
from memoryd.config import ServiceSettings
from memoryd.consolidate import Consolidator, ConsolidatorOptions
from memoryd.domain import now_ms
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from tests.support.consolidate_rows import ManualClock


@dataclass
class ConsolidatingMemoryd:
    """The running server, its app parts, the consolidator and a MemoryService stub."""

    target: str
    app: App
    consolidator: Consolidator
    memory: pb_grpc.MemoryServiceStub


def attach(app: App, consolidator: Consolidator) -> None:
    """Serve RunConsolidation from `consolidator` on app.memory (mixing ConsolidationRpcs in if app.py did not)."""
    servicer: Any = app.memory
    if not isinstance(servicer, ConsolidationRpcs):
        servicer.__class__ = type("ConsolidatingServicer", (ConsolidationRpcs, type(servicer)), {})
    servicer.consolidator = consolidator


@contextmanager
def running_consolidating_memoryd(
    home: Path, *, options: ConsolidatorOptions | None = None, clock: ManualClock | None = None
) -> Iterator[ConsolidatingMemoryd]:
    """memoryd on 127.0.0.1:0 (writer timers not started) with a Consolidator over its store, vectors and inferd."""
    settings = ServiceSettings(
        listen="127.0.0.1:0", home=home, inferd_addr="127.0.0.1:1", background_indexing=False
    )
    app = build_app(settings)
    consolidator = Consolidator(
        app.store.consolidation,
        app.config,
        vectors=app.vectors,
        inference=app.inference,
        clock=clock or now_ms,
        on_changed=[app.search.keyword_stats.invalidate, app.read_path.invalidate],
        options=options,
    )
    attach(app, consolidator)
    server = serve(app)
    channel = grpc.insecure_channel(server.target)
    try:
        yield ConsolidatingMemoryd(server.target, app, consolidator, pb_grpc.MemoryServiceStub(channel))
    finally:
        channel.close()
        server.stop(grace_s=2)
        consolidator.close()
        app.close()
