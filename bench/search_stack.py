"""A real inferd (MLX embeddings) and a real memoryd, in-process on loopback ports, for the search benchmarks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc

from inferd.app import close_all
from inferd.app import start as start_inferd
from inferd.config import DEFAULT_EMBEDDING, FAKE_LLM
from inferd.config import for_tests as inferd_settings
from memoryd.app import App
from memoryd.app import start as start_memoryd
from memoryd.config import ServiceSettings
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc


@dataclass
class Stack:
    """memoryd's app (for settings switches) and a MemoryService stub over a real channel."""

    app: App
    memory: mpb_grpc.MemoryServiceStub
    target: str

    def index(self) -> int:
        """Embed every row still without a vector (what the background indexer does), now; returns how many."""
        return self.app.indexer.run_once()


@contextmanager
def memoryd_stack(settings: ServiceSettings) -> Iterator[Stack]:
    """memoryd started in this process with `settings`, and a MemoryService stub on a real channel to it."""
    server, app = start_memoryd(settings)
    channel = grpc.insecure_channel(server.target)
    try:
        yield Stack(app, mpb_grpc.MemoryServiceStub(channel), server.target)
    finally:
        channel.close()
        server.stop(2)
        app.close()


@contextmanager
def running_stack(home: Path, inferd_target: str | None = None) -> Iterator[Stack]:
    """inferd with the real default models (unless a target is given) and memoryd pointed at it."""
    inferd = None
    if inferd_target is None:
        inferd = start_inferd(inferd_settings(home / "inferd", fake=False))
        inferd_target = inferd[0].target
    try:
        with memoryd_stack(
            ServiceSettings(
                listen="127.0.0.1:0",
                home=home / "memoryd",
                inferd_addr=inferd_target,
                background_indexing=False,
            )
        ) as stack:
            yield stack
    finally:
        if inferd is not None:
            close_all(*inferd)


@contextmanager
def model_stack(home: Path, model: str) -> Iterator[Stack]:
    """running_stack with the real default models (model "default"), or with inferd's deterministic fake core
    model ("fake") beside the real MiniLM embeddings: the fake stands in for the LLM only, so search and the gate
    see the vectors a user's `make run` has. Call `Stack.index()` after ingesting so every row has its vector."""
    if model == "fake":
        config = home / "memoryd" / "config"
        config.mkdir(parents=True, exist_ok=True)
        (config / "memory.json").write_text(
            json.dumps({"coreModel": FAKE_LLM, "embeddingModel": DEFAULT_EMBEDDING})
        )
    with running_stack(home) as stack:
        yield stack
