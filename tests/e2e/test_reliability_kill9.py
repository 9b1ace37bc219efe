"""kill -9 of memoryd at random moments while 4 clients buffer turns: mid-distillation (slow fake Generate),
mid-consolidation, during startup recovery, and at random. After every kill each acknowledged turn is in the store,
PRAGMA integrity_check and the FTS5 integrity checks pass, and no turn is in two episodes or in an episode while
still pending; after the last restart, recovery alone distils everything left."""

from __future__ import annotations

import random
import signal
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from tests.support.procs import ServiceProcess, spawn
from tests.support.reliability_rig import (
    Ack,
    RecordingInferd,
    audit_store,
    start_recording_inferd,
    turn_text,
    write_memory_config,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CLIENTS = 4
KILLS = 24
MODES = ("distillation", "random", "consolidation", "startup")
#: Statuses a client may see while memoryd is being killed or restarted.
EXPECTED_DURING_KILLS = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
}


class Gate:
    """Lets the main thread park every client between calls (to audit a quiet store) and stop them."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0
        self._paused = True
        self.stopped = False
        self.target: str | None = None

    @contextmanager
    def call(self) -> Iterator[str | None]:
        with self._cond:
            while self._paused and not self.stopped:
                self._cond.wait()
            self._active += 1
            target = None if self.stopped else self.target
        try:
            yield target
        finally:
            with self._cond:
                self._active -= 1
                self._cond.notify_all()

    def pause(self) -> None:
        with self._cond:
            self._paused = True
            while self._active:
                self._cond.wait()

    def resume(self, target: str) -> None:
        with self._cond:
            self.target = target
            self._paused = False
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self.stopped = True
            self._cond.notify_all()


@dataclass
class Client:
    """One client: its own agent, a conversation switched every few turns (which flushes the previous one)."""

    index: int
    gate: Gate
    acks: list[Ack] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    unexpected: list[str] = field(default_factory=list)

    def run(self) -> None:
        rng = random.Random(self.index)
        agent, session, turn = f"crash-{self.index}", 0, 0
        channel: grpc.Channel | None = None
        channel_target = None
        while not self.gate.stopped:
            with self.gate.call() as target:
                if target is None:
                    continue
                if target != channel_target:
                    if channel is not None:
                        channel.close()
                    channel, channel_target = grpc.insecure_channel(target), target
                stub = pb_grpc.MemoryServiceStub(channel)
                conversation = f"c{self.index}-{session}"
                try:
                    roll = rng.random()
                    if roll < 0.06:
                        stub.EndSession(
                            pb.EndSessionRequest(
                                agent_id=agent, conversation_id=conversation, wait=roll < 0.02
                            ),
                            timeout=10,
                        )
                        session, turn = session + 1, 0
                    elif roll < 0.12:
                        stub.AssembleContext(
                            pb.AssembleContextRequest(
                                agent_id=agent, query="what did we decide about the migration?"
                            ),
                            timeout=10,
                        )
                    else:
                        token = f"k{self.index}s{session}t{turn}"
                        reply = stub.BufferTurn(
                            pb.BufferTurnRequest(
                                agent_id=agent,
                                conversation_id=conversation,
                                user_message=turn_text(token, "user"),
                                assistant_message=turn_text(token, "assistant"),
                            ),
                            timeout=10,
                        )
                        self.acks.append(
                            Ack(agent, conversation, token, reply.signal_id, tuple(reply.transcript_ids))
                        )
                        turn += 1
                        if turn >= rng.randint(4, 10):
                            session, turn = session + 1, 0
                except grpc.RpcError as error:
                    code = error.code()  # type: ignore[attr-defined]
                    self.errors[code.name] += 1
                    if code not in EXPECTED_DURING_KILLS:
                        self.unexpected.append(f"{code.name}: {error.details()}")  # type: ignore[attr-defined]
                    if code == grpc.StatusCode.UNAVAILABLE:
                        turn += 1  # the turn may or may not have been stored; never reuse its token
            time.sleep(rng.uniform(0.03, 0.08))
        if channel is not None:
            channel.close()


def _consolidate_in_background(target: str) -> threading.Event:
    """Start RunConsolidation; the event is set once it answered (not set if memoryd died first)."""
    answered = threading.Event()

    def run() -> None:
        with grpc.insecure_channel(target) as channel:
            try:
                pb_grpc.MemoryServiceStub(channel).RunConsolidation(pb.RunConsolidationRequest(), timeout=30)
                answered.set()
            except grpc.RpcError:
                return  # memoryd was killed during the run: no answer is an expected outcome, `answered` stays clear

    threading.Thread(target=run, daemon=True).start()
    return answered


def _kill_at(mode: str, memoryd: ServiceProcess, inferd: RecordingInferd, rng: random.Random) -> str:
    """Wait for the mode's moment, then SIGKILL; returns what was going on when the kill landed."""
    if mode == "startup":
        landed = "startup"
    elif mode == "distillation":
        deadline = time.monotonic() + 6
        while inferd.in_flight == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.05))
        landed = "distillation" if inferd.in_flight else "random"
    elif mode == "consolidation":
        # The pass's identity-narrative step calls the (slow) model after decay, merge and promote committed.
        time.sleep(rng.uniform(0.3, 1.0))
        answered = _consolidate_in_background(memoryd.target)
        deadline = time.monotonic() + 6
        while not inferd.narratives_in_flight and not answered.is_set() and time.monotonic() < deadline:
            time.sleep(0.005)
        landed = "consolidation" if inferd.narratives_in_flight else "random"
    else:
        time.sleep(rng.uniform(0.2, 2.0))
        landed = "distillation" if inferd.in_flight else "random"
    memoryd.stop(signal.SIGKILL)
    return landed


