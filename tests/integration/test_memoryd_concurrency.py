"""32 concurrent clients mixing BufferTurn and SearchMemory: no "database is locked", nothing lost."""

from __future__ import annotations

import threading
from pathlib import Path

import grpc

from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.memoryd_server import enable_recall, running_memoryd

CLIENTS = 32
TURNS_PER_CLIENT = 15


def test_thirty_two_clients_write_and_search_concurrently(tmp_path: Path) -> None:
    with (
        running_fake_inferd() as (inferd, _state),
        running_memoryd(tmp_path, inferd_addr=inferd.target, background_indexing=True) as handle,
    ):
        agents = [f"agent-{i % 8}" for i in range(CLIENTS)]
        for agent in set(agents):
            enable_recall(handle.memory, agent)
        errors: list[str] = []
        signal_ids: list[int] = []
        lock = threading.Lock()
        start = threading.Barrier(CLIENTS)

        def client(index: int) -> None:
            with grpc.insecure_channel(handle.target) as channel:
                stub = mpb_grpc.MemoryServiceStub(channel)
                start.wait()
                for turn in range(TURNS_PER_CLIENT):
                    try:
                        reply = stub.BufferTurn(
                            mpb.BufferTurnRequest(
                                agent_id=agents[index],
                                conversation_id=f"conv-{index}",
                                user_message=f"client {index} turn {turn} mentions walnut{index}",
                                assistant_message="noted",
                            ),
                            timeout=30,
                        )
                        stub.SearchMemory(
                            mpb.SearchMemoryRequest(
                                agent_id=agents[index],
                                scope=mpb.SCOPE_TRANSCRIPT,
                                query=f"walnut{index} turn",
                            ),
                            timeout=30,
                        )
                        with lock:
                            signal_ids.append(reply.signal_id)
                    except grpc.RpcError as error:
                        with lock:
                            errors.append(f"{error.code()}: {error.details()}")

        threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert errors == []
        assert len(set(signal_ids)) == CLIENTS * TURNS_PER_CLIENT
        db = handle.app.store.db
        assert db.scalar("SELECT count(*) FROM transcript") == CLIENTS * TURNS_PER_CLIENT * 2
        assert db.scalar("SELECT count(*) FROM pending_signals") == CLIENTS * TURNS_PER_CLIENT
        for index in range(CLIENTS):
            rows = db.query(
                "SELECT chunk_index FROM transcript WHERE conversation_id = ? ORDER BY chunk_index",
                (f"conv-{index}",),
            )
            assert [r[0] for r in rows] == list(range(TURNS_PER_CLIENT * 2))  # no duplicate or lost chunk
        hits = handle.memory.SearchMemory(
            mpb.SearchMemoryRequest(
                agent_id="agent-3", scope=mpb.SCOPE_TRANSCRIPT, query="walnut3", limit=100
            ),
            timeout=30,
        ).hits
        assert sum("walnut3 " in h.text or h.text.endswith("walnut3") for h in hits) == TURNS_PER_CLIENT
