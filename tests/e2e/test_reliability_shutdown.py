"""SIGTERM during load: memoryd stops taking new calls, finishes the ones in flight (including EndSession calls
waiting on a slow model) within its 10 s grace period, exits 0, and every acknowledged turn is in the store."""

from __future__ import annotations

import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from tests.support.procs import spawn
from tests.support.reliability_rig import (
    Ack,
    audit_store,
    start_recording_inferd,
    turn_text,
    write_memory_config,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

GRACE_S = 10.0  # memoryd.app.main's grace period
TURN_CLIENTS = 6
SESSION_CLIENTS = 2


@dataclass
class Call:
    """One RPC as the client saw it."""

    rpc: str
    started: float
    ended: float
    code: str


@dataclass
class Load:
    """Clients hammering memoryd until it refuses them."""

    target: str
    calls: list[Call] = field(default_factory=list)
    acks: list[Ack] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _record(self, rpc: str, started: float, code: str, ack: Ack | None = None) -> None:
        with self.lock:
            self.calls.append(Call(rpc, started, time.monotonic(), code))
            if ack is not None:
                self.acks.append(ack)

    def turns(self, index: int) -> None:
        agent = f"term-{index}"
        with grpc.insecure_channel(self.target) as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            for n in range(100_000):
                token, conversation = f"t{index}n{n}", f"c{index}-{n // 8}"
                started = time.monotonic()
                try:
                    reply = stub.BufferTurn(
                        pb.BufferTurnRequest(
                            agent_id=agent,
                            conversation_id=conversation,
                            user_message=turn_text(token, "user"),
                            assistant_message=turn_text(token, "assistant"),
                        ),
                        timeout=30,
                    )
                except grpc.RpcError as error:
                    self._record("BufferTurn", started, error.code().name)  # type: ignore[attr-defined]
                    return
                ack = Ack(agent, conversation, token, reply.signal_id, tuple(reply.transcript_ids))
                self._record("BufferTurn", started, "OK", ack)

    def sessions(self, index: int) -> None:
        """Buffer two turns, then EndSession(wait=True): a call that waits on the slow model."""
        agent = f"session-{index}"
        with grpc.insecure_channel(self.target) as channel:
            stub = pb_grpc.MemoryServiceStub(channel)
            for n in range(100_000):
                conversation = f"s{index}-{n}"
                started = time.monotonic()
                try:
                    for turn in range(2):
                        token = f"s{index}n{n}t{turn}"
                        reply = stub.BufferTurn(
                            pb.BufferTurnRequest(
                                agent_id=agent,
                                conversation_id=conversation,
                                user_message=turn_text(token, "user"),
                                assistant_message=turn_text(token, "assistant"),
                            ),
                            timeout=30,
                        )
                        with self.lock:
                            self.acks.append(
                                Ack(agent, conversation, token, reply.signal_id, tuple(reply.transcript_ids))
                            )
                    started = time.monotonic()
                    stub.EndSession(
                        pb.EndSessionRequest(agent_id=agent, conversation_id=conversation, wait=True),
                        timeout=30,
                    )
                except grpc.RpcError as error:
                    self._record("EndSession", started, error.code().name)  # type: ignore[attr-defined]
                    return
                self._record("EndSession", started, "OK")


def test_sigterm_under_load_finishes_in_flight_calls_and_loses_nothing(tmp_path: Path) -> None:
    write_memory_config(tmp_path)
    inferd_server, inferd = start_recording_inferd(delay_s=(0.8, 1.5))
    memoryd = spawn("memoryd", tmp_path, ["--inferd", inferd_server.target, "--log-level", "WARNING"])
    load = Load(memoryd.target)
    threads = [threading.Thread(target=load.turns, args=(i,), daemon=True) for i in range(TURN_CLIENTS)]
    threads += [
        threading.Thread(target=load.sessions, args=(i,), daemon=True) for i in range(SESSION_CLIENTS)
    ]
    try:
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 10
        while inferd.in_flight < SESSION_CLIENTS and time.monotonic() < deadline:
            time.sleep(0.01)  # both EndSession calls are waiting on the model
        assert inferd.in_flight >= 1
        time.sleep(0.1)
        sigterm_at = time.monotonic()
        memoryd.process.send_signal(signal.SIGTERM)
        exit_code = memoryd.process.wait(GRACE_S + 20)
        exited_after = time.monotonic() - sigterm_at
        for thread in threads:
            thread.join(30)
    finally:
        memoryd.stop(signal.SIGKILL)
        inferd_server.stop(0)
    print(
        f"exit {exit_code} after {exited_after:.2f}s; {len(load.calls)} calls, {len(load.acks)} turns acknowledged; "
        f"in flight at SIGTERM: {[(c.rpc, c.code, round(c.ended - sigterm_at, 2)) for c in load.calls if c.started < sigterm_at <= c.ended]}"
    )
    assert exit_code == 0, memoryd.log()[-2000:]
    in_flight = [c for c in load.calls if c.started < sigterm_at - 0.05 and c.ended >= sigterm_at]
    sessions = [c for c in in_flight if c.rpc == "EndSession"]
    assert sessions, "no EndSession was in flight at SIGTERM"
    assert all(c.code == "OK" for c in in_flight), [c for c in in_flight if c.code != "OK"]
    assert all(c.ended - sigterm_at < GRACE_S for c in in_flight)
    late = [c for c in load.calls if c.started > sigterm_at + 0.5]
    assert all(c.code == "UNAVAILABLE" for c in late), late  # refused, not hung
    assert exited_after < GRACE_S + 5, f"memoryd took {exited_after:.1f}s to exit"
    audit = audit_store(tmp_path / "memory" / "memory.sqlite", load.acks, inferd.replies)
    assert not audit.problems, audit.problems[:10]
    assert len(load.acks) > 50
