"""Encrypt, re-key and decrypt while clients keep writing and reading: no acknowledged write is lost, and no read
fails (a read racing a swap is served by the old or the new store)."""

from __future__ import annotations

import threading
from pathlib import Path

from osaurus.memory.v1 import memory_pb2 as mpb
from servicekit.errors import ServiceError
from tests.support.security_rig import SQLITE_HEADER, memoryd_at


def test_conversions_under_traffic_keep_every_acknowledged_write(tmp_path: Path) -> None:
    home = tmp_path / "home"
    acked: list[str] = []
    errors: list[str] = []
    reads: list[int] = []
    stop = threading.Event()
    with memoryd_at(home) as m:
        m.memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id="w0", search_memory_enabled=True), timeout=10)

        def write(worker: int) -> None:
            n = 0
            while not stop.is_set():
                text = f"worker {worker} turn {n} about the harbour"
                try:
                    m.turn(f"w{worker}", text)
                    acked.append(text)
                except Exception as error:  # counted; the assertion below says which
                    errors.append(f"write: {type(error).__name__}: {error}")
                n += 1

        def read() -> None:
            while not stop.is_set():
                try:
                    m.memory.SearchMemory(
                        mpb.SearchMemoryRequest(
                            agent_id="w0", scope=mpb.SCOPE_TRANSCRIPT, query="harbour", limit=5
                        ),
                        timeout=10,
                    )
                    m.client.search("harbour", limit=5)
                    reads.append(1)
                except (ServiceError, Exception) as error:
                    errors.append(f"read: {type(error).__name__}: {error}")

        threads = [threading.Thread(target=write, args=(w,)) for w in range(3)] + [
            threading.Thread(target=read) for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        try:
            for mode in ("key_file", "rotate", "passphrase", "plaintext", "key_file"):
                before = len(acked)
                while len(acked) < before + 20:  # let traffic run between conversions
                    stop.wait(0.01)
                if mode == "rotate":
                    m.client.rotate_key()
                else:
                    m.client.set_encryption(mode, "correct horse battery" if mode == "passphrase" else "")
        finally:
            stop.set()
            for thread in threads:
                thread.join(30)
        stored = {row[0] for row in m.q("SELECT content FROM transcript")}
        assert set(acked) <= stored and len(acked) > 100
        assert errors == []
        assert len(reads) > 20
    assert not (home / "memory" / "memory.sqlite").read_bytes().startswith(SQLITE_HEADER)
