"""Two real writers (two replicas' write paths) over one PostgreSQL schema, the scripted fake inferd on a real port:
each conversation is distilled exactly once whichever replica got its turns, EndSession works from either side,
a dead replica's claims are taken over, and a replica hears the other's writes within a second."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from inferd.client import InferenceClient
from memoryd.domain import TurnInput, now_ms
from memoryd.storage.distillation import SqliteWriterStore
from memoryd.storage.store import Store, open_store
from memoryd.wiring.replication import Replication, build_replication
from memoryd.write import DistillPolicy, Writer, WriterSettings
from memoryd.write.retry import RetryPolicy
from servicekit.server import RunningServer
from tests.fakes.fake_writer_inferd import EMBED_MODEL, MODEL, ScriptedInferd, start_fake_inferd
from tests.integration.test_replication_store import database_url
from tests.support.postgres import PostgresInstance, postgres_or_skip


@pytest.fixture(scope="module")
def pg() -> Iterator[PostgresInstance]:
    with postgres_or_skip() as instance:
        yield instance


@dataclass
class Replica:
    store: Store
    replication: Replication
    writer: Writer
    invalidated: list[str | None]

    def buffer(self, agent: str, conversation: str, text: str) -> None:
        turn = TurnInput(agent, conversation, text, f"I see: {text}", now_ms())
        self.store.turns.buffer(turn)
        self.writer.on_turn_buffered(agent, conversation)
        self.replication.broadcasting(lambda agent_id: None)(agent)

    def close(self) -> None:
        self.writer.close(2)
        self.replication.close()
        close_all = getattr(self.store.db, "close_all", None)
        if callable(close_all):
            close_all()
        self.store.close()


@dataclass
class Cluster:
    replicas: list[Replica]
    inferd: ScriptedInferd
    server: RunningServer
    client: InferenceClient

    def episodes(self) -> list[tuple[str, str]]:
        rows = self.replicas[0].store.db.query("SELECT agent_id, conversation_id FROM episodes")
        return [(str(a), str(c)) for a, c in rows]

    def pending(self) -> int:
        return int(
            self.replicas[0].store.db.scalar("SELECT count(*) FROM pending_signals WHERE status = 'pending'")
        )


def _replica(url: str, client: InferenceClient, debounce_s: float, lease_s: float, capacity: int) -> Replica:
    store = open_store(url, schema="memory")
    invalidated: list[str | None] = []
    replication = build_replication(store, [invalidated.append], lease_s=lease_s, capacity=capacity)
    assert replication is not None
    settings = WriterSettings(core_model=MODEL, embedding_model=EMBED_MODEL, summary_debounce_s=debounce_s)
    writer = Writer(
        SqliteWriterStore(store.db, store.tables, store.agents),
        client,
        lambda: settings,
        policy=DistillPolicy(retry=RetryPolicy(max_calls=2, base_delay_s=0.01), call_timeout_s=10),
        due_queue=replication.due_queue,
        guard=replication.guard,
    )
    replication.start()
    return Replica(store, replication, writer, invalidated)


@pytest.fixture
def cluster(pg: PostgresInstance, request: pytest.FixtureRequest) -> Iterator[Cluster]:
    options = getattr(request, "param", {})
    url = database_url(pg.create_database(f"writers_{now_ms() % 10_000_000}"))
    server, inferd = start_fake_inferd()
    client = InferenceClient(server.target, deadline_s=10)
    replicas = [
        _replica(url, client, options.get("debounce_s", 0.3), options.get("lease_s", 30.0), 2)
        for _ in range(2)
    ]
    yield Cluster(replicas, inferd, server, client)
    for replica in replicas:
        replica.close()
    client.close()
    server.stop(0)


def _wait(predicate: object, timeout_s: float) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


def _text(i: int, part: int) -> str:
    return f"Conversation {i} part {part}: the user explains their garden plans for tomatoes and basil in spring."


@pytest.mark.slow
def test_200_conversations_over_both_replicas_are_each_distilled_once(cluster: Cluster) -> None:
    a, b = cluster.replicas
    for i in range(200):  # each conversation gets one turn on each replica
        a.buffer(f"agent-{i % 10}", f"conv-{i}", _text(i, 1))
        b.buffer(f"agent-{i % 10}", f"conv-{i}", _text(i, 2))
    started = time.monotonic()
    for replica in cluster.replicas:
        replica.writer.start(recover=False)
    _wait(lambda: cluster.pending() == 0 and len(cluster.episodes()) >= 200, 60)
    time.sleep(0.5)  # anything distilled twice would show now
    episodes = cluster.episodes()
    assert len(episodes) == 200 and len(set(episodes)) == 200
    assert cluster.inferd.generate_calls == 200
    claimed = [r.replication.queue.claimed for r in cluster.replicas if r.replication.queue is not None]
    assert len(claimed) == 2 and min(claimed) > 0, claimed  # both replicas did part of the work
    assert time.monotonic() - started < 60


def test_end_session_on_the_other_replica_distils_once(cluster: Cluster) -> None:
    a, b = cluster.replicas
    for replica in cluster.replicas:
        replica.writer.start(recover=False)
    a.buffer("agent", "talk", _text(1, 1))
    a.buffer("agent", "talk", _text(1, 2))
    result = b.writer.end_session("agent", "talk", wait=True)  # the turns went to a; EndSession reaches b
    assert result.outcome == "distilled" and result.episode_id > 0
    time.sleep(0.8)  # a's debounce (0.3 s) would fire now if the EndSession had not disarmed it
    assert cluster.episodes() == [("agent", "talk")] and cluster.inferd.generate_calls == 1


@pytest.mark.parametrize("cluster", [{"lease_s": 1.5, "debounce_s": 0.1}], indirect=True)
def test_a_dead_replicas_claim_is_taken_over_and_its_late_commit_is_refused(cluster: Cluster) -> None:
    a, b = cluster.replicas
    stuck = threading.Event()
    cluster.inferd.hold = stuck  # a's distillation hangs in the model call ...
    a.buffer("agent", "stuck", _text(2, 1))
    a.writer.start(recover=False)
    assert cluster.inferd.entered.wait(10)
    cluster.inferd.hold = None  # (later calls do not hang)
    a.writer.debouncer.close()  # ... and a stops renewing its lease, as a killed replica would
    b.writer.start(recover=False)
    _wait(lambda: cluster.episodes() == [("agent", "stuck")], 15)
    assert b.replication.queue is not None and b.replication.queue.claimed == 1
    stuck.set()  # a wakes up after all: its commit finds the signals processed and writes nothing
    _wait(lambda: cluster.inferd.generate_calls == 2, 5)
    time.sleep(0.5)
    assert cluster.episodes() == [("agent", "stuck")]


def test_a_replica_hears_the_others_writes_within_a_second(cluster: Cluster) -> None:
    a, b = cluster.replicas
    started = time.monotonic()
    a.buffer("agent-x", "c", _text(3, 1))
    _wait(lambda: "agent-x" in b.invalidated, 1.0)
    assert time.monotonic() - started < 1.0
    assert "agent-x" not in a.invalidated  # its own change is not echoed back
