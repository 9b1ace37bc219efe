"""Two stores over one PostgreSQL schema (two replicas' handles, each with its own connections): BufferTurn's
idempotency key and the distillation commit hold across them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

import pytest
from psycopg.conninfo import conninfo_to_dict

from memoryd.domain import BufferedTurn, TurnInput, now_ms
from memoryd.storage.store import Store, open_store
from tests.support.postgres import PostgresInstance, postgres_or_skip


@pytest.fixture(scope="module")
def pg() -> Iterator[PostgresInstance]:
    with postgres_or_skip() as instance:
        yield instance


@pytest.fixture
def replicas(pg: PostgresInstance) -> Iterator[tuple[Store, Store]]:
    url = database_url(pg.create_database(f"replicas_{now_ms() % 10_000_000}"))
    first = open_store(url, schema="memory")
    second = open_store(url, schema="memory")
    yield first, second
    for store in (first, second):
        close_all = getattr(store.db, "close_all", None)
        if callable(close_all):
            close_all()
        store.close()


def database_url(dsn: str) -> str:
    """The postgresql:// URL open_store takes for a keyword/value DSN (Unix socket directory as `host`)."""
    parts = conninfo_to_dict(dsn)
    query = urlencode({k: str(v) for k, v in parts.items() if k not in ("dbname",) and v is not None})
    return f"postgresql:///{parts.get('dbname', '')}?{query}"


def _turn(i: int, request_id: str) -> TurnInput:
    return TurnInput(
        "agent", f"conv-{i % 3}", f"user says {i}", f"assistant answers {i}", now_ms(), request_id
    )


def test_a_retry_racing_on_both_replicas_is_stored_once(replicas: tuple[Store, Store]) -> None:
    first, second = replicas
    rounds = 40
    results: list[tuple[BufferedTurn, BufferedTurn]] = []
    for i in range(rounds):
        barrier = threading.Barrier(2)
        turn = _turn(i, f"req-{i}")

        def send(store: Store, turn: TurnInput = turn, barrier: threading.Barrier = barrier) -> BufferedTurn:
            barrier.wait()
            return store.turns.buffer_if_enabled(turn)

        with ThreadPoolExecutor(2) as pool:
            a, b = pool.map(send, (first, second))
        results.append((a, b))
    for a, b in results:
        assert a.signal_id == b.signal_id and a.transcript_ids == b.transcript_ids
        assert a.replayed != b.replayed  # exactly one of them stored the turn
    signals = first.db.scalar("SELECT count(*) FROM pending_signals")
    rows = first.db.scalar("SELECT count(*) FROM transcript")
    assert signals == rounds and rows == 2 * rounds


def test_concurrent_turns_of_one_conversation_get_distinct_chunks(replicas: tuple[Store, Store]) -> None:
    first, second = replicas

    def send(i: int) -> BufferedTurn:
        store = first if i % 2 else second
        return store.turns.buffer_if_enabled(TurnInput("agent", "shared", f"u{i}", f"a{i}", now_ms()))

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(send, range(60)))
    chunks = [
        r[0] for r in first.db.query("SELECT chunk_index FROM transcript WHERE conversation_id = 'shared'")
    ]
    assert len(chunks) == 120 and len(set(chunks)) == 120
