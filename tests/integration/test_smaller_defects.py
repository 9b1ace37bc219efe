"""Smaller defects of issue 18 over gRPC: a huge UpdateConfig mask keeps its status, SearchMemory for an unknown
agent is NOT_FOUND, an identity without a narrative has no generate time, and occur times far from now are refused."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import grpc
import pytest
from google.protobuf import field_mask_pb2

from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.memoryd_server import MemorydHandle, buffer, enable_recall, rpc_error, running_memoryd


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with running_memoryd(tmp_path / "home") as handle:
        yield handle


def test_update_config_with_thousands_of_unknown_paths_keeps_its_status(memoryd: MemorydHandle) -> None:
    paths = [f"config.no_such_field_{i:05d}_" + "x" * 40 for i in range(2000)]  # ~110 KB of violations
    request = cpb.UpdateConfigRequest(update_mask=field_mask_pb2.FieldMask(paths=paths))
    error = rpc_error(lambda: memoryd.console.UpdateConfig(request, timeout=10))
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_FIELD")
    assert 0 < len(error.field_violations) <= 20
    assert error.metadata.get("field_violations_total") == "2000"


def test_search_memory_for_an_unknown_agent_is_not_found(memoryd: MemorydHandle) -> None:
    request = mpb.SearchMemoryRequest(agent_id="nobody", scope=mpb.SCOPE_TRANSCRIPT, query="plums", limit=5)
    error = rpc_error(lambda: memoryd.memory.SearchMemory(request, timeout=10))
    assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "AGENT_NOT_FOUND")
    buffer(
        memoryd.memory, "known", "c1", "I like plums"
    )  # a known agent with recall off: still PERMISSION_DENIED
    known = mpb.SearchMemoryRequest(agent_id="known", scope=mpb.SCOPE_TRANSCRIPT, query="plums", limit=5)
    assert rpc_error(lambda: memoryd.memory.SearchMemory(known, timeout=10)).code == (
        grpc.StatusCode.PERMISSION_DENIED
    )
    enable_recall(memoryd.memory, "known")
    assert memoryd.memory.SearchMemory(known, timeout=10).hits


def test_an_identity_without_a_narrative_has_no_generate_time(memoryd: MemorydHandle) -> None:
    identity = memoryd.memory.GetIdentity(mpb.GetIdentityRequest(), timeout=10).identity
    assert not identity.content and not identity.HasField("generate_time")


@pytest.mark.parametrize(
    "when",
    [datetime(1, 1, 1, tzinfo=UTC), datetime(1960, 5, 1, tzinfo=UTC), datetime(9999, 12, 31, tzinfo=UTC)],
)
def test_occur_times_far_from_now_are_refused(memoryd: MemorydHandle, when: datetime) -> None:
    request = mpb.BufferTurnRequest(agent_id="a", conversation_id="c", user_message="hello")
    request.occur_time.FromDatetime(when)
    error = rpc_error(lambda: memoryd.memory.BufferTurn(request, timeout=10))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in error.field_violations] == ["occur_time"]
    ingest = mpb.IngestRequest(
        agent_id="a", conversation_id="c", turns=[mpb.Turn(user="hi")], skip_extraction=True
    )
    ingest.session_time.FromDatetime(when)
    assert [
        v.field for v in rpc_error(lambda: memoryd.memory.Ingest(ingest, timeout=10)).field_violations
    ] == ["session_time"]


def test_a_recent_occur_time_is_kept(memoryd: MemorydHandle) -> None:
    request = mpb.BufferTurnRequest(agent_id="a", conversation_id="c", user_message="hello")
    request.occur_time.FromDatetime(datetime(2024, 6, 1, tzinfo=UTC))
    memoryd.memory.BufferTurn(request, timeout=10)
    stored = memoryd.app.store.db.scalar("SELECT created_at_ms FROM transcript")
    assert stored == int(datetime(2024, 6, 1, tzinfo=UTC).timestamp() * 1000)
