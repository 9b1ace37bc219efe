"""BufferTurn's request_id: a retry within the window stores nothing and answers the first call's result, also when
the retry races the first call; another id, no id, or an expired window stores again; reuse with other content is
refused."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from memoryd.storage.transcript import REQUEST_WINDOW_MS
from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.memoryd_server import MemorydHandle, rpc_error, running_memoryd


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with running_memoryd(tmp_path / "home") as handle:
        yield handle


def _call(
    handle: MemorydHandle, request_id: str, user: str = "I water the tomatoes at dawn"
) -> mpb.BufferTurnResponse:
    request = mpb.BufferTurnRequest(
        agent_id="agent-1",
        conversation_id="c1",
        user_message=user,
        assistant_message="Good habit.",
        request_id=request_id,
    )
    reply: mpb.BufferTurnResponse = handle.memory.BufferTurn(request, timeout=10)
    return reply


def _stored(handle: MemorydHandle) -> tuple[int, int]:
    db = handle.app.store.db
    return (
        int(db.scalar("SELECT count(*) FROM transcript") or 0),
        int(db.scalar("SELECT count(*) FROM pending_signals") or 0),
    )


def test_a_retry_answers_the_first_result_and_stores_nothing(memoryd: MemorydHandle) -> None:
    first = _call(memoryd, "7f1c2d9e-retry-1")
    assert not first.replayed and _stored(memoryd) == (2, 1)
    again = _call(memoryd, "7f1c2d9e-retry-1")
    assert again.replayed
    assert (again.signal_id, list(again.transcript_ids)) == (first.signal_id, list(first.transcript_ids))
    assert _stored(memoryd) == (2, 1)
    other = _call(memoryd, "7f1c2d9e-retry-2")
    assert not other.replayed and other.signal_id != first.signal_id and _stored(memoryd) == (4, 2)
    # Without a request id every call stores (the old behaviour).
    _call(memoryd, "")
    _call(memoryd, "")
    assert _stored(memoryd) == (8, 4)


def test_a_retry_racing_the_first_call_is_stored_once(memoryd: MemorydHandle) -> None:
    replies: list[mpb.BufferTurnResponse] = []
    start = threading.Barrier(8)

    def send() -> None:
        start.wait()
        replies.append(_call(memoryd, "race-1"))

    threads = [threading.Thread(target=send) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert len(replies) == 8 and _stored(memoryd) == (2, 1)
    assert len({(r.signal_id, tuple(r.transcript_ids)) for r in replies}) == 1
    assert sum(not r.replayed for r in replies) == 1


def test_after_the_window_the_same_id_stores_again(memoryd: MemorydHandle) -> None:
    _call(memoryd, "old-1")
    db = memoryd.app.store.db
    with db.write():  # the first call is now older than the window
        db.execute("UPDATE turn_requests SET created_at_ms = created_at_ms - ?", (REQUEST_WINDOW_MS + 1,))
    assert not _call(memoryd, "old-1").replayed
    assert _stored(memoryd) == (4, 2)


def test_reusing_an_id_for_another_turn_is_refused(memoryd: MemorydHandle) -> None:
    _call(memoryd, "reused-1")
    error = rpc_error(lambda: _call(memoryd, "reused-1", user="a different message"))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.reason == "REQUEST_ID_REUSED"
    assert _stored(memoryd) == (2, 1)


@pytest.mark.parametrize("bad", ["x" * 129, "has space", "tab\there", "ünïcode"])
def test_malformed_request_ids_are_rejected(memoryd: MemorydHandle, bad: str) -> None:
    error = rpc_error(lambda: _call(memoryd, bad))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in error.field_violations] == ["request_id"]


def test_deleting_the_agent_forgets_its_request_ids(memoryd: MemorydHandle) -> None:
    _call(memoryd, "gone-1")
    memoryd.memory.DeleteAgent(mpb.DeleteAgentRequest(agent_id="agent-1"), timeout=10)
    again = _call(memoryd, "gone-1")
    assert not again.replayed and _stored(memoryd) == (2, 1)
