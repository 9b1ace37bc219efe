"""An in-process memoryd on 127.0.0.1:0 with its data under a temporary directory, plus typed call helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from memoryd.app import App, start
from memoryd.config import ServiceSettings
from memoryd.write.buffer_turn import TurnHook, no_hook
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from servicekit.errors import ServiceError, from_rpc_error


@dataclass
class MemorydHandle:
    """A running in-process memoryd and stubs on one channel."""

    target: str
    app: App
    channel: grpc.Channel
    memory: mpb_grpc.MemoryServiceStub
    console: cpb_grpc.MemoryConsoleServiceStub


@contextmanager
def running_memoryd(
    home: Path,
    *,
    inferd_addr: str = "127.0.0.1:1",
    turn_hook: TurnHook = no_hook,
    background_indexing: bool = False,
) -> Iterator[MemorydHandle]:
    """Start memoryd in-process; stop it (and close its store) on exit."""
    settings = ServiceSettings(
        listen="127.0.0.1:0", home=home, inferd_addr=inferd_addr, background_indexing=background_indexing
    )
    server, app = start(settings, turn_hook=turn_hook)
    channel = grpc.insecure_channel(server.target, options=[("grpc.max_send_message_length", 64 << 20)])
    try:
        yield MemorydHandle(
            server.target,
            app,
            channel,
            mpb_grpc.MemoryServiceStub(channel),
            cpb_grpc.MemoryConsoleServiceStub(channel),
        )
    finally:
        channel.close()
        server.stop(grace_s=2)
        app.close()


def rpc_error(call: Callable[[], Any]) -> ServiceError:
    """Run a call that must fail; return the typed error it raised."""
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return from_rpc_error(caught.value)


def buffer(
    stub: mpb_grpc.MemoryServiceStub, agent: str, conversation: str, user: str, assistant: str = ""
) -> Any:
    """One BufferTurn with a deadline."""
    return stub.BufferTurn(
        mpb.BufferTurnRequest(
            agent_id=agent, conversation_id=conversation, user_message=user, assistant_message=assistant
        ),
        timeout=10,
    )


def enable_recall(stub: mpb_grpc.MemoryServiceStub, agent: str) -> None:
    """Turn Memory Recall on so SearchMemory is allowed."""
    stub.UpsertAgent(mpb.UpsertAgentRequest(agent_id=agent, search_memory_enabled=True), timeout=10)


def search(
    stub: mpb_grpc.MemoryServiceStub,
    agent: str,
    query: str,
    scope: int = mpb.SCOPE_TRANSCRIPT,
    limit: int = 10,
) -> Any:
    """One SearchMemory call."""
    return stub.SearchMemory(
        mpb.SearchMemoryRequest(agent_id=agent, scope=scope, query=query, limit=limit), timeout=10
    )