def _scalar(db: Path, sql: str) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as connection:
        value = int(connection.execute(sql).fetchone()[0])
    connection.close()
    return value


def test_kill_9_at_random_moments_loses_and_repeats_nothing(tmp_path: Path) -> None:
    write_memory_config(tmp_path)
    db = tmp_path / "memory" / "memory.sqlite"
    inferd_server, inferd = start_recording_inferd(delay_s=(0.05, 0.3))
    args = ["--inferd", inferd_server.target, "--log-level", "WARNING"]
    gate = Gate()
    clients = [Client(i, gate) for i in range(CLIENTS)]
    threads = [threading.Thread(target=c.run, name=f"client-{c.index}", daemon=True) for c in clients]
    for thread in threads:
        thread.start()
    rng = random.Random(2024)
    landed: Counter[str] = Counter()
    problems: list[str] = []
    try:
        for kill in range(KILLS):
            memoryd = spawn("memoryd", tmp_path, args)
            gate.resume(memoryd.target)
            landed[_kill_at(MODES[kill % len(MODES)], memoryd, inferd, rng)] += 1
            gate.pause()
            audit = audit_store(db, [a for c in clients for a in c.acks], inferd.replies)
            problems += [f"after kill {kill + 1}: {p}" for p in audit.problems[:10]]
            assert not problems, "\n".join(problems)
        gate.stop()
        for thread in threads:
            thread.join(15)
        # Last restart, no clients: startup recovery alone must distil every pending turn.
        memoryd = spawn("memoryd", tmp_path, args)
        try:
            deadline = time.monotonic() + 90
            while _scalar(db, "SELECT count(*) FROM pending_signals WHERE status = 'pending'") and (
                time.monotonic() < deadline
            ):
                time.sleep(0.2)
            with grpc.insecure_channel(
                memoryd.target
            ) as channel:  # and a pass after all those interrupted ones
                report = (
                    pb_grpc.MemoryServiceStub(channel)
                    .RunConsolidation(pb.RunConsolidationRequest(), timeout=60)
                    .report
                )
            assert [s.name for s in report.steps if s.error] == [], report
        finally:
            memoryd.stop(signal.SIGTERM)
    finally:
        gate.stop()
        inferd_server.stop(0)
    acks = [a for c in clients for a in c.acks]
    audit = audit_store(db, acks, inferd.replies)
    errors = sum((c.errors for c in clients), Counter())
    print(
        f"kills landed {dict(landed)}; {len(acks)} turns acknowledged; {audit.episodes} episodes; "
        f"{len(inferd.replies)} Generate calls; client errors {dict(errors)}"
    )
    assert not audit.problems, "\n".join(audit.problems[:20])
    assert audit.signals["pending"] == 0, f"recovery left {audit.signals['pending']} turns pending"
    assert audit.signals["dead_letter"] == 0
    unexpected = [e for c in clients for e in c.unexpected]
    assert not unexpected, unexpected[:10]
    assert sum(landed.values()) >= 20
    assert landed["distillation"] >= 3, landed
    assert landed["consolidation"] >= 1, landed
    assert len(acks) > 200, len(acks)
    assert audit.episodes > 20
