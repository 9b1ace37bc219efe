"""kill -9 memoryd at random moments of a conversion: the store always reopens, complete, in one mode or the other."""

from __future__ import annotations

import contextlib
import random
import signal
import threading
import time
from pathlib import Path

import pytest

from memoryd.client import MemoryClient
from memoryd.security.keys import KeyStore
from memoryd.security.opener import file_kind, open_memory_store
from memoryd.security.quarantine import StorePaths
from memoryd.storage.store import open_store
from servicekit.errors import ServiceError
from tests.support.procs import spawn

ROWS = 20_000


def _paths(home: Path) -> StorePaths:
    memory = home / "memory"
    return StorePaths(memory / "memory.sqlite", memory / "vectors", home / "keys", home / "quarantine")


def _seed(home: Path) -> None:
    store = open_store(home / "memory" / "memory.sqlite")
    try:
        with store.db.write():
            store.db.execute("INSERT INTO agents (agent_id, created_at_ms, updated_at_ms) VALUES ('a', 1, 1)")
            for start in range(0, ROWS, 1000):
                for i in range(start, start + 1000):
                    store.db.execute(
                        "INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, "
                        "token_count, created_at_ms) VALUES ('a', 'c', ?, 'user', ?, 8, 1)",
                        (i, f"turn number {i} about the lighthouse and the harbour"),
                    )
    finally:
        store.close()


def _reopen(home: Path) -> tuple[str, int]:
    opened = open_memory_store(_paths(home), KeyStore(home / "keys"))
    try:
        assert opened.failure is None, opened.failure
        return file_kind(home / "memory" / "memory.sqlite"), int(
            opened.store.db.scalar("SELECT count(*) FROM transcript")
        )
    finally:
        opened.store.close()


@pytest.mark.slow
def test_kill_during_conversion_leaves_a_readable_complete_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _seed(home)
    rng = random.Random(20261130)
    outcomes: list[str] = []
    for attempt in range(4):
        target = "key_file" if file_kind(home / "memory" / "memory.sqlite") == "plaintext" else "plaintext"
        service = spawn("memoryd", home, ["--home", str(home)])
        client = MemoryClient(service.target, deadline_s=60)
        started = threading.Event()

        def convert(
            client: MemoryClient = client, target: str = target, started: threading.Event = started
        ) -> None:
            started.set()
            with contextlib.suppress(ServiceError):  # killed mid-call
                client.set_encryption(target)

        worker = threading.Thread(target=convert)
        worker.start()
        started.wait(5)
        time.sleep(rng.uniform(0.0, 0.6) if attempt else 0.0)
        service.stop(signal.SIGKILL)
        worker.join(30)
        client.close()
        kind, rows = _reopen(home)
        assert rows == ROWS
        outcomes.append(f"{target}->{kind}")
    print("conversions interrupted:", outcomes)
