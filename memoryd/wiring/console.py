"""Builds the console servicer from memoryd's parts (store, memory.json, vectors, indexer, search) for app.py."""

from __future__ import annotations

from memoryd.api.console_service import MemoryConsoleService
from memoryd.config import ConfigStore
from memoryd.console.core import ConsoleDeps, RowIndexer
from memoryd.console.recent_errors import StorageErrorLog
from memoryd.console.vectors import ConsoleVectors
from memoryd.read.search import MemorySearch
from memoryd.storage.store import Store
from memoryd.vectors.registry import VectorRegistry


def build_console(
    store: Store,
    config: ConfigStore,
    registry: VectorRegistry,
    indexer: RowIndexer | None,
    search: MemorySearch | None,
) -> MemoryConsoleService:
    """The full console. PreviewContext stays NOT_YET_AVAILABLE until attach_read_path() is called."""
    deps = ConsoleDeps(
        store=store,
        config=config,
        vectors=ConsoleVectors(registry, store.health),
        errors=StorageErrorLog(),
        indexer=indexer,
    )
    if search is not None:
        deps.on_memory_changed.append(search.keyword_stats.invalidate)
    return MemoryConsoleService(config, deps)


__all__ = ["build_console"]
