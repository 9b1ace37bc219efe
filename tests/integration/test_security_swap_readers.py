"""Readers racing live plaintext ⇄ encrypted swaps see the old or the new store, never a closed connection.

Storage level (real files, real conversions with memoryd.storage.conversion): every read pattern memoryd uses —
one-shot queries, half-read cursors, read transactions, cursor iteration with nested queries, peewee model
queries — runs in threads while the store is converted back and forth. None may fail; a cursor kept half-read
past the swap's wait gets StoreSwappedError (retryable), and the swap still completes. The gRPC mapping of
that error (UNAVAILABLE, ErrorInfo reason, RetryInfo) is checked on a real server.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from memoryd.api.degraded_guard import DegradedStoreGuard
from memoryd.storage.conversion import convert_live, wait_quiet
from memoryd.storage.keyed import StoreSwappedError
from memoryd.storage.store import Store, open_store
from servicekit.server import ServerOptions, ServiceBinding, build_server

ROWS = 300
KEY_A, KEY_B = os.urandom(32), os.urandom(32)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    with opened.db.write():
        opened.db.execute("INSERT INTO agents (agent_id, created_at_ms, updated_at_ms) VALUES ('a', 1, 1)")
        for i in range(ROWS):
            opened.db.execute(
                "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, "
                "created_at_ms) VALUES ('a', 'c', ?, 'user', ?, 4, 1)",
                (i, f"turn {i} about the harbour"),
            )
    yield opened
    opened.close()


def _one_shot(store: Store) -> None:
    assert store.db.scalar("SELECT count(*) FROM transcript") == ROWS
    assert len(store.db.query("SELECT id, content FROM transcript")) == ROWS


def _half_read(store: Store) -> None:
    cursor = store.db.execute("SELECT id FROM transcript ORDER BY id")
    first = cursor.fetchone()
    time.sleep(0.01)  # a swap starting now must wait for the rest of the rows
    rest = cursor.fetchall()
    assert first is not None and len(rest) == ROWS - 1


def _read_transaction(store: Store) -> None:
    with store.db.read():
        total = store.db.scalar("SELECT count(*) FROM transcript")
        time.sleep(0.005)
        rows = store.db.query("SELECT id FROM transcript WHERE agent_id = 'a'")
    assert total == len(rows) == ROWS


def _iterate_with_nested_queries(store: Store) -> None:
    seen = 0
    for (row_id,) in store.db.execute("SELECT id FROM transcript ORDER BY id LIMIT 20"):
        assert store.db.scalar("SELECT count(*) FROM transcript WHERE id = ?", (row_id,)) == 1
        seen += 1
    assert seen == 20


def _model_query(store: Store) -> None:
    assert [a.agent_id for a in store.tables.Agent.select()] == ["a"]


PATTERNS: list[Callable[[Store], None]] = [
    _one_shot,
    _half_read,
    _read_transaction,
    _iterate_with_nested_queries,
    _model_query,
]


def test_every_read_pattern_survives_repeated_live_swaps(store: Store, tmp_path: Path) -> None:
    stop = threading.Event()
    failures: list[str] = []
    done = [0] * len(PATTERNS)

    def run(index: int) -> None:
        pattern = PATTERNS[index]
        while not stop.is_set():
            try:
                pattern(store)
                done[index] += 1
            except BaseException as error:  # every failure is reported by the assertion below
                failures.append(f"{pattern.__name__}: {type(error).__name__}: {error}")
                stop.wait(0.05)
        store.db.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(PATTERNS)) for _ in range(2)]
    for thread in threads:
        thread.start()
    staged = tmp_path / ".memory.sqlite.converting"
    keys: list[bytes | None] = [KEY_A, KEY_B, None] * 4
    current: bytes | None = None
    try:
        for new in keys:
            time.sleep(0.05)
            convert_live(store.db, staged, current, new)
            current = new
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
    assert failures == []
    assert all(count > 0 for count in done), done
    assert store.db.scalar("SELECT count(*) FROM transcript") == ROWS


def test_a_cursor_kept_past_the_swap_fails_cleanly_and_the_swap_completes(store: Store) -> None:
    held: dict[str, object] = {}
    read, swapped, finished = threading.Event(), threading.Event(), threading.Event()
    outcome: list[str] = []

    def reader() -> None:
        cursor = store.db.execute("SELECT id FROM transcript ORDER BY id")
        cursor.fetchone()
        held["cursor"] = cursor
        read.set()
        swapped.wait(10)
        try:
            cursor.fetchall()
            outcome.append("rows")
        except StoreSwappedError:
            outcome.append("swapped")
        outcome.append(str(store.db.scalar("SELECT count(*) FROM transcript")))  # reconnects to the new file
        finished.set()
        store.db.close()

    thread = threading.Thread(target=reader)
    thread.start()
    assert read.wait(10)
    with store.db.writes_held():
        started = time.monotonic()
        store.db.pw.go_offline(txn_wait_s=0.2)
        wait_quiet(store.db.path, None, timeout_s=2.0)  # no zombie handle keeps the old file open
        store.db.swap(store.db.path, None)
        assert time.monotonic() - started < 2.0
    swapped.set()
    assert finished.wait(10)
    thread.join(10)
    assert outcome == ["swapped", str(ROWS)]


def _status_of(error: grpc.RpcError) -> status_pb2.Status:
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            return status_pb2.Status.FromString(value)
    raise AssertionError("no status details")


def test_a_call_cut_short_by_a_swap_answers_unavailable_with_reason_and_retry_info() -> None:
    def swapped(request: bytes, context: grpc.ServicerContext) -> bytes:
        raise StoreSwappedError()

    handler = grpc.method_handlers_generic_handler(
        "test.Swap",
        {"Call": grpc.unary_unary_rpc_method_handler(swapped)},
    )
    guard = DegradedStoreGuard(lambda: False, lambda: RuntimeError("unused"))
    server = build_server(
        ServerOptions(address="127.0.0.1:0", domain="memory.osaurus.dev", extra_interceptors=[guard]),
        [ServiceBinding("test.Swap", lambda s: s.add_generic_rpc_handlers((handler,)))],
    )
    try:
        with grpc.insecure_channel(server.target) as channel:
            call = channel.unary_unary("/test.Swap/Call")
            with pytest.raises(grpc.RpcError) as raised:
                call(b"", timeout=10)
    finally:
        server.stop(grace_s=0)
    error = raised.value
    assert error.code() == grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
    details = _status_of(error).details
    info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
    assert any(d.Unpack(info) for d in details) and info.reason == "STORE_SWAPPED"
    assert any(d.Unpack(retry) for d in details) and retry.retry_delay.ToMilliseconds() > 0
