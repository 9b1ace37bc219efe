"""kill -9 of memoryd in the middle of a distillation: after a restart no signal is lost and none is processed
twice (one episode per conversation, every signal processed)."""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from pathlib import Path

import grpc
import pytest

from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from tests.fakes.fake_writer_inferd import MODEL, digest, start_fake_inferd
from tests.support.procs import spawn
from tests.support.writer_memoryd import write_config

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

USER = "We decided to migrate the billing service from MySQL to Postgres before the June release."
ASSISTANT = "Then plan the schema conversion first and keep a read replica during the cut-over."


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        return list(connection.execute(sql).fetchall())


def test_kill_9_mid_distillation_loses_nothing_and_repeats_nothing(tmp_path: Path) -> None:
    inferd_server, inferd = start_fake_inferd()
    inferd.hold = threading.Event()
    inferd.set_default(
        digest("Billing moves to Postgres.", pinned=[("Billing service moves to Postgres", 0.9)])
    )
    write_config(tmp_path, coreModel=MODEL, embeddingModel="fake-embed", summaryDebounceSeconds=3600)
    args = ["--inferd", inferd_server.target]
    first = spawn("tests.support.writer_memoryd", tmp_path, args)
    try:
        with grpc.insecure_channel(first.target) as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            for conv in ("c1", "c1", "c1", "c2"):
                agent = "a" if conv == "c1" else "b"
                stub.BufferTurn(
                    pb.BufferTurnRequest(
                        agent_id=agent, conversation_id=conv, user_message=USER, assistant_message=ASSISTANT
                    ),
                    timeout=5,
                )
            stub.EndSession(pb.EndSessionRequest(agent_id="a", conversation_id="c1"), timeout=5)
            assert inferd.entered.wait(20), "distillation of c1 never reached inferd"
        first.stop(signal.SIGKILL)  # mid-call: the model has been asked, nothing was committed
    finally:
        if first.process.poll() is None:
            first.process.kill()
    inferd.hold.set()
    inferd.hold = None
    db = tmp_path / "memory" / "memory.sqlite"
    assert _rows(db, "SELECT status, count(*) FROM pending_signals GROUP BY status") == [("pending", 4)]
    assert _rows(db, "SELECT count(*) FROM episodes") == [(0,)]
    calls_before_restart = inferd.generate_calls

    second = spawn("tests.support.writer_memoryd", tmp_path, args)  # startup recovers orphans
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if _rows(db, "SELECT count(*) FROM pending_signals WHERE status = 'pending'") == [(0,)]:
                break
            time.sleep(0.1)
        assert _rows(db, "SELECT status, count(*) FROM pending_signals GROUP BY status") == [("processed", 4)]
        assert _rows(
            db, "SELECT agent_id, conversation_id, count(*) FROM episodes GROUP BY 1, 2 ORDER BY 1"
        ) == [
            ("a", "c1", 1),
            ("b", "c2", 1),
        ]
        assert inferd.generate_calls == calls_before_restart + 2
        assert _rows(db, "SELECT agent_id, count(*) FROM pinned_facts GROUP BY 1 ORDER BY 1") == [
            ("a", 1),
            ("b", 1),
        ]
        with grpc.insecure_channel(second.target) as channel:  # and nothing left for a manual drain
            assert pb_grpc.MemoryServiceStub(channel).SyncNow(pb.SyncNowRequest(), timeout=10).outcomes == []
    finally:
        second.stop()
        inferd_server.stop(0)
