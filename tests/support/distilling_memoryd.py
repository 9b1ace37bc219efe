"""A wired memoryd (writer running) whose core model is a scripted fake inferd on a real port: Ingest distils."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from memoryd.app import App
from memoryd.config import ServiceSettings
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from tests.fakes.fake_writer_inferd import MODEL, digest, start_fake_inferd
from tests.support.writer_memoryd import start_wired, write_config


@dataclass
class Memoryd:
    """The MemoryService stub and the app behind it."""

    memory: mpb_grpc.MemoryServiceStub
    app: App


def session_time(day: str) -> Timestamp:
    """Noon UTC of an ISO day, as an Ingest session_time."""
    stamp = Timestamp()
    stamp.FromDatetime(datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC))
    return stamp


@contextmanager
def distilling_memoryd(home: Path, summary: str) -> Iterator[Memoryd]:
    """memoryd on `home`; every distillation gets the digest with this episode summary (and nothing else)."""
    inferd_server, inferd = start_fake_inferd()
    inferd.set_default(digest(summary))
    write_config(home, coreModel=MODEL, embeddingModel="fake-embed")
    running, app, _writer = start_wired(
        ServiceSettings(listen="127.0.0.1:0", home=home, inferd_addr=inferd_server.target)
    )
    channel = grpc.insecure_channel(running.target)
    try:
        yield Memoryd(mpb_grpc.MemoryServiceStub(channel), app)
    finally:
        channel.close()
        running.stop(1)
        app.close()
        inferd_server.stop(0)
