"""History backfilled through the real Ingest RPC with a 2023 session date survives the first consolidation pass
(issue 22 item 6: the LoCoMo benchmark fell to 0% once the first scheduled pass pruned the 2023-dated rows), and
goes once memory has held it for episodeRetentionDays."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from memoryd.app import App
from memoryd.config import ServiceSettings
from memoryd.consolidate import Consolidator
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from tests.fakes.fake_writer_inferd import MODEL, ScriptedInferd, digest, start_fake_inferd
from tests.support.consolidate_rows import DAY_MS, ManualClock
from tests.support.writer_memoryd import start_wired, write_config

#: 2023-05-08 13:56 UTC, the date of LoCoMo's first session.
SESSION_2023_S = 1_683_554_160
USER = "I went to the LGBTQ support group yesterday and it was so powerful."
ASSISTANT = "That sounds like a meaningful afternoon; what stayed with you most?"


@dataclass
class Rig:
    stub: pb_grpc.MemoryServiceStub
    inferd: ScriptedInferd
    app: App


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    inferd_server, inferd = start_fake_inferd()
    write_config(tmp_path, coreModel=MODEL, embeddingModel="fake-embed", episodeRetentionDays=365)
    running, app, _writer = start_wired(
        ServiceSettings(listen="127.0.0.1:0", home=tmp_path, inferd_addr=inferd_server.target)
    )
    channel = grpc.insecure_channel(running.target)
    try:
        yield Rig(pb_grpc.MemoryServiceStub(channel), inferd, app)
    finally:
        channel.close()
        running.stop(1)
        app.close()
        inferd_server.stop(0)


def _count(rig: Rig, table: str) -> int:
    return int(rig.app.store.db.scalar(f"SELECT count(*) FROM {table} WHERE agent_id = 'locomo'") or 0)


def test_ingested_2023_session_is_kept_by_the_first_pass_and_pruned_a_retention_after_ingest(
    rig: Rig,
) -> None:
    rig.inferd.push(
        digest("The user went to an LGBTQ support group and found it powerful.", topics=["support"])
    )
    request = pb.IngestRequest(
        agent_id="locomo",
        conversation_id="conv-26-session-1",
        turns=[
            pb.Turn(user=USER, assistant=ASSISTANT),
            pb.Turn(user="It made me feel accepted.", assistant=""),
        ],
    )
    request.session_time.FromSeconds(SESSION_2023_S)
    before_ms = int(time.time() * 1000)
    reply = rig.stub.Ingest(request, timeout=30)
    assert reply.turns_ingested == 2

    db = rig.app.store.db
    # Ingest keeps the session's date as conversation time, and stamps when memory learned the rows.
    dates = {int(r[0]) for r in db.query("SELECT created_at_ms FROM transcript WHERE agent_id = 'locomo'")}
    assert dates == {SESSION_2023_S * 1000}
    for conversation_at_ms, created_at_ms in db.query(
        "SELECT conversation_at_ms, created_at_ms FROM episodes WHERE agent_id = 'locomo'"
    ):
        assert conversation_at_ms == SESSION_2023_S * 1000 and created_at_ms >= before_ms
    episodes, turns = _count(rig, "episodes"), _count(rig, "transcript")
    assert (episodes, turns) == (1, 3)

    clock = ManualClock(int(time.time() * 1000) + 5 * 60_000)  # the scheduled pass five minutes later
    consolidator = Consolidator(
        rig.app.store.consolidation, rig.app.config, vectors=rig.app.vectors, clock=clock
    )
    try:
        first = consolidator.run()
        assert first.step("prune").rows_changed == 0
        assert (_count(rig, "episodes"), _count(rig, "transcript")) == (episodes, turns)

        clock.now_ms += 364 * DAY_MS
        assert consolidator.run().step("prune").rows_changed == 0

        clock.now_ms += 2 * DAY_MS  # a retention after memory learned them
        last = consolidator.run()
        assert last.step("prune").counts == {"episodes": episodes, "transcript": turns}
        assert (_count(rig, "episodes"), _count(rig, "transcript")) == (0, 0)
    finally:
        consolidator.close()
