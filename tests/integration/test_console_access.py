"""Who may act on which rows: console row RPCs scoped to an agent, and an admin token that alone opens the console
while the runtime token keeps the memory service."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from memoryd.app import start
from memoryd.config import ServiceSettings
from memoryd.write.buffer_turn import no_hook
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from servicekit.tls import TransportSecurity
from tests.support.console_rig import ConsoleRig, console_rig
from tests.support.memoryd_server import rpc_error

RUNTIME, ADMIN = "runtime-token-for-tests", "admin-token-for-tests"


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[ConsoleRig]:
    with console_rig(tmp_path / "home") as r:
        yield r


def _item(row_id: int) -> mpb.ItemRef:
    return mpb.ItemRef(kind=mpb.ITEM_KIND_PINNED_FACT, id=str(row_id))


def test_row_rpcs_with_an_agent_reach_only_that_agents_rows(rig: ConsoleRig) -> None:
    fact = rig.pinned("alice", "Alice keeps bees")
    console = rig.memoryd.console
    calls: list[Callable[[str], Any]] = [
        lambda agent: console.Inspect(cpb.InspectRequest(item=_item(fact), agent_id=agent), timeout=10),
        lambda agent: console.Disable(cpb.DisableRequest(item=_item(fact), agent_id=agent), timeout=10),
        lambda agent: console.Enable(cpb.EnableRequest(item=_item(fact), agent_id=agent), timeout=10),
        lambda agent: console.Forget(cpb.ForgetRequest(item=_item(fact), agent_id=agent), timeout=10),
    ]
    for call in calls:
        error = rpc_error(lambda call=call: call("mallory"))  # type: ignore[misc]
        assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "ITEM_NOT_FOUND")
    assert rig.q("SELECT status FROM pinned_facts WHERE id = ?", (fact,)) == [("active",)]
    assert (
        console.Inspect(cpb.InspectRequest(item=_item(fact), agent_id="alice"), timeout=10).agent_id
        == "alice"
    )
    assert console.Disable(cpb.DisableRequest(item=_item(fact), agent_id="alice"), timeout=10).changed
    assert console.Enable(cpb.EnableRequest(item=_item(fact)), timeout=10).changed  # no agent: the operator
    console.Forget(cpb.ForgetRequest(item=_item(fact), agent_id="alice"), timeout=10)
    assert rig.q("SELECT count(*) FROM pinned_facts") == [(0,)]


def _stubs(target: str, token: str) -> tuple[mpb_grpc.MemoryServiceStub, cpb_grpc.MemoryConsoleServiceStub]:
    channel = grpc.intercept_channel(grpc.insecure_channel(target), _Bearer(token))
    return mpb_grpc.MemoryServiceStub(channel), cpb_grpc.MemoryConsoleServiceStub(channel)


class _Bearer(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    def __init__(self, token: str) -> None:
        self._metadata = (("authorization", f"Bearer {token}"),) if token else ()

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        details = details._replace(metadata=tuple(details.metadata or ()) + self._metadata)
        return continuation(details, request)


def test_the_admin_token_alone_opens_the_console(tmp_path: Path) -> None:
    settings = ServiceSettings(
        listen="127.0.0.1:0",
        home=tmp_path / "home",
        inferd_addr="127.0.0.1:1",
        background_indexing=False,
        transport=TransportSecurity(token=RUNTIME, admin_token=ADMIN),
    )
    server, app = start(settings, turn_hook=no_hook)
    try:
        turn = mpb.BufferTurnRequest(agent_id="a", conversation_id="c", user_message="hello there")
        runtime_memory, runtime_console = _stubs(server.target, RUNTIME)
        admin_memory, admin_console = _stubs(server.target, ADMIN)
        _, anonymous_console = _stubs(server.target, "")
        anonymous_memory, _ = _stubs(server.target, "")
        assert runtime_memory.BufferTurn(turn, timeout=10).signal_id > 0
        assert admin_memory.BufferTurn(turn, timeout=10).signal_id > 0
        for call in (
            lambda: runtime_console.Diagnose(cpb.DiagnoseRequest(), timeout=10),
            lambda: runtime_console.SetEncryption(
                cpb.SetEncryptionRequest(mode=cpb.ENCRYPTION_MODE_KEY_FILE), timeout=10
            ),
            lambda: runtime_console.ClearAll(cpb.ClearAllRequest(confirm=True), timeout=10),
        ):
            error = rpc_error(call)
            assert (error.code, error.reason) == (grpc.StatusCode.PERMISSION_DENIED, "ADMIN_TOKEN_REQUIRED")
        assert rpc_error(lambda: anonymous_console.Diagnose(cpb.DiagnoseRequest(), timeout=10)).code == (
            grpc.StatusCode.UNAUTHENTICATED
        )
        assert rpc_error(lambda: anonymous_memory.BufferTurn(turn, timeout=10)).code == (
            grpc.StatusCode.UNAUTHENTICATED
        )
        assert admin_console.Diagnose(cpb.DiagnoseRequest(), timeout=10).schema_version > 0
        assert not app.store.db.is_encrypted
    finally:
        server.stop(grace_s=1)
        app.close()
