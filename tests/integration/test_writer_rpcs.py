"""EndSession, Ingest, SyncNow and the BufferTurn seam over gRPC: memoryd (writer wired) + scripted inferd."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from memoryd.app import App
from memoryd.config import ServiceSettings
from memoryd.write import Writer
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.server import RunningServer
from tests.fakes.fake_writer_inferd import MODEL, ScriptedInferd, digest, start_fake_inferd
from tests.support.writer_memoryd import start_wired, write_config

USER = "I am moving to Berlin in March and need to find a flat near Tempelhofer Feld."
ASSISTANT = "Neukölln and Tempelhof are close to the park; start with the big listing sites."


@dataclass
class Rig:
    stub: pb_grpc.MemoryServiceStub
    inferd: ScriptedInferd
    app: App
    writer: Writer


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    inferd_server, inferd = start_fake_inferd()
    write_config(tmp_path, coreModel=MODEL, embeddingModel="fake-embed", summaryDebounceSeconds=10)
    running: RunningServer
    running, app, writer = start_wired(
        ServiceSettings(listen="127.0.0.1:0", home=tmp_path, inferd_addr=inferd_server.target)
    )
    channel = grpc.insecure_channel(running.target)
    try:
        yield Rig(pb_grpc.MemoryServiceStub(channel), inferd, app, writer)
    finally:
        channel.close()
        running.stop(1)
        app.close()
        inferd_server.stop(0)


def _violations(error: grpc.RpcError) -> tuple[str, list[str]]:
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    reason, fields = "", []
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields = [v.field for v in bad.field_violations]
    return reason, fields


def test_buffer_turn_arms_the_debounce_and_end_session_distils(rig: Rig) -> None:
    before = time.time()
    reply = rig.stub.BufferTurn(
        pb.BufferTurnRequest(
            agent_id="a", conversation_id="c", user_message=USER, assistant_message=ASSISTANT
        ),
        timeout=5,
    )
    assert reply.distillation_scheduled
    assert before + 9 <= reply.flush_time.seconds + reply.flush_time.nanos / 1e9 <= time.time() + 11
    assert rig.inferd.generate_calls == 0
    end = rig.stub.EndSession(pb.EndSessionRequest(agent_id="a", conversation_id="c", wait=True), timeout=10)
    assert (end.signals_flushed, end.outcome) == (1, "distilled") and end.episode_id > 0
    stats = rig.stub.GetStats(pb.GetStatsRequest(), timeout=5)
    assert stats.pending_signals == 0 and stats.processing.total_calls == 1
    assert stats.processing.success_rate == 1.0


def test_end_session_without_wait_returns_at_once(rig: Rig) -> None:
    rig.stub.BufferTurn(
        pb.BufferTurnRequest(
            agent_id="a", conversation_id="c", user_message=USER, assistant_message=ASSISTANT
        ),
        timeout=5,
    )
    end = rig.stub.EndSession(pb.EndSessionRequest(agent_id="a", conversation_id="c"), timeout=5)
    assert (end.signals_flushed, end.outcome, end.episode_id) == (1, "", 0)
    deadline = time.monotonic() + 10
    while rig.stub.GetStats(pb.GetStatsRequest(), timeout=5).pending_signals and time.monotonic() < deadline:
        time.sleep(0.02)
    assert rig.stub.GetStats(pb.GetStatsRequest(), timeout=5).pending_signals == 0


def test_ingest_reports_outcome_and_episode(rig: Rig) -> None:
    rig.inferd.push(digest("Moving to Berlin.", pinned=[("User is moving to Berlin in March", 0.8)]))
    request = pb.IngestRequest(
        agent_id="bench-agent",
        conversation_id="s1",
        turns=[pb.Turn(user=USER, assistant=ASSISTANT), pb.Turn(user="Budget is 1200 euros", assistant="")],
    )
    request.session_time.FromSeconds(1_700_000_000)
    reply = rig.stub.Ingest(request, timeout=30)
    assert (reply.turns_ingested, reply.distillation) == (2, "distilled") and reply.episode_id > 0
    skipped = rig.stub.Ingest(
        pb.IngestRequest(
            agent_id="bench-agent", conversation_id="s2", turns=[pb.Turn(user="hi")], skip_extraction=True
        ),
        timeout=30,
    )
    assert (skipped.turns_ingested, skipped.distillation, skipped.episode_id) == (1, "", 0)
    agents = rig.stub.ListAgents(pb.ListAgentsRequest(), timeout=5).agents
    # The episode, the move and the user's budget ("Budget is 1200 euros": a target amount, slotfill.goal).
    assert [(a.agent_id, a.memory_entry_count) for a in agents] == [("bench-agent", 3)]


def test_ingest_canonicalises_uuid_agent_ids(rig: Rig) -> None:
    agent = str(uuid.uuid4())
    rig.stub.Ingest(
        pb.IngestRequest(
            agent_id=agent.lower(), conversation_id="s", turns=[pb.Turn(user=USER)], skip_extraction=True
        ),
        timeout=10,
    )
    assert (
        rig.stub.GetAgent(pb.GetAgentRequest(agent_id=agent.upper()), timeout=5).agent.agent_id
        == agent.upper()
    )


def test_ingest_validation(rig: Rig) -> None:
    with pytest.raises(grpc.RpcError) as info:
        rig.stub.Ingest(pb.IngestRequest(agent_id="has space", conversation_id=""), timeout=5)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    reason, fields = _violations(info.value)
    assert reason == "INVALID_AGENT_ID" and fields == ["agent_id", "conversation_id", "turns"]
    with pytest.raises(grpc.RpcError) as info:
        rig.stub.Ingest(
            pb.IngestRequest(
                agent_id="a", conversation_id="c", turns=[pb.Turn(user="ok"), pb.Turn(assistant="x")]
            ),
            timeout=5,
        )
    assert _violations(info.value) == ("MISSING_FIELD", ["turns[1].user"])


def test_ingest_when_memory_is_disabled(rig: Rig) -> None:
    rig.app.config.update({"enabled": False})
    with pytest.raises(grpc.RpcError) as info:
        rig.stub.Ingest(
            pb.IngestRequest(agent_id="a", conversation_id="c", turns=[pb.Turn(user=USER)]), timeout=5
        )
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert _violations(info.value)[0] == "MEMORY_DISABLED"


def test_sync_now_reports_each_conversation(rig: Rig) -> None:
    rig.app.config.update({"extraction_mode": "manual"})
    for agent, conv in (("a", "c1"), ("b", "c2")):
        reply = rig.stub.BufferTurn(
            pb.BufferTurnRequest(
                agent_id=agent, conversation_id=conv, user_message=USER, assistant_message=ASSISTANT
            ),
            timeout=5,
        )
        assert not reply.distillation_scheduled
    only_b = rig.stub.SyncNow(pb.SyncNowRequest(agent_id="b"), timeout=30)
    assert [(o.agent_id, o.conversation_id, o.outcome) for o in only_b.outcomes] == [("b", "c2", "distilled")]
    rest = rig.stub.SyncNow(pb.SyncNowRequest(), timeout=30)
    assert [(o.agent_id, o.outcome) for o in rest.outcomes] == [("a", "distilled")]
    assert rest.outcomes[0].episode_id > 0
    assert rig.stub.SyncNow(pb.SyncNowRequest(), timeout=30).outcomes == []


def test_end_session_validation(rig: Rig) -> None:
    with pytest.raises(grpc.RpcError) as info:
        rig.stub.EndSession(pb.EndSessionRequest(agent_id="", conversation_id="c"), timeout=5)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def _index_all(rig: Rig) -> None:
    """Embed whatever rows lack a vector, now (the background indexer would, later)."""
    for _ in range(100):  # bounded: each pass indexes a batch
        if rig.app.indexer.run_once() == 0:
            return
    raise AssertionError("the indexer kept finding rows without vectors")


def test_reingest_with_identity_facts_keeps_the_vector_index_in_step(rig: Rig) -> None:
    def ingest(summary: str, fact: str) -> None:
        rig.inferd.push(digest(summary, pinned=[(fact, 0.8)], identity=["User's name is Alice"]))
        request = pb.IngestRequest(
            agent_id="agent-v",
            conversation_id="s1",
            turns=[
                pb.Turn(user="Hi, my name is Alice.", assistant="Hello Alice."),
                pb.Turn(user=USER, assistant=ASSISTANT),
                pb.Turn(user="Budget is 1200 euros"),
            ],
        )
        assert rig.stub.Ingest(request, timeout=30).distillation == "distilled"
        _index_all(rig)

    ingest("Moving to Berlin.", "User is moving to Berlin in March")
    assert rig.app.store.db.scalar("SELECT count(*) FROM identity_facts WHERE agent_id = 'agent-v'") == 1
    ingest("Moving to Berlin, revised.", "User moves to Berlin in April")
    model = rig.app.config.get().embedding_model
    state = rig.app.vectors.state("agent-v", model)
    rows = sum(
        int(rig.app.store.db.scalar(f"SELECT count(*) FROM {table} WHERE agent_id = 'agent-v'") or 0)
        for table in ("pinned_facts", "episodes", "transcript")
    )
    assert (state.vectors, state.rows, state.stale) == (rows, rows, False)
