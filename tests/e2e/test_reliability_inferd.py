"""inferd down, then slow, then back: memoryd keeps accepting turns and answering reads (full-text search, the gate's
heuristic fallback), the signals stay pending, the writer's breaker opens, and once inferd is healthy everything
drains by itself (no new turn, no SyncNow), each turn into exactly one episode."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import grpc
import pytest

from memoryd.app import start
from memoryd.config import ServiceSettings
from memoryd.write import DistillPolicy
from memoryd.write.breaker import CircuitBreaker
from memoryd.write.retry import RetryPolicy
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.errors import UnavailableError
from tests.support.reliability_rig import audit_store, memory_config, start_recording_inferd, turn_text
from tests.support.writer_stack import make_writer_stack

pytestmark = [pytest.mark.e2e]

T = TypeVar("T")
#: What the read path guarantees while inferd is slow (memoryd/read/assemble.py, one deadline per read): AssembleContext
#: waits at most the llm gate's 2.5 s plus the 0.15 s query-embedding budget (DEFAULT_READ_BUDGET_S); SearchMemory
#: waits at most the 0.15 s query-embedding timeout. The bounds add margin for a loaded 2-core CI machine.
ASSEMBLE_LLM_BOUND_S = 3.5
SEARCH_BOUND_S = 1.5
#: Production waits minutes; the same mechanisms with second-scale knobs.
POLICY = DistillPolicy(
    retry=RetryPolicy(max_calls=2, base_delay_s=0.05, max_delay_s=0.1),
    call_timeout_s=0.5,
    resume_first_s=0.5,
    resume_max_s=2.0,
)
QUERY = "what did we discuss before about the migration plan?"


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as connection:
        rows = list(connection.execute(sql).fetchall())
    connection.close()
    return rows


def _timed(call: Callable[[], T]) -> tuple[T, float]:
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def _wait(predicate: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class TurnPump:
    """A client buffering a turn every 50 ms on its own conversations; records every latency and failure."""

    def __init__(self, stub: pb_grpc.MemoryServiceStub) -> None:
        self._stub = stub
        self.latencies_s: list[float] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        n = 0
        while not self._stop.wait(0.05):
            request = pb.BufferTurnRequest(
                agent_id="pump",
                conversation_id=f"p{n // 5}",  # a new conversation every 5 turns: the switch flushes the last
                user_message=turn_text(f"p{n}", "user"),
                assistant_message=turn_text(f"p{n}", "assistant"),
            )
            try:
                _, took = _timed(lambda: self._stub.BufferTurn(request, timeout=5))  # noqa: B023
                self.latencies_s.append(took)
            except grpc.RpcError as error:
                self.failures.append(error.code().name)  # type: ignore[attr-defined]
            n += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)


@pytest.mark.slow
def test_memoryd_rides_out_inferd_down_then_slow_then_drains(tmp_path: Path) -> None:
    config = {**memory_config(), "relevanceGateMode": "llm"}
    (tmp_path / "config").mkdir(parents=True)
    (tmp_path / "config" / "memory.json").write_text(json.dumps(config))
    db = tmp_path / "memory" / "memory.sqlite"
    inferd_server, inferd = start_recording_inferd()
    port = inferd_server.port
    breaker = CircuitBreaker(threshold=3, base_cooldown_s=2.0, max_cooldown_s=4.0)
    settings = ServiceSettings(listen="127.0.0.1:0", home=tmp_path, inferd_addr=inferd_server.target)
    running, app = start(settings, writer_policy=POLICY, breaker=breaker)
    channel = grpc.insecure_channel(running.target)
    stub = pb_grpc.MemoryServiceStub(channel)
    pump: TurnPump | None = None
    try:
        for agent in ("alpha", "pump"):
            stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent, search_memory_enabled=True), timeout=5)

        def talk(conversation: str, turns: int = 3) -> None:
            for i in range(turns):
                token = f"{conversation}-{i}"
                stub.BufferTurn(
                    pb.BufferTurnRequest(
                        agent_id="alpha",
                        conversation_id=conversation,
                        user_message=turn_text(token, "user"),
                        assistant_message=turn_text(token, "assistant"),
                    ),
                    timeout=5,
                )
            stub.EndSession(pb.EndSessionRequest(agent_id="alpha", conversation_id=conversation), timeout=5)

        asked = iter(range(1000))

        def read() -> tuple[pb.AssembleContextResponse, pb.SearchMemoryResponse, float, float]:
            """AssembleContext, SearchMemory and how long each took. A fresh query each time: a cached query vector
            would make search hybrid without inferd."""
            n = next(asked)
            block, block_s = _timed(
                lambda: stub.AssembleContext(
                    pb.AssembleContextRequest(agent_id="alpha", query=f"{QUERY} ({n})"), timeout=10
                )
            )
            hits, search_s = _timed(
                lambda: stub.SearchMemory(
                    pb.SearchMemoryRequest(
                        agent_id="alpha", scope=pb.SCOPE_TRANSCRIPT, query=f"schema conversion {n}"
                    ),
                    timeout=10,
                )
            )
            return block, hits, block_s, search_s

        # Healthy: distilled at once; reads use the model gate and hybrid search.
        talk("healthy")
        _wait(lambda: _rows(db, "SELECT count(*) FROM episodes") == [(1,)], 10, "the first episode")
        _wait(lambda: app.embedder.available() and read()[1].method == "hybrid", 10, "hybrid search")
        block, hits, _, _ = read()
        assert block.reason.startswith("llm") and hits.method == "hybrid"

        # Down: turns still acknowledged; reads answer from full text with the heuristic gate; nothing distilled.
        inferd_server.stop(0)
        pump = TurnPump(stub)
        for conversation in ("down-1", "down-2"):
            talk(conversation)
        time.sleep(1.0)
        block, hits, block_s, search_s = read()
        assert block.reason.startswith("llm_fallback:") and hits.method == "fts" and hits.hits, (block, hits)
        took = block_s + search_s
        assert took < 2.0, f"reads took {took:.1f}s with inferd down"
        assert _rows(db, "SELECT count(*) FROM episodes") == [(1,)]
        assert _rows(db, "SELECT max(attempts) FROM pending_signals WHERE status = 'pending'") == [(0,)]
        assert breaker.snapshot().state == "closed"  # an unreachable inferd is not a model failure

        # Slow: status answers, Generate and Embed outlast their deadlines; failures open the breaker.
        inferd.delay_s = (3.0, 3.0)  # longer than the writer's call timeout and the LLM gate's 2.5 s
        inferd.embed_delay_s = 4.0  # far longer than the 0.15 s query-embedding budget
        inferd_server, _ = start_recording_inferd(servicer=inferd, port=port)
        for conversation in ("slow-1", "slow-2", "slow-3"):
            talk(conversation)
        _wait(lambda: breaker.snapshot().state == "open", 20, "the breaker to open")
        slow = [read() for _ in range(4)]
        # Bounded by the read path's one deadline (llm gate 2.5 s + query embedding 0.15 s), then the classifier
        # rests and the embedder backs off.
        timings = [(round(r[2], 2), round(r[3], 2)) for r in slow]
        assert max(r[2] for r in slow) < ASSEMBLE_LLM_BOUND_S, timings
        assert max(r[3] for r in slow) < SEARCH_BOUND_S, timings
        assert slow[-1][0].reason.startswith("llm_fallback:") and slow[-1][1].method == "fts", slow[-1][:2]
        pending = _rows(db, "SELECT count(*), max(attempts) FROM pending_signals WHERE status = 'pending'")
        assert pending[0][0] and int(pending[0][1]) < POLICY.max_attempts, pending  # type: ignore[arg-type]
        assert _rows(db, "SELECT count(*) FROM pending_signals WHERE status = 'dead_letter'") == [(0,)]
        assert _rows(db, "SELECT count(*) FROM processing_log WHERE details = 'breaker_open'")[0][0]

        # Healthy again: the resume sweep drains every stranded conversation once the breaker lets it.
        pump.stop()
        inferd.delay_s = (0.0, 0.0)
        inferd.embed_delay_s = 0.0
        _wait(
            lambda: _rows(db, "SELECT count(*) FROM pending_signals WHERE status = 'pending'") == [(0,)],
            30,
            "stranded turns to drain",
        )
        assert breaker.snapshot().state == "closed"
        assert pump.failures == [], pump.failures[:5]
        # BufferTurn never waits on inferd (a model or embedding call would have taken 3 s or more).
        assert max(pump.latencies_s) < 2.0, f"BufferTurn took {max(pump.latencies_s):.2f}s"
        per_conversation = _rows(
            db,
            "SELECT conversation_id, count(*) FROM episodes WHERE agent_id = 'alpha' GROUP BY 1 ORDER BY 1",
        )
        assert per_conversation == [
            (c, 1) for c in ("down-1", "down-2", "healthy", "slow-1", "slow-2", "slow-3")
        ]
    finally:
        if pump is not None:
            pump.stop()
        channel.close()
        running.stop(1)
        app.close()
        inferd_server.stop(0)
    audit = audit_store(db, [], inferd.replies)
    assert not audit.problems, audit.problems[:10]
    assert audit.signals["pending"] == 0 and audit.signals["dead_letter"] == 0


def test_failed_half_open_probes_do_not_dead_letter_a_session(tmp_path: Path) -> None:
    """A long inferd outage probes the same stranded session again and again; inferd's trouble is not counted
    against it, so it is distilled (not dead-lettered) once inferd recovers."""
    stack = make_writer_stack(tmp_path, breaker_threshold=1, max_calls=1, max_attempts=2)
    try:
        stack.inferd.set_default(UnavailableError("MODEL_CRASHED"))
        for i in range(2):
            stack.buffer("a", "c", turn_text(f"c{i}", "user"), turn_text(f"c{i}", "assistant"))
        assert (
            stack.writer.end_session("a", "c", wait=True).outcome == "error:model_crashed"
        )  # attempt 1, opens
        for _ in range(4):  # four failed probes, one per cooldown
            stack.clock.advance(1900)
            assert stack.writer.breaker.snapshot().state == "half_open"
            assert stack.writer.end_session("a", "c", wait=True).outcome == "error:model_crashed"
        assert stack.q("SELECT status, max(attempts) FROM pending_signals GROUP BY 1") == [("pending", 1)]
        stack.inferd.set_default(None)
        stack.clock.advance(1900)
        assert stack.writer.end_session("a", "c", wait=True).outcome == "distilled"
    finally:
        stack.close()
